"""Errors that reach the user as one clear line (CLI) or a message beside a field (GUI)."""


class ConfigError(ValueError):
    """A run configuration, parameter, problem or dimension the user asked for is not valid."""


class EngineUnavailable(RuntimeError):
    """An engine (cupy or cuda) cannot run here; the message names the cause."""


class DeviceMemoryError(MemoryError):
    """A run asks for more GPU memory than is free; the message says how much of each."""
