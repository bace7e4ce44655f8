"""The numpy engine: the reference array code on the CPU, always available."""
from __future__ import annotations

from .base import Engine


class NumpyEngine(Engine):
    name = "numpy"
    title = "NumPy on the CPU (the readable reference)"
    is_reference = True
    color = (90, 140, 220)

    def _probe(self) -> tuple[bool, str]:
        return True, "CPU (NumPy)"
