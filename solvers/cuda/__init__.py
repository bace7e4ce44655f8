"""The cuda engine: fused-kernel implementations of the algorithms (filled in by the GPU issues)."""
from __future__ import annotations

from ..errors import EngineUnavailable


def cuda_algorithm(name: str) -> type:
    raise EngineUnavailable(f"no fused CUDA kernel for '{name}' yet")
