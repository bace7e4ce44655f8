"""CUDA kernel sources (*.cu, *.cuh) and their loader. Imports no Qt and no CuPy at import time."""
