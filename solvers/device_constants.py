"""Small device arrays that many runs share, made once per device instead of once per run.

Building a solver on a GPU engine copied the problem's box to the device (two synchronous host to
device copies and a kernel for the span) and allocated zero-filled placeholders on every run: host
time inside every end-to-end run (the pattern-search paper's Table 1 setting is 0.5 ms on the device,
so each 20-50 us of host work shows). These arrays are read-only by contract: kernels take them as
``const T*`` and no solver writes its box in place (a solver that needs another box makes new arrays).
"""
from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np

_CACHE_SIZE = 64  # distinct (device, dtype, box) entries kept; a GUI session uses a handful
_cache: OrderedDict = OrderedDict()
_lock = threading.Lock()  # solvers are built in the GUI's worker threads and a split run's threads


def _cached(key, make):
    with _lock:
        value = _cache.get(key)
        if value is None:
            value = _cache[key] = make()
            if len(_cache) > _CACHE_SIZE:
                _cache.popitem(last=False)
        else:
            _cache.move_to_end(key)
        return value


def _made(xp, value):
    """value once the current stream has made it: a shared array is read by kernels on other
    streams (a split run's shards on one device each have their own), which nothing orders after
    the copies and kernels that made it on this one."""
    xp.cuda.get_current_stream().synchronize()
    return value


def _device(xp) -> int:
    return int(xp.cuda.runtime.getDevice())


def box_arrays(xp, lower, upper, dtype):
    """(lower, upper, upper - lower) as arrays of module xp and the run's dtype: shared, read-only
    device arrays on a GPU module (one set per device, dtype and box), fresh arrays on NumPy."""
    dtype = np.dtype(dtype)
    if not hasattr(xp, "cuda"):  # NumPy (or another host module): nothing to save
        lo, hi = xp.asarray(lower, dtype=dtype), xp.asarray(upper, dtype=dtype)
        return lo, hi, hi - lo
    lo_host = np.ascontiguousarray(lower, dtype=dtype)
    hi_host = np.ascontiguousarray(upper, dtype=dtype)
    key = ("box", _device(xp), dtype.str, lo_host.shape, lo_host.tobytes(), hi_host.tobytes())

    def make():
        lo, hi = xp.asarray(lo_host), xp.asarray(hi_host)
        return _made(xp, (lo, hi, hi - lo))
    return _cached(key, make)


def placeholder(xp, dtype):
    """A one-element zero array of dtype on the current device, for a kernel argument that is never
    read (a tuning grid's tables outside a grid); shared by every run on that device."""
    dtype = np.dtype(dtype)
    if not hasattr(xp, "cuda"):
        return xp.zeros(1, dtype=dtype)
    return _cached(("placeholder", _device(xp), dtype.str), lambda: _made(xp, xp.zeros(1, dtype=dtype)))
