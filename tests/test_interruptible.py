"""Large iterations are split into slices (issue 17, item 3): the time budget, Stop and the
window's Close are honoured within a fraction of a second even when one pattern-search iteration
is 2 d n evaluations, and slicing never changes the numbers a run produces."""
from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from solvers import RunConfig, Runner
from solvers import runner as runner_module
from solvers.engines import get_engine, list_engines

BIG = dict(problem="rastrigin", dim=300)  # one iteration: 2 x 300 x 2048 = 1.2 M evaluations


def big_config(algorithm="pattern_search", walkers=2048, **budget):
    return RunConfig.build(algorithm, BIG["problem"], BIG["dim"], params={"walkers": walkers}, **budget)


def test_max_seconds_is_honoured_inside_one_iteration():
    runner = Runner(big_config(max_seconds=0.3))
    runner.prepare()
    start = runner.seconds
    t0 = time.perf_counter()
    result = runner.run()
    wall = time.perf_counter() - t0
    assert result.stop_reason == "max_seconds"
    assert result.iterations == 0  # it stopped part-way through the first iteration
    assert wall < 0.3 - min(start, 0.3) + 1.0, wall
    assert np.isfinite(result.best_f) and result.evals > 2048


def test_stop_from_another_thread_is_quick():
    runner = Runner(big_config(max_seconds=120))
    runner.prepare()
    done = threading.Event()
    results = []
    thread = threading.Thread(target=lambda: (results.append(runner.run()), done.set()))
    thread.start()
    time.sleep(0.5)
    t0 = time.perf_counter()
    runner.stop()
    assert done.wait(5.0)
    latency = time.perf_counter() - t0
    thread.join()
    assert latency < 1.0, latency  # one slice (~0.1-0.3 s here), not one 30 s iteration
    assert results[0].stop_reason == "stopped" and results[0].iterations == 0


@pytest.mark.parametrize("algorithm, params", [
    ("pattern_search", {"walkers": 16, "restart": True, "round_iterations": 2}),
    ("multidirectional_search", {"walkers": 12, "restart": True}),
])
def test_slicing_changes_nothing(monkeypatch, algorithm, params):
    config = RunConfig.build(algorithm, "rastrigin", 9, params=params, max_iters=5, seed=3)
    whole = Runner(config).run()
    monkeypatch.setattr(runner_module, "SLICE_WORK", 50)  # a slice of one or two coordinates/starts
    sliced_runner = Runner(config)
    sliced = sliced_runner.run()
    assert (sliced.best_f, sliced.evals, sliced.iterations) == (whole.best_f, whole.evals, whole.iterations)
    np.testing.assert_array_equal(sliced.best_x, whole.best_x)
    assert len(sliced.history) > len(whole.history)  # it really went slice by slice


@pytest.mark.parametrize("engine", [
    pytest.param(name, marks=pytest.mark.gpu) if get_engine(name).is_gpu else name
    for name in list_engines() if not get_engine(name).is_reference])
@pytest.mark.parametrize("algorithm", ["pattern_search", "multidirectional_search"])
def test_slicing_changes_nothing_on_every_engine(monkeypatch, engine, algorithm):
    """Fused kernels (cuda, numba) run whole iterations, never the reference's slices (its array
    code on the kernel's state); the cupy engine slices the reference's code: the numbers are
    those of an unsliced run on every engine."""
    if not get_engine(engine).available:
        pytest.skip(get_engine(engine).status()[1])
    params = {"walkers": 16, "restart": True}
    if algorithm == "pattern_search":
        params["round_iterations"] = 2  # a restart (drawn by the engine's own generator) in the run
    config = RunConfig.build(algorithm, "rastrigin", 9, engine=engine, params=params, max_iters=5, seed=3)
    whole = Runner(config).run()
    monkeypatch.setattr(runner_module, "SLICE_WORK", 50)
    sliced = Runner(config).run()
    assert (sliced.best_f, sliced.evals, sliced.iterations) == (whole.best_f, whole.evals, whole.iterations)


def test_single_step_runs_a_whole_iteration(monkeypatch):
    monkeypatch.setattr(runner_module, "SLICE_WORK", 50)
    config = RunConfig.build("pattern_search", "sphere", 8, params={"walkers": 8}, max_iters=3)
    runner = Runner(config)
    runner.prepare()
    assert runner._advance(1, whole=True)
    assert runner.state.iteration == 1 and runner._slices is None


