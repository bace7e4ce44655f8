"""Typed expressions on the numba engine (issue 11's third emitter, issue 13's engine).

The expression's compiled callback is passed to the kernels where a built-in passes its id, so a
typed twin of a built-in must walk the very same trajectory; values match the NumPy emitter, NaN/inf
are counted as on numpy. Small sizes: every kernel compiles once for all expressions (and the
expressions themselves in a fraction of a second), so the tests share those compilations.
"""
from __future__ import annotations

import io
import subprocess
import sys
import tokenize
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("numba")

import solvers  # noqa: E402
from solvers.algorithms import get_algorithm  # noqa: E402
from solvers.errors import EngineUnavailable  # noqa: E402
from solvers.problems import get_problem  # noqa: E402
from solvers.problems.base import Problem  # noqa: E402
from solvers.problems.expression.emit_numba import numba_source  # noqa: E402
from solvers.rng import ArrayRNG  # noqa: E402

from solvers.numba import base, functions, numba_algorithm  # noqa: E402
from solvers.numba.expression import compiled_expression  # noqa: E402

from expression_corpus import BUILTIN_EXPRESSIONS, EXTRA_EXPRESSIONS  # noqa: E402
from variants import QUICK_ITERATIONS, variant_cases  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
# rastrigin as the numba built-in writes it term by term (sum of v*v - 10 cos(2 pi v) + 10): the
# same operations in the same order, so the trajectories are equal bit for bit
RASTRIGIN = "sum(x[i]**2 - 10*cos(2*pi*x[i]) + 10)"
CASES = variant_cases()


def _run(algorithm, params, problem, dtype, seed=5):
    p = get_algorithm(algorithm).Params(**params)
    algo = numba_algorithm(algorithm)(problem, p, dtype=dtype, threads=1)
    state = algo.init(ArrayRNG(np, seed))
    for chunk in (9, QUICK_ITERATIONS - 9):  # two chunks: the kernels' state crosses a call
        algo.step(state, chunk)
    return state


@pytest.mark.parametrize("algorithm, params", [c[:2] for c in CASES], ids=[c[2] for c in CASES])
def test_typed_twin_walks_the_builtin_trajectory(algorithm, params):
    builtin = get_problem("rastrigin", 3)
    typed = get_problem(f"expr: {RASTRIGIN}", 3, bounds=(-5.12, 5.12))
    a, b = (_run(algorithm, params, p, np.float64) for p in (builtin, typed))
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.f, b.f)
    assert (float(a.best_f), a.evals, a.iteration, int(a.nonfinite)) == \
           (float(b.best_f), b.evals, b.iteration, int(b.nonfinite))
    np.testing.assert_array_equal(a.best_x, b.best_x)


def test_typed_twin_in_float32():
    """A float32 run evaluates the same float64 point (the kernels widen it) through the callback."""
    algorithm, params = "pattern_search", dict(walkers=32)
    builtin = get_problem("rastrigin", 4)
    typed = get_problem(f"expr: {RASTRIGIN}", 4, bounds=(-5.12, 5.12))
    a, b = (_run(algorithm, params, p, np.float32) for p in (builtin, typed))
    assert a.X.dtype == b.X.dtype == np.float32
    np.testing.assert_array_equal(a.X, b.X)
    assert float(a.best_f) == float(b.best_f)


def _compiled_values(problem, X):
    """(values, non-finite count) through the engine's evaluation kernel."""
    out = np.empty(X.shape[0])
    bad = np.zeros(X.shape[0], dtype=np.int64)
    base.evaluate_rows(functions.function_id(problem), np.ascontiguousarray(X, dtype=np.float64), out, bad)
    return out, int(bad.sum())


def _numpy_values(problem, X):
    ref = problem.evaluate(X.astype(np.float64)).astype(np.float64)
    finite = np.isfinite(ref)
    return np.where(finite, ref, np.inf), int((~finite).sum())


EDGE = [0.0, -0.0, 1.0, -1.0, 2.5, -3.0, 0.5, 1e300, -1e300, 700.0, 1e-300]
EDGE_EXPRESSIONS = [
    "x1 / x2", "log(x1) + sqrt(x2)", "x1 % x2", "min(x1, log(x2))", "max(log(x1), x2)",
    "asin(x1) + acos(x2)", "exp(x1) - exp(x2)", "x1**x2", "x1**-1 + x2**0.5", "sign(x1) + floor(x2)",
    "ceil(x1/x2)", "where(x1 > x2, log(x1), x1 - x2)", "where(x1, 1/x2, 2)", "(x1 == x2) + (x1 != 0)",
    "max(x[i] - x[i+1]) + min(log(x[i]))", "mean(sqrt(x[i])) + prod(x[i])", "sum(x[i] % (i - 1.5))",
    "tanh(x1) + sinh(x2) + cosh(x1)", "atan2(x1, x2) + hypot(x1, x2) + log10(x2)", "tan(x1)",
    "(-0.0)**x1 + (0*-1)**x2",  # a -0.0 base: written unparenthesised it read -(0.0 ** x1)
]


