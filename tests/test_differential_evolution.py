"""Differential evolution DE/rand/1/bin: operators, convergence, bounds, counting, seeds, populations."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import solvers
from solvers.algorithms import get_algorithm
from solvers.algorithms.differential_evolution import (binomial_crossover, bounce_back,
                                                       draw_distinct_indices)
from solvers.config import RunConfig
from solvers.errors import ConfigError
from solvers.params import make_params
from solvers.rng import ArrayRNG
from solvers.runner import Runner, sample_indices

DE = get_algorithm("differential_evolution")


def build(problem, seed=0, dtype=np.float64, **values):
    """An initialised algorithm and state on numpy."""
    algo = DE(problem, make_params(DE.Params, values), xp=np, dtype=dtype)
    return algo, algo.init(ArrayRNG(np, seed))


def with_objective(problem, fn):
    """`problem` with its function replaced by fn(xp, X) (same box, name and dimension)."""
    return dataclasses.replace(problem, definition=dataclasses.replace(problem.definition, fn=fn))


# --- operators -----------------------------------------------------------------------------------
@pytest.mark.parametrize("members", [4, 5, 17])
def test_r1_r2_r3_distinct_from_each_other_and_from_i(members):
    groups = 300
    rng = ArrayRNG(np, members)
    i = np.arange(groups * members)
    for _ in range(20):
        r1, r2, r3 = draw_distinct_indices(rng, groups, members)
        for r in (r1, r2, r3):
            assert r.shape == i.shape
            assert np.all(r // members == i // members)  # inside i's own population
        assert np.all((r1 != i) & (r2 != i) & (r3 != i))
        assert np.all((r1 != r2) & (r1 != r3) & (r2 != r3))


def test_r1_r2_r3_each_uniform_over_the_allowed_members():
    groups, members = 20000, 5  # per i: 20000 draws over 4 values, 5000 expected, sd ~61
    r1, r2, r3 = draw_distinct_indices(ArrayRNG(np, 1), groups, members)
    i = np.arange(groups * members) % members
    for r in (r1, r2, r3):
        counts = np.zeros((members, members))
        np.add.at(counts, (i, r % members), 1)
        assert np.all(np.diag(counts) == 0)
        off = counts[~np.eye(members, dtype=bool)]
        assert np.all(np.abs(off - groups / (members - 1)) < 0.05 * groups / (members - 1))


def test_cr_zero_takes_exactly_the_j_rand_gene_from_the_mutant():
    n, d = 20000, 6
    X, V = np.zeros((n, d)), np.ones((n, d))
    trials, take = binomial_crossover(ArrayRNG(np, 0), X, V, 0.0)
    assert np.array_equal(take.sum(axis=1), np.ones(n))
    assert np.array_equal(trials, take.astype(float))
    position = take.argmax(axis=1)  # j_rand: uniform over the d genes
    counts = np.bincount(position, minlength=d)
    assert np.all(np.abs(counts - n / d) < 0.05 * n / d)


@pytest.mark.parametrize("d", [1, 8])
def test_every_trial_has_a_mutant_gene_whatever_cr(d):
    n = 5000
    X, V = np.zeros((n, d)), np.ones((n, d))
    trials, take = binomial_crossover(ArrayRNG(np, 3), X, V, 0.3)
    assert np.all(take.any(axis=1))
    assert np.array_equal(trials, np.where(take, V, X))
    # P(gene from mutant) = Cr + (1 - Cr) / d
    assert take.mean() == pytest.approx(0.3 + 0.7 / d, abs=0.01)


def test_bounce_back_lands_between_base_and_the_crossed_bound():
    lower, upper = np.array([-1.0, 0.0]), np.array([1.0, 10.0])
    base = np.array([[0.5, 2.0], [0.5, 2.0], [0.0, 5.0]])
    V = np.array([[-3.0, 12.0], [0.2, 3.0], [7.0, -50.0]])
    u = np.full_like(V, 0.25)
    out = bounce_back(V, base, lower, upper, u)
    expected = np.array([[-1.0 + 0.25 * 1.5, 10.0 - 0.25 * 8.0], [0.2, 3.0],
                         [1.0 - 0.25 * 1.0, 0.0 + 0.25 * 5.0]])
    assert np.allclose(out, expected)


# --- the algorithm -------------------------------------------------------------------------------
# Budget: 4 populations; 2-D: 20 individuals x 60 generations (4 800 evaluations), 10-D: 40 x 250
# (40 000). Over seeds 0-4 the best ends below 2e-11 (2-D) and 7e-8 (10-D).
@pytest.mark.parametrize("dim, walkers, generations", [(2, 20, 60), (10, 40, 250)])
def test_converges_on_sphere(dim, walkers, generations):
    result = solvers.run("differential_evolution", "sphere", dim=dim, seed=3,
                         max_evals=walkers * 4 * generations,
                         params={"walkers": walkers, "populations": 4})
    assert result.evals <= walkers * 4 * generations
    assert result.best_f < 1e-3


def test_finds_rastrigin_2d_minimum():
    result = solvers.run("differential_evolution", "rastrigin", dim=2, seed=1, max_iters=150,
                         params={"walkers": 20, "populations": 16})
    assert result.best_f < 1e-3


def test_individuals_and_trials_stay_in_bounds():
    problem = solvers.get_problem("rastrigin", 5)
    algo, state = build(problem, walkers=20, populations=4, F=2.0)  # F = 2 throws mutants far out
    for _ in range(25):
        algo.step(state, 1)
        for points in (state.X, state.trials):
            assert np.all(points >= problem.lower) and np.all(points <= problem.upper)


def test_evaluations_are_counted_exactly():
    calls = []
    sphere = solvers.get_problem("sphere", 3)

    def counted(xp, X):
        calls.append(X.shape[0])
        return xp.sum(X * X, axis=1)

    algo, state = build(with_objective(sphere, counted), walkers=12, populations=3)
    algo.step(state, 7)
    algo.step(state, 2)
    assert state.evals == sum(calls) == 36 * 10
    assert state.iteration == 9


def test_same_seed_same_run_other_seed_other_run():
    problem = solvers.get_problem("rastrigin", 4)
    runs = []
    for seed in (5, 5, 6):
        algo, state = build(problem, seed=seed, walkers=10, populations=3)
        algo.step(state, 15)
        runs.append((state.X.copy(), float(state.best_f)))
    assert np.array_equal(runs[0][0], runs[1][0]) and runs[0][1] == runs[1][1]
    assert not np.array_equal(runs[0][0], runs[2][0])


def test_selection_is_greedy():
    algo, state = build(solvers.get_problem("rastrigin", 3), walkers=16, populations=2)
    for _ in range(10):
        X, f = state.X.copy(), state.f.copy()
        algo.step(state, 1)
        f_trials = solvers.get_problem("rastrigin", 3).evaluate(state.trials)
        accepted = f_trials <= f
        assert np.array_equal(state.accepted, accepted)
        assert np.array_equal(state.X, np.where(accepted[:, None], state.trials, X))
        assert np.all(state.f <= f)


def test_populations_are_independent():
    """Population 1 minimises another function; populations 0 and 2 must not notice (same seed)."""
    walkers, populations = 10, 3
    sphere = solvers.get_problem("sphere", 3)

    def population_1_elsewhere(xp, X):
        f = xp.sum(X * X, axis=1)
        shifted = xp.sum((X - 40.0) ** 2, axis=1)  # every call evaluates all rows, in order
        rows = xp.arange(X.shape[0]) // walkers
        return xp.where(rows == 1, shifted, f)

    finals = []
    for problem in (sphere, with_objective(sphere, population_1_elsewhere)):
        algo, state = build(problem, seed=9, walkers=walkers, populations=populations)
        algo.step(state, 20)
        finals.append(state)
    plain, changed = finals
    for g in (0, 2):
        rows = slice(g * walkers, (g + 1) * walkers)
        assert np.array_equal(plain.X[rows], changed.X[rows])
        assert np.array_equal(plain.trials[rows], changed.trials[rows])
    assert not np.array_equal(plain.X[walkers:2 * walkers], changed.X[walkers:2 * walkers])


def test_nan_points_never_become_the_best():
    sphere = solvers.get_problem("sphere", 2)

    def nan_left_half(xp, X):
        f = xp.sum(X * X, axis=1)
        return xp.where(X[:, 0] < 1.0, xp.nan, f)  # the true minimum lies in the NaN region

    algo, state = build(with_objective(sphere, nan_left_half), walkers=20, populations=2)
    algo.step(state, 40)
    best_x, best_f = np.asarray(state.best_x), float(state.best_f)
    assert np.isfinite(best_f) and best_x[0] >= 1.0
    assert best_f == pytest.approx(float((best_x ** 2).sum()))
    assert best_f < 1.5  # it did optimise next to the NaN region (minimum 1 at (1, 0))


def test_float32_stays_float32():
    algo, state = build(solvers.get_problem("rastrigin", 3), dtype=np.float32, walkers=8,
                        populations=2)
    algo.step(state, 3)
    assert state.X.dtype == state.trials.dtype == state.f.dtype == np.float32


def test_snapshot_overlays_and_extras():
    walkers, populations = 12, 5
    algo, state = build(solvers.get_problem("rastrigin", 3), walkers=walkers, populations=populations)
    algo.step(state, 4)
    sample = sample_indices(walkers * populations, 40)
    data = algo.snapshot(state, sample)
    assert np.array_equal(data.positions, state.X[sample])
    assert np.array_equal(data.overlays["trials"], state.trials[sample])
    assert data.extras["success rate (last generation)"] == pytest.approx(state.accepted.mean())
    assert 0.0 < data.extras["population spread (x box diagonal)"] < 1.0
    assert data.extras["population best (median)"] <= data.extras["population best (worst)"]


# --- parameters ----------------------------------------------------------------------------------
def test_sizes_and_limits():
    algo, _ = build(solvers.get_problem("sphere", 2), walkers=6, populations=7)
    assert algo.total_walkers() == 42
    with pytest.raises(ConfigError, match="walkers x populations"):
        make_params(DE.Params, {"walkers": 2**13, "populations": 2**12})
    with pytest.raises(ConfigError):
        make_params(DE.Params, {"walkers": 3})  # r1, r2, r3 and i need four individuals


def test_f_and_cr_are_live_and_take_effect():
    runner = Runner(RunConfig.build("differential_evolution", "sphere", 2))
    runner.update_params({"F": 0.8, "Cr": 0.2})
    with pytest.raises(ConfigError):
        runner.update_params({"populations": 3})
    algo, state = build(solvers.get_problem("sphere", 6), walkers=10, populations=2)
    algo.step(state, 2)
    algo.set_params(state, dataclasses.replace(algo.params, Cr=0.0))
    X = state.X.copy()
    algo.step(state, 1)
    assert np.all((state.trials != X).sum(axis=1) <= 1)  # Cr = 0: only the j_rand gene changes
