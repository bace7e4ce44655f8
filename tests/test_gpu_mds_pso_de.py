"""GPU, part 2: multi-directional search, particle swarm and differential evolution on the cuda engine.

Each kernel keeps its walkers in the box, counts evaluations exactly, improves, repeats itself for a
seed whatever the launch shape (chunking, block size, a swarm spread over blocks or not, threads
owning several members, shared or global working memory), and reaches the numpy engine's quality
on the same budget. Multi-directional search has no randomness in its moves, so from the same
simplices the cuda kernel must take the reference's steps: same evaluation count, same simplices up
to the objective's rounding. Helpers come from the part-1 GPU tests.
"""
from __future__ import annotations

import gc

import numpy as np
import pytest

import solvers
from solvers.algorithms.multidirectional_search import MultidirectionalSearch
from solvers.bench import solver_class
from solvers.cuda import cuda_algorithms
from solvers.errors import DeviceMemoryError
from solvers.params import make_params
from solvers.problems import get_problem
from solvers.rng import ArrayRNG
from tests.test_gpu_kernels import build, cupy, everything, run  # noqa: F401 - cupy is a fixture
from tests.test_gpu_parity import _runs

pytestmark = pytest.mark.gpu

PART2 = ("multidirectional_search", "particle_swarm", "differential_evolution")
# (id, algorithm, params): every algorithm and variant; walkers is per swarm/population
CASES = [
    ("mds", "multidirectional_search", {}),
    ("mds_restart", "multidirectional_search", {"restart": True, "tol": 1e-3, "edge": 0.02}),
    ("pso_classic", "particle_swarm", {"variant": "classic", "swarms": 3}),
    ("pso_spso", "particle_swarm", {"variant": "spso2011", "swarms": 3}),
    ("de", "differential_evolution", {"populations": 3}),
]
IDS = [c[0] for c in CASES]


def memory_of(algo, state):
    """The values each algorithm never forgets (personal bests, the population, the heads)."""
    if algo.name == "particle_swarm":
        return state.Pf.get()
    if algo.name == "differential_evolution":
        return state.f.get()
    return state.values[:, 0].get()


def test_registry_lists_the_part2_algorithms():
    assert set(PART2) <= set(cuda_algorithms())


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case_id,algorithm,params", CASES, ids=IDS)
def test_bounds_counts_improvement_and_best(cupy, case_id, algorithm, params, dtype):
    walkers, d, iterations = 100, 5, 30
    algo = build(cupy, algorithm, params, walkers=walkers, dim=d, dtype=dtype)
    state = algo.init(ArrayRNG(cupy, 11))
    n = algo.total_walkers()
    first = float(state.best_f)
    algo.step(state, 13)
    algo.step(state, iterations - 13)
    positions, fitness, best_f, best_x, evals, iteration = everything(algo, state)
    problem = algo.problem
    assert positions.shape == (n, d)
    assert np.all(positions >= problem.lower) and np.all(positions <= problem.upper), "walker out of the box"
    assert np.all(best_x >= problem.lower) and np.all(best_x <= problem.upper)
    if algorithm == "multidirectional_search":
        simplices = state.simplices.get()
        assert np.all(simplices >= problem.lower) and np.all(simplices <= problem.upper)
        # n + 1 per start at first, then at most 2 d per start and iteration (a restart: d + 1)
        assert n * (d + 1) < evals <= n * (d + 1) + iterations * 2 * d * n
        if params.get("restart"):
            assert iteration == iterations
    else:
        assert iteration == iterations
        assert evals == n * (1 + iterations)  # one evaluation per member per iteration, plus init
    assert best_f < first, "the best value did not improve"
    assert best_f <= memory_of(algo, state).min()
    f_at_best = float(problem.evaluate(best_x[None, :].astype(np.float64))[0])
    tol = 1e-9 if dtype == "float64" else 1e-4
    assert abs(f_at_best - best_f) <= tol * max(1.0, abs(best_f))
    if not params.get("restart"):
        assert best_f == memory_of(algo, state).min()  # bests only improve: the best is remembered


def _shapes(cupy, algorithm, params, monkeypatch, **kw):
    """The same run under several launch shapes; every result must be identical."""
    import solvers.cuda.differential_evolution as de_module
    import solvers.cuda.particle_swarm as pso_module

    kw = {"walkers": 70, "dim": 6, **kw}
    results = [everything(*run(cupy, algorithm, params, [25], **kw)),
               everything(*run(cupy, algorithm, params, [1, 9, 15], **kw))]
    algo = build(cupy, algorithm, params, **kw)
    algo.block = 32  # small blocks: a swarm/population spread over several, meeting at barriers
    state = algo.init(ArrayRNG(cupy, 3))
    algo.step(state, 25)
    results.append(everything(algo, state))
    algo = build(cupy, algorithm, params, **kw)
    algo.block = 32
    if algorithm == "multidirectional_search":
        algo.shared_limit = 0  # simplices worked on in global memory
    elif algorithm == "differential_evolution":
        algo.scratch_shared_max = 0  # trial rows in global memory
        monkeypatch.setattr(de_module, "resident_blocks", lambda *a: 2)  # batches, tiles per warp
    else:
        monkeypatch.setattr(pso_module, "resident_blocks", lambda *a: 2)  # batches, particles per thread
    state = algo.init(ArrayRNG(cupy, 3))
    algo.step(state, 25)
    results.append(everything(algo, state))
    return results


