"""User expressions: the parser refuses hostile text quickly and executes nothing; the array emitter
equals the built-in functions; problems built from text and callables flow through the run loop and
configuration files; the CUDA emitter's output compiles with nvcc (where nvcc is on PATH).
"""
from __future__ import annotations

import ast
import builtins
import gc
import shutil
import subprocess
import time

import numpy as np
import pytest

import solvers
from kernels import loader
from solvers import ConfigError, Problem, RunConfig, Runner
from solvers.config_io import config_from_dict, config_to_dict
from solvers.problems.expression import ExpressionError, cuda_functor, parse
from solvers.problems.expression.nodes import Reduce, Term

from tests.expression_corpus import BUILTIN_EXPRESSIONS, EXTRA_EXPRESSIONS

HOSTILE = [
    "__import__('os').system('echo pwned')", "__import__", "x1.__class__", "x1.__class__.__mro__",
    "().__class__.__bases__[0].__subclasses__()", "sin.__globals__", "x.real", "eval('1')",
    "exec('import os')", "open('/etc/passwd')", "compile('1', 'f', 'eval')", "globals()",
    "getattr(x1, 'real')", "f'{x1}'", "'%s' % x1", "b'abc'", "'abc'", "lambda: 1",
    "[x1 for x1 in range(9)]", "(y for y in x)", "{1: 2}", "{1, 2}", "[1, 2]", "(1, 2)",
    "9**9**9", "10.0**400", "1e999", "(" * 200 + "1" + ")" * 200, "-" * 1500 + "x1",
    "+".join(["x1"] * 1_000_000), "x1\0", "\u0445" + "1", "\uff58" + "1", "x\u2081", "sin\u2024x",
    "x1 if x1 > 0 else 2", "x1 and x2", "not x1", "x1 @ x2", "x1 // 2", "x1 << 2", "~x1",
    "x1 := 3", "x1; x2", "import os", "x[1:3]", "x[i]", "x[x1]", "x[-1]", "x0", "x99", "i + 1",
    "sum(sum(x[i]))", "sin(x1, x2)", "sin()", "atan2(x1)", "where(x1, x2)", "sin(x=1)", "sin(*x)",
    "print(1)", "y", "1/0", "x1 % (2 - 2)", "x1 < x2 < 3", "True + x1", "1j * x1", "", "   ",
    "x1 +", "sqrt(-1)", "log(0)", "x\x07", "None", "...", "x1 is x2", "x1 in x",
]


def test_there_are_at_least_40_attacks():
    assert len(HOSTILE) >= 40


@pytest.mark.parametrize("text", HOSTILE, ids=[repr(t[:30]) for t in HOSTILE])
def test_hostile_text_is_refused_quickly_and_runs_nothing(text, monkeypatch):
    calls = []
    real_compile = builtins.compile

    def forbidden(*args, **kwargs):
        calls.append(args[:1])
        raise AssertionError("the parser called eval/exec of user text")

    def syntax_tree_only(source, filename, mode, flags=0, *args, **kwargs):
        # ast.parse is compile(..., PyCF_ONLY_AST): a syntax tree, no code object; anything else fails
        if not flags & ast.PyCF_ONLY_AST:
            calls.append(source)
            raise AssertionError("the parser compiled user text to code")
        return real_compile(source, filename, mode, flags, *args, **kwargs)

    monkeypatch.setattr(builtins, "eval", forbidden)
    monkeypatch.setattr(builtins, "exec", forbidden)
    monkeypatch.setattr(builtins, "compile", syntax_tree_only)
    gc.collect()  # time the parser, not a collection of the test session's garbage
    start = time.perf_counter()
    with pytest.raises(ExpressionError) as info:
        parse(text).check_dim(5)
    elapsed = time.perf_counter() - start
    monkeypatch.undo()
    assert not calls
    assert elapsed < 0.1, f"took {elapsed * 1000:.0f} ms"
    message = str(info.value)
    assert message.startswith("expression") and "\n" not in message and len(message) < 300


