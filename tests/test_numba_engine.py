"""The numba engine: Philox, compiled objectives, every algorithm x variant x dtype, threads.

Small sizes: numba compiles each kernel once per session (and caches it on disk), so the tests
share one compilation of every kernel and dtype.
"""
from __future__ import annotations

import sys

import numpy as np
import pytest

pytest.importorskip("numba")

from solvers.algorithms import get_algorithm  # noqa: E402
from solvers.errors import EngineUnavailable  # noqa: E402
from solvers.problems import get_problem  # noqa: E402
from solvers.problems.base import problem_definitions  # noqa: E402
from solvers.rng import ArrayRNG  # noqa: E402

from solvers.numba import functions, numba_algorithm, numba_status, philox  # noqa: E402
from compiled_builtins import builtin_at  # noqa: E402

DTYPES = (np.float64, np.float32)
# (algorithm, params) for every variant, small
VARIANTS = [
    ("pattern_search", dict(walkers=48)),
    ("pattern_search", dict(walkers=48, restart=True, round_iterations=7)),
    ("multidirectional_search", dict(walkers=24)),
    ("simulated_annealing", dict(walkers=64, variant="async", t0=10.0, alpha=0.7, chain_length=5)),
    ("simulated_annealing", dict(walkers=64, variant="sync", t0=10.0, alpha=0.7, chain_length=5)),
    ("simulated_annealing", dict(walkers=64, variant="hybrid", t0=10.0, alpha=0.7, chain_length=5,
                                 polish_points=4)),
    ("particle_swarm", dict(variant="classic", walkers=16, swarms=3)),
    ("particle_swarm", dict(variant="spso2011", walkers=16, swarms=3)),
    ("differential_evolution", dict(walkers=16, populations=3)),
]
IDS = [f"{a}-{p.get('variant', 'restart' if p.get('restart') else 'default')}" for a, p in VARIANTS]


# --- Philox ---------------------------------------------------------------------------------------
def _philox_python(ctr, key):
    """Philox4x32-10 written from the Random123 specification, in plain Python integers."""
    c, (k0, k1) = list(ctr), key
    for _ in range(10):
        p0, p1 = 0xD2511F53 * c[0], 0xCD9E8D57 * c[2]
        c = [(p1 >> 32) ^ c[1] ^ k0, p1 & 0xFFFFFFFF, (p0 >> 32) ^ c[3] ^ k1, p0 & 0xFFFFFFFF]
        k0, k1 = (k0 + 0x9E3779B9) & 0xFFFFFFFF, (k1 + 0xBB67AE85) & 0xFFFFFFFF
    return c


