"""Typed expressions on the numba engine: the tree's Python source compiled as a C callback.

``compiled_expression(expression)`` runs the source of emit_numba.py (written from the validated tree,
never from the user's text) in a namespace holding only ``math``, ``np`` and ``carray``, and compiles it
with ``numba.cfunc`` to ``float64(float64*, intp)`` (numpy error model: 1/0 is inf, 0/0 NaN). The
kernels receive it where a built-in passes its integer id: as a first-class function its Numba type
is the signature alone, so every kernel compiles ONCE for all expressions (and is kept in Numba's
disk cache with the built-ins' specialisations); a new expression costs only its own compile (about
0.3 s), done once per process and text. functions.counted() calls it on the kernel's float64 point.
"""
from __future__ import annotations

import math
import threading

import numpy as np
from numba import carray, cfunc, types

from ..problems.expression.emit_numba import FUNCTION_NAME, numba_source
from .functions import VECTOR, cospi

VECTOR_MATH = VECTOR["fastmath"]

SIGNATURE = types.float64(types.CPointer(types.float64), types.intp)

_COMPILED: dict[str, object] = {}  # expression text -> compiled callback (kept alive: kernels call it)
_LOCK = threading.Lock()  # two runs naming one new expression compile it once


def compiled_expression(expression):
    """The compiled callback of a parsed Expression (solvers.problems.expression.parse), cached
    per text for the life of the process."""
    with _LOCK:
        fn = _COMPILED.get(expression.text)
        if fn is None:
            fn = _compile(numba_source(expression.tree))
            _COMPILED[expression.text] = fn
        return fn


def _compile(source: str):
    namespace = {"math": math, "np": np, "carray": carray, "cospi": cospi,
                 "__builtins__": {"range": range, "float": float, "abs": abs}}
    exec(compile(source, "<multiwalk expression>", "exec"), namespace)  # noqa: S102 - tree-generated
    # sums may be reassociated into vector lanes, as in the built-in Rastrigin and Ackley
    # (functions.VECTOR): a typed twin then runs at the built-in's speed
    return cfunc(SIGNATURE, error_model="numpy", cache=False, fastmath=VECTOR_MATH)(namespace[FUNCTION_NAME])