@pytest.mark.parametrize("text, column, words", [
    ("x1 + y", 6, "unknown name 'y'"), ("x1 + x7", 6, "out of range for dimension 5"),
    ("x1 / 0", 6, "division by zero"), ("sin(x1, x2)", 1, "takes 1 argument"),
    ("x1 + foo(2)", 6, "unknown function 'foo'"), ("x1 + x1.real", 6, "attribute"),
    ("x1 + \u0445", 6, "U+0445"), ("x1 +", 5, "syntax error"), ("9**9**9", 1, "finite"),
])
def test_messages_name_the_column(text, column, words):
    with pytest.raises(ExpressionError) as info:
        parse(text).check_dim(5)
    assert info.value.column == column, str(info.value)
    assert words in str(info.value)


def test_leading_blanks_are_read_and_columns_count_them():
    """A pasted ' x1**2' (the window's editor) or an indented triple-quoted string (the API) was
    'syntax error: unexpected indent'; it parses as the text, and columns stay positions in it."""
    assert parse("  x1**2").tree == parse("x1**2").tree
    problem = Problem.from_expression("""
        10*n + sum(x[i]**2)
    """, 3)
    assert problem(np.ones((1, 3))).tolist() == [33.0]
    for text, column, words in [("  x1 / 0", 8, "division by zero"), ("\t x1 + y", 8, "unknown name"),
                                ("  x1 x2", 6, "syntax error"), ("   x1 +", 8, "ends too early")]:
        with pytest.raises(ExpressionError) as info:
            parse(text)
        assert (info.value.column, words in str(info.value)) == (column, True), str(info.value)
    with pytest.raises(ExpressionError) as info:
        parse("  x1 + x7").check_dim(5)
    assert info.value.column == 8


def test_length_and_depth_limits():
    with pytest.raises(ExpressionError, match="2,000"):
        parse("x1+" * 700 + "1")
    parse("(" * 60 + "x1" + ")" * 60)  # within the depth limit
    with pytest.raises(ExpressionError, match="deeper than 64"):
        parse("(" * 65 + "x1" + ")" * 65)
    with pytest.raises(ExpressionError, match="deeper than 64"):
        parse("sin(" * 70 + "x1" + ")" * 70)


def test_tree_reductions_know_their_range():
    tree = parse("sum(x[i+1] - x[i-2])").tree
    assert isinstance(tree, Reduce) and (tree.lo, tree.hi) == (2, 1)
    assert {n.offset for n in [tree.body.left, tree.body.right] if isinstance(n, Term)} == {1, -2}


@pytest.mark.parametrize("name", sorted(BUILTIN_EXPRESSIONS))
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_expression_equals_builtin(name, dtype):
    dim, text = BUILTIN_EXPRESSIONS[name]
    builtin = solvers.get_problem(name, dim)
    typed = solvers.get_problem(f"expr: {text}", dim)
    rng = np.random.default_rng(7)
    X = rng.uniform(builtin.lower, builtin.upper, (300, dim)).astype(dtype)
    got, want = typed(X), builtin(X).astype(np.float64)
    assert got.shape == (300,) and got.dtype == np.dtype(dtype)
    tol = 1e-12 if dtype == "float64" else 3e-5
    assert np.max(np.abs(got - want) / (1.0 + np.abs(want))) < tol


def test_at_least_25_builtins_are_expressible():
    assert len(BUILTIN_EXPRESSIONS) >= 25
    assert set(BUILTIN_EXPRESSIONS) <= set(solvers.list_problems())


