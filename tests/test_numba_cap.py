"""max_evals is a hard cap on the numba engine (issue 10): every algorithm x variant makes at most
max_evals evaluations, as many as the numpy reference (and the cuda engine: the same split of the
iteration the budget cuts, NumbaAlgorithm.capped_iterations), whatever the chunk sizes and paths.

The budgets here divide no iteration's evaluations, so the last iteration is cut inside: pattern
search evaluates its trials numbered below the allowance, annealing, PSO and DE the proposals of
their first chains/particles/individuals, multi-directional search its trials in the reference's
order. Before the cap the fused kernels finished the crossing iteration (pattern search made
12,492 evaluations for max_evals = 12,345).
"""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

import solvers  # noqa: E402
from solvers.algorithms import get_algorithm  # noqa: E402
from solvers.config import RunConfig  # noqa: E402
from solvers.numba import numba_algorithm  # noqa: E402
from solvers.problems import get_problem  # noqa: E402
from solvers.rng import ArrayRNG  # noqa: E402
from solvers.runner import Runner  # noqa: E402
from variants import CAP_IDS, CAP_VARIANTS, variant_cases  # noqa: E402

# (algorithm, params, counts equal numpy's in every case): pattern search, PSO, DE and the annealing
# proposals make fixed evaluations per iteration; MDS and the hybrid's Nelder-Mead depend on the
VARIANTS, IDS = CAP_VARIANTS, CAP_IDS


def _check(algorithm, params, exact, max_evals, dim=6):
    reference, numba = (solvers.run(algorithm, "rastrigin", engine=engine, dim=dim, seed=3,
                                    max_evals=max_evals, params=params)
                        for engine in ("numpy", "numba"))
    assert numba.evals <= max_evals
    if exact or reference.stop_reason == numba.stop_reason == "max_evals":
        assert numba.evals == reference.evals, (numba.evals, reference.evals)
    if numba.stop_reason == "max_evals":
        assert numba.evals == max_evals
    return numba


@pytest.mark.parametrize("algorithm, params, exact", VARIANTS, ids=IDS)
def test_max_evals_is_a_hard_cap_on_numba(algorithm, params, exact):
    # 37 walkers x 6-D: 12,345 is a multiple of no iteration's evaluations
    result = _check(algorithm, dict(params, walkers=37), exact, 12_345)
    assert np.isfinite(result.best_f)


@pytest.mark.parametrize("algorithm, params, exact", VARIANTS, ids=IDS)
def test_budget_below_the_walkers_counts_only_the_allowed_ones(algorithm, params, exact):
    # fewer evaluations than walkers (or than the starts' vertices): the initial draw is cut, and
    # the run stops there (no iteration can run) instead of looping
    walkers = 200 if algorithm != "multidirectional_search" else 40
    _check(algorithm, dict(params, walkers=walkers), exact, 150)


MAX_EVALS = 2345  # divides no algorithm's evaluations per iteration at variant_cases' sizes


def _runner(algorithm, params, engine, chunk, monkeypatch):
    monkeypatch.setattr(Runner, "_clamp_chunk", lambda self, iters: chunk)
    cfg = RunConfig.build(algorithm, "rastrigin", 3, params=params, engine=engine, seed=5,
                          max_evals=MAX_EVALS, snapshot_hz=1000.0)
    return Runner(cfg).run()


@pytest.mark.parametrize("algorithm,params", [c[:2] for c in variant_cases()],
                         ids=[c[2] for c in variant_cases()])
def test_cut_iteration_independent_of_chunks(algorithm, params, monkeypatch):
    one = _runner(algorithm, params, "numba", 1, monkeypatch)
    many = _runner(algorithm, params, "numba", 1000, monkeypatch)
    assert (many.evals, many.iterations, many.stop_reason) == (one.evals, one.iterations,
                                                               one.stop_reason)
    assert many.best_f == one.best_f
    assert one.evals <= MAX_EVALS
    if one.stop_reason == "max_evals":
        assert one.evals == MAX_EVALS
        reference = _runner(algorithm, params, "numpy", 1000, monkeypatch)
        assert reference.evals == MAX_EVALS


@pytest.mark.parametrize("algorithm, params, field", [
    ("particle_swarm", dict(variant="classic", walkers=24), "swarms"),
    ("particle_swarm", dict(variant="spso2011", walkers=24), "swarms"),
    ("differential_evolution", dict(walkers=24), "populations"),
], ids=["classic", "spso", "de"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_cut_iteration_same_on_both_paths(algorithm, params, field, dtype):
    # the wide path (a launch per iteration) and the grouped one (prange over groups) cut the
    # last iteration alike: the same particles evaluate, the same state after
    states = []
    for wide in (False, True):
        p = get_algorithm(algorithm).Params(**params, **{field: 3})
        algo = numba_algorithm(algorithm)(get_problem("rastrigin", 5), p, dtype=dtype, threads=2)
        algo.wide = wide
        algo.max_evals = 72 * 5 + 50  # the init, 4 full iterations, 50 of 72 in the 5th
        state = algo.init(ArrayRNG(np, 7))
        algo.step(state, 3)
        algo.step(state, 10)
        algo.step(state, 10)  # spent: nothing more runs
        assert state.evals == algo.max_evals and state.iteration == 5
        states.append(state)
    a, b = states
    for name in ("X", "f", "P", "Pf", "V", "trials", "f_trials", "accepted", "epochs"):
        if getattr(a, name, None) is not None:
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    # the particles past the cut read +inf, uncounted; those before it are evaluated
    assert np.isinf(a.f[50:]).all() if algorithm == "particle_swarm" else np.isinf(a.f_trials[50:]).all()
    assert np.isfinite(a.f[:50]).all()
    assert float(a.best_f) == float(b.best_f)


def test_pattern_search_cut_evaluates_the_numbered_trials():
    # the trials of the cut iteration are numbered (2 j + s) n + i (kernels/pattern_search.cu):
    # with 40 walkers in 3-D and 100 trials left, every walker makes its plus and minus trial of
    # coordinate 0 and walkers 0..19 their plus trial of coordinate 1. A walker whose trials all
    # read +inf does not move, so walkers 20..39 stay where the full iterations left them, except
    # along coordinate 0.
    problem = get_problem("sphere", 3)
    p = get_algorithm("pattern_search").Params(walkers=40)
    cls = numba_algorithm("pattern_search")
    full = cls(problem, p)
    full_state = full.init(ArrayRNG(np, 11))
    full.step(full_state, 2)
    before = full_state.X.copy()
    full.step(full_state, 1)
    cut = cls(problem, p)
    cut.max_evals = 40 + 2 * 240 + 100
    state = cut.init(ArrayRNG(np, 11))
    cut.step(state, 5)
    assert state.evals == cut.max_evals and state.iteration == 3
    np.testing.assert_array_equal(state.X[:, 0], full_state.X[:, 0])  # coordinate 0: all trials
    np.testing.assert_array_equal(state.X[20:, 1:], before[20:, 1:])  # no trial of coordinates 1, 2
    np.testing.assert_array_equal(state.X[:, 2], before[:, 2])
