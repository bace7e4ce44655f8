"""The registry of engines: one line per engine in ``_BUILTIN``; others may call register_engine."""
from __future__ import annotations

from ..errors import ConfigError
from .base import Engine
from .cuda import CudaEngine
from .cupy import CupyEngine
from .numba import NumbaEngine
from .numpy import NumpyEngine

_ENGINES: dict[str, Engine] = {}


def register_engine(engine: Engine) -> Engine:
    """Add (or replace) an engine under its name; returns it."""
    if not engine.name:
        raise ValueError("an engine needs a name")
    _ENGINES[engine.name] = engine
    return engine


def get_engine(name: "str | Engine") -> Engine:
    """The engine called `name` (an Engine is returned as is); ConfigError naming the known ones."""
    if isinstance(name, Engine):
        return name
    engine = _ENGINES.get(name)
    if engine is None:
        raise ConfigError(f"unknown engine '{name}' (known: {', '.join(_ENGINES)})")
    return engine


def list_engines() -> list[str]:
    """Registered engine names, CPU reference first, in registration order."""
    return list(_ENGINES)


def reference_engine() -> Engine:
    """The engine speedups are measured against (``is_reference``; numpy)."""
    return next(e for e in _ENGINES.values() if e.is_reference)


for _engine in (NumpyEngine(), CupyEngine(), CudaEngine(), NumbaEngine(),  # a new engine: one entry here
                NumbaEngine(threads=1, name="numba1")):
    register_engine(_engine)
