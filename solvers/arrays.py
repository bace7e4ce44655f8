"""Array-module helpers shared by problems and algorithms, so one code path runs on NumPy and CuPy."""
from __future__ import annotations

import numpy as np


def array_module(x):
    """The module (numpy or cupy) that owns array `x`, without importing CuPy when it is not used."""
    module = type(x).__module__
    if module.startswith("cupy"):
        import cupy  # noqa: PLC0415 - only reached when a CuPy array was handed in

        return cupy
    return np


def to_numpy(x):
    """A NumPy copy of `x` (a device-to-host copy for CuPy arrays)."""
    if type(x).__module__.startswith("cupy"):
        return x.get()
    return np.asarray(x)


def finite_or_inf(f, xp):
    """Replace NaN and -inf/+inf by +inf so that such points are never taken as the best."""
    return xp.where(xp.isfinite(f), f, xp.asarray(xp.inf, dtype=f.dtype))
