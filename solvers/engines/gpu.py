"""Whether a CUDA device can be used through CuPy here (shared by the GPU engines)."""
from __future__ import annotations

import contextlib
import functools


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


def device_names() -> list[str]:
    """One line per visible CUDA device (empty without a usable GPU)."""
    if not gpu_status()[0]:
        return []
    import cupy  # noqa: PLC0415

    names = []
    for i in range(cupy.cuda.runtime.getDeviceCount()):
        props = cupy.cuda.runtime.getDeviceProperties(i)
        name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
        names.append(f"{i}: {name}, {props['totalGlobalMem'] / 2**30:.0f} GiB")
    return names


class GpuDeviceSlot:
    """One shard's place on a GPU: the device and a stream of its own (made on that device)."""

    def __init__(self, index: int):
        import cupy  # noqa: PLC0415

        self.device = cupy.cuda.Device(index)
        with self.device:
            self.stream = cupy.cuda.Stream(non_blocking=True)

    @contextlib.contextmanager
    def active(self):
        with self.device, self.stream:
            yield

    def synchronize(self) -> None:
        self.stream.synchronize()


class GpuEngineMixin:
    """What the CuPy-backed engines share: status, array module, devices, sync, the memory pool."""

    is_gpu = True
    concurrent_shards = True
    warmup_seconds = 0.3  # a GPU left idle (e.g. while a CPU baseline ran) needs this to clock up

    def _probe(self) -> tuple[bool, str]:
        return gpu_status()

    def _array_module(self):
        import cupy  # noqa: PLC0415

        return cupy

    def devices(self) -> list[str]:
        return device_names()

    def device_count(self) -> int:
        if not self.available:
            return 0
        return int(self._array_module().cuda.runtime.getDeviceCount())

    def open_device(self, index: int) -> GpuDeviceSlot:
        return GpuDeviceSlot(index)

    def synchronize(self) -> None:
        if self.available:
            self._array_module().cuda.get_current_stream().synchronize()

    def release_memory(self) -> None:
        super().release_memory()
        if self.available:
            self._array_module().get_default_memory_pool().free_all_blocks()
