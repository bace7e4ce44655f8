"""The three engines and whether each can run here.

``numpy`` always runs. ``cupy`` runs the reference array code with ``xp = cupy``. ``cuda`` runs the
fused kernels of ``kernels/`` through CuPy. Every check degrades to a reason string, never a traceback.
"""
from __future__ import annotations

import functools

import numpy as np

from .errors import ConfigError, EngineUnavailable

ENGINES = ("numpy", "cupy", "cuda")


@functools.lru_cache(maxsize=None)
def gpu_status() -> tuple[bool, str]:
    """(usable, description): the device's name and memory, or why there is no usable GPU."""
    try:
        import cupy  # noqa: PLC0415
    except Exception as exc:  # ImportError, or a broken CUDA library underneath
        return False, f"CuPy is not installed or failed to import ({type(exc).__name__}: {exc})"
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:
        return False, f"no CUDA driver or device ({_short(exc)})"
    if count < 1:
        return False, "no CUDA device found"
    try:
        props = cupy.cuda.runtime.getDeviceProperties(0)
        name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
        free, total = cupy.cuda.runtime.memGetInfo()
        driver = cupy.cuda.runtime.driverGetVersion()
        runtime = cupy.cuda.runtime.runtimeGetVersion()
    except Exception as exc:
        return False, f"CUDA device could not be opened ({_short(exc)})"
    # CUDA's minor-version compatibility lets a driver run any runtime of its major version
    # (13.0 driver, 13.2 runtime is fine); an older major version cannot.
    if driver // 1000 < runtime // 1000:
        return False, (f"CUDA driver {driver // 1000}.{driver % 1000 // 10} is older than the "
                       f"runtime {runtime // 1000}.{runtime % 1000 // 10} CuPy was built for")
    return True, f"{name}, {total / 2**30:.0f} GiB ({free / 2**30:.1f} GiB free)"


def _short(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"


def engine_status(engine: str) -> tuple[bool, str]:
    """(available, reason or device description) for one engine."""
    if engine == "numpy":
        return True, "CPU (NumPy)"
    if engine in ("cupy", "cuda"):
        return gpu_status()
    raise ConfigError(f"unknown engine '{engine}' (known: {', '.join(ENGINES)})")


def available_engines() -> list[str]:
    return [e for e in ENGINES if engine_status(e)[0]]


def array_module(engine: str):
    """NumPy for the numpy engine, CuPy for the GPU engines; EngineUnavailable with the reason."""
    ok, reason = engine_status(engine)
    if not ok:
        raise EngineUnavailable(f"engine '{engine}' is not available: {reason}")
    if engine == "numpy":
        return np
    import cupy  # noqa: PLC0415

    return cupy


def algorithm_class(name: str, engine: str) -> type:
    """The class that runs algorithm `name` on `engine`."""
    from .algorithms import get_algorithm  # noqa: PLC0415

    reference = get_algorithm(name)
    if engine in ("numpy", "cupy"):
        return reference
    if engine == "cuda":
        from .cuda import cuda_algorithm  # noqa: PLC0415

        return cuda_algorithm(name)
    raise ConfigError(f"unknown engine '{engine}' (known: {', '.join(ENGINES)})")


def synchronize(xp) -> None:
    """Wait for queued device work (no-op on NumPy), so host clocks time finished work."""
    if xp is not np:
        xp.cuda.get_current_stream().synchronize()


def host_available_bytes() -> int | None:
    """MemAvailable from /proc/meminfo (Linux), or None where it cannot be read."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def check_memory(xp, nbytes: int, what: str) -> None:
    """Refuse, before allocating, a run that cannot fit: a clear message instead of an
    out-of-memory kill (host) or a failed allocation deep in a step (GPU)."""
    if xp is np:  # host memory, whatever the engine is called
        free = host_available_bytes()
        if free is not None and nbytes > free:
            raise ConfigError(f"{what} needs about {nbytes / 2**30:.1f} GiB of memory, but only "
                              f"{free / 2**30:.1f} GiB is available; use fewer walkers")
    else:
        from .cuda.base import require_device_memory  # noqa: PLC0415

        require_device_memory(xp, nbytes, what)
