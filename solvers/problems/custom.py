"""The user's own objectives: typed expressions (every engine) and Python callables (numpy, cupy).

An expression problem is named ``"expr: <text>"``: that name is all a configuration file, the CLI or
the GUI needs to rebuild it (with the box, stored as the run's bounds). Its definition is built once
per text: the array function and the CUDA functor come from the same validated tree
(solvers/problems/expression/). A callable problem lives in this process only (``"callable: name"``).
"""
from __future__ import annotations

import functools
from typing import Callable

import numpy as np

from ..errors import ConfigError
from .base import ProblemDef, box, check_bounds
from .expression import ExpressionError, array_function, cuda_functor, parse

EXPR_PREFIX = "expr:"
CALLABLE_PREFIX = "callable:"
DEFAULT_BOX = (-5.0, 5.0)  # the box of "expr: ..." when none is given (--bounds, bounds=)
GROUP = "Custom"


# The box last given to an expression in this process (the window's editor sets it), used when a
# caller names the expression without a box: the landscape, compare and sweep tabs then draw and run
# the box the user typed. Runs and set-up files always carry their box explicitly (RunConfig.bounds).
_SESSION_BOXES: dict[str, tuple[float, float]] = {}


def set_expression_box(name: str, lower: float, upper: float) -> None:
    """Make [lower, upper] the box of expression `name` ('expr: ...' or its text) in this process."""
    text = expression_text(name) if is_expression(name) else name.strip()
    check_bounds(np.array([float(lower)]), np.array([float(upper)]), expression_name(text))
    _SESSION_BOXES[parse(text).text] = (float(lower), float(upper))


def expression_box(name: str) -> tuple[float, float]:
    """The box an expression gets when none is given: its session box, else DEFAULT_BOX."""
    text = expression_text(name) if is_expression(name) else name.strip()
    return _SESSION_BOXES.get(text, DEFAULT_BOX)


def is_expression(name: str) -> bool:
    return isinstance(name, str) and name.lstrip().lower().startswith(EXPR_PREFIX)


def expression_text(name: str) -> str:
    """The expression of a name 'expr: <text>' (the text unchanged, stripped)."""
    return name.lstrip()[len(EXPR_PREFIX):].strip()


def expression_name(text: str) -> str:
    return f"{EXPR_PREFIX} {text.strip()}"


@functools.lru_cache(maxsize=256)
def expression_definition(text: str) -> ProblemDef:
    """The definition of one expression text (parsed, both emitters run), built once per text."""
    expr = parse(text)
    functor = cuda_functor(expr.tree)
    fn = array_function(expr.tree)
    return ProblemDef(
        name=expression_name(expr.text), title=expr.text, group=GROUP,
        source="typed by the user", fn=_quiet(fn, expr.text), bounds=box(*DEFAULT_BOX), min_dim=expr.min_dim,
        default_dim=max(2, expr.min_dim), cuda_functor=functor.name, cuda_source=functor.source,
        expression=expr,
        notes="A NaN or infinite value counts as a very bad point (never the best).")


# The attribute naming the expression text that an expression's own function evaluates: numba and
# cuda compile the text, so a definition whose fn lacks it (replaced by the user) is refused there
# (problems.base.refuse_foreign_twin). An attribute, not an identity check against
# expression_definition's cache, which keeps only its last 256 texts; it travels with the function
# through copy.deepcopy and cloudpickle.
EXPRESSION_OF = "mw_expression_text"


def _quiet(fn: Callable, text: str) -> Callable:
    """NumPy warns on log(-1) or 1/0 in the user's formula; such values are very bad points, not
    warnings (the engines map them to +inf)."""
    def quiet(xp, X):
        with np.errstate(all="ignore"):
            return fn(xp, X)
    setattr(quiet, EXPRESSION_OF, text)
    return quiet


def evaluates_its_expression(definition) -> bool:
    """Whether an expression's definition still holds the function made from its own text."""
    expression = definition.expression
    return expression is not None and getattr(definition.fn, EXPRESSION_OF, None) == expression.text


def compiles_its_expression(definition) -> bool:
    """Whether an expression's definition holds the device functor made from its own text (the
    code cuda compiles), not another's."""
    own = expression_definition(definition.expression.text)
    return definition.cuda_functor == own.cuda_functor and definition.cuda_source == own.cuda_source