def test_language_semantics_against_python():
    X = np.array([[1.5, -2.0, 3.0], [-0.5, 4.0, 0.0]])
    cases = {
        "x1 % 2 + x2 % -3": lambda r: r[0] % 2 + r[1] % -3,
        "where(x1 > x2, x1, x2) + (x3 == 0)": lambda r: max(r[0], r[1]) + (r[2] == 0),
        "min(x1, x2, x3) + max(x1, x2, x3)": lambda r: min(r) + max(r),
        "sum(i*x[i])": lambda r: sum((k + 1) * v for k, v in enumerate(r)),
        "prod(x[i] + 1) + mean(x[i]) + n": lambda r: np.prod(r + 1) + np.mean(r) + 3,
        "sum(x[i+1] - x[i])": lambda r: r[2] - r[0], "x[1] - x3": lambda r: r[0] - r[2],
        "-x1**2": lambda r: -(r[0] ** 2), "sign(x3) + sign(x2)": lambda r: np.sign(r[2]) + np.sign(r[1]),
        "atan2(x1, x2) + hypot(x1, x2)": lambda r: np.arctan2(r[0], r[1]) + np.hypot(r[0], r[1]),
    }
    for text, expected in cases.items():
        got = solvers.get_problem(f"expr: {text}", 3)(X)
        np.testing.assert_allclose(got, [expected(r) for r in X], err_msg=text)


def test_nonfinite_values_are_never_the_best():
    problem = Problem.from_expression("log(x1)", 1, -1.0, 1.0)
    result = solvers.run("pattern_search", problem, "numpy", max_evals=2000, seed=1)
    assert np.isfinite(result.best_f) and result.best_x[0] > 0


def test_api_problem_and_default_dimension():
    p = Problem.from_expression("x1**2 + x3**2", None, -2, 3, f_min=0.0, x_min=[0, 0, 0], name="Bowl")
    assert (p.dim, p.title, p.f_min, p.name) == (3, "Bowl", 0.0, "expr: x1**2 + x3**2")
    assert np.all(p.lower == -2) and np.all(p.upper == 3)
    with pytest.raises(ExpressionError, match="x3 is out of range for dimension 2"):
        Problem.from_expression("x1**2 + x3**2", 2, -1, 1)
    q = solvers.get_problem("expr: sum(x[i]**2)", 4, bounds=(-1, 2))
    assert q.dim == 4 and q.lower[0] == -1 and q.upper[3] == 2
    assert q.definition.cuda_functor == solvers.get_problem("expr:sum(x[i]**2)", 2).definition.cuda_functor


def test_expression_runs_through_config_and_file(tmp_path):
    config = RunConfig.build("particle_swarm", "expr: sum(abs(x[i] - 1))", 3, bounds=(-4.0, 4.0),
                             max_evals=4000, seed=3)
    data = config_to_dict(config)
    assert data["problem"] == "expr: sum(abs(x[i] - 1))" and data["bounds"] == [-4.0, 4.0]
    again = config_from_dict(data)
    assert again == config
    result = Runner(again).run()
    assert result.best_f < 1.0 and np.all(np.abs(result.best_x - 1) < 1)
    with pytest.raises(ConfigError, match="column"):
        RunConfig.build("particle_swarm", "expr: sum(abs(x[i] - 1)) + q", 3)


def test_callable_problem_contract_and_run():
    p = Problem.from_callable(lambda X: np.sum((X - 0.5) ** 2, axis=1), [-1] * 3, [1] * 3, name="bowl")
    result = solvers.run("differential_evolution", p, "numpy", max_evals=6000, seed=0)
    assert p.name == "callable: bowl" and result.best_f < 1e-2
    for bad, words in [(lambda X: X, "shape"), (lambda X: X.sum(1).astype(int), "floating"),
                       (lambda X: list(X.sum(1)), "numpy array"),
                       (lambda X: np.log(X[:, 0] - 5), "NaN or infinite")]:
        q = Problem.from_callable(bad, [-1, -1], [1, 1], name="bad")
        with pytest.raises(ConfigError, match=words), np.errstate(all="ignore"):
            q(np.zeros((4, 2)))


def test_cuda_engine_refuses_a_callable_pointing_to_expressions():
    p = Problem.from_callable(lambda X: X[:, 0], [-1], [1], name="lin")
    assert "expression" in p.definition.no_cuda_reason and p.definition.cuda_functor is None


def test_functor_names_are_unique_per_expression_and_stable():
    a = cuda_functor(parse("sum(x[i]**2)").tree)
    b = cuda_functor(parse("sum( x[i] ** 2 )").tree)
    c = cuda_functor(parse("sum(x[i]**3)").tree)
    assert a == b and a.name != c.name
    assert "struct " + a.name in a.source and "template <typename T, typename X>" in a.source
    src = loader.source("evaluation_only.cu", a.source)
    assert src.index(a.name) < src.index("// ---- evaluation_only.cu")


