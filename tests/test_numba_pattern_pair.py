"""Pattern search's paired trials on the numba engine (issue 13's honest CPU baseline).

functions.evaluate_pair makes a coordinate's two trials in one pass, computing every other
coordinate's term once where the function is a fold (as kernels/pattern_search.cu does): each
trial's value must still be evaluate()'s at its point (bit for bit where evaluate() sums in order,
to rounding where Rastrigin and Ackley reassociate their sums into vector lanes), the non-finite
values counted as before, the second trial neither evaluated nor counted where max_evals cuts
between the two, and pattern search must walk the numpy engine's trajectory from the same start.
"""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

from numba import njit  # noqa: E402

from solvers.algorithms import get_algorithm  # noqa: E402
from solvers.problems import get_problem  # noqa: E402
from solvers.problems.base import problem_definitions  # noqa: E402
from solvers.rng import ArrayRNG  # noqa: E402

from solvers.numba import functions, numba_algorithm  # noqa: E402
from compiled_builtins import builtin_at  # noqa: E402

VECTOR_SUMS = (functions.FUNCTOR_IDS["Rastrigin"], functions.FUNCTOR_IDS["Ackley"])


def _dims(definition):
    if definition.dims is not None:
        return definition.dims[:1]
    return (max(definition.min_dim, 2), 7, 30)  # 30: the vector loops' lanes and remainders


def _patched(x, j, v):
    y = x.copy()
    y[j] = v
    return y


@pytest.mark.parametrize("definition", problem_definitions(), ids=lambda d: d.name)
def test_evaluate_pair_equals_two_evaluations(definition):
    rng = np.random.default_rng(17)
    for dim, problem, fid in builtin_at(definition, _dims(definition)):
        work = functions.pair_work(dim)
        for x in rng.uniform(problem.lower, problem.upper, (12, dim)):
            keep = x.copy()
            for j in range(dim):
                a, b = rng.uniform(problem.lower[j], problem.upper[j], 2)
                got = functions.evaluate_pair(fid, x, j, a, b, work)
                np.testing.assert_array_equal(x, keep)  # x is left as it was
                ref = (functions.evaluate(fid, _patched(x, j, a)), functions.evaluate(fid, _patched(x, j, b)))
                if fid in VECTOR_SUMS:
                    for g, r in zip(got, ref):
                        assert abs(g - r) <= 1e-12 * max(abs(r), 1.0), (dim, j, g, r)
                else:
                    assert got == ref, (dim, j)


def test_every_function_id_has_a_pair():
    """The test above reaches every built-in id, the folds among them (PAIR_IDS are real ids)."""
    ids = {functions.function_id(get_problem(d.name, _dims(d)[0])) for d in problem_definitions()}
    assert ids == set(range(len(functions.FUNCTORS)))
    assert set(functions.PAIR_IDS) < ids


def test_a_trials_value_does_not_depend_on_the_coordinate_that_made_it():
    """A clamped trial is the walker's own point: its value must equal the walker's, whichever
    coordinate was paired when that value was made (a vector loop's lanes never depend on j), or
    pattern search would count an improvement of a rounding error."""
    rng = np.random.default_rng(4)
    for name, dim in (("rastrigin", 30), ("ackley", 20), ("griewank", 30)):
        problem = get_problem(name, dim)
        fid = functions.function_id(problem)
        work = functions.pair_work(dim)
        for x in rng.uniform(problem.lower, problem.upper, (8, dim)):
            values = {functions.evaluate_pair(fid, x, j, x[j], x[j] * 0.5, work)[0] for j in range(dim)}
            values |= {functions.evaluate_pair(fid, x, j, x[j] * 0.5, x[j], work)[1] for j in range(dim)}
            assert len(values) == 1, name


@njit
def _is_fold(fid):
    return functions.is_fold(fid)


def test_the_folds_are_paired_and_callbacks_are_not():
    for fid in range(len(functions.FUNCTORS)):
        assert _is_fold(fid) == (fid in functions.PAIR_IDS)
    assert not _is_fold(functions.function_id(get_problem("expr: sum(x[i]**2)", 3, bounds=(-4.0, 4.0))))