def expression_problem(text: str, dim: int | None = None, lower=None, upper=None, *,
                       f_min: float | None = None, x_min=None, title: str | None = None):
    """A Problem for an expression: dimension checked against the indices used (with the column)."""
    from .base import Problem  # noqa: PLC0415 - base imports this module lazily too

    definition = expression_definition(expression_text(text) if is_expression(text) else text)
    expr = definition.expression
    if dim is None:
        dim = definition.default_dim
    if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)):
        raise ConfigError(f"dimension must be an integer, got {dim!r}")
    from .base import MAX_DIM  # noqa: PLC0415

    if int(dim) > MAX_DIM:
        raise ConfigError(f"dimension {int(dim):,} is too large (at most {MAX_DIM:,})")
    expr.check_dim(int(dim))
    dim = int(dim)
    default = _SESSION_BOXES.get(expr.text, DEFAULT_BOX)
    lo = default[0] if lower is None else lower
    hi = default[1] if upper is None else upper
    try:
        lo = np.broadcast_to(np.asarray(lo, dtype=np.float64), (dim,)).copy()
        hi = np.broadcast_to(np.asarray(hi, dtype=np.float64), (dim,)).copy()
    except (ValueError, TypeError):
        raise ConfigError(f"bounds must be numbers or arrays of length {dim}") from None
    check_bounds(lo, hi, definition.name)
    if title:
        import dataclasses  # noqa: PLC0415

        definition = dataclasses.replace(definition, title=str(title))
    lo.setflags(write=False)
    hi.setflags(write=False)
    if x_min is not None:
        x_min = np.broadcast_to(np.asarray(x_min, dtype=np.float64), (dim,)).copy()
    return Problem(definition=definition, dim=dim, lower=lo, upper=hi,
                   f_min=None if f_min is None else float(f_min), x_min=x_min)


def callable_problem(f: Callable, lower, upper, *, f_min: float | None = None,
                     name: str | None = None):
    """A Problem for a vectorised ``f(X) -> (n,)`` (NumPy or CuPy); registered for this process
    under ``"callable: <name>"`` so that RunConfig and Runner find it by name."""
    from .base import Problem, register_custom  # noqa: PLC0415

    if not callable(f):
        raise ConfigError(f"from_callable needs a function f(X) -> (n,), got {type(f).__name__}")
    lo = np.atleast_1d(np.asarray(lower, dtype=np.float64)).copy()
    hi = np.atleast_1d(np.asarray(upper, dtype=np.float64)).copy()
    if lo.ndim != 1 or lo.shape != hi.shape:
        raise ConfigError("lower and upper must be 1-D arrays of the same length (one per coordinate)")
    label = str(name or getattr(f, "__name__", "f"))
    full = f"{CALLABLE_PREFIX} {label}"
    check_bounds(lo, hi, full)
    dim = lo.size
    lo.setflags(write=False)
    hi.setflags(write=False)
    definition = ProblemDef(
        name=full, title=label, group=GROUP, source="a Python callable", fn=_checked(f, full),
        bounds=lambda d: (lo, hi), dims=(dim,), min_dim=dim, default_dim=dim,
        f_min=lambda d: f_min, cuda_functor=None,
        no_cuda_reason=(f"'{full}' is a Python callable, which the fused CUDA kernels cannot call: "
                        f"write it as an expression (Problem.from_expression or 'expr: ...') to run "
                        f"it on the cuda engine"))
    register_custom(definition)
    return Problem(definition=definition, dim=dim, lower=lo, upper=hi,
                   f_min=None if f_min is None else float(f_min), x_min=None)


def _checked(f: Callable, name: str) -> Callable:
    """Wrap f so that its first call checks the vectorisation contract: (n,) of a floating dtype,
    in X's array module, finite. Later calls are passed through (cast to X's dtype)."""
    checked = []

    def fn(xp, X):
        out = f(X)
        if not checked:
            _check_contract(xp, X, out, name)
            checked.append(True)
        return out.astype(X.dtype, copy=False)

    return fn


def _check_contract(xp, X, out, name: str) -> None:
    where = f"{name}: f(X) with X of shape {tuple(X.shape)}"
    if not isinstance(out, xp.ndarray):
        module = type(out).__module__.split(".")[0]
        raise ConfigError(f"{where} must return a {xp.__name__} array (vectorised, one value per "
                          f"row), got {module}.{type(out).__name__}")
    if tuple(out.shape) != (X.shape[0],):
        raise ConfigError(f"{where} must return shape ({X.shape[0]},), got {tuple(out.shape)}")
    if out.dtype.kind != "f":
        raise ConfigError(f"{where} must return floating values, got dtype {out.dtype}")
    bad = int((~xp.isfinite(out)).sum())
    if bad:
        raise ConfigError(f"{where} returned {bad} NaN or infinite value(s) on its first call")


__all__ = ["ExpressionError", "expression_problem", "callable_problem", "is_expression"]
