"""GPU: every cuda-engine kernel keeps walkers in bounds, counts evaluations exactly, improves,
repeats itself for a seed whatever the launch shape, and fails cleanly when memory runs out."""
from __future__ import annotations

import numpy as np
import pytest

from solvers.bench import solver_class
from solvers.cuda import cuda_algorithms
from solvers.errors import DeviceMemoryError
from solvers.params import make_params
from solvers.problems import get_problem
from solvers.rng import ArrayRNG

pytestmark = pytest.mark.gpu

SHORT_SA = {"schedule": "fixed", "t0": 10.0, "t_min": 0.01, "alpha": 0.8, "chain_length": 7}
# (id, algorithm, params): every cuda algorithm and variant, plus pattern search's restart mode
CASES = [
    ("eval_only", "evaluation_only", {}),
    ("ps", "pattern_search", {}),
    ("ps_restart", "pattern_search", {"restart": True, "round_iterations": 4}),
    ("sa_async", "simulated_annealing", {"variant": "async", **SHORT_SA}),
    ("sa_sync", "simulated_annealing", {"variant": "sync", **SHORT_SA}),
    ("sa_hybrid", "simulated_annealing",
     {"variant": "hybrid", "schedule": "fixed", "t0": 1.0, "t_min": 0.3, "alpha": 0.5, "chain_length": 5, "polish_points": 6}),
    ("sa_hybrid_async", "simulated_annealing",
     {"variant": "hybrid", "hybrid_base": "async", "schedule": "fixed", "t0": 1.0, "t_min": 0.3, "alpha": 0.5,
      "chain_length": 5, "polish_points": 6}),
]
IDS = [c[0] for c in CASES]


@pytest.fixture(scope="module")
def cupy():
    return pytest.importorskip("cupy")


def build(cupy, algorithm, params, problem="rastrigin", dim=5, walkers=300, dtype="float64",
          fast_math=False):
    prob = get_problem(problem, dim)
    cls = solver_class(algorithm, "cuda")
    p = make_params(cls.Params, {"walkers": walkers, **params})
    return cls(prob, p, xp=cupy, dtype=dtype, fast_math=fast_math)


def run(cupy, algorithm, params, chunks, seed=3, **kw):
    algo = build(cupy, algorithm, params, **kw)
    state = algo.init(ArrayRNG(cupy, seed))
    for k in chunks:
        algo.step(state, k)
    return algo, state


def everything(algo, state):
    """Host copies of all walkers and the best, for exact comparisons."""
    snap = algo.snapshot(state, np.arange(algo.total_walkers()))
    return (snap.positions, snap.fitness, float(state.best_f), np.asarray(state.best_x.get()),
            state.evals, state.iteration)


def expected_evals(algorithm, params, n, d, iterations):
    """Exact counts where they are fixed by the algorithm (None where they depend on the run)."""
    if algorithm == "evaluation_only":
        return n * (1 + iterations)
    if algorithm == "pattern_search":
        restarts = 0
        if params.get("restart"):
            restarts = len([t for t in range(1, iterations) if t % params["round_iterations"] == 0])
        return n + 2 * d * n * iterations + n * restarts
    if params.get("variant") in ("async", "sync"):
        return n + n * iterations
    return None


def test_registry_lists_the_part1_algorithms():
    assert {"pattern_search", "simulated_annealing", "evaluation_only"} <= set(cuda_algorithms())


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case_id,algorithm,params", CASES, ids=IDS)
def test_bounds_counts_improvement_and_best(cupy, case_id, algorithm, params, dtype):
    n, d, iterations = 300, 5, 30
    algo = build(cupy, algorithm, params, walkers=n, dim=d, dtype=dtype)
    state = algo.init(ArrayRNG(cupy, 11))
    assert state.evals == n
    first = float(state.best_f)
    algo.step(state, 13)
    algo.step(state, iterations - 13)
    positions, fitness, best_f, best_x, evals, iteration = everything(algo, state)
    problem = algo.problem
    assert positions.shape == (n, d)
    assert np.all(positions >= problem.lower) and np.all(positions <= problem.upper), "walker out of the box"
    assert np.all(best_x >= problem.lower) and np.all(best_x <= problem.upper)
    want = expected_evals(algorithm, params, n, d, iterations)
    if want is not None:
        assert iteration == iterations
        assert evals == want
    else:  # hybrid: anneal proposals + simplex start + Nelder-Mead, bounded by its per-iteration cost
        m = params["polish_points"]
        assert state.phase == "polish"
        assert n + m * d < evals <= n * iterations + m * d + iteration * m * (d + 2)
    assert best_f < first, "the best value did not improve"
    assert best_f <= fitness.min() + 1e-12 * abs(fitness.min())
    # the best point really has the best value (the reduction copied the right walker)
    f_at_best = float(problem.evaluate(best_x[None, :].astype(np.float64))[0])
    tol = 1e-9 if dtype == "float64" else 1e-4
    assert abs(f_at_best - best_f) <= tol * max(1.0, abs(best_f))
    if algorithm == "pattern_search" and not params.get("restart"):
        assert best_f == fitness.min()  # walkers only improve: the best is a current walker


@pytest.mark.parametrize("case_id,algorithm,params", CASES, ids=IDS)
def test_same_seed_repeats_whatever_the_launch_shape(cupy, case_id, algorithm, params):
    a = everything(*run(cupy, algorithm, params, [25]))
    b = everything(*run(cupy, algorithm, params, [1, 9, 15]))
    algo = build(cupy, algorithm, params)
    algo.block = 32  # another block size: the counters, not the launch, decide every number
    state = algo.init(ArrayRNG(cupy, 3))
    algo.step(state, 25)
    c = everything(algo, state)
    for other in (b, c):
        assert np.array_equal(a[0], other[0]) and np.array_equal(a[1], other[1])
        assert a[2] == other[2] and np.array_equal(a[3], other[3]) and a[4:] == other[4:]
    d = everything(*run(cupy, algorithm, params, [25], seed=4))
    assert not np.array_equal(a[0], d[0]), "another seed gave the same walkers"


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
    one, two = results
    assert np.array_equal(one[0], two[0]) and np.array_equal(one[1], two[1])
    assert one[2] == two[2] and np.array_equal(one[3], two[3]) and one[4:] == two[4:]


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
    assert state.evals == expected_evals(algorithm, params, n, d, iterations)
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
    """Staging a round's points in shared memory (issue 14) draws and evaluates the same points."""
    from solvers.cuda import evaluation_only

    algo, state = run(cupy, "evaluation_only", {}, [3, 2], dtype=dtype, dim=7)
    assert algo.stage_bytes() > 0
    staged = everything(algo, state)
    monkeypatch.setattr(evaluation_only, "STAGE_LIMIT", 0)
    algo, state = run(cupy, "evaluation_only", {}, [3, 2], dtype=dtype, dim=7)
    assert algo.stage_bytes() == 0
    plain = everything(algo, state)
    assert np.array_equal(staged[0], plain[0]) and np.array_equal(staged[1], plain[1])
    assert staged[2] == plain[2] and np.array_equal(staged[3], plain[3]) and staged[4:] == plain[4:]


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
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert a[2] == b[2] and np.array_equal(a[3], b[3]) and a[4:6] == b[4:6]
    assert np.array_equal(a[6], b[6]) and np.array_equal(a[7], b[7])
    assert a[2] == float(a[1].min())  # the fold found the best walker
