"""The algorithm registry: the CLI, the GUI and the tests all enumerate it."""
from __future__ import annotations

from ..errors import ConfigError

_ALGORITHMS: dict[str, type] = {}


def register_algorithm(cls: type) -> type:
    """Class decorator adding a numpy-engine algorithm under its ``name``."""
    if cls.name in _ALGORITHMS:
        raise RuntimeError(f"algorithm '{cls.name}' registered twice")
    _ALGORITHMS[cls.name] = cls
    return cls


def list_algorithms() -> list[str]:
    """Registry names of every algorithm."""
    return list(_ALGORITHMS)


def get_algorithm(name: str) -> type:
    """The reference (numpy/cupy) class of algorithm `name`."""
    try:
        return _ALGORITHMS[name]
    except KeyError:
        known = ", ".join(_ALGORITHMS)
        raise ConfigError(f"unknown algorithm '{name}' (known: {known})") from None