def test_functor_min_and_max_propagate_nan():
    """min/max and the max/min reductions are NaN when an operand is, as NumPy's and numba's: the
    functor called fmin/fmax, which drop a NaN, so min(log(x1), 5) read 5 at x1 < 0 on cuda and a
    very bad point elsewhere. No GPU here: the body must call the NaN-propagating helpers, never the
    C library's (tests/test_gpu_expression.py checks the values on a GPU)."""
    source = cuda_functor(parse("min(log(x1), 5) + max(x1, x2, x3) + max(log(x[i])) + min(x[i])")
                          .tree).source
    body = source.split("// ---- expression functor ----")[1]
    assert "fmin" not in body and "fmax" not in body, body
    assert body.count("mwx_min<T>(") == 2 and body.count("mwx_max<T>(") == 3, body


def test_functor_whole_powers_stay_real_for_a_negative_base():
    """x1**5 was mw_pow(c0, T(5.0)): under --fast-math (float) that is __powf, exp2(5 log2 x1), NaN for
    every x1 < 0 (lg2.approx), where NumPy gives -32 at -2; and v ** 0 was NaN at 0 (exp2(0 * -inf)).
    No GPU here: whole powers must not reach mw_pow with the signed base (tests/test_gpu_expression.py
    checks the values on a GPU)."""
    body = cuda_functor(parse("x1**5 + x2**-1 + sum(x[i]**6) + x1**0 + x2**2.5").tree).source
    body = body.split("// ---- expression functor ----")[1]
    assert "mwx_powi<T>(c0, T(5.0), true)" in body and "mwx_powi<T>(c1, T(-1.0), true)" in body
    assert "mwx_powi<T>(t0, T(6.0), false)" in body and "mw_pow(c1, T(2.5))" in body
    assert body.count("pow") == 4, body  # x1**0 is 1


CORPUS = [text for _dim, text in BUILTIN_EXPRESSIONS.values()] + EXTRA_EXPRESSIONS

COMPILE_KERNEL = r"""
template <typename F, typename T>
__global__ void mw_eval_kernel(const T* X, long long n, int d, int accessor, T* out) {
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= n) return;
    T f;
    if (accessor == 0) { StridedPoint<T> p{X + i, n}; f = F::template eval<T>(p, d); }
    else if (accessor == 1) { PatchedPoint<T> p{X + i, n, 0, T(0.5)}; f = F::template eval<T>(p, d); }
    else { DensePoint<T> p{X + i * d}; f = F::template eval<T>(p, d); }
    out[i] = mw_sanitize(f);
}
"""


def test_corpus_has_30_expressions():
    assert len(CORPUS) >= 30 and len({cuda_functor(parse(t).tree).name for t in CORPUS}) == len(CORPUS)


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not on PATH (no CUDA toolkit here)")
def test_emitted_functors_compile_with_nvcc(tmp_path):
    functors = [cuda_functor(parse(t).tree) for t in CORPUS]
    # one translation unit: the helper header is guarded, so it may appear once per functor
    body = "".join(f.source for f in functors)
    insts = ",\n".join(f"    (void*)&mw_eval_kernel<{f.name}, {t}>" for f in functors
                       for t in ("float", "double"))
    unit = tmp_path / "expressions.cu"
    unit.write_text(loader.header_text() + body + COMPILE_KERNEL + f"void* mw_inst[] = {{\n{insts}\n}};\n",
                    encoding="utf-8")
    procs = []
    for fast in (False, True):
        cmd = ["nvcc", "-arch=sm_90", "--ptx", *loader.options(fast), "-o",
               str(tmp_path / f"e{int(fast)}.ptx"), str(unit)]
        procs.append((cmd, subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                            text=True)))
    for cmd, proc in procs:
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, f"{' '.join(cmd)}\n{err[:4000]}"
