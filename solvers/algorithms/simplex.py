"""Batched simplex helpers shared by multi-directional search and the Nelder-Mead polisher.

A batch of m simplices in n dimensions is an array of shape (m, n+1, n) with values (m, n+1); vertex
0 is the best vertex. Everything here is array code over ``xp`` (NumPy or CuPy), no loop over
simplices.
"""
from __future__ import annotations


def axis_simplices(xp, base, edge: float, lower, upper):
    """Simplices (m, n+1, n) with vertex 0 = base (m, n) and vertex j+1 = base + h_j e_j.

    h_j = edge * (upper_j - lower_j). Where base + h_j would leave the box the vertex is placed at
    base - h_j instead, so every vertex lies in the box when edge <= 1/2 (the flipped simplex is
    as regular as the unflipped one, which clipping would not keep).
    """
    m, n = base.shape
    h = edge * (upper - lower)
    step = xp.where(base + h <= upper, h, -h)
    simplices = xp.repeat(base[:, None, :], n + 1, axis=1)
    j = xp.arange(n)
    simplices[:, j + 1, j] += step
    return simplices


# Coordinates per block of simplex_sizes. Over a whole population its temporaries were two arrays
# as large as the simplices themselves: a snapshot of a numba run (whose memory check counts one
# copy of the simplices) needed three times the memory the check had admitted.
SIZES_BLOCK = 1 << 20


def simplex_sizes(xp, simplices, span):
    """Largest coordinate distance of any vertex from vertex 0, as a fraction of the box's side
    (in blocks of simplices, so the temporaries stay small next to the simplices)."""
    m, k, n = simplices.shape
    rows = max(1, SIZES_BLOCK // max(1, (k - 1) * n))
    if m <= rows:
        return _sizes(xp, simplices, span)
    return xp.concatenate([_sizes(xp, simplices[i:i + rows], span) for i in range(0, m, rows)])


def _sizes(xp, simplices, span):
    offsets = xp.abs(simplices[:, 1:, :] - simplices[:, :1, :]) / span
    return offsets.max(axis=(1, 2))


def move_best_to_head(xp, simplices, values) -> None:
    """Swap each simplex's best vertex into position 0, in place, without sorting the rest.

    Ties keep the current head (argmin returns the first minimum), so the head changes only on a
    strict improvement.
    """
    m = simplices.shape[0]
    rows = xp.arange(m)
    k = xp.argmin(values, axis=1)
    best_vertex = simplices[rows, k].copy()
    best_value = values[rows, k].copy()
    simplices[rows, k] = simplices[:, 0].copy()
    values[rows, k] = values[:, 0].copy()
    simplices[:, 0] = best_vertex
    values[:, 0] = best_value


def evaluate_selected(xp, evaluate, mask, points):
    """Values (m, k) of points (m, k, n), evaluating only the simplices where mask (m,) is True.

    ``evaluate`` takes (rows, n) and returns (rows,) (it is the caller's counting evaluator). The
    rest get +inf and cost nothing, so a stopped simplex never spends an evaluation.
    """
    m, k, n = points.shape
    values = xp.full((m, k), xp.inf, dtype=points.dtype)
    idx = xp.nonzero(mask)[0]
    if int(idx.shape[0]) > 0:
        values[idx] = evaluate(points[idx].reshape(-1, n)).reshape(-1, k)
    return values
