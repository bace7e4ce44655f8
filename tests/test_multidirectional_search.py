"""Multi-directional search (Torczon, seed 001): convergence, bounds, counting, Torczon's rule."""
from __future__ import annotations

import numpy as np
import pytest

import solvers
from solvers.algorithms.multidirectional_search import MultidirectionalSearch
from solvers.errors import ConfigError
from solvers.params import make_params
from solvers.problems.base import Problem, ProblemDef, box
from solvers.rng import ArrayRNG
from counting import Counting


def make_problem(fn, dim, lo, hi, name="hand_made"):
    definition = ProblemDef(name=name, title=name, group="tests", source="tests",
                            fn=fn, bounds=box(lo, hi))
    lower, upper = definition.bounds(dim)
    return Problem(definition=definition, dim=dim, lower=lower, upper=upper, f_min=None, x_min=None)


def algorithm(problem, **params):
    return MultidirectionalSearch(problem, make_params(MultidirectionalSearch.Params, params))


@pytest.mark.parametrize("dim, starts, max_iters", [(2, 64, 200), (10, 64, 400)])
def test_converges_on_sphere(dim, starts, max_iters):
    # budget: at most 2 * dim * starts evaluations per iteration; the run ends when all collapse
    result = solvers.run("multidirectional_search", "sphere", dim=dim, seed=3, max_iters=max_iters,
                         params={"walkers": starts})
    assert result.best_f < 1e-3
    assert result.stop_reason == "converged"


def test_rastrigin_improves_far_beyond_random_sampling():
    result = solvers.run("multidirectional_search", "rastrigin", dim=2, seed=0, max_iters=300,
                         params={"walkers": 256})
    assert result.best_f < 1e-3  # 256 starts on a 2-D Rastrigin: one lands in the global basin


@pytest.mark.parametrize("restart", [False, True])
def test_simplices_stay_in_the_box(restart):
    problem = solvers.get_problem("rastrigin", 3)
    algo = algorithm(problem, walkers=128, edge=0.5, tol=1e-4, restart=restart)
    state = algo.init(ArrayRNG(np, 1))
    for _ in range(30):
        algo.step(state, 2)
        assert np.all((state.simplices >= problem.lower) & (state.simplices <= problem.upper))
        assert np.all((state.X >= problem.lower) & (state.X <= problem.upper))
        assert state.X.shape == (128, 3) and state.f.shape == (128,)
        assert np.array_equal(state.X, state.simplices[:, 0])
        assert np.all(state.values[:, :1] <= state.values)  # best vertex at the head


def test_evaluations_are_counted_exactly_and_collapsed_starts_cost_none():
    problem = Counting(solvers.get_problem("sphere", 4))
    algo = algorithm(problem, walkers=40, tol=1e-3)
    state = algo.init(ArrayRNG(np, 2))
    assert state.evals == problem.rows == 40 * 5
    state.active[:25] = False  # stop 25 starts by hand
    frozen = state.simplices[:25].copy()
    before = state.evals
    algo.step(state, 1)
    assert problem.rows == state.evals
    assert 0 < state.evals - before <= 15 * 2 * 4
    assert np.array_equal(state.simplices[:25], frozen)
    for _ in range(200):
        algo.step(state, 5)
        assert problem.rows == state.evals
        if state.done:
            break
    assert state.done and not state.active.any()
    evals, iteration = state.evals, state.iteration
    algo.step(state, 10)
    assert state.evals == evals and state.iteration == iteration


def test_runner_reports_the_evaluations_actually_made():
    result = solvers.run("multidirectional_search", "sphere", dim=3, seed=5, max_iters=7,
                         params={"walkers": 10})
    problem = Counting(solvers.get_problem("sphere", 3))
    algo = algorithm(problem, walkers=10)
    state = algo.init(ArrayRNG(np, 5))
    algo.step(state, 7)
    assert result.evals == problem.rows == state.evals
    assert result.best_f == float(state.best_f)
    assert 10 * 4 + 7 * 10 * 3 <= result.evals <= 10 * 4 + 7 * 10 * 2 * 3  # n to 2n per start


def test_restart_keeps_collapsed_starts_searching():
    problem = Counting(solvers.get_problem("sphere", 2))
    algo = algorithm(problem, walkers=8, tol=1e-2, restart=True)
    state = algo.init(ArrayRNG(np, 4))
    algo.step(state, 100)  # a simplex collapses after a handful of contractions
    assert not state.done
    assert problem.rows == state.evals
    assert state.evals <= 8 * 3 + 100 * 8 * 2 * 2
    best = float(state.best_f)
    algo.step(state, 50)
    assert float(state.best_f) <= best


