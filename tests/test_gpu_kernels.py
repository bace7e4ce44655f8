"""GPU: what is particular to the part-1 kernels (pattern search, annealing, evaluation only): lane
groups, fused init, staged points, high dimension, 2^20 walkers, fast math, out of memory, the
runner. The contract every algorithm keeps (bounds, counts, budget, seeds, launch shapes, numpy
agreement) is tests/test_gpu_contract.py, parametrised over the registries."""
from __future__ import annotations

import numpy as np
import pytest

from solvers.errors import DeviceMemoryError
from solvers.rng import ArrayRNG
from tests.gpu_run import build, everything, run, same

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("lanes", [2, 4, 8])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_pattern_search_lane_groups_match_one_lane_per_walker(cupy, dtype, lanes):
    """Speculative lane groups take exactly the decisions of one thread per walker."""
    results = []
    for lanes in (1, lanes):
        algo = build(cupy, "pattern_search", {}, walkers=333, dim=7, dtype=dtype)
        algo.lanes = lanes
        state = algo.init(ArrayRNG(cupy, 8))
        algo.step(state, 17)
        results.append(everything(algo, state))
    assert same(*results)


@pytest.mark.parametrize("algorithm,params", [("pattern_search", {}),
                                              ("simulated_annealing", {"variant": "sync"})])
def test_high_dimension_runs(cupy, algorithm, params):
    algo, state = run(cupy, algorithm, params, [2], problem="rastrigin", dim=512, walkers=256,
                      dtype="float32")
    positions, fitness, best_f, *_ = everything(algo, state)
    assert np.isfinite(best_f) and positions.shape == (256, 512)


def test_fast_math_runs_and_stays_close(cupy):
    precise = everything(*run(cupy, "evaluation_only", {}, [3], dtype="float32"))
    fast = everything(*run(cupy, "evaluation_only", {}, [3], dtype="float32", fast_math=True))
    assert np.array_equal(precise[0], fast[0])  # same points: the generator does not use fast math
    assert np.allclose(precise[1], fast[1], rtol=1e-3, atol=1e-3)


@pytest.mark.slow
@pytest.mark.parametrize("algorithm,params,iterations", [
    ("evaluation_only", {}, 3), ("pattern_search", {}, 1),
    ("simulated_annealing", {"variant": "sync", "chain_length": 5}, 12)])
def test_two_to_the_twenty_walkers_at_d30(cupy, algorithm, params, iterations):
    n, d = 2**20, 30
    algo, state = run(cupy, algorithm, params, [iterations], dim=d, walkers=n, dtype="float32")
    assert state.evals == n + iterations * algo.evals_per_iteration()  # a fixed count each
    sample = np.arange(0, n, 4099)
    snap = algo.snapshot(state, sample)
    assert np.all(snap.positions >= -5.12) and np.all(snap.positions <= 5.12)
    assert np.isfinite(float(state.best_f))


@pytest.mark.parametrize("algorithm", ["pattern_search", "simulated_annealing", "evaluation_only"])
def test_out_of_memory_request_fails_cleanly(cupy, algorithm):
    pool = cupy.get_default_memory_pool()
    walkers = 2**24 if algorithm != "evaluation_only" else 2**26
    dim = 1500
    algo = build(cupy, algorithm, {}, dim=dim, walkers=walkers, dtype="float64")
    used_before = pool.used_bytes()
    with pytest.raises(DeviceMemoryError) as info:
        algo.init(ArrayRNG(cupy, 0)) if algorithm != "evaluation_only" else _exhaust(cupy, algo)
    text = str(info.value)
    assert "GiB" in text and "free" in text
    assert pool.used_bytes() <= used_before  # nothing was allocated
    # and the device still works
    algo, state = run(cupy, algorithm, {}, [2])
    assert np.isfinite(float(state.best_f))


def _exhaust(cupy, algo):
    """Evaluation only needs little memory per walker: ask for more than the device has."""
    free, total = cupy.cuda.runtime.memGetInfo()
    algo.bytes_needed = lambda n: 2 * total  # noqa: E731 - the check itself is what is tested
    return algo.init(ArrayRNG(cupy, 0))


