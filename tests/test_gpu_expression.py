"""GPU: typed expressions on CuPy and in the fused CUDA kernels.

The generated functor of each built-in's expression (tests/expression_corpus.py) is compared with
the built-in functor on the same points (tolerances of test_gpu_functors.py); the CuPy array function
with the NumPy one; every cuda algorithm runs an expression, and a run on the expression of
rastrigin equals, seed for seed, the run on the built-in (same Philox streams, same formula up to
rounding); the loader compiles one module per expression and reuses it.
"""
from __future__ import annotations

import numpy as np
import pytest

import solvers
from kernels import loader
from solvers.algorithms import list_algorithms
from tests.expression_corpus import BUILTIN_EXPRESSIONS
from tests.test_gpu_functors import TEST_KERNELS as EVAL  # its t_eval<F, T> kernel

pytestmark = pytest.mark.gpu


def _evaluate(cupy, problem, X, dtype, fast_math=False):
    ctype = "float" if dtype == np.float32 else "double"
    definition = problem.definition
    code = loader.header_text() + (definition.cuda_source or "") + EVAL
    name = f"t_eval<{definition.cuda_functor}, {ctype}>"
    module = cupy.RawModule(code=code, options=loader.options(fast_math), name_expressions=[name])
    n, d = X.shape
    XT = cupy.asarray(np.ascontiguousarray(X.T.astype(dtype)))
    out = cupy.empty(n, dtype=dtype)
    module.get_function(name)(((n + 127) // 128,), (128,), (XT, np.int64(n), np.int32(d), out))
    return out.get().astype(np.float64)


@pytest.mark.parametrize("name", sorted(BUILTIN_EXPRESSIONS))
def test_expression_functor_equals_builtin_functor(cupy, name):
    dim, text = BUILTIN_EXPRESSIONS[name]
    builtin = solvers.get_problem(name, dim)
    typed = solvers.get_problem(f"expr: {text}", dim)
    X = np.random.default_rng(5).uniform(builtin.lower, builtin.upper, (2000, dim))
    for dtype, tol in ((np.float64, 1e-10), (np.float32, 2e-5)):
        want = _evaluate(cupy, builtin, X, dtype)
        got = _evaluate(cupy, typed, X, dtype)
        finite = np.isfinite(want) & (np.abs(want) < 1e30)
        err = np.linalg.norm(got[finite] - want[finite]) / max(np.linalg.norm(want[finite]), 1e-300)
        assert err < tol, f"{name} {dtype.__name__}: relative error {err:.3g}"
    # and the CuPy array function agrees with the NumPy one
    np.testing.assert_allclose(typed.evaluate(cupy.asarray(X)).get(), typed.evaluate(X), rtol=1e-12,
                               atol=1e-12)


@pytest.mark.parametrize("algorithm", list_algorithms())
def test_every_cuda_algorithm_runs_an_expression(algorithm):
    result = solvers.run(algorithm, "expr: sum((x[i] - 1)**2)", "cuda", dim=4, max_evals=20000,
                         seed=2, bounds=(-3.0, 3.0))
    assert np.isfinite(result.best_f) and result.best_f < 1.0


def test_expression_run_equals_builtin_run_seed_for_seed():
    text = "expr: " + BUILTIN_EXPRESSIONS["rastrigin"][1]
    for algorithm in ("pattern_search", "particle_swarm"):
        a = solvers.run(algorithm, "rastrigin", "cuda", dim=6, max_iters=30, seed=4)
        b = solvers.run(algorithm, text, "cuda", dim=6, max_iters=30, seed=4, bounds=(-5.12, 5.12))
        assert a.evals == b.evals
        assert abs(a.best_f - b.best_f) <= 1e-6 * max(1.0, abs(a.best_f)), (algorithm, a.best_f, b.best_f)


def test_one_module_per_expression():
    a = solvers.get_problem("expr: sum(x[i]**2) + 1", 3)
    b = solvers.get_problem("expr: sum(x[i]**2) + 2", 3)
    ka = loader.load("evaluation_only.cu", a.definition.cuda_functor, "float32", False,
                     a.definition.cuda_source)
    kb = loader.load("evaluation_only.cu", b.definition.cuda_functor, "float32", False,
                     b.definition.cuda_source)
    again = loader.load("evaluation_only.cu", a.definition.cuda_functor, "float32", False,
                        solvers.get_problem("expr: sum(x[i]**2)+1", 5).definition.cuda_source)
    assert ka is again and ka is not kb


def test_nan_points_are_very_bad_on_cuda():
    result = solvers.run("pattern_search", "expr: log(x1) + x2**2", "cuda", dim=2, max_evals=5000,
                         seed=0, bounds=(-1.0, 1.0))
    assert np.isfinite(result.best_f) and result.best_x[0] > 0


def test_min_and_max_propagate_nan_as_numpy(cupy):
    """min/max and the max/min reductions are NaN when an operand is, as np.minimum/np.maximum (and
    numba): the functor used fmin/fmax, which drop a NaN, so min(log(x1), 5) read 5 at x1 < 0 on cuda
    and a point that is very bad on numpy was not on cuda."""
    text = "min(log(x1), 5) + max(sqrt(x2), -1) + max(log(x[i])) + min(sqrt(x[i]))"
    problem = solvers.get_problem(f"expr: {text}", 3)
    X = np.array([[-1.0, 4.0, 2.0], [2.0, -4.0, 2.0], [2.0, 4.0, -2.0], [2.0, 4.0, 3.0]])
    want = problem.evaluate(X)
    assert np.isnan(want).tolist() == [True, True, True, False]
    for dtype in (np.float64, np.float32):
        got = _evaluate(cupy, problem, X, dtype)
        assert np.isnan(got).tolist() == np.isnan(want).tolist(), dtype.__name__
        np.testing.assert_allclose(got[3], want[3], rtol=1e-6)


def test_whole_powers_of_a_negative_base_under_fast_math(cupy):
    """x1**5 under fast math was __powf, NaN for every x1 < 0, and x1**0 NaN at 0; NumPy's values."""
    problem = solvers.get_problem("expr: x1**5 + x2**-1 + sum(x[i]**6) + x1**0", 2)
    X = np.array([[-2.0, -0.5], [0.0, 2.0], [1.5, -4.0]])
    want = problem.evaluate(X)
    for fast in (False, True):
        got = _evaluate(cupy, problem, X, np.float32, fast_math=fast)
        np.testing.assert_allclose(got, want, rtol=1e-5, err_msg=f"fast math {fast}")
