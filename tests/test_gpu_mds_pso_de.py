"""GPU: what is particular to the part-2 kernels (multi-directional search, particle swarm,
differential evolution) on the cuda engine. Multi-directional search has no randomness in its
moves, so from the same simplices the cuda kernel must take the reference's steps: same evaluation
count, same simplices up to the objective's rounding. Also: collapse and restart, high dimension,
one group spread over blocks, SPSO's links, out of memory, the runner. The contract every
algorithm keeps (bounds, counts, budget, seeds, launch shapes, numpy agreement) is
tests/test_gpu_contract.py, parametrised over the registries.
"""
from __future__ import annotations

import gc

import numpy as np
import pytest

import solvers
from solvers.algorithms.multidirectional_search import MultidirectionalSearch
from solvers.bench import solver_class
from solvers.errors import DeviceMemoryError
from solvers.params import make_params
from solvers.problems import get_problem
from solvers.rng import ArrayRNG
from tests.gpu_run import build, everything, run

pytestmark = pytest.mark.gpu

PART2 = ("multidirectional_search", "particle_swarm", "differential_evolution")


def test_mds_refuses_simplices_far_outside_a_boxed_module(cupy):
    """A built-in's module is compiled for its box (kernels/common.cuh MW_COSPI_BOXED: the folds'
    cosine is exact within +-2^20): host-supplied simplices beyond that are refused, not evaluated
    wrongly; simplices in the box are taken."""
    prob = get_problem("rastrigin", 3)
    params = make_params(MultidirectionalSearch.Params, {"walkers": 4})
    algo = solver_class("multidirectional_search", "cuda")(prob, params, xp=cupy, dtype="float32")
    assert algo.boxed
    simplices = np.zeros((4, 4, 3), dtype=np.float32)
    algo.state_from_simplices(cupy.asarray(simplices))
    simplices[2, 1, 0] = 3e6
    with pytest.raises(ValueError, match="far outside the box"):
        algo.state_from_simplices(cupy.asarray(simplices))


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

