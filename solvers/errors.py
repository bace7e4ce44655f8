"""Errors that reach the user as one clear line (CLI) or a message beside a field (GUI)."""


class ConfigError(ValueError):
    """A run configuration, parameter, problem or dimension the user asked for is not valid."""


class EngineUnavailable(RuntimeError):
    """An engine (cupy or cuda) cannot run here; the message names the cause."""


class DeviceMemoryError(MemoryError):
    """A run asks for more GPU memory than is free; the message says how much of each."""


def one_line(text: object) -> str:
    """`text` with control characters (newline, ESC, ...) escaped, so a message stays one line and
    a name typed by the user cannot send escape sequences to the terminal."""
    out = []
    for ch in str(text):
        code = ord(ch)
        if code < 0x20 or 0x7F <= code < 0xA0:
            out.append({"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(ch, f"\\x{code:02x}"))
        else:
            out.append(ch)
    return "".join(out)
