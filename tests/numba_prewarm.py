"""Compile the numba kernels the test suite uses into Numba's disk cache, from a second process.

On a fresh cache (CI: a fresh clone) the suite spent ~300 s compiling about 60 kernel
specialisations, one after another in the pytest process: every algorithm's kernels in float64
and float32 for the built-in objectives (grouped and wide paths, the cut iteration), and in
float64 for a typed expression. Each is needed (a different dtype, path or objective type is a
different machine code) and each compiled once, so the tests cannot share more. conftest.py starts
this script beside a run that will need them (``pytest_collection_finish``); it compiles them
in the REVERSE of the order the tests first need them while pytest compiles from the front, so
the two processes meet in the middle and the kernels pytest reaches later load from the cache.
A kernel the script misses or has not reached yet is simply compiled by pytest, as before: what
the tests run and check is the same either way.

Not niced: everything it compiles, the tests need (a kernel compiled twice where the two meet is
the only waste). At nice 19 it got almost no CPU on a busy machine and gained nothing (numba
subset, fresh cache, shared 2-core machine at load ~3: 290 s without it, 277 s niced, 150 s not).
Numba's cache index is read, extended and rewritten without a lock (caching.IndexDataCacheFile
.save): two processes saving kernels of one source file at once can both name data file 1 for
different signatures (numba/numba#10128 is a race of the kind), so both processes take
``cache_save_lock`` around each save (POSIX: conftest starts the script only there).
"""
from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RASTRIGIN = "sum(x[i]**2 - 10*cos(2*pi*x[i]) + 10)"  # as tests/test_numba_expression.py


def warm_runs() -> list[tuple[str, dict, str, str, bool | None]]:
    """(algorithm, params, dtype, objective, wide) in the order the suite first needs the kernels
    (tests/test_numba_cap.py first, then test_numba_engine.py's float32 contract, then the typed
    expressions): built-ins in float64, their wide paths, float32 likewise, then the expression
    kernels (float64; pattern search in float32 too). ``wide`` None: the path the rule picks."""
    from variants import variant_cases  # noqa: PLC0415

    grouped = {"particle_swarm": "swarms", "differential_evolution": "populations"}
    runs = []
    for dtype in ("float64", "float32"):
        for algorithm, params, _ in variant_cases():
            runs.append((algorithm, params, dtype, "rastrigin", False if algorithm in grouped else None))
        for algorithm, params, _ in variant_cases():
            if algorithm in grouped:
                runs.append((algorithm, dict(params, **{grouped[algorithm]: 1}), dtype, "rastrigin", True))
    for algorithm, params, _ in variant_cases():
        runs.append((algorithm, params, "float64", f"expr: {RASTRIGIN}", None))
    runs.append(("pattern_search", dict(walkers=32), "float32", f"expr: {RASTRIGIN}", None))
    return runs


@contextlib.contextmanager
def _locked(path: str):
    import fcntl  # noqa: PLC0415 - POSIX only

    with open(path, "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def cache_save_lock() -> bool:
    """Serialise Numba's cache saves across processes with a lock file in the cache folder (see
    the module docstring). False where it cannot (numba missing, or its private cache class
    renamed): then no second process may compile into the cache."""
    try:
        from numba.core import caching  # noqa: PLC0415

        save = caching.IndexDataCacheFile.save
    except (ImportError, AttributeError):
        return False
    if getattr(save, "multiwalk_locked", False):
        return True

    def locked_save(self, key, data):
        # one lock per index folder: processes race only on the same index file
        with _locked(os.path.join(os.path.dirname(self._index_path), ".multiwalk-save.lock")):
            return save(self, key, data)

    locked_save.multiwalk_locked = True
    locked_save.wrapped = save
    caching.IndexDataCacheFile.save = locked_save
    return True


def main() -> int:
    """Compile every run of warm_runs(), last first; a run that fails is left to the tests."""
    sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
    import solvers.numba  # noqa: F401, PLC0415 - picks the cache folder (and sets NUMBA_CACHE_DIR)

    if not cache_save_lock():
        return 0
    import numpy as np  # noqa: PLC0415

    from solvers.algorithms import get_algorithm  # noqa: PLC0415
    from solvers.numba import numba_algorithm  # noqa: PLC0415
    from solvers.problems import get_problem  # noqa: PLC0415
    from solvers.rng import ArrayRNG  # noqa: PLC0415
    from variants import QUICK_ITERATIONS  # noqa: PLC0415

    for algorithm, params, dtype, objective, wide in reversed(warm_runs()):
        try:
            problem = (get_problem(objective, 3, bounds=(-5.12, 5.12)) if objective.startswith("expr:")
                       else get_problem(objective, 3))
            algo = numba_algorithm(algorithm)(problem, get_algorithm(algorithm).Params(**params),
                                              dtype=np.dtype(dtype).type, threads=1)
            algo.wide = wide
            state = algo.init(ArrayRNG(np, 5))
            algo.step(state, QUICK_ITERATIONS)  # every phase (the annealing's polish included)
        except Exception as exc:  # noqa: BLE001 - the tests compile it themselves and report
            print(f"numba_prewarm: {algorithm} {dtype} {objective}: {type(exc).__name__}: {exc}",
                  file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