def test_an_iteration_that_cannot_be_split_is_warned_about(monkeypatch):
    monkeypatch.setattr(runner_module, "SLICE_WORK", 0)
    monkeypatch.setattr(runner_module, "SLOW_ITERATION_S", 0.0)
    seen = []
    config = RunConfig.build("differential_evolution", "sphere", 5, params={"walkers": 16}, max_iters=1)
    runner = Runner(config, on_status=seen.append)
    result = runner.run()
    slow = [w for w in result.warnings if w.startswith("one iteration will take")]
    assert slow and f"warning: {slow[0]}" in seen


def _slices(config, work):
    """The number of slices pattern search's first iteration takes at `work` coordinates a slice."""
    runner = Runner(config)
    runner.prepare()
    return sum(1 for _ in runner.algorithm.iteration_slices(runner.state, work)) + 1


def test_a_coordinate_of_many_walkers_goes_in_blocks_of_walkers():
    # one coordinate of 16 walkers at d = 9 is 288 coordinates evaluated: past a slice of 50, the
    # walkers go in blocks of 50 // 18 = 2 (8 a coordinate, 72 an iteration); within a slice,
    # whole coordinates as before (a slice of 600: two coordinates, 5 slices)
    config = RunConfig.build("pattern_search", "rastrigin", 9, params={"walkers": 16}, max_iters=5)
    assert _slices(config, 50) == 9 * 8
    assert _slices(config, 600) == 5
    # a budget that may cut the iteration (evaluate's cap counts every plus point before any minus
    # point): whole coordinates, one a slice, so that the cut falls where it would unsliced
    capped = RunConfig.build("pattern_search", "rastrigin", 9, params={"walkers": 16}, max_evals=200)
    assert _slices(capped, 50) == 9


def test_walker_blocks_and_a_cut_budget_change_nothing(monkeypatch):
    # walkers in blocks of two (SLICE_WORK 50), with a restart in the run; and a max_evals cut inside
    # an iteration, which slices by whole coordinates
    for budget in ({"max_iters": 5}, {"max_evals": 16 + 3 * 288 + 100}):
        config = RunConfig.build("pattern_search", "ackley", 9, seed=4, **budget,
                                 params={"walkers": 16, "restart": True, "round_iterations": 2})
        monkeypatch.setattr(runner_module, "SLICE_WORK", 2**22)
        whole = Runner(config).run()
        monkeypatch.setattr(runner_module, "SLICE_WORK", 50)
        sliced = Runner(config).run()
        assert (sliced.best_f, sliced.evals, sliced.iterations) == (whole.best_f, whole.evals, whole.iterations)
        np.testing.assert_array_equal(sliced.best_x, whole.best_x)


def test_an_iteration_the_budget_cuts_ends_in_the_same_state_sliced_or_not(monkeypatch):
    # the cut iteration runs to its end either way (its points past the cap at +inf): the same
    # iteration count, positions, values and step sizes, and no evaluation past the cap
    config = RunConfig.build("pattern_search", "ackley", 9, seed=4, max_evals=16 + 3 * 288 + 100,
                             params={"walkers": 16})
    states = []
    for work in (2**22, 50):
        monkeypatch.setattr(runner_module, "SLICE_WORK", work)
        runner = Runner(config)
        result = runner.run()
        assert result.stop_reason == "max_evals" and result.iterations == 4
        states.append(runner.state)
    whole, sliced = states
    for name in ("X", "f", "step", "improved"):
        np.testing.assert_array_equal(getattr(sliced, name), getattr(whole, name), err_msg=name)


def test_nothing_is_computed_once_the_cap_is_reached(monkeypatch):
    # 8 initial points and a cap of 28: 16 counted after one more call, 12 left; once they are
    # spent, evaluate returns +inf rows without calling the objective
    config = RunConfig.build("pattern_search", "sphere", 4, params={"walkers": 8}, max_evals=28)
    runner = Runner(config)
    runner.prepare()
    algo, state = runner.algorithm, runner.state
    assert np.isfinite(algo.evaluate(state, state.X.copy())).all() and state.evals == 16
    state.evals = 28

    class Refusing:
        def evaluate(self, X):
            raise AssertionError("evaluated past the cap")

    monkeypatch.setattr(algo, "problem", Refusing())
    f = algo.evaluate(state, state.X.copy())
    assert f.shape == (8,) and f.dtype == algo.dtype and np.isinf(f).all() and state.evals == 28
