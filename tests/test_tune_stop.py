"""Stop in a batched grid (solvers/tune/stepping.py): a grid whose one iteration of all its runs is
large goes slice by slice, so Stop waits one slice of work, not one iteration of every run; the
slices never change a grid's rows, and a grid stopped part-way through an iteration is coherent."""
from __future__ import annotations

import pytest

from solvers import runner as runner_module
from solvers.engines import get_engine
from solvers.tune import prepare

# 3 runs x 8 walkers in 1000-D: one iteration is 2 x 24 x 1000 evaluations of 1000 coordinates,
# 11.4 x SLICE_WORK, yet a few hundredths of a second on sphere
LARGE = dict(algorithm="pattern_search", problem="sphere", grid=["delta0=0.05:0.2:3"], seeds=1,
             dim=1000, max_evals=10**7, params={"walkers": 8})


def _count_work(monkeypatch, algo, stop_at_call: int):
    """Wrap algo.evaluate: every call's coordinates in `work`; Stop asked inside call `stop_at_call`
    (as a press while the batch computes); `asked` holds the work done up to that call."""
    work, asked = [], []
    evaluate = algo.evaluate

    def counting(state, X):
        work.append(X.shape[0] * X.shape[1])
        if len(work) == stop_at_call:
            asked.append(sum(work))
        return evaluate(state, X)

    monkeypatch.setattr(algo, "evaluate", counting)
    return work, asked


def test_stop_inside_a_large_first_iteration_waits_one_slice_not_the_iteration(monkeypatch):
    tuning = prepare(**LARGE)
    algo = tuning.plan.algo
    iteration = algo.iteration_work()
    assert tuning.table.batched and iteration > 10 * runner_module.SLICE_WORK
    work, asked = _count_work(monkeypatch, algo, stop_at_call=3)  # init, then 2 of the first iteration
    table = tuning.run(stop=lambda: bool(asked))
    after = sum(work) - asked[0]
    # before: the rest of the iteration (47.9 M coordinates, 11.4 slices) ran after the request
    assert after <= runner_module.SLICE_WORK + 2 * 24 * 1000, after / runner_module.SLICE_WORK
    assert table.stop_reason == "stopped" and len(table.rows) == 3
    assert len({row.evals for row in table.rows}) == 1 and table.rows[0].evals < 2 * 8 * 1000


def _rows(table):
    return [(r.setting, r.params, r.seed, r.best_f, r.evals, r.reached_at) for r in table.rows]


# restarts every 8 iterations, a budget that cuts an iteration, and a tolerance that runs reach
# part-way: slices of one coordinate would move reached_at if they recorded it
SMALL = dict(algorithm="pattern_search", problem="himmelblau",
             grid=["delta0=0.02:0.3:3:log", "tol_halvings=3:12:2"], seeds=3, first_seed=7, dim=2,
             max_evals=1203, tolerance=0.01, params={"walkers": 5, "restart": True, "round_iterations": 8})


@pytest.mark.parametrize("engine", ["numpy", pytest.param("cupy", marks=pytest.mark.gpu)])
def test_slices_and_stop_checks_never_change_a_grid(monkeypatch, engine):
    """The array code's grids (numpy, and cupy's same code) slice; the fused kernels never do."""
    if not get_engine(engine).available:
        pytest.skip(get_engine(engine).status()[1])
    monkeypatch.setattr(runner_module, "SLICE_WORK", 10**12)  # whole iterations, as before slicing
    whole = prepare(**SMALL, engine=engine).run()
    monkeypatch.setattr(runner_module, "SLICE_WORK", 1)  # one coordinate a slice
    checks = []

    def never():  # a Stop check that never fires
        checks.append(1)
        return False

    sliced = prepare(**SMALL, engine=engine).run(stop=never)
    assert whole.complete and sliced.complete and sliced.stop_reason == "finished"
    assert _rows(sliced) == _rows(whole)
    reached = [r.reached_at for r in whole.rows]
    assert any(r is not None for r in reached) and any(r is None for r in reached)
    assert len(checks) >= 100  # Stop was asked between the coordinates (2 an iteration, ~57 of them)


def test_a_grid_stopped_inside_an_iteration_is_coherent(monkeypatch):
    monkeypatch.setattr(runner_module, "SLICE_WORK", 1)
    tuning = prepare(**{**SMALL, "params": {"walkers": 5}})  # no restarts: 4 calls an iteration
    algo = tuning.plan.algo
    # asked in the plus side of coordinate 1 of iteration 4: it stops once that coordinate is done,
    # and two runs got within the tolerance in that coordinate
    work, asked = _count_work(monkeypatch, algo, stop_at_call=1 + 4 * 3 + 1)
    table = tuning.run(stop=lambda: bool(asked))
    assert table.stop_reason == "stopped" and len(table.rows) == table.grid.groups
    evals = table.rows[0].evals
    assert all(r.evals == evals for r in table.rows) and evals == 5 * (1 + 4 * 3 + 2)
    target = table.f_min + table.tolerance
    for row in table.rows:  # a run within the tolerance says when, at most its evaluations so far
        assert (row.reached_at is not None) == (row.best_f <= target)
        assert row.reached_at is None or 0 < row.reached_at <= evals
    # reached in the cut iteration: recorded at the stop, as an iteration's end would
    assert [r.reached_at for r in table.rows].count(evals) == 2


@pytest.mark.parametrize("share_gil", [False, True])
def test_stop_waits_one_slice_beside_a_window_too(monkeypatch, share_gil):
    """Beside a window (share_gil, `hold` between chunks: a pause blocks there) as on the command line."""
    tuning = prepare(**LARGE)
    work, asked = _count_work(monkeypatch, tuning.plan.algo, stop_at_call=5)
    holds = []
    table = tuning.run(stop=lambda: bool(asked), share_gil=share_gil, hold=lambda: holds.append(1))
    assert table.stop_reason == "stopped" and len(table.rows) == 3 and len(holds) >= 2
    assert sum(work) - asked[0] <= runner_module.SLICE_WORK + 2 * 24 * 1000
