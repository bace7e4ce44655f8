"""The landscape under the walkers, computed with NumPy on the GUI side: a 2-D slice of the
function on a regular grid, the colour scale it calls for, and contour lines (Qt-free).

The contours come from a vectorised marching-squares pass (all cells of one level at once) because
pyqtgraph's ``isocurve`` loops in Python and takes about 25 ms per level on a 256 x 256 grid, too
slow to redraw an N-D slice while a run is on.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from solvers.problems.base import Problem

RESOLUTION = 256
MIN_RESOLUTION = 32  # coarser than this says nothing about the function
# One slice evaluates at most this many coordinates (grid points x d): about 0.5 s of NumPy, so a
# new slice stays quick at any dimension; above it the grid gets coarser, down to MIN_RESOLUTION.
WORK_ELEMENTS = 2**26
# Points are evaluated in chunks of at most this many coordinates (8 MB in float64), so memory
# stays flat at any dimension and a cancelled slice stops within one chunk.
CHUNK_ELEMENTS = 2**20
MAX_DRAWN_DIM = WORK_ELEMENTS // MIN_RESOLUTION**2  # 65,536


class SliceCancelled(Exception):
    """The slice was abandoned (a newer one was asked for, or the window is closing)."""


def slice_resolution(dim: int) -> int:
    """Grid points per axis for a slice in dimension `dim` (256 up to d = 1,024, then coarser)."""
    fitting = int(np.sqrt(WORK_ELEMENTS / max(1, dim)))
    return max(MIN_RESOLUTION, min(RESOLUTION, fitting))


def landscape_limit(dim: int) -> str:
    """Why the landscape of dimension `dim` cannot be drawn, or "" when it can."""
    if dim > MAX_DRAWN_DIM:
        return (f"the window draws landscapes up to d = {MAX_DRAWN_DIM:,}; run larger dimensions "
                "headless ('python main.py run ...')")
    return ""
LOG_DECADES = 2.0  # use a log colour scale when the values above the minimum span this many decades


@dataclass(frozen=True)
class LandscapeGrid:
    """f on a grid over the box along axes (ax, ay), all other coordinates fixed at `point`."""

    axes: tuple[int, int]
    point: np.ndarray  # the slice's anchor; its coordinates on `axes` are ignored
    xs: np.ndarray  # (nx,) grid coordinates along ax
    ys: np.ndarray  # (ny,)
    values: np.ndarray  # (ny, nx) f, rows along y (NaN where the function gave no finite value)
    display: np.ndarray  # (ny, nx) what is coloured: f or log10(f - min + floor)
    log_scale: bool
    levels: tuple[float, float]  # colour limits of `display`
    shift: float = 0.0  # display = log10(f - shift) on a log scale

    @property
    def scale(self) -> tuple[bool, float, tuple[float, float]]:
        """(log?, shift, levels): pass to evaluate_slice to colour another slice the same way."""
        return self.log_scale, self.shift, self.levels


def evaluate_slice(problem: Problem, axes: tuple[int, int], point: np.ndarray,
                   resolution: int | None = None,
                   cancelled: Callable[[], bool] | None = None,
                   scale: tuple | None = None) -> LandscapeGrid:
    """Evaluate `problem` on a resolution x resolution grid through `point` along `axes`
    (default resolution: slice_resolution(dim)), in chunks of at most CHUNK_ELEMENTS coordinates;
    SliceCancelled as soon as `cancelled()` turns true between chunks. Coloured with `scale` (a
    previous grid's ``.scale``) when given, so that one colour keeps one value as an N-D slice
    moves."""
    ax, ay = axes
    if problem.dim > MAX_DRAWN_DIM:
        raise ValueError(landscape_limit(problem.dim))
    resolution = resolution or slice_resolution(problem.dim)
    xs = np.linspace(problem.lower[ax], problem.upper[ax], resolution)
    ys = np.linspace(problem.lower[ay], problem.upper[ay], resolution)
    gx, gy = np.meshgrid(xs, ys)  # (ny, nx): rows follow y
    gx, gy = gx.ravel(), gy.ravel()
    total = resolution * resolution
    rows = max(1, CHUNK_ELEMENTS // problem.dim)
    anchor = np.asarray(point, dtype=np.float64)
    f = np.empty(total, dtype=np.float64)
    X = np.empty((min(rows, total), problem.dim), dtype=np.float64)
    for start in range(0, total, rows):
        if cancelled is not None and cancelled():
            raise SliceCancelled()
        stop = min(total, start + rows)
        chunk = X[:stop - start]
        chunk[:] = anchor
        chunk[:, ax] = gx[start:stop]
        chunk[:, ay] = gy[start:stop]
        with np.errstate(all="ignore"):
            f[start:stop] = np.asarray(problem.evaluate(chunk), dtype=np.float64)
    f = f.reshape(resolution, resolution)
    f = np.where(np.isfinite(f), f, np.nan)
    if scale is None:
        display, log_scale, levels, shift = _colour_scale(f)
    else:
        log_scale, shift, levels = scale
        with np.errstate(all="ignore"):
            # values below the first slice's minimum take the lowest colour
            display = np.log10(np.maximum(f - shift, 10.0 ** levels[0])) if log_scale else f.copy()
    return LandscapeGrid(axes=(ax, ay), point=np.array(point, dtype=np.float64), xs=xs, ys=ys,
                         values=f, display=display, log_scale=log_scale, levels=levels, shift=shift)


def colour_scale(f: np.ndarray) -> tuple[np.ndarray, bool, tuple[float, float]]:
    """(display values, log?, colour limits): log10 of the height above the minimum when the
    values span more than LOG_DECADES decades above it (sphere over [-100, 100]), else linear."""
    return _colour_scale(f)[:3]


def _colour_scale(f: np.ndarray) -> tuple[np.ndarray, bool, tuple[float, float], float]:
    finite = f[np.isfinite(f)]
    if finite.size == 0:
        return np.zeros_like(f), False, (0.0, 1.0), 0.0
    lo, hi = float(finite.min()), float(finite.max())
    height = finite - lo
    positive = height[height > 0]
    if positive.size and hi > lo:
        # decide on the bulk of the values (1st percentile), but floor the colours lower so the
        # basin around the minimum keeps its rings
        if np.log10((hi - lo) / float(np.percentile(positive, 1.0))) > LOG_DECADES:
            floor = float(np.percentile(positive, 0.1))
            with np.errstate(all="ignore"):
                display = np.log10(f - lo + floor)
            return display, True, (float(np.log10(floor)), float(np.log10(hi - lo + floor))), lo - floor
    if hi == lo:
        hi = lo + 1.0
    return f.copy(), False, (lo, hi), 0.0


def contour_levels(display: np.ndarray, count: int = 12) -> np.ndarray:
    """`count` levels evenly spaced between the 1st and 99th percentiles of the display values."""
    finite = display[np.isfinite(display)]
    if finite.size == 0:
        return np.zeros(0)
    lo, hi = np.percentile(finite, [1.0, 99.0])
    if hi <= lo:
        return np.zeros(0)
    return np.linspace(lo, hi, count + 2)[1:-1]


# Marching-squares table. Corner bits: a (i, j) = 1, b (i, j+1) = 2, c (i+1, j+1) = 4, d (i+1, j) = 8,
# set where the corner is above the level. Edges: 0 a-b, 1 b-c, 2 c-d, 3 d-a. Each case lists the
# edge pairs joined by a segment; the two saddles (5, 10) are split around their "above" corners.
_CASES = {1: [(0, 3)], 2: [(0, 1)], 3: [(1, 3)], 4: [(1, 2)], 5: [(0, 3), (1, 2)], 6: [(0, 2)],
          7: [(2, 3)], 8: [(2, 3)], 9: [(0, 2)], 10: [(0, 1), (2, 3)], 11: [(1, 2)], 12: [(1, 3)],
          13: [(0, 1)], 14: [(0, 3)]}
_FIRST = np.full((16, 2), -1)
_SECOND = np.full((16, 2), -1)
for _code, _pairs in _CASES.items():
    _FIRST[_code] = _pairs[0]
    if len(_pairs) > 1:
        _SECOND[_code] = _pairs[1]


def contour_segments(z: np.ndarray, levels: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """Marching squares: (2k, 2) endpoints of k line segments (pairs) for all `levels`, in data
    coordinates. Only the cells a level crosses are interpolated, so one level costs well under a
    millisecond on 256 x 256."""
    a, b = z[:-1, :-1], z[:-1, 1:]
    c, d = z[1:, 1:], z[1:, :-1]
    valid = np.isfinite(a) & np.isfinite(b) & np.isfinite(c) & np.isfinite(d)
    out = []
    for level in levels:
        code = ((a > level).astype(np.uint8) | (b > level) << 1 | (c > level) << 2
                | (d > level) << 3)
        rows, cols = np.nonzero(valid & (code != 0) & (code != 15))
        if rows.size == 0:
            continue
        cases = code[rows, cols]
        ca, cb, cc, cd = a[rows, cols], b[rows, cols], c[rows, cols], d[rows, cols]
        with np.errstate(all="ignore"):
            # (row, col) of the crossing on each edge, in grid index units; shape (4, m)
            edge_r = np.stack([rows + 0.0, rows + (level - cb) / (cc - cb), rows + 1.0,
                               rows + (level - ca) / (cd - ca)])
            edge_c = np.stack([cols + (level - ca) / (cb - ca), cols + 1.0,
                               cols + (level - cd) / (cc - cd), cols + 0.0])
        m = np.arange(rows.size)
        for table in (_FIRST, _SECOND):
            e = table[cases]
            keep = e[:, 0] >= 0
            if not keep.any():
                continue
            e, mk = e[keep], m[keep]
            seg = np.empty((2 * len(mk), 2))
            seg[0::2, 0], seg[0::2, 1] = edge_c[e[:, 0], mk], edge_r[e[:, 0], mk]
            seg[1::2, 0], seg[1::2, 1] = edge_c[e[:, 1], mk], edge_r[e[:, 1], mk]
            out.append(seg)
    if not out:
        return np.zeros((0, 2))
    seg = np.concatenate(out)
    # grid index units -> data coordinates (the grids are regular)
    x = xs[0] + seg[:, 0] * (xs[-1] - xs[0]) / (len(xs) - 1)
    y = ys[0] + seg[:, 1] * (ys[-1] - ys[0]) / (len(ys) - 1)
    return np.stack([x, y], axis=1)