def test_same_seed_same_result_different_seed_different():
    run = lambda seed: solvers.run("multidirectional_search", "rastrigin", dim=3, seed=seed,  # noqa: E731
                                   max_iters=15, params={"walkers": 32})
    a, b, c = run(11), run(11), run(12)
    assert np.array_equal(a.best_x, b.best_x) and a.best_f == b.best_f and a.evals == b.evals
    assert not np.array_equal(a.best_x, c.best_x)


# --- Torczon's acceptance rule on a hand-made simplex ------------------------------------------
# v0 = (0, 0) best, v1 = (1, 0), v2 = (0, 1); reflections (-1, 0), (0, -1); expansions (mu = 2)
# (-2, 0), (0, -2); contractions (theta = 1/2) (0.5, 0), (0, 0.5).
SIMPLEX = np.array([[[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]])


def one_step(fn, lo=-10.0, hi=10.0):
    problem = Counting(make_problem(fn, 2, lo, hi))
    algo = algorithm(problem, walkers=1)
    state = algo.state_from_simplices(SIMPLEX)
    start = state.evals
    algo.step(state, 1)
    vertices = {tuple(np.round(v, 12)) for v in state.simplices[0]}
    return state, vertices, state.evals - start


def bowl(cx, cy):
    return lambda xp, X: (X[:, 0] - cx) ** 2 + (X[:, 1] - cy) ** 2


def test_torczon_takes_the_expansion_when_it_beats_the_reflection():
    # f(v0) = 18, min f(r) = 13, min f(e) = 10. The seed's printed rule would keep the
    # reflection here (it keeps r when f(e) < f(v0)); Torczon keeps the expansion.
    state, vertices, evals = one_step(bowl(-3, -3))
    assert vertices == {(0, 0), (-2, 0), (0, -2)}
    assert tuple(state.X[0]) == (-2.0, 0.0) and state.f[0] == 10.0  # best moved to the head
    assert evals == 4


def test_torczon_takes_the_reflection_when_the_expansion_is_no_better():
    # f(v0) = 2, min f(r) = 1, min f(e) = 2 (= f(v0)): the seed's printed rule would take the
    # expansion (f(e) >= f(v0)); Torczon keeps the reflection.
    state, vertices, evals = one_step(bowl(-1, -1))
    assert vertices == {(0, 0), (-1, 0), (0, -1)}
    assert state.f[0] == 1.0 and evals == 4


def test_torczon_contracts_when_the_reflection_does_not_beat_the_best():
    state, vertices, evals = one_step(bowl(0.3, 0.3))
    assert vertices == {(0, 0), (0.5, 0), (0, 0.5)}
    assert state.f[0] == pytest.approx(0.13) and evals == 4


def test_a_reflection_leaving_the_box_is_rejected_unevaluated():
    # box [0, 10]^2: both reflections leave it, so only the contraction is evaluated
    state, vertices, evals = one_step(lambda xp, X: X[:, 0] + X[:, 1], lo=0.0, hi=10.0)
    assert vertices == {(0, 0), (0.5, 0), (0, 0.5)}
    assert evals == 2


def test_nan_and_inf_points_never_become_the_best():
    def fn(xp, X):
        f = ((X - 2.0) ** 2).sum(axis=1)  # the unconstrained minimum (2, 2) lies in the bad region
        f = xp.where(X[:, 0] > 1.0, xp.nan, f)
        return xp.where(X[:, 1] > 1.5, -xp.inf, f)
    problem = make_problem(fn, 2, -5.0, 5.0)
    algo = algorithm(problem, walkers=64)
    state = algo.init(ArrayRNG(np, 0))
    algo.step(state, 60)
    best_x, best_f = state.best_x, float(state.best_f)
    assert np.isfinite(best_f)
    assert best_x[0] <= 1.0 and best_x[1] <= 1.5
    assert best_f == pytest.approx(float(fn(np, best_x[None])[0]))
    # the smallest finite value is 1.25 at (1, 1.5): anything lower would be a bad point taken
    assert 1.25 <= best_f < 1.3
    assert np.all(np.isinf(state.f) | np.isfinite(state.f))


def test_snapshot_draws_a_few_simplices_and_reports_extras():
    problem = solvers.get_problem("sphere", 2)
    algo = algorithm(problem, walkers=100)
    state = algo.init(ArrayRNG(np, 0))
    algo.step(state, 3)
    data = algo.snapshot(state, np.arange(0, 100, 3))
    assert data.overlays["simplices"].shape == (8, 3, 2)
    assert data.positions.shape == (34, 2)
    assert 0.0 <= data.extras["starts still active"] <= 1.0
    assert data.extras["simplex size (median, x range)"] > 0


def test_tolerance_must_be_below_the_edge():
    with pytest.raises(ConfigError):
        make_params(MultidirectionalSearch.Params, {"edge": 0.01, "tol": 0.02})