@pytest.mark.parametrize("text", EDGE_EXPRESSIONS + EXTRA_EXPRESSIONS)
def test_values_and_nonfinite_counts_equal_numpy(text):
    """Random points and edge points (0, -0, huge, overflow for exp): the same values as the NumPy
    emitter, and NaN/inf at the same points (mapped to +inf and counted)."""
    dim = 3
    problem = get_problem(f"expr: {text}", dim, bounds=(-4.0, 4.0))
    rng = np.random.default_rng(11)
    grid = np.array(np.meshgrid(*[EDGE] * 2)).reshape(2, -1).T
    X = np.vstack([rng.uniform(-4, 4, (64, dim)), np.column_stack([grid, grid[::-1, 0]])])
    got, got_bad = _compiled_values(problem, X)
    ref, ref_bad = _numpy_values(problem, X)
    assert got_bad == ref_bad
    np.testing.assert_array_equal(np.isinf(got), np.isinf(ref))
    finite = np.isfinite(ref)
    np.testing.assert_allclose(got[finite], ref[finite], rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("name", sorted(BUILTIN_EXPRESSIONS))
def test_builtins_typed_equal_the_builtins_on_numba(name):
    dim, text = BUILTIN_EXPRESSIONS[name]
    builtin = get_problem(name, dim)
    typed = get_problem(f"expr: {text}", dim, bounds=(builtin.lower, builtin.upper))
    X = np.random.default_rng(4).uniform(builtin.lower, builtin.upper, (40, dim))
    got, _ = _compiled_values(typed, X)
    ref, _ = _compiled_values(builtin, X)
    np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("dim", [1, 2])
def test_empty_reductions_as_numpy(dim):
    problem = get_problem("expr: sum(x[i+1]) + prod(x[i-1]) + 3", dim)
    X = np.full((2, dim), 0.5)
    assert _compiled_values(problem, X)[0].tolist() == _numpy_values(problem, X)[0].tolist()
    problem = get_problem("expr: max(x[i+1] - x[i]) + mean(x[i+1])", dim)
    got, bad = _compiled_values(problem, X)
    ref, ref_bad = _numpy_values(problem, X)
    assert got.tolist() == ref.tolist() and bad == ref_bad == (2 if dim == 1 else 0)


def test_source_holds_only_generated_names():
    """The source comes from the tree: every name in it is a template's, never the user's text."""
    allowed = {"def", "mw_expr", "p", "d", "x", "carray", "for", "j", "in", "range", "return",
               "float", "if", "else", "math", "np", "abs", "inf", "nan", "pi", "e",
               "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "exp",
               "log", "log10", "sqrt", "hypot", "floor", "ceil", "sign", "minimum", "maximum", "cospi"}
    for _, text in list(BUILTIN_EXPRESSIONS.values()) + [(3, t) for t in EDGE_EXPRESSIONS + EXTRA_EXPRESSIONS]:
        source = numba_source(get_problem(f"expr: {text}", 6).definition.expression.tree)
        names = {t.string for t in tokenize.generate_tokens(io.StringIO(source).readline)
                 if t.type == tokenize.NAME}
        strange = {n for n in names - allowed if not (n[0] in "crt" and n.lstrip("crtm").isdigit())}
        assert not strange, (text, strange)


def test_compiled_once_per_text():
    expr = get_problem(f"expr: {RASTRIGIN}", 3).definition.expression
    assert compiled_expression(expr) is compiled_expression(expr)
    other = get_problem("expr: sum(x[i]**2)", 3).definition.expression
    assert compiled_expression(other) is not compiled_expression(expr)


def test_runs_on_numba_and_numba1_like_numpy():
    problem = Problem.from_expression("log(x1) + sum((x[i] - 0.5)**2)", 3, -1.0, 1.0)
    results = {e: solvers.run("pattern_search", problem, e, max_evals=3000, seed=1)
               for e in ("numpy", "numba", "numba1")}
    for engine, result in results.items():
        assert np.isfinite(result.best_f) and result.best_x[0] > 0, engine
        assert result.nonfinite_evals > 0, engine  # log of a negative x1: counted, never the best
    assert results["numba"].best_f == results["numba1"].best_f  # thread count changes nothing


def test_callable_refused_with_a_pointer_to_expressions():
    problem = Problem.from_callable(lambda X: (X ** 2).sum(axis=1), [-1] * 2, [1] * 2, name="bowl")
    with pytest.raises(EngineUnavailable, match="expression"):
        numba_algorithm("pattern_search")(problem, get_algorithm("pattern_search").Params(walkers=8))


def test_cli_runs_a_typed_function_on_numba():
    out = subprocess.run([sys.executable, str(ROOT / "main.py"), "run", "-a", "pattern_search",
                          "--engine", "numba", "--function", "expr: sum(abs(x[i] - 1)) + where(x1 > 0, 0, 1)",
                          "--dim", "3", "--bounds", "-2,2", "--max-evals", "4000"],
                         capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert "engine numba" in out.stdout and "best f" in out.stdout
    best = float(next(line.split()[2] for line in out.stdout.splitlines() if line.startswith("best f")))
    assert best < 0.1


def test_warmup_compiles_the_kernels_every_expression_shares():
    from solvers.engines import get_engine
    from solvers.warmup import WARM_EXPRESSION, _compile, warm_targets

    pairs = warm_targets(False, get_engine("numba"))
    assert {a for a, f in pairs if f == WARM_EXPRESSION} == set(solvers.list_algorithms())
    assert _compile("numba", [("pattern_search", WARM_EXPRESSION)]) == 0
