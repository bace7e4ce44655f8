"""The numba engine: compiled multi-core CPU kernels (classes in solvers/numba/), the honest CPU
baseline of every speedup. Registered twice: ``numba`` on every core and ``numba1`` on one core
(the seed papers' sequential baseline), so that every table and chart can show both."""
from __future__ import annotations

import os

from .base import Engine


class NumbaEngine(Engine):
    name = "numba"
    title = "Numba, compiled, every CPU core"
    compiles = True
    compile_message = "compiling the numba engine (once)"
    # building compiles (or loads) the init kernels only; the step kernels at the first iteration
    compiles_when_run = True
    honours_threads = True
    shares_expression_kernels = True

    def __init__(self, threads: int | None = None, name: str | None = None):
        super().__init__()
        self.threads = threads  # None: every core numba may use
        if name:
            self.name = name
        if threads is not None:
            self.title = f"Numba, compiled, {threads} CPU core{'s' if threads > 1 else ''}"

    def cache_dir(self) -> str | None:
        from ..numba import use_versioned_cache  # noqa: PLC0415 - no numba import

        # the folder decided when the numba package was imported (use_versioned_cache: once)
        return use_versioned_cache() or os.environ.get("NUMBA_CACHE_DIR") or "each module's __pycache__"

    def _probe(self) -> tuple[bool, str]:
        from ..numba import numba_status  # noqa: PLC0415 - numba only when asked

        ok, reason = numba_status()
        if ok and self.threads is not None:
            cpu = reason.split(", ")[0]
            reason = f"{cpu}, {self.threads} thread{'s' if self.threads > 1 else ''}"
        return ok, reason

    def algorithm_class(self, name: str) -> type:
        from ..numba import numba_algorithm  # noqa: PLC0415

        return numba_algorithm(name)

    def threads_for(self, threads: int | None) -> int | None:
        """A fixed-thread registration (numba1) keeps its count; otherwise the run's, else all."""
        if self.threads is not None:
            return self.threads
        return threads

    def threads_choosable(self) -> bool:
        return self.threads is None

    def max_threads(self) -> int:
        if not self.available:
            return 1
        from ..numba.base import default_threads  # noqa: PLC0415 - numba only when asked

        return default_threads()

    def baseline_label(self, threads: int | None = None) -> str:
        n = self.threads_for(threads) or self.max_threads()
        return f"{self.name}, {n} thread{'s' if n != 1 else ''}"
