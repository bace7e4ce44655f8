"""Particle swarm (classic and SPSO-2011): convergence, bounds, counting, seeds, topology, swarms."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import solvers
from solvers.algorithms import get_algorithm
from solvers.algorithms.particle_swarm import LINKED_SAMPLE, draw_links, informant_best
from solvers.config import RunConfig
from solvers.errors import ConfigError
from solvers.params import make_params
from solvers.rng import ArrayRNG
from solvers.runner import Runner, sample_indices

PSO = get_algorithm("particle_swarm")
VARIANTS = next(s.choices for s in PSO.param_specs() if s.name == "variant")


def build(problem, seed=0, dtype=np.float64, **values):
    """An initialised algorithm and state on numpy."""
    algo = PSO(problem, make_params(PSO.Params, values), xp=np, dtype=dtype)
    return algo, algo.init(ArrayRNG(np, seed))


def with_objective(problem, fn):
    """`problem` with its function replaced by fn(xp, X) (same box, name and dimension)."""
    return dataclasses.replace(problem, definition=dataclasses.replace(problem.definition, fn=fn))


def test_variants_are_the_two_of_the_issue():
    assert set(VARIANTS) == {"classic", "spso2011"}


# Budget: 4 swarms; 2-D: 20 particles x 60 iterations (4 800 evaluations), 10-D: 40 particles x
# 250 iterations (40 000). Over seeds 0-4 both variants end below 3e-5 (2-D) and 2e-9 (10-D).
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("dim, walkers, iterations", [(2, 20, 60), (10, 40, 250)])
def test_converges_on_sphere(variant, dim, walkers, iterations):
    result = solvers.run("particle_swarm", "sphere", dim=dim, seed=3,
                         max_evals=walkers * 4 * iterations,
                         params={"variant": variant, "walkers": walkers, "swarms": 4})
    assert result.evals <= walkers * 4 * iterations
    assert result.best_f < 1e-3


@pytest.mark.parametrize("variant", VARIANTS)
def test_finds_rastrigin_2d_minimum_with_many_swarms(variant):
    result = solvers.run("particle_swarm", "rastrigin", dim=2, seed=1, max_iters=150,
                         params={"variant": variant, "walkers": 20, "swarms": 16})
    assert result.best_f < 1e-3


@pytest.mark.parametrize("variant", VARIANTS)
def test_particles_stay_in_bounds_and_are_confined(variant):
    problem = solvers.get_problem("rastrigin", 5)
    algo, state = build(problem, variant=variant, walkers=30, swarms=4)
    touched = False
    for _ in range(25):
        algo.step(state, 1)
        for points in (state.X, state.P):
            assert np.all(points >= problem.lower) and np.all(points <= problem.upper)
        touched |= bool(np.any((state.X == problem.lower) | (state.X == problem.upper)))
        assert np.all(np.isfinite(state.V))
    assert touched, "no particle reached a bound: the test did not exercise confinement"


@pytest.mark.parametrize("variant", VARIANTS)
def test_evaluations_are_counted_exactly(variant):
    calls = []
    sphere = solvers.get_problem("sphere", 3)

    def counted(xp, X):
        calls.append(X.shape[0])
        return xp.sum(X * X, axis=1)

    algo, state = build(with_objective(sphere, counted), variant=variant, walkers=12, swarms=3)
    algo.step(state, 7)
    algo.step(state, 2)
    assert state.evals == sum(calls) == 36 * 10
    assert state.iteration == 9


@pytest.mark.parametrize("variant", VARIANTS)
def test_same_seed_same_run_other_seed_other_run(variant):
    problem = solvers.get_problem("rastrigin", 4)
    runs = []
    for seed in (5, 5, 6):
        algo, state = build(problem, seed=seed, variant=variant, walkers=10, swarms=3)
        algo.step(state, 15)
        runs.append((state.X.copy(), float(state.best_f)))
    assert np.array_equal(runs[0][0], runs[1][0]) and runs[0][1] == runs[1][1]
    assert not np.array_equal(runs[0][0], runs[2][0])


@pytest.mark.parametrize("variant", VARIANTS)
def test_swarms_are_independent(variant):
    """Swarm 1 minimises another function; swarms 0 and 2 must not notice (same seed)."""
    walkers, swarms = 10, 3
    sphere = solvers.get_problem("sphere", 3)

    def swarm_1_elsewhere(xp, X):
        f = xp.sum(X * X, axis=1)
        shifted = xp.sum((X - 40.0) ** 2, axis=1)  # every call evaluates all rows, swarm by swarm
        rows = xp.arange(X.shape[0]) // walkers
        return xp.where(rows == 1, shifted, f)

    finals = []
    for problem in (sphere, with_objective(sphere, swarm_1_elsewhere)):
        algo, state = build(problem, seed=9, variant=variant, walkers=walkers, swarms=swarms)
        algo.step(state, 20)
        finals.append(state)
    plain, changed = finals
    for s in (0, 2):
        rows = slice(s * walkers, (s + 1) * walkers)
        assert np.array_equal(plain.X[rows], changed.X[rows])
        assert np.array_equal(plain.V[rows], changed.V[rows])
        assert plain.swarm_best_f[s] == changed.swarm_best_f[s]
        if variant == "spso2011":
            assert np.array_equal(plain.links[rows], changed.links[rows])
    assert not np.array_equal(plain.X[walkers:2 * walkers], changed.X[walkers:2 * walkers])


@pytest.mark.parametrize("variant", VARIANTS)
def test_nan_points_never_become_the_best(variant):
    sphere = solvers.get_problem("sphere", 2)

    def nan_left_half(xp, X):
        f = xp.sum(X * X, axis=1)
        return xp.where(X[:, 0] < 1.0, xp.nan, f)  # the true minimum lies in the NaN region

    algo, state = build(with_objective(sphere, nan_left_half), variant=variant, walkers=20, swarms=2)
    algo.step(state, 40)
    best_x, best_f = np.asarray(state.best_x), float(state.best_f)
    assert np.isfinite(best_f) and best_x[0] >= 1.0
    assert best_f == pytest.approx(float((best_x ** 2).sum()))
    assert best_f < 1.5  # it did optimise next to the NaN region (minimum 1 at (1, 0))
    assert np.all(np.isfinite(state.swarm_best_f))


@pytest.mark.parametrize("variant", VARIANTS)
def test_all_nan_objective_keeps_best_at_infinity(variant):
    sphere = solvers.get_problem("sphere", 2)
    algo, state = build(with_objective(sphere, lambda xp, X: xp.full(X.shape[0], xp.nan)),
                        variant=variant, walkers=8, swarms=2)
    algo.step(state, 5)
    assert float(state.best_f) == np.inf
    assert np.all(np.isfinite(state.X))


@pytest.mark.parametrize("variant", VARIANTS)
def test_float32_stays_float32(variant):
    algo, state = build(solvers.get_problem("rastrigin", 3), dtype=np.float32, variant=variant,
                        walkers=8, swarms=2)
    algo.step(state, 3)
    assert state.X.dtype == state.V.dtype == state.P.dtype == np.float32


# --- SPSO-2011 topology ---------------------------------------------------------------------------
def test_links_draw_k_targets_inside_the_own_swarm_uniformly():
    swarms, particles, k = 400, 5, 3
    links = draw_links(ArrayRNG(np, 0), swarms, particles, k)
    assert links.shape == (swarms * particles, k)
    source_swarm = np.arange(swarms * particles) // particles
    assert np.all(links // particles == source_swarm[:, None])
    local = links % particles  # 6000 draws over 5 targets: 1200 expected each, sd ~31
    counts = np.bincount(local.ravel(), minlength=particles)
    assert np.all(np.abs(counts - links.size / particles) < 0.1 * links.size / particles)


def test_informant_best_against_brute_force_with_ties_and_inf():
    rng = np.random.default_rng(4)
    swarms, particles, k = 3, 7, 2
    n = swarms * particles
    links = draw_links(ArrayRNG(np, 4), swarms, particles, k)
    values = rng.integers(0, 3, n).astype(float)
    values[rng.random(n) < 0.2] = np.inf
    got = informant_best(links, values)
    for j in range(n):
        informants = sorted({j} | {i for i in range(n) if j in links[i]})
        expected = min(informants, key=lambda i: (values[i], i))  # ties: lowest index
        assert got[j] == expected, j


def test_links_redrawn_exactly_after_non_improving_iterations():
    problem = solvers.get_problem("rastrigin", 5)
    algo, state = build(problem, seed=2, variant="spso2011", walkers=10, swarms=32, informants=3)
    kept = redrawn = 0
    for _ in range(30):
        links, best = state.links.copy(), state.swarm_best_f.copy()
        algo.step(state, 1)
        improved = state.swarm_best_f < best
        assert np.array_equal(state.redrawn, ~improved)
        for s in range(32):
            rows = slice(s * 10, (s + 1) * 10)
            same = np.array_equal(links[rows], state.links[rows])
            assert same == bool(improved[s]), (s, improved[s])
            kept += same
            redrawn += not same
    assert kept > 0 and redrawn > 0


def test_spso2011_velocity_is_centre_plus_a_point_in_the_hypersphere():
    """From x = 0, v = 0, p = p0 everywhere: v' = G - x + (x' - G) with |x' - G| <= |G - x|.

    G - x is c (p - x) / 2 for a particle that is its own best informant, else c (p + l - 2x) / 3;
    the radius fraction |x' - G| / |G - x| is U(0, 1) (Clerc's alea_sphere), so its mean is 1/2
    (a volume-uniform draw would give d / (d + 1) = 3/4 in 3-D).
    """
    swarms, walkers = 10000, 2
    algo, state = build(solvers.get_problem("sphere", 3), variant="spso2011", walkers=walkers,
                        swarms=swarms)
    n, p0 = swarms * walkers, np.array([10.0, -20.0, 5.0])
    state.X, state.V = np.zeros((n, 3)), np.zeros((n, 3))
    state.P, state.Pf = np.tile(p0, (n, 1)), np.zeros(n)
    best = informant_best(state.links, state.Pf)
    algo.step(state, 1)
    own = best == np.arange(n)
    assert own.any() and (~own).any()
    c = 0.5 + np.log(2.0)
    to_centre = np.where(own[:, None], c * p0 / 2.0, c * 2.0 * p0 / 3.0)
    offset = state.V - to_centre
    fraction = np.linalg.norm(offset, axis=1) / np.linalg.norm(to_centre, axis=1)
    assert np.all(fraction <= 1.0 + 1e-12)
    assert fraction.mean() == pytest.approx(0.5, abs=0.01)
    assert np.allclose(offset.mean(axis=0), 0.0, atol=0.02 * np.linalg.norm(p0))


# --- snapshot ------------------------------------------------------------------------------------
@pytest.mark.parametrize("variant", VARIANTS)
def test_snapshot_overlays_and_extras(variant):
    walkers, swarms = 12, 5
    problem = solvers.get_problem("rastrigin", 3)
    algo, state = build(problem, variant=variant, walkers=walkers, swarms=swarms)
    algo.step(state, 4)
    sample = sample_indices(walkers * swarms, 40)
    data = algo.snapshot(state, sample)
    assert np.array_equal(data.positions, state.X[sample])
    assert np.array_equal(data.overlays["velocities"], state.V[sample])
    assert 0.0 < data.extras["swarm spread (x box diagonal)"] < 1.0
    assert data.extras["swarm best (median)"] <= data.extras["swarm best (worst)"]
    if variant == "classic":
        assert "links" not in data.overlays
        return
    pairs = data.overlays["links"]
    assert pairs.ndim == 2 and pairs.shape[1] == 2 and len(pairs) > 0
    # brute force: every link i -> j (i != j) between sampled particles of the chosen swarm
    swarm_of = sample // walkers
    chosen = np.bincount(swarm_of).argmax()
    positions = np.flatnonzero(swarm_of == chosen)[:LINKED_SAMPLE]
    expected = {(int(a), int(b)) for a in positions for b in positions
                if a != b and sample[b] in state.links[sample[a]]}
    assert {tuple(map(int, p)) for p in pairs} == expected


def test_snapshot_links_through_the_runner():
    config = RunConfig.build("particle_swarm", "sphere", 2, params={"walkers": 16, "swarms": 4},
                             max_iters=3, sample_size=64)
    snaps = []
    Runner(config, on_snapshot=snaps.append).run()
    last = snaps[-1]
    assert last.overlays["velocities"].shape == (64, 2)
    links = last.overlays["links"]
    assert np.all(last.sample_index[links[:, 0]] // 16 == last.sample_index[links[:, 1]] // 16)


# --- parameters ----------------------------------------------------------------------------------
def test_total_walkers_and_limit():
    algo, _ = build(solvers.get_problem("sphere", 2), walkers=6, swarms=7)
    assert algo.total_walkers() == 42
    with pytest.raises(ConfigError, match="walkers x swarms"):
        make_params(PSO.Params, {"walkers": 2**13, "swarms": 2**12})


def test_live_coefficients_change_mid_run_but_sizes_do_not():
    config = RunConfig.build("particle_swarm", "sphere", 2, params={"variant": "classic"})
    runner = Runner(config)
    runner.update_params({"omega": 0.5, "phi_p": 2.0, "phi_g": 1.0, "lr": 0.5})
    with pytest.raises(ConfigError):
        runner.update_params({"swarms": 3})


def test_classic_zero_coefficients_freeze_the_swarm():
    """omega = phi_p = phi_g = 0 must stop every particle: checks the update uses the parameters."""
    algo, state = build(solvers.get_problem("sphere", 2), variant="classic", walkers=8, swarms=2)
    algo.step(state, 1)
    algo.set_params(state, dataclasses.replace(algo.params, omega=0.0, phi_p=0.0, phi_g=0.0))
    X = state.X.copy()
    algo.step(state, 2)
    assert np.array_equal(state.X, X)
