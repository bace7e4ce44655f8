"""The suite's numba prewarm (tests/numba_prewarm.py): what it compiles, and its lock on Numba's
cache saves (it shares the cache folder with the test process)."""
from __future__ import annotations

import pytest

fcntl = pytest.importorskip("fcntl")  # the lock is POSIX's (conftest starts the prewarm only there)
numba = pytest.importorskip("numba")

from numba.core import caching  # noqa: E402
from numba_prewarm import cache_save_lock, warm_runs  # noqa: E402

from solvers.numba import numba_algorithms  # noqa: E402


def test_warm_runs_cover_every_numba_algorithm_in_both_dtypes_and_end_with_the_expressions():
    runs = warm_runs()
    builtin = {(a, dtype) for a, _, dtype, objective, _ in runs if objective == "rastrigin"}
    assert builtin == {(a, d) for a in numba_algorithms() for d in ("float64", "float32")}
    wide = {a for a, _, _, _, w in runs if w}
    assert wide == {"particle_swarm", "differential_evolution"}
    # the order the tests first need them: built-ins first, expressions last (run in reverse)
    kinds = [objective.startswith("expr:") for _, _, _, objective, _ in runs]
    assert kinds == sorted(kinds) and kinds[-1]


def test_cache_saves_hold_the_folder_lock(tmp_path, monkeypatch):
    held = []

    def save(self, key, data):  # stands in for numba's: is the lock taken by someone?
        with open(tmp_path / ".multiwalk-save.lock", "a") as other:
            try:
                fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
                held.append(False)
                fcntl.flock(other, fcntl.LOCK_UN)
            except BlockingIOError:
                held.append(True)

    monkeypatch.setattr(caching.IndexDataCacheFile, "save", save)
    assert cache_save_lock()
    assert cache_save_lock()  # idempotent: wrapped once (twice, the inner lock would wait on the outer)
    assert caching.IndexDataCacheFile.save.wrapped is save
    cache = caching.IndexDataCacheFile.__new__(caching.IndexDataCacheFile)
    cache._index_path = str(tmp_path / "kernel.nbi")
    cache.save(("sig",), b"data")
    assert held == [True]
