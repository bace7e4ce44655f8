"""JSON that every parser accepts: Python's ``json`` writes NaN and Infinity, which are not JSON.

Non-finite numbers are written as ``null`` (NaN) or the strings ``"inf"`` / ``"-inf"``, so that a
diverged run (best f = +inf) still gives a valid document that says what happened.
"""
from __future__ import annotations

import json
import math
from typing import Any

import numpy as np


def finite_or_marker(value: float) -> float | str | None:
    """`value` if finite, else None (NaN) or "inf"/"-inf"."""
    if math.isnan(value):
        return None
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return value


def json_ready(obj: Any) -> Any:
    """A copy of `obj` with numpy scalars/arrays made plain and non-finite floats replaced."""
    if isinstance(obj, dict):
        return {str(k): json_ready(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_ready(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return json_ready(obj.tolist())
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        return finite_or_marker(float(obj))
    return obj


def strict_dumps(obj: Any, **kwargs) -> str:
    """json.dumps of json_ready(obj), refusing NaN/Infinity so the output is always valid JSON."""
    return json.dumps(json_ready(obj), allow_nan=False, **kwargs)
