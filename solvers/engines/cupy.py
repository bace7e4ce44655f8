"""The cupy engine: the same reference array code with ``xp = cupy`` (the naive GPU port)."""
from __future__ import annotations

from .base import Engine
from .gpu import GpuEngineMixin


class CupyEngine(GpuEngineMixin, Engine):
    name = "cupy"
    title = "CuPy: the reference array code on the GPU"
    color = (240, 150, 40)
