"""The cupy engine: the same reference array code with ``xp = cupy`` (the naive GPU port)."""
from __future__ import annotations

from .base import Engine
from .gpu import GpuEngineMixin


class CupyEngine(GpuEngineMixin, Engine):
    name = "cupy"
    title = "CuPy: the reference array code on the GPU"
    color = (240, 150, 40)
    # the reference code's array operations compile as CuPy kernels at their first call: the
    # window's first cupy run on a fresh H100 machine drew its first frame after 12.9 s
    compiles_when_run = True
    # CuPy's pool keeps freed blocks and cannot always reuse them for the next size asked, so it
    # held more than the numpy peak that memory_estimate() declares: up to 1.36x measured on the
    # H100 (multi-directional search, 4,096 walkers, rastrigin 30-D, float32; particle swarm 1.13x)
    memory_overhead = 1.5