@pytest.mark.parametrize("name", ["Sphere", "Rastrigin", "Ackley", "Griewank"])
def test_counted_fold_pair_counts_each_trial(name):
    """NaN and +-inf read +inf and count once per trial; with both=False the second trial reads
    +inf, uncounted, whatever its value (the fold computes it anyway)."""
    fid = functions.FUNCTOR_IDS[name]
    x = np.array([1.0, -2.0, 0.5])
    work = functions.pair_work(3)
    for a, b, both, expected, count in [
        (1.5, -1.5, True, None, 0),
        (np.nan, np.nan, True, (np.inf, np.inf), 2),
        (np.inf, 2.0, True, (np.inf, None), 1),
        (np.nan, 2.0, False, (np.inf, np.inf), 1),
        (2.0, np.nan, False, (None, np.inf), 0),
    ]:
        bad = np.zeros(3, dtype=np.int64)
        got = functions.counted_fold_pair(fid, x, 1, a, b, both, work, bad, 2)
        assert bad.tolist() == [0, 0, count], (a, b, both)
        np.testing.assert_array_equal(x, [1.0, -2.0, 0.5])
        single = np.zeros(1, dtype=np.int64)
        ref = (functions.counted(fid, _patched(x, 1, a), single, 0),
               functions.counted(fid, _patched(x, 1, b), single, 0) if both else np.inf)
        for g, r, e in zip(got, ref, expected or (None, None)):
            assert g == (r if e is None else e), (a, b, both, got)
            assert g == r or (name in ("Rastrigin", "Ackley") and abs(g - r) <= 1e-12 * abs(r))


def _from_numpy_start(name, dim, walkers=64, bounds=None):
    problem = get_problem(name, dim)
    if bounds is not None:
        problem = problem.with_bounds(*bounds)
    p = get_algorithm("pattern_search").Params(walkers=walkers)
    ref = get_algorithm("pattern_search")(problem, p, dtype=np.float64)
    algo = numba_algorithm("pattern_search")(problem, p, dtype=np.float64, threads=1)
    ref_state = ref.init(ArrayRNG(np, 8))
    state = algo.init(ArrayRNG(np, 8))
    state.X[:] = ref_state.X
    state.f[:] = ref_state.f
    state.best_x[:] = ref_state.best_x
    state.best_f = np.asarray(ref_state.best_f)
    return algo, state, ref, ref_state


@pytest.mark.parametrize("name", ["sphere", "step", "quartic", "schwefel_2_26", "rastrigin", "ackley",
                                  "griewank", "rosenbrock"])
def test_pattern_search_walks_the_numpy_trajectory(name):
    """From numpy's initial walkers the paired trials take the same moves as numpy's two full
    evaluations (values differ by rounding only: no near-tie decides a move here), Schwefel 2.26
    with walkers clamped at its bounds, Step with its exact ties, Rosenbrock through the fallback."""
    algo, state, ref, ref_state = _from_numpy_start(name, 5)
    for chunk in (7, 13):
        algo.step(state, chunk)
        ref.step(ref_state, chunk)
        np.testing.assert_allclose(state.X, ref_state.X, rtol=1e-12, atol=0)
        np.testing.assert_allclose(state.f, ref_state.f, rtol=1e-12, atol=1e-300)
        np.testing.assert_array_equal(state.step, ref_state.step)
        np.testing.assert_array_equal(state.improved.astype(bool), ref_state.improved)
        assert state.evals == ref_state.evals
    if name == "schwefel_2_26":  # the clamped trials were made (a walker sits on the box)
        assert np.any((state.X == algo.upper) | (state.X == algo.lower))


def test_cut_between_the_trials_counts_only_the_plus_trial():
    """A box where every value overflows to +inf: every counted evaluation is non-finite, so the
    count equals the evaluations exactly, also when max_evals cuts between a coordinate's plus
    and minus trials (13 walkers make both, 24 only the plus trial of coordinate 0)."""
    walkers, dim = 37, 3
    problem = get_problem("sphere", dim).with_bounds(1e200, 1e300)
    p = get_algorithm("pattern_search").Params(walkers=walkers)
    algo = numba_algorithm("pattern_search")(problem, p, dtype=np.float64, threads=1)
    algo.max_evals = walkers + 2 * (2 * dim * walkers) + walkers + 13
    state = algo.init(ArrayRNG(np, 2))
    algo.step(state, 5)
    assert state.evals == algo.max_evals and state.iteration == 3
    assert int(state.nonfinite) == state.evals