def test_runner_and_api_on_the_cuda_engine(cupy):
    import solvers

    a = solvers.run("pattern_search", "rastrigin", engine="cuda", dim=6, seed=5, max_iters=12,
                    params={"walkers": 512})
    b = solvers.run("pattern_search", "rastrigin", engine="cuda", dim=6, seed=5, max_iters=12,
                    params={"walkers": 512})
    assert a.evals == 512 + 2 * 6 * 512 * 12 and a.iterations == 12
    assert a.best_f == b.best_f and np.array_equal(a.best_x, b.best_x)
    c = solvers.run("simulated_annealing", "rastrigin", engine="cuda", dim=4, seed=1, max_evals=200_000,
                    params={"walkers": 1024, "variant": "sync"})
    assert c.evals >= 200_000 and np.isfinite(c.best_f)


def test_snapshots_through_the_runner(cupy):
    from solvers.config import RunConfig
    from solvers.runner import Runner

    snaps = []
    config = RunConfig.build("simulated_annealing", "rastrigin", 3, engine="cuda", dtype="float32",
                             params={"walkers": 5000, "variant": "sync", "chain_length": 10},
                             max_iters=50, sample_size=100)
    result = Runner(config, on_snapshot=snaps.append).run()
    last = snaps[-1]
    assert last.finished and last.positions.shape == (100, 3) and last.fitness.shape == (100,)
    assert last.overlays["temperature"].shape == (100,) and last.overlays["accepted"].shape == (100,)
    assert 0.0 <= last.extras["acceptance rate (last level)"] <= 1.0
    assert result.evals == 5000 * 51


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_evaluation_only_staged_points_equal_points_generated_as_read(cupy, monkeypatch, dtype):
    """Staging a round's points in shared memory (issue 14) draws and evaluates the same points
    (a function that is not a fold: folds are folded as drawn, never staged)."""
    from solvers.cuda import base

    algo, state = run(cupy, "evaluation_only", {}, [3, 2], problem="rosenbrock", dtype=dtype, dim=7)
    assert algo.stage_bytes() > 0
    staged = everything(algo, state)
    monkeypatch.setattr(base, "STAGE_LIMIT", 0)
    algo, state = run(cupy, "evaluation_only", {}, [3, 2], problem="rosenbrock", dtype=dtype, dim=7)
    assert algo.stage_bytes() == 0
    plain = everything(algo, state)
    assert same(staged, plain)


@pytest.mark.parametrize("variant", ["async", "sync", "hybrid"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_annealing_staged_chains_equal_chains_in_global_memory(cupy, monkeypatch, variant, dtype):
    """Chains' points staged in shared memory during a launch (issue 14: SaColumn) anneal exactly as
    chains read from X: the same proposals, acceptances, chain bests and schedule."""
    from solvers.cuda import base

    params = {"variant": variant, "chain_length": 7}
    algo, state = run(cupy, "simulated_annealing", params, [5, 9, 13], dtype=dtype, dim=7)
    assert algo.column_stage_bytes() > 0
    staged = everything(algo, state)
    monkeypatch.setattr(base, "STAGE_LIMIT", 0)
    algo, state = run(cupy, "simulated_annealing", params, [5, 9, 13], dtype=dtype, dim=7)
    assert algo.column_stage_bytes() == 0
    assert same(staged, everything(algo, state))


@pytest.mark.parametrize("lanes", [1, 2, 8])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_pattern_search_init_and_step_in_one_launch_equals_two_calls(cupy, dtype, lanes):
    """The fused initial draw + iterations + best fold (issue 14) gives init + step's numbers."""
    def fused_or_not(fused):
        algo = build(cupy, "pattern_search", {}, dim=7, walkers=300, dtype=dtype)
        algo.lanes = lanes
        if fused:
            state = algo.init_and_step(ArrayRNG(cupy, 5), 6)
        else:
            state = algo.init(ArrayRNG(cupy, 5))
            algo.step(state, 6)
        return everything(algo, state) + (state.step.get(), state.improved.get())

    a, b = fused_or_not(True), fused_or_not(False)
    assert same(a[:6], b[:6])
    assert np.array_equal(a[6], b[6]) and np.array_equal(a[7], b[7])
    assert a[2] == float(a[1].min())  # the fold found the best walker