@pytest.mark.parametrize("ctr, key, expected", [
    # Random123's known-answer vectors for philox4x32_10 (kat_vectors)
    ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
     (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
])
def test_philox_known_answers(ctr, key, expected):
    got = philox.philox4x32_10(*(np.uint64(v) for v in ctr + key))
    assert tuple(int(w) for w in got) == expected
    assert tuple(_philox_python(ctr, key)) == expected


def test_philox_counter_layout_of_random_cuh():
    seed, walker, stream, draw = 0x0123456789ABCDEF, (5 << 32) | 77, 3, (9 << 32) | 11
    expected = _philox_python((11, 9, 77, (3 << 24) | 5), (0x89ABCDEF, 0x01234567))
    assert [int(w) for w in philox.words(seed, walker, stream, draw)] == expected


def test_philox_batch_draws_the_same_words():
    """philox.fill_words (the move loops' vectorised draw) gives words()' blocks, counters crossing
    2^32 and walkers beyond 32 bits included; the count is padded to a whole batch of the
    following blocks where W has the columns (never past them)."""
    seed, walker, stream = 0x0123456789ABCDEF, (5 << 32) | 77, 3
    first = (1 << 32) - 7  # the draw's low word wraps inside the batch
    for width, written in ((20, 20), (30, 24)):  # 17 blocks: a batch of 24, cut at W's width
        W = np.zeros((4, width), dtype=np.uint64)
        philox.fill_words(seed, walker, stream, first, 17, W)
        assert philox.batch_columns(17) == 24
        for b in range(written):
            expected = [int(w) for w in philox.words(seed, walker, stream, first + b)]
            assert [int(w) for w in W[:, b]] == expected, b
            assert expected == _philox_python(((first + b) & 0xFFFFFFFF, (first + b) >> 32, 77,
                                               (3 << 24) | 5), (0x89ABCDEF, 0x01234567))
        assert not W[:, written:].any()


def test_philox_walker_batch_draws_the_same_words():
    """philox.fill_walker_words (one draw index for consecutive walkers, vectorised across them)
    gives words()' blocks, walkers crossing 2^32 and draws beyond 32 bits included."""
    seed, stream, draw = 0x0123456789ABCDEF, 16, (9 << 32) | 11
    walker = (1 << 32) - 5  # the walker's low word wraps inside the batch
    W = np.zeros((4, 20), dtype=np.uint64)
    philox.fill_walker_words(seed, walker, 13, stream, draw, W)
    for r in range(13):
        assert [int(w) for w in W[:, r]] == [int(w) for w in philox.words(seed, walker + r, stream, draw)], r
    assert not W[:, 13:].any()


@pytest.mark.parametrize("K", [1, 3, 5, 9])
def test_spso_swarm_links_are_draw_links_targets(K):
    """draw_swarm_links (a swarm's link targets, each Philox block of its particles in one
    vectorised loop) gives draw_links' targets particle by particle."""
    from solvers.numba.particle_swarm import draw_links, draw_swarm_links  # noqa: PLC0415

    seed, m, base = np.uint64(0x0123456789ABCDEF), 37, 74
    for key, epoch in [(5, -1), ((7 << 32) - 3, 11), (76, (1 << 33) + 2)]:
        out = np.full((m, K), -1, dtype=np.int64)
        draw_swarm_links(seed, np.int64(key), np.int64(epoch), K, base, m, out,
                         np.empty((4, m), dtype=np.uint64))
        one = np.full((m, K), -2, dtype=np.int64)
        for p in range(m):
            draw_links(seed, np.int64(key + p), np.int64(epoch), K, base, m, one, p)
        np.testing.assert_array_equal(out, one)
        assert np.all((out >= base) & (out < base + m))


@pytest.mark.parametrize("K", [1, 3, 4, 5, 9])
def test_spso_links_drawn_once_per_block_are_link_s_targets(K):
    """draw_links (a particle's K link targets, one Philox block per 4) gives link()'s targets."""
    from solvers.numba.particle_swarm import draw_links, link  # noqa: PLC0415

    seed, m, base = 0x0123456789ABCDEF, 37, 74
    out = np.full((3, K), -1, dtype=np.int64)
    for row, (key, epoch) in enumerate([(5, -1), ((7 << 32) | 3, 11), (76, (1 << 33) + 2)]):
        draw_links(np.uint64(seed), np.int64(key), np.int64(epoch), K, base, m, out, row)
        assert [int(v) for v in out[row]] == [int(link(np.uint64(seed), np.int64(key), np.int64(epoch),
                                                       k, K, base, m)) for k in range(K)]
        assert np.all((out[row] >= base) & (out[row] < base + m))


def test_walkers_in_blocks_run_as_alone():
    """Kernels over more walkers than WALKER_BLOCKS run blocks of several walkers sharing scratch
    arrays: walker k of a 1,100-walker run equals the one-walker run keyed k (walker0 = k), for
    pattern search and SA (each walker's draws are keyed by its global index only; SA on the fixed
    schedule within its first level: "auto" fits T0 to the population's values, and a level's end
    adapts to its acceptance)."""
    from solvers.numba.base import WALKER_BLOCKS  # noqa: PLC0415

    n = 1100
    assert n > WALKER_BLOCKS
    problem = get_problem("rastrigin", 3)
    sa = dict(variant="async", schedule="fixed", t0=10.0, chain_length=50)
    for name, params in [("pattern_search", {}), ("simulated_annealing", sa)]:
        cls = numba_algorithm(name)
        for dtype in DTYPES:
            big = cls(problem, get_algorithm(name).Params(walkers=n, **params), dtype=dtype, threads=1)
            state = big.init(ArrayRNG(np, 4))
            big.step(state, 5)
            for k in (0, 1, 2, 545, n - 1):  # the first block's walkers, a middle one, the last
                one = cls(problem, get_algorithm(name).Params(walkers=1, **params), dtype=dtype,
                          threads=1)
                one.walker0 = k
                alone = one.init(ArrayRNG(np, 4))
                one.step(alone, 5)
                np.testing.assert_array_equal(alone.X[0], state.X[k], err_msg=f"{name} {k}")
                assert alone.f[0] == state.f[k]


def test_philox_uniforms_in_unit_interval():
    assert philox.u01f(np.uint64(0xFFFFFFFF)) < 1.0 and philox.u01f(np.uint64(0)) == 0.0
    assert philox.u01d(np.uint64(0xFFFFFFFF), np.uint64(0xFFFFFFFF)) < 1.0
    assert 0 <= philox.below(np.uint64(0xFFFFFFFF), 7) < 7


# --- objectives -----------------------------------------------------------------------------------
def _dims(definition):
    if definition.dims is not None:
        return definition.dims[:2]
    return (max(definition.min_dim, 2), max(definition.min_dim, 7))


@pytest.mark.parametrize("definition", problem_definitions(), ids=lambda d: d.name)
def test_compiled_objective_matches_numpy(definition):
    rng = np.random.default_rng(3)
    for dim, problem, fid in builtin_at(definition, _dims(definition)):
        for dtype, rtol in ((np.float64, 1e-12), (np.float32, 2e-5)):
            X = rng.uniform(problem.lower, problem.upper, (40, dim)).astype(dtype)
            ref = problem.evaluate(X).astype(np.float64)
            got = np.array([functions.evaluate(fid, x.astype(np.float64)) for x in X])
            scale = np.maximum(1.0, np.abs(ref))
            assert np.all(np.abs(got - ref) <= rtol * scale * (10 * dim)), (dim, dtype)


# --- every algorithm x variant x dtype --------------------------------------------------------------
def _pair(algorithm, params, dtype, dim=3, name="rastrigin", threads=1):
    problem = get_problem(name, dim)
    reference = get_algorithm(algorithm)
    p = reference.Params(**params)
    return problem, numba_algorithm(algorithm)(problem, p, dtype=dtype, threads=threads), reference(problem, p, dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=["f64", "f32"])
@pytest.mark.parametrize("algorithm, params", VARIANTS, ids=IDS)
def test_numba_algorithm_contract(algorithm, params, dtype):
    problem, algo, ref = _pair(algorithm, params, dtype)
    state, ref_state = algo.init(ArrayRNG(np, 5)), ref.init(ArrayRNG(np, 5))
    assert state.evals == ref_state.evals
    for iterations in (1, 6, 13):
        algo.step(state, iterations)
        ref.step(ref_state, iterations)
    assert state.X.dtype == dtype and state.f.dtype == dtype
    assert np.all(state.X >= problem.lower.astype(dtype)) and np.all(state.X <= problem.upper.astype(dtype))
    # where the work depends on the values (the simplices' moves), the counts of two different
    # random starts differ: test_multidirectional_counts_match_numpy compares from equal simplices
    data_dependent = algorithm == "multidirectional_search" or params.get("variant") == "hybrid"
    if not data_dependent:
        assert state.evals == ref_state.evals
        assert state.iteration == ref_state.iteration
    f_best = float(problem.evaluate(np.asarray(state.best_x, dtype=np.float64)[None])[0])
    assert f_best == pytest.approx(float(state.best_f), rel=1e-5, abs=1e-5)
    assert float(state.best_f) <= float(np.min(state.f)) + 1e-6
    data = algo.snapshot(state, np.arange(min(8, algo.total_walkers())))
    for key, value in data.extras.items():
        if "rate" in key or "active" in key or "improved" in key or "redrew" in key:
            assert 0.0 <= value <= 1.0, (key, value)
    assert set(data.extras) == set(ref.snapshot(ref_state, np.arange(min(8, ref.total_walkers()))).extras)


@pytest.mark.parametrize("restart", [False, True])
def test_multidirectional_counts_match_numpy(restart):
    """From the same simplices and without restarts the moves are deterministic: the same
    trajectory, evaluations and iterations as the numpy engine (restarts draw other points, and
    still cost n + 1 each)."""
    problem, algo, ref = _pair("multidirectional_search", dict(walkers=24, restart=restart), np.float64)
    ref_state = ref.init(ArrayRNG(np, 2))
    state = algo.state_from_simplices(ref_state.simplices.copy())
    assert state.evals == ref_state.evals
    for _ in range(4):
        algo.step(state, 15)
        ref.step(ref_state, 15)
        if not restart:
            assert (state.evals, state.iteration, state.done) == (ref_state.evals, ref_state.iteration,
                                                                  ref_state.done)
            assert float(state.best_f) == pytest.approx(float(ref_state.best_f), rel=1e-9, abs=1e-12)
    assert float(state.best_f) == float(np.min(state.keep_f))


@pytest.mark.parametrize("algorithm, params", [VARIANTS[i] for i in (0, 2, 3, 4, 6, 7, 8)],
                         ids=[IDS[i] for i in (0, 2, 3, 4, 6, 7, 8)])
def test_results_do_not_depend_on_thread_count(algorithm, params):
    runs = []
    for threads in (1, 2):
        _, algo, _ = _pair(algorithm, params, np.float64, threads=min(threads, _max_threads()))
        state = algo.init(ArrayRNG(np, 9))
        algo.step(state, 17)
        runs.append((state.X.copy(), state.f.copy(), float(state.best_f), state.evals))
    np.testing.assert_array_equal(runs[0][0], runs[1][0])
    np.testing.assert_array_equal(runs[0][1], runs[1][1])
    assert runs[0][2:] == runs[1][2:]


def _max_threads():
    import numba

    return numba.config.NUMBA_NUM_THREADS


QUALITY_FUNCTIONS = ["ackley", "rastrigin", "sphere", "himmelblau", "six_hump_camel", "shubert",
                     "griewank", "rosenbrock"]
# a short schedule (62 levels) for a modest budget; narrower moves than the seed's (width 1)
SA_SCHEDULE = dict(t0=1.0, alpha=0.8, chain_length=20, t_min=1e-6)
QUALITY_VARIANTS = [
    ("pattern_search", dict(walkers=256), 60),
    ("multidirectional_search", dict(walkers=256, restart=True), 150),
    ("simulated_annealing", dict(walkers=1024, variant="async", width=0.2, **SA_SCHEDULE), 1500),
    ("simulated_annealing", dict(walkers=1024, variant="sync", width=0.05, **SA_SCHEDULE), 1500),
    ("simulated_annealing", dict(walkers=1024, variant="hybrid", width=0.2, **SA_SCHEDULE), 1500),
    ("particle_swarm", dict(variant="classic", walkers=32, swarms=16), 300),
    ("particle_swarm", dict(variant="spso2011", walkers=32, swarms=16), 300),
    ("differential_evolution", dict(walkers=32, populations=16), 300),
]


@pytest.mark.slow
@pytest.mark.parametrize("algorithm, params, iterations", QUALITY_VARIANTS,
                         ids=[f"{a}-{p.get('variant', '')}" for a, p, _ in QUALITY_VARIANTS])
def test_every_variant_finds_the_minimum_in_2d(algorithm, params, iterations):
    misses = []
    for name in QUALITY_FUNCTIONS:
        problem, algo, _ = _pair(algorithm, params, np.float64, dim=2, name=name, threads=1)
        state = algo.init(ArrayRNG(np, 1))
        algo.step(state, iterations)
        gap = float(state.best_f) - problem.f_min
        if not gap <= 1e-2:
            misses.append((name, gap))
    assert not misses


# --- availability -----------------------------------------------------------------------------------
def test_status_says_why_when_numba_is_missing(monkeypatch):
    numba_status.cache_clear()
    numba_algorithm.cache_clear()
    monkeypatch.setitem(sys.modules, "numba", None)  # import numba now raises ImportError
    try:
        ok, reason = numba_status()
        assert not ok and "Numba is not installed" in reason
        with pytest.raises(EngineUnavailable, match="not available"):
            numba_algorithm("pattern_search")
    finally:
        monkeypatch.undo()
        numba_status.cache_clear()
        numba_algorithm.cache_clear()
    assert numba_status()[0]


def test_threads_are_checked():
    with pytest.raises(ValueError, match="threads"):
        _pair("pattern_search", dict(walkers=8), np.float64, threads=0)


@pytest.mark.parametrize("variant", ["async", "hybrid"])
def test_auto_schedule_and_auto_walkers_follow_the_reference(variant):
    """'auto' parameters are fitted by the reference's own rules (plan, fit_schedule)."""
    from solvers.config import Budget

    problem = get_problem("rastrigin", 2)
    params = get_algorithm("simulated_annealing").Params(walkers=0, variant=variant)
    algo = numba_algorithm("simulated_annealing")(problem, params, dtype=np.float64, threads=1)
    ref = get_algorithm("simulated_annealing")(problem, params, dtype=np.float64)
    for a in (algo, ref):
        a.plan(Budget(max_evals=200_000))
    state, ref_state = algo.init(ArrayRNG(np, 4)), ref.init(ArrayRNG(np, 4))
    assert algo.params.walkers == ref.params.walkers > 0
    assert (algo.params.alpha, algo.params.chain_length) == (ref.params.alpha, ref.params.chain_length)
    assert algo.params.t0 == pytest.approx(ref.params.t0, rel=0.5)  # std(f) of other points
    algo.step(state, 200)
    assert state.temperature < algo.params.t0  # cooled, no reheat within the budget


# --- non-finite objective values ------------------------------------------------------------------
def _portfolio_pair(algorithm, params, lower, upper):
    """The portfolio variance is +inf where sum(w) <= 0: a built-in with non-finite values."""
    problem = get_problem("portfolio_variance", 3).with_bounds(lower, upper)
    reference = get_algorithm(algorithm)
    p = reference.Params(**params)
    return problem, numba_algorithm(algorithm)(problem, p, dtype=np.float64, threads=1), reference(problem, p)


@pytest.mark.parametrize("algorithm, params", VARIANTS, ids=IDS)
def test_nonfinite_values_counted_as_on_numpy(algorithm, params):
    """Every kernel counts NaN/inf evaluations as the numpy engine does: in a box where every
    value is +inf both count every evaluation; in a box where some are, the initial points' count
    is exactly the number of non-finite values the NumPy formula gives at those points."""
    problem, algo, ref = _portfolio_pair(algorithm, params, -1.0, 0.0)
    for a in (algo, ref):
        assert a.counts_nonfinite
        state = a.init(ArrayRNG(np, 3))
        a.step(state, 9)
        assert int(state.nonfinite) == state.evals > 0, type(a).__name__
    problem, algo, _ = _portfolio_pair(algorithm, params, -1.0, 1.0)
    state = algo.init(ArrayRNG(np, 3))
    points = (state.simplices.reshape(-1, problem.dim) if algorithm == "multidirectional_search"
              else state.X)
    raw = problem.evaluate(np.asarray(points, dtype=np.float64))
    assert 0 < int(state.nonfinite) == int(np.count_nonzero(~np.isfinite(raw))) < state.evals
    assert np.all(np.isfinite(state.f) | (state.f == np.inf))  # mapped to +inf, never NaN
    before = int(state.nonfinite)
    algo.step(state, 9)
    assert before <= int(state.nonfinite) <= state.evals
    assert np.isfinite(float(state.best_f))


def test_runner_reports_nonfinite_evaluations_on_numba():
    """RunResult and snapshots carry the count on numba as on numpy (not None)."""
    from solvers.config import RunConfig
    from solvers.runner import Runner

    counts = {}
    for engine in ("numpy", "numba"):
        config = RunConfig.build("pattern_search", "portfolio_variance", 3, params={"walkers": 48},
                                 max_iters=5, bounds=(-1, 1), engine=engine, threads=None)
        snaps = []
        result = Runner(config, on_snapshot=snaps.append).run()
        assert isinstance(result.nonfinite_evals, int) and 0 < result.nonfinite_evals < result.evals
        assert snaps[-1].nonfinite_evals == result.nonfinite_evals
        assert np.isfinite(result.best_f)
        counts[engine] = result.nonfinite_evals / result.evals
    assert counts["numba"] == pytest.approx(counts["numpy"], abs=0.25)  # other draws, same box


def test_cospi_is_accurate_and_exact_where_cos_pi_is():
    """The vectorisable cos(pi a) of the rastrigin/ackley twins: within 2 ulp of cos(pi a) where pi a
    is exactly representable enough (|a| <= 1/4: libm's argument error is below 0.5 ulp there), and
    exact at the integers and half-integers, over the range the built-in boxes reach."""
    from numba import njit

    vec = njit(lambda a: np.array([functions.cospi(v) for v in a]))
    small = np.random.default_rng(5).uniform(-0.25, 0.25, 20000)
    ref = np.cos(np.pi * small)
    assert np.max(np.abs(vec(small) - ref) / np.spacing(ref)) <= 2
    k = np.arange(-2000, 2001, dtype=np.float64)
    assert np.array_equal(vec(k), np.where(k % 2 == 0, 1.0, -1.0))
    assert np.all(vec(k + 0.5) == 0.0)
    # periodic with the exact reduction: a and a + 64 (both exact) give the same value
    a = np.random.default_rng(6).uniform(-1, 1, 2000) + 64.0 - 64.0
    assert np.array_equal(vec(a + 64.0), vec(a))
    wide = np.random.default_rng(7).uniform(-600, 600, 20000)
    assert np.max(np.abs(vec(wide) - np.cos(np.pi * wide))) < 1e-12


def test_sincospi_agrees_with_cospi_and_libm():
    """sincospi (SPSO's Box-Muller angles): its cosine is cospi's bit for bit, its sine within 2 ulp
    of sin(pi a) where pi a is exact enough, exact at the quadrant points, and cos^2 + sin^2 = 1."""
    from numba import njit

    @njit
    def both(a):
        out = np.empty((a.shape[0], 2))
        for k in range(a.shape[0]):
            out[k, 0], out[k, 1] = functions.sincospi(a[k])
        return out

    one = njit(lambda a: np.array([functions.cospi(v) for v in a]))
    a = np.random.default_rng(8).uniform(0.0, 2.0, 20000)
    cs = both(a)
    assert np.array_equal(cs[:, 0], one(a))
    small = np.random.default_rng(9).uniform(-0.25, 0.25, 20000)
    ref = np.sin(np.pi * small)
    assert np.max(np.abs(both(small)[:, 1] - ref) / np.spacing(np.abs(ref))) <= 2
    quarter = np.arange(0, 8) * 0.5  # cos, sin of k pi / 2
    assert np.array_equal(both(quarter), [[1, 0], [0, 1], [-1, 0], [0, -1]] * 2)
    assert np.max(np.abs(cs[:, 0] ** 2 + cs[:, 1] ** 2 - 1.0)) < 4e-16


@pytest.mark.parametrize("single", [True, False])
def test_spso_normals_are_standard_normal_pairs(single):
    """The Box-Muller normals of numba's SPSO (radius by libm's log, angle by sincospi) from
    Philox blocks: mean 0, variance 1, no correlation within a pair, and each pair's angle the one
    of cos(2 pi u2), sin(2 pi u2) within a few ulps of libm's."""
    from solvers.numba import philox
    from solvers.numba.particle_swarm import normals, pair_uniforms
    from numba import njit

    pairs = 20000
    blocks = pairs // 2 if single else pairs
    W = np.empty((4, philox.batch_columns(blocks)), dtype=np.uint64)
    philox.fill_words(np.uint64(1234), 5, philox.STREAM_STEP, np.uint64(0), blocks, W)
    z = np.empty(2 * pairs, dtype=np.float32 if single else np.float64)
    njit(lambda z, W, p, s: normals(z, W, p, s))(z, W, pairs, single)
    assert abs(z.mean()) < 0.02 and abs(z.var() - 1.0) < 0.03
    assert abs(np.corrcoef(z[0::2], z[1::2])[0, 1]) < 0.03
    @njit
    def uniforms(W, p, s):
        out = np.empty((p, 2))
        for k in range(p):
            out[k, 0], out[k, 1] = pair_uniforms(W, k, s)
        return out

    u = uniforms(W, pairs, single)
    r = np.sqrt(-2.0 * np.log(1.0 - u[:, 0]))
    tol = 1e-5 if single else 1e-12
    assert np.allclose(z[0::2], r * np.cos(2 * np.pi * u[:, 1]), rtol=tol, atol=tol)
    assert np.allclose(z[1::2], r * np.sin(2 * np.pi * u[:, 1]), rtol=tol, atol=tol)
