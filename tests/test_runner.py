"""The run loop: budgets, reproducibility, snapshots, and control from another thread."""
import threading
import time

import numpy as np
import pytest

import solvers
from solvers import RunConfig, Runner
from solvers.errors import ConfigError
from solvers.problems.base import ProblemDef, Problem, box
from solvers.runner import sample_indices


def _config(**kw):
    base = dict(params={"walkers": 64}, max_iters=5)
    base.update(kw)
    return RunConfig.build("pattern_search", "sphere", 3, **base)


def test_budget_iterations_and_evaluations_are_respected_and_counted():
    r = Runner(_config(max_iters=7)).run()
    assert r.iterations == 7 and r.stop_reason == "max_iters"
    # pattern search: initial evaluation of 64 walkers plus 2*d per walker per iteration
    assert r.evals == 64 + 7 * 2 * 3 * 64
    r = Runner(_config(max_iters=None, max_evals=2000)).run()
    per_iter = 2 * 3 * 64
    assert r.stop_reason == "max_evals" and 2000 <= r.evals < 2000 + per_iter


def test_seconds_budget_stops():
    r = Runner(_config(max_iters=None, max_seconds=0.2)).run()
    assert r.stop_reason == "max_seconds" and 0.2 <= r.seconds < 2.0


def test_history_is_monotone_and_best_matches():
    r = solvers.run("pattern_search", "sphere", dim=4, max_iters=15, params={"walkers": 32})
    h = r.history
    assert h.shape[1] == 3 and len(h) >= 2
    assert np.all(np.diff(h[:, 0]) >= 0) and np.all(np.diff(h[:, 1]) >= 0)
    assert np.all(np.diff(h[:, 2]) <= 0), "best value never gets worse"
    assert h[-1, 2] == r.best_f
    assert r.best_f == pytest.approx(float(np.sum(r.best_x ** 2)), rel=1e-12, abs=1e-300)


def test_same_seed_same_result_other_seed_differs():
    a = solvers.run("pattern_search", "rastrigin", dim=5, seed=3, max_iters=10, params={"walkers": 50})
    b = solvers.run("pattern_search", "rastrigin", dim=5, seed=3, max_iters=10, params={"walkers": 50})
    c = solvers.run("pattern_search", "rastrigin", dim=5, seed=4, max_iters=10, params={"walkers": 50})
    assert a.best_f == b.best_f and np.array_equal(a.best_x, b.best_x)
    assert not np.array_equal(a.best_x, c.best_x)


def test_snapshots_are_bounded_published_and_final():
    snaps = []
    cfg = _config(max_iters=30, sample_size=10, params={"walkers": 100})
    Runner(cfg, on_snapshot=snaps.append).run()
    assert snaps[-1].finished and snaps[-1].stop_reason == "max_iters"
    assert all(s.positions.shape == (10, 3) and s.fitness.shape == (10,) for s in snaps)
    assert snaps[-1].evals == 100 + 30 * 6 * 100
    assert all(isinstance(s.positions, np.ndarray) for s in snaps)
    assert np.array_equal(snaps[0].sample_index, snaps[-1].sample_index)


def test_sample_indices_spread_and_bounded():
    idx = sample_indices(1000, 10)
    assert len(idx) == 10 and idx[0] == 0 and idx[-1] == 999
    assert np.array_equal(sample_indices(5, 10), np.arange(5))


def test_pause_step_resume_stop_from_another_thread():
    snaps = []
    runner = Runner(_config(max_iters=None, max_seconds=30), on_snapshot=snaps.append)
    runner.pause()
    result = {}
    worker = threading.Thread(target=lambda: result.setdefault("r", runner.run()))
    worker.start()
    time.sleep(0.2)
    assert runner.state.iteration == 0, "paused before the first chunk"
    runner.step_once()
    deadline = time.monotonic() + 5
    while runner.state.iteration < 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.1)
    assert runner.state.iteration == 1, "one single step while paused"
    runner.resume()
    time.sleep(0.2)
    assert runner.state.iteration > 1
    runner.stop()
    worker.join(5)
    assert not worker.is_alive()
    assert result["r"].stop_reason == "stopped" and snaps[-1].finished


def test_live_parameter_change_applies_and_frozen_one_is_refused():
    runner = Runner(_config(max_iters=3))
    with pytest.raises(ConfigError, match="only change on reset"):
        runner.update_params({"walkers": 10})
    with pytest.raises(ConfigError):
        runner.update_params({"round_iterations": 0})
    runner.update_params({"restart": True, "round_iterations": 2})
    r = runner.run()
    assert r.params["restart"] is True and r.params["round_iterations"] == 2
    assert runner.algorithm.params.restart is True


def test_delay_is_not_counted_as_compute_time():
    runner = Runner(_config(max_iters=4))
    runner.set_delay(0.1)
    t0 = time.perf_counter()
    r = runner.run()
    assert time.perf_counter() - t0 >= 0.3
    assert r.seconds < 0.3