@pytest.mark.parametrize("case_id,algorithm,params", CASES, ids=IDS)
def test_same_seed_repeats_whatever_the_launch_shape(cupy, case_id, algorithm, params, monkeypatch):
    a, *others = _shapes(cupy, algorithm, params, monkeypatch)
    for k, other in enumerate(others):
        assert np.array_equal(a[0], other[0]) and np.array_equal(a[1], other[1]), f"shape {k + 1} differs"
        assert a[2] == other[2] and np.array_equal(a[3], other[3]) and a[4:] == other[4:], f"shape {k + 1}"
    d = everything(*run(cupy, algorithm, params, [25], seed=4, walkers=70, dim=6))
    assert not np.array_equal(a[0], d[0]), "another seed gave the same walkers"


@pytest.mark.parametrize("dim,starts", [(5, 64), (3, 50), (40, 12)])
@pytest.mark.parametrize("problem", ["sphere", "rastrigin"])
def test_mds_takes_the_reference_steps_from_the_same_simplices(cupy, problem, dim, starts):
    """No randomness in the moves: same simplices in, same steps out (float64, up to rounding).

    dim 3 packs several starts per warp (4 lanes each); dim 40 gives lanes two vertices each.
    Eight iterations keep the simplices far larger than where rounding could flip a comparison.
    """
    prob = get_problem(problem, dim)
    params = make_params(MultidirectionalSearch.Params, {"walkers": starts})
    reference = MultidirectionalSearch(prob, params)
    simplices = reference.init(ArrayRNG(np, 5)).simplices
    ref_state = reference.state_from_simplices(simplices)
    algo = solver_class("multidirectional_search", "cuda")(prob, params, xp=cupy, dtype="float64")
    state = algo.state_from_simplices(cupy.asarray(simplices))
    assert state.evals == ref_state.evals == starts * (dim + 1)
    for chunk in (3, 5):
        reference.step(ref_state, chunk)
        algo.step(state, chunk)
        assert state.evals == ref_state.evals, "evaluation counts differ"
        np.testing.assert_allclose(state.simplices.get(), ref_state.simplices, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(state.values.get(), ref_state.values, rtol=1e-9, atol=1e-12)
        assert np.array_equal(state.active.get().astype(bool), ref_state.active)
    assert float(state.best_f) == pytest.approx(float(ref_state.best_f), rel=1e-9, abs=1e-12)


def test_mds_collapsed_starts_stop_costing_and_the_run_ends(cupy):
    """Without restart every start collapses on the sphere; the run is then done, evaluations stop,
    and the counts are the reference's from the same simplices (the iteration of the last collapse)."""
    got = solvers.run("multidirectional_search", "sphere", engine="cuda", dim=3, seed=2, max_iters=500,
                      params={"walkers": 40, "tol": 1e-3})
    assert got.stop_reason == "converged" and got.iterations < 500
    prob = get_problem("sphere", 3)
    params = make_params(MultidirectionalSearch.Params, {"walkers": 40, "tol": 1e-3})
    reference = MultidirectionalSearch(prob, params)
    simplices = reference.init(ArrayRNG(np, 8)).simplices
    ref_state = reference.state_from_simplices(simplices)
    algo = solver_class("multidirectional_search", "cuda")(prob, params, xp=cupy, dtype="float64")
    state = algo.state_from_simplices(cupy.asarray(simplices))
    reference.step(ref_state, 1000)
    algo.step(state, 1000)
    assert ref_state.done and state.done and not state.active.get().any()
    assert (state.evals, state.iteration) == (ref_state.evals, ref_state.iteration)
    algo.step(state, 10)
    assert (state.evals, state.iteration) == (ref_state.evals, ref_state.iteration)


def test_mds_restart_keeps_the_best_of_finished_starts(cupy):
    algo, state = run(cupy, "multidirectional_search", {"restart": True, "tol": 1e-2, "edge": 0.05},
                      [60, 60], walkers=32, dim=2, dtype="float64")
    keep = state.keep_f.get()
    assert float(state.best_f) == keep.min()
    assert np.all(keep <= state.values[:, 0].get())  # a start's kept best is never worse than its head
    assert not state.done and state.iteration == 120


@pytest.mark.parametrize("dim", [128, 130])
def test_mds_high_dimension(cupy, dim):
    algo, state = run(cupy, "multidirectional_search", {}, [3], problem="rastrigin", dim=dim, walkers=20,
                      dtype="float32")
    assert algo._launch.shared_bytes > 0  # simplices of n ~ 128 still fit in shared memory
    assert np.isfinite(float(state.best_f))
    assert state.evals > 20 * (dim + 1)
    wide = build(cupy, "multidirectional_search", {}, problem="rastrigin", dim=dim, walkers=20, dtype="float32")
    wide.shared_limit = 0
    other = wide.init(ArrayRNG(cupy, 3))
    wide.step(other, 3)
    assert np.array_equal(state.simplices.get(), other.simplices.get())


@pytest.mark.parametrize("algorithm,params", [("particle_swarm", {"variant": "classic", "swarms": 2}),
                                              ("particle_swarm", {"variant": "spso2011", "swarms": 2}),
                                              ("differential_evolution", {"populations": 2})])
def test_high_dimension_runs(cupy, algorithm, params):
    algo, state = run(cupy, algorithm, params, [3], problem="rastrigin", dim=512, walkers=64, dtype="float32")
    positions, fitness, best_f, *_ = everything(algo, state)
    assert np.isfinite(best_f) and positions.shape == (128, 512)
    assert np.all(np.abs(positions) <= 5.12)


def test_one_large_swarm_and_population_spread_over_blocks(cupy):
    """One swarm / population of 2^16 (blocks meeting at barriers): counts and improvement."""
    for algorithm, params in (("particle_swarm", {"variant": "classic", "swarms": 1}),
                              ("particle_swarm", {"variant": "spso2011", "swarms": 1}),
                              ("differential_evolution", {"populations": 1})):
        algo, state = run(cupy, algorithm, params, [40], problem="rastrigin", dim=30, walkers=2**16,
                          dtype="float32")
        assert algo._launch.shape.per_group > 1
        assert state.evals == 2**16 * 41
        # the best of 2^16 uniform points is ~330; numpy after 40 iterations: PSO ~120, DE ~255
        assert float(state.best_f) < (200.0 if algorithm == "particle_swarm" else 300.0)


def test_spso_snapshot_draws_the_kernels_links(cupy):
    algo, state = run(cupy, "particle_swarm", {"variant": "spso2011", "swarms": 2, "informants": 3}, [7],
                      walkers=40, dim=3)
    ids = np.arange(0, 80, 3)
    links = algo.links_of(state, ids).get()
    assert links.shape == (len(ids), 3)
    assert np.all(links // 40 == (ids // 40)[:, None])  # targets in the particle's own swarm
    snap = algo.snapshot(state, np.arange(80))
    assert snap.overlays["links"].ndim == 2 and snap.overlays["links"].shape[1] == 2
    assert snap.overlays["velocities"].shape == (80, 3)
    assert 0.0 <= snap.extras["swarms that redrew links"] <= 1.0


@pytest.mark.parametrize("algorithm", PART2)
def test_out_of_memory_request_fails_cleanly(cupy, algorithm):
    params = {"swarms": 1} if algorithm == "particle_swarm" else {"populations": 1} \
        if algorithm == "differential_evolution" else {}
    walkers = 2**22 if algorithm == "multidirectional_search" else 2**24
    algo = build(cupy, algorithm, params, dim=400 if algorithm != "multidirectional_search" else 200,
                 walkers=walkers, dtype="float64")
    gc.collect()  # earlier tests' arrays are freed now, not in the middle of the check
    pool = cupy.get_default_memory_pool()
    used_before = pool.used_bytes()  # after build: the box's bounds are on the device already
    with pytest.raises(DeviceMemoryError) as info:
        algo.init(ArrayRNG(cupy, 0))
    assert "GiB" in str(info.value) and "free" in str(info.value)
    assert pool.used_bytes() <= used_before  # nothing was allocated


def test_runner_and_snapshots_on_the_cuda_engine(cupy):
    from solvers.config import RunConfig
    from solvers.runner import Runner

    for algorithm, params, overlay in (
            ("multidirectional_search", {"walkers": 500, "restart": True}, "simplices"),
            ("particle_swarm", {"walkers": 64, "swarms": 8}, "links"),
            ("differential_evolution", {"walkers": 64, "populations": 8}, "trials")):
        snaps = []
        config = RunConfig.build(algorithm, "rastrigin", 3, engine="cuda", dtype="float32", params=params,
                                 max_iters=40, sample_size=100)
        result = Runner(config, on_snapshot=snaps.append).run()
        last = snaps[-1]
        assert last.finished and last.positions.shape == (100, 3) and overlay in last.overlays
        assert result.iterations == 40 and np.isfinite(result.best_f)

