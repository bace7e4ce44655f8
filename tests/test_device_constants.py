"""Arrays shared by every run on a device (solvers/device_constants.py) and the best tracker's one
allocation (solvers/cuda/base.py BestTracker): what a run sees is what it saw when each was its own."""
from __future__ import annotations

import numpy as np
import pytest

from solvers.cuda.base import BestTracker
from solvers.device_constants import box_arrays, placeholder
from tests.variants import variant_cases


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_best_tracker_views_start_as_separate_arrays_did_and_do_not_overlap(dtype):
    tracker = BestTracker(np, dtype, dim=7, parts=700)
    assert tracker.best_f.shape == () and tracker.best_f.dtype == dtype and np.isinf(tracker.best_f)
    assert tracker.best_i.tolist() == [0] and tracker.best_i.dtype == np.int64
    assert tracker.ticket.tolist() == [0] and tracker.ticket.dtype == np.uint32
    assert tracker.best_x.tolist() == [0.0] * 7 and tracker.best_x.dtype == dtype
    assert tracker.part_f.shape == (700,) and tracker.part_i.shape == (700,)
    views = [tracker.best_f, tracker.best_i, tracker.ticket, tracker.best_x, tracker.part_f, tracker.part_i]
    for k, view in enumerate(views):  # each view written with its own byte; no other view changes
        view[...] = k + 1
    assert [int(np.asarray(v).ravel()[0]) for v in views] == [1, 2, 3, 4, 5, 6]
    assert all(np.all(v == k + 1) for k, v in enumerate(views))
    starts = [v.__array_interface__["data"][0] for v in views]
    assert all(s % BestTracker.ALIGN == starts[0] % BestTracker.ALIGN for s in starts)


def test_box_arrays_on_numpy_are_the_problems_box_in_the_runs_dtype():
    lo, hi, span = box_arrays(np, [-5.12, -1.0], [5.12, 3.0], np.float32)
    assert lo.dtype == hi.dtype == span.dtype == np.float32
    assert span.tolist() == pytest.approx([10.24, 4.0])


def test_placeholder_on_numpy_is_one_zero():
    assert placeholder(np, np.uint64).tolist() == [0]


@pytest.mark.gpu
def test_gpu_box_and_placeholders_are_shared_per_device_dtype_and_box(cupy):
    a = box_arrays(cupy, np.full(3, -2.0), np.full(3, 2.0), np.float32)
    b = box_arrays(cupy, np.full(3, -2.0), np.full(3, 2.0), np.float32)
    assert all(x is y for x, y in zip(a, b))  # the same device arrays: no copy for the second run
    assert cupy.asnumpy(a[2]).tolist() == [4.0, 4.0, 4.0]
    other = box_arrays(cupy, np.full(3, -2.0), np.full(3, 2.0), np.float64)
    assert other[0].dtype == np.float64 and other[0] is not a[0]
    wider = box_arrays(cupy, np.full(3, -3.0), np.full(3, 2.0), np.float32)
    assert cupy.asnumpy(wider[0]).tolist() == [-3.0] * 3
    assert placeholder(cupy, np.uint64) is placeholder(cupy, np.uint64)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gpu_best_tracker_starts_at_inf_with_zeros(cupy, dtype):
    tracker = BestTracker(cupy, dtype, dim=5, parts=512)
    assert np.isinf(float(tracker.best_f.get()))
    assert tracker.best_i.get().tolist() == [0] and tracker.ticket.get().tolist() == [0]
    assert tracker.best_x.get().tolist() == [0.0] * 5
    assert tracker.part_f.shape == (512,) and tracker.part_i.dtype == np.int64


@pytest.mark.gpu
@pytest.mark.parametrize("engine", ["cuda", "cupy"])
@pytest.mark.parametrize("algorithm, params", [c[:2] for c in variant_cases()], ids=[c[2] for c in variant_cases()])
def test_gpu_runs_leave_the_shared_box_as_it_was(cupy, engine, algorithm, params):
    """The read-only contract: a run of every algorithm on both GPU engines leaves the box, span and
    placeholders it shares with every other run on the device unchanged."""
    from solvers.engines import get_engine
    from solvers.problems import get_problem
    from tests.gpu_run import run

    ok, reason = get_engine(engine).supports(algorithm)
    if not ok:
        pytest.skip(f"{engine}: {reason}")
    run(cupy, algorithm, params, (3, 4), problem="rastrigin", dim=5, dtype="float32", engine=engine)
    problem = get_problem("rastrigin", 5)
    lo, hi, span = box_arrays(cupy, problem.lower, problem.upper, np.float32)
    want_lo = np.asarray(problem.lower, dtype=np.float32)
    want_hi = np.asarray(problem.upper, dtype=np.float32)
    assert cupy.asnumpy(lo).tolist() == want_lo.tolist() and cupy.asnumpy(hi).tolist() == want_hi.tolist()
    assert cupy.asnumpy(span).tolist() == (want_hi - want_lo).tolist()
    assert cupy.asnumpy(placeholder(cupy, np.uint64)).tolist() == [0]
    assert cupy.asnumpy(placeholder(cupy, np.float32)).tolist() == [0.0]
