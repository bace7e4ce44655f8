"""The cuda engine: fused kernels from kernels/ through CuPy (classes in solvers/cuda/)."""
from __future__ import annotations

from .base import Engine
from .gpu import GpuEngineMixin


class CudaEngine(GpuEngineMixin, Engine):
    name = "cuda"
    title = "fused CUDA kernels (many iterations per launch)"
    honours_fast_math = True
    compiles = True
    compile_message = "compiling kernels"
    color = (60, 180, 90)

    def algorithm_class(self, name: str) -> type:
        from ..cuda import cuda_algorithm  # noqa: PLC0415 - lazy: CuPy only when asked

        return cuda_algorithm(name)
