"""Engines: the ways of running the algorithms, as objects in one registry.

``get_engine(name)`` returns an :class:`Engine`: its status and why it is unavailable, its array
module (``xp``), ``build(algorithm, problem, params, dtype, fast_math)`` (memory check included),
``synchronize()``, ``devices()`` and flags (``is_gpu``, ``honours_fast_math``, ``compiles``).
Callers ask the engine; they never compare engine names. Adding an engine: one module here with an
Engine subclass, one line in registry.py (see CONTRIBUTING.md).

The module-level functions below are the older names, kept so that existing callers still import.
"""
from __future__ import annotations

from .base import Engine, check_memory, host_available_bytes, reference_class
from .gpu import gpu_status
from .registry import get_engine, list_engines, reference_engine, register_engine

__all__ = ["Engine", "get_engine", "list_engines", "register_engine", "reference_engine",
           "reference_class", "ENGINES", "engine_status", "available_engines", "array_module",
           "algorithm_class", "synchronize", "check_memory", "gpu_status", "host_available_bytes"]

# the engines registered at import (registry.py's built-in list); list_engines() sees later ones too
ENGINES = tuple(list_engines())


def engine_status(engine: str) -> tuple[bool, str]:
    """(available, reason or device description) for one engine."""
    return get_engine(engine).status()


def available_engines() -> list[str]:
    return [name for name in list_engines() if get_engine(name).available]


def array_module(engine: str):
    """The engine's array module; EngineUnavailable with the reason."""
    return get_engine(engine).xp


def algorithm_class(name: str, engine: str) -> type:
    """The class that runs algorithm `name` on `engine`."""
    return get_engine(engine).algorithm_class(name)


def synchronize(xp) -> None:
    """Wait for queued device work of array module `xp` (no-op on NumPy)."""
    import numpy as np  # noqa: PLC0415

    if xp is not np:
        xp.cuda.get_current_stream().synchronize()
