"""A long job on a Dask worker with its items streamed back (solvers/study/remote.py): the window's
Speedup sweep on a cluster. One local cluster of one worker process for the module."""
from __future__ import annotations

import threading
import time

import pytest

from solvers.study.remote import dashboard_link, stream
from solvers.sweep import SweepSpec, sweep_job

distributed = pytest.importorskip("distributed")


def counting(n, *, cancel, emit):
    """A job: emits ("tick", i) and yields i, one every 20 ms, until n or Stop."""
    for i in range(n):
        if cancel.is_set():
            return
        emit(("tick", i))
        yield i
        time.sleep(0.02)


def failing(*, cancel, emit):
    yield 1
    raise ValueError("the job's own error")


def test_items_and_emits_arrive_in_order(dask_client):
    items = list(stream(dask_client, counting, 5, cancel=threading.Event()))
    assert items == [x for i in range(5) for x in (("tick", i), i)]


def test_stop_reaches_the_job(dask_client):
    cancel = threading.Event()
    seen, t0 = [], time.perf_counter()
    for item in stream(dask_client, counting, 100_000, cancel=cancel):
        seen.append(item)
        if len(seen) == 10:
            cancel.set()
    assert 10 <= len(seen) < 400 and time.perf_counter() - t0 < 20  # ends soon after Stop


def test_the_jobs_exception_is_raised_here(dask_client):
    got = []
    with pytest.raises(ValueError, match="the job's own error"):
        for item in stream(dask_client, failing, cancel=threading.Event()):
            got.append(item)
    assert got == [1]


def test_a_sweep_on_the_cluster_equals_its_records_shape_here(dask_client):
    spec = SweepSpec.build("pattern_search", "sphere", 2, iterations=2, min_exp=4, max_exp=5,
                           engines=("numpy",), baseline="numpy")
    items = list(stream(dask_client, sweep_job, spec, cancel=threading.Event()))
    starts = [i for i in items if isinstance(i, tuple)]
    records = [i for i in items if not isinstance(i, tuple)]
    assert starts == [("start", 16, "numpy"), ("start", 32, "numpy")]
    assert [(r.walkers, r.engine, r.status) for r in records] == [(16, "numpy", "ok"), (32, "numpy", "ok")]
    assert all(r.evals == 2 * 2 * 2 * r.walkers and r.speedup == 1.0 for r in records)
    assert dashboard_link(dask_client).startswith("http")
