"""The Engine interface: what every engine answers, so that callers never compare engine names."""
from __future__ import annotations

import os

import contextlib
import gc

import numpy as np

from ..errors import ConfigError, EngineUnavailable

# Benchmark-only algorithms (not in the algorithm registry, so not in the window or the CLI's run):
# name -> (module, class) of their reference implementation.
_BENCH_ONLY = {"evaluation_only": ("solvers.cuda.evaluation_only", "EvaluationOnly")}


def reference_class(name: str) -> type:
    """The array-code (reference) class of algorithm `name`, benchmark-only ones included."""
    if name in _BENCH_ONLY:
        import importlib  # noqa: PLC0415

        module, cls = _BENCH_ONLY[name]
        return getattr(importlib.import_module(module), cls)
    from ..algorithms import get_algorithm  # noqa: PLC0415

    return get_algorithm(name)


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
        from ..cuda.base import require_device_memory  # noqa: PLC0415

        require_device_memory(xp, nbytes, what)


class Engine:
    """One way of running the algorithms. Subclasses set the class attributes and ``_probe``.

    Attributes: ``name`` (registry key, CLI choice), ``title`` (one line for people), ``is_gpu``
    (runs on a CUDA device), ``is_reference`` (the baseline of speedups), ``honours_fast_math`` (the fast-math switch changes its code),
    ``compiles`` (the first use of an algorithm x function x dtype compiles code; ``compile_message``
    is the status shown meanwhile), ``warmup_seconds`` (the measuring rule's warm-up, see
    solvers/measure.py), ``color`` (RGB of its curves in the window).
    """

    name: str = ""
    title: str = ""
    is_gpu: bool = False
    is_reference: bool = False  # speedups are ratios against this engine
    honours_fast_math: bool = False
    compiles: bool = False
    compile_message: str = "compiling kernels"
    # its first RUN of an algorithm x function x dtype compiles code lazily (CuPy builds each
    # element-wise kernel at its first call, not when the run is built): `main.py warmup` runs one
    # iteration on it instead of only building the run
    compiles_when_run: bool = False
    honours_threads: bool = False  # a CPU thread count (RunConfig.threads) changes how it runs
    # one compiled form of each kernel serves every typed expression (numba: the expression is a
    # function argument), so warming one expression warms them all; False: each compiles its own
    shares_expression_kernels: bool = False
    warmup_seconds: float = 0.0
    # what the engine's allocator holds over the algorithm's declared peak (memory_estimate)
    memory_overhead: float = 1.0
    # shards of a split run (solvers/shards.py) run at the same time (GPU streams); False: they
    # take turns (CPU engines: each shard already uses every core it is given)
    concurrent_shards: bool = False
    color: tuple[int, int, int] = (200, 200, 200)  # its curves in the window's charts

    def cache_dir(self) -> str | None:
        """Where this engine keeps compiled code on disk (None: it compiles nothing)."""
        if not (self.compiles or self.compiles_when_run):
            return None
        # CuPy's rule (the cupy and cuda engines compile through CuPy)
        return os.environ.get("CUPY_CACHE_DIR") or os.path.expanduser("~/.cupy/kernel_cache")

    def __init__(self):
        self._status: tuple[bool, str] | None = None

    def __repr__(self) -> str:
        return f"<engine {self.name}>"

    # --- availability -----------------------------------------------------------------------
    def _probe(self) -> tuple[bool, str]:
        """(usable, device description or why not); never raises. Called once."""
        raise NotImplementedError

    def status(self) -> tuple[bool, str]:
        """(available, reason or device description), probed once and cached."""
        if self._status is None:
            self._status = self._probe()
        return self._status

    @property
    def available(self) -> bool:
        return self.status()[0]

    def require(self) -> None:
        """EngineUnavailable, saying why, when this engine cannot run here."""
        ok, reason = self.status()
        if not ok:
            raise EngineUnavailable(f"engine '{self.name}' is not available: {reason}")

    @property
    def xp(self):
        """The array module the algorithms run with (EngineUnavailable if the engine cannot run)."""
        self.require()
        return self._array_module()

    def _array_module(self):
        return np

    def devices(self) -> list[str]:
        """The devices this engine would use, one description each (empty when unavailable)."""
        ok, reason = self.status()
        return [reason] if ok else []

    def device_count(self) -> int:
        """How many devices a run may be split over here (0 when unavailable; the CPU is one)."""
        return 1 if self.available else 0

    def open_device(self, index: int) -> "DeviceSlot":
        """A shard's place on device `index`: its context (and stream) and its synchronisation."""
        return DeviceSlot()

    # --- algorithms ---------------------------------------------------------------------------
    def algorithm_class(self, name: str) -> type:
        """The class that runs algorithm `name` on this engine (EngineUnavailable if none)."""
        return reference_class(name)

    def supports(self, name: str) -> tuple[bool, str]:
        """(can run algorithm `name` here, reason or device): availability and an implementation."""
        ok, reason = self.status()
        if not ok:
            return False, reason
        try:
            self.algorithm_class(name)
        except (EngineUnavailable, ConfigError) as exc:
            return False, str(exc)
        return True, reason

    def effective_fast_math(self, fast_math: bool) -> bool:
        """What the fast-math switch really does here (False where the engine ignores it)."""
        return bool(fast_math) and self.honours_fast_math

    def build(self, algorithm: str, problem, params, dtype, fast_math: bool = False, budget=None,
              threads: int | None = None):
        """The algorithm object for `problem` (compiles on engines that compile), its "auto"
        parameters fitted to `budget` (a config.Budget; None: the papers' settings), with the
        memory check done before anything large is allocated."""
        cls = self.algorithm_class(algorithm)
        xp = self.xp
        if self.honours_fast_math:
            algo = cls(problem, params, xp=xp, dtype=dtype, fast_math=bool(fast_math))
        elif self.honours_threads:  # `threads`: CPU threads (None: the engine's default)
            algo = cls(problem, params, xp=xp, dtype=dtype, threads=self.threads_for(threads))
        else:
            algo = cls(problem, params, xp=xp, dtype=dtype)
        if budget is not None:
            algo.plan(budget)
        self.check_memory(algo)
        return algo

    def threads_for(self, threads: int | None) -> int | None:
        """The thread count a build uses (engines that honour threads override)."""
        return threads

    def threads_choosable(self) -> bool:
        """Whether a user's thread count (RunConfig.threads, the window's field) changes this engine."""
        return self.honours_threads

    def max_threads(self) -> int:
        """The most CPU threads a run on this engine may use (1 where threads mean nothing)."""
        return 1

    def baseline_label(self, threads: int | None = None) -> str:
        """How a speedup's baseline is named in titles: "numpy", "numba, 16 threads"."""
        return self.name

    def memory_needed(self, algo) -> int:
        """Bytes a run of `algo` needs on this engine: its declared peak times the allocator's overhead."""
        return int(algo.memory_estimate() * self.memory_overhead)

    def check_memory(self, algo) -> None:
        """Refuse a run that cannot fit (the algorithms allocate their walkers in ``init``)."""
        check_memory(algo.xp, self.memory_needed(algo),
                     f"{getattr(algo, 'name', type(algo).__name__)} with {algo.total_walkers():,} "
                     f"walkers at d={algo.problem.dim}")

    # --- running ------------------------------------------------------------------------------
    def synchronize(self) -> None:
        """Wait for queued device work, so that host clocks time finished work (no-op on CPU)."""

    def release_memory(self) -> None:
        """Give freed blocks back (between sweep points); collects garbage on every engine."""
        gc.collect()


class DeviceSlot:
    """Where one shard of a split run computes: the CPU here (no context, nothing to wait for)."""

    def active(self):
        """Context in which the shard's arrays are made and its work is queued."""
        return contextlib.nullcontext()

    def synchronize(self) -> None:
        """Wait for the shard's queued work."""