def test_delay_is_a_pace_the_compute_time_counts_towards():
    # 5 iterations of 60 ms each at a pace of 10/s last 0.5 s, not 5 x (60 + 100) ms = 0.8 s
    runner = Runner(_config(max_iters=5))
    advance = runner._advance
    runner._advance = lambda *a, **k: (time.sleep(0.06), advance(*a, **k))[1]
    runner.set_delay(0.1)
    t0 = time.perf_counter()
    r = runner.run()
    wall = time.perf_counter() - t0
    assert r.seconds >= 0.3 and 0.45 <= wall < 0.68


def _nan_half(xp, X):
    f = xp.sum(X * X, axis=1)
    return xp.where(X[:, 0] < 0, xp.nan, f)


def test_nan_objective_points_never_become_best():
    d = ProblemDef(name="nan_half", title="NaN half", group="test", source="test", fn=_nan_half,
                   bounds=box(-1, 1))
    lo, hi = d.bounds(2)
    problem = Problem(definition=d, dim=2, lower=lo, upper=hi, f_min=0.0, x_min=np.zeros(2))
    cls = solvers.get_algorithm("pattern_search")
    algo = cls(problem, cls.Params(walkers=200))
    from solvers.rng import ArrayRNG

    state = algo.init(ArrayRNG(np, 0))
    algo.step(state, 5)
    assert np.isfinite(float(state.best_f))
    assert state.best_x[0] >= 0


@pytest.mark.parametrize("kwargs, fragment", [
    (dict(max_evals=0), "max_evals must be > 0"),
    (dict(max_iters=-3), "max_iters must be > 0"),
    (dict(max_seconds=float("nan")), "max_seconds must be a finite number > 0"),
    (dict(engine="tpu"), "unknown engine"),
    (dict(dtype="float16"), "dtype"),
    (dict(seed=-1), "seed"),
    (dict(bounds=(1.0, -1.0)), "inverted"),
    (dict(bounds=(float("nan"), 1.0)), "finite"),
])
def test_config_rejects_bad_values(kwargs, fragment):
    with pytest.raises(ConfigError, match=fragment.replace("(", r"\(")):
        RunConfig.build("pattern_search", "sphere", 2, **kwargs)


def test_bounds_override_drops_known_minimum_outside_box():
    cfg = RunConfig.build("pattern_search", "sphere", 2, bounds=(1.0, 2.0), max_iters=1,
                          params={"walkers": 4})
    p = cfg.make_problem()
    assert np.all(p.lower == 1.0) and p.f_min is None and p.x_min is None
    inside = RunConfig.build("pattern_search", "sphere", 2, bounds=(-1.0, 2.0)).make_problem()
    assert inside.f_min == 0.0


def test_nonfinite_values_are_counted_in_the_run_loop_and_never_the_best():
    """NaN/inf objective values: counted for every front end (RunResult, Snapshot, CLI), +inf inside."""
    import numpy as np

    from solvers.config import RunConfig
    from solvers.runner import Runner

    # sqrt of a negative coordinate is NaN: half of the box gives NaN
    config = RunConfig.build("pattern_search", "expr: sqrt(x1) + x2**2", 2, params={"walkers": 64},
                             max_iters=3, bounds=(-2, 2))
    snaps = []
    result = Runner(config, on_snapshot=snaps.append).run()
    assert 0 < result.nonfinite_evals < result.evals
    assert np.isfinite(result.best_f) and result.best_x[0] >= 0
    assert snaps[-1].nonfinite_evals == result.nonfinite_evals
    assert result.to_dict()["nonfinite_evals"] == result.nonfinite_evals
    assert result.points_per_iteration == 64


def test_a_clean_run_counts_no_nonfinite_values():
    import solvers

    r = solvers.run("particle_swarm", "rastrigin", dim=3, max_iters=3, params={"walkers": 16, "swarms": 2})
    assert r.nonfinite_evals == 0 and r.points_per_iteration == 32


def test_an_engine_that_compiles_when_run_says_first_iteration_until_its_first_chunk(fake_engines):
    """The status goes initialising -> first iteration -> running on such an engine (numba, cupy),
    straight to running elsewhere."""
    from solvers.config import RunConfig
    from solvers.runner import Runner

    fake_engines(cupy={"compiles_when_run": True})
    for engine, expected in (("cupy", ["initialising walkers", "first iteration", "running"]),
                             ("numpy", ["initialising walkers", "running"])):
        seen = []
        cfg = RunConfig.build("pattern_search", "sphere", 2, params={"walkers": 16}, engine=engine,
                              max_iters=3)
        Runner(cfg, on_status=seen.append).run()
        assert [s for s in seen if not s.startswith("warning")] == expected, engine
