"""Batched Nelder-Mead: many independent simplices advanced together as arrays.

Nelder & Mead (1965) in the form of Lagarias, Reeds, Wright & Wright, "Convergence properties of the
Nelder-Mead simplex method in low dimensions" (SIAM J. Optim. 9, 1998): reflection rho = 1,
expansion chi = 2, contraction gamma = 1/2 (outside and inside), shrink sigma = 1/2, greedy
expansion (the expanded point is taken only if it beats the reflected one). Used by the hybrid
simulated annealing (seed 002, Sec. 4.2 / Table 10, where Nelder-Mead polishes the SA result).

Per iteration and simplex: 1 evaluation (reflection), at most 1 more (expansion or contraction),
and n more if the simplex shrinks; so at most n + 2. A simplex stops (costs nothing more) once all
its vertices lie within ``tol`` (fraction of the box's side) of its best vertex.
Bounds: reflected and expanded points are clipped to the box; contractions and shrinks are convex
combinations of points in the box and stay inside it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .simplex import axis_simplices, evaluate_selected, simplex_sizes

RHO, CHI, GAMMA, SIGMA = 1.0, 2.0, 0.5, 0.5


@dataclass
class NelderMeadBatch:
    """m simplices sorted best-first: vertices (m, n+1, n), values (m, n+1), active (m,)."""

    vertices: Any
    values: Any
    active: Any


def start_batch(xp, points, values, edge: float, lower, upper,
                evaluate: Callable) -> NelderMeadBatch:
    """Axis-aligned simplices around points (m, n) whose values (m,) are known; n m evaluations."""
    m, n = points.shape
    vertices = axis_simplices(xp, points, edge, lower, upper)
    all_values = xp.empty((m, n + 1), dtype=vertices.dtype)
    all_values[:, 0] = values
    all_values[:, 1:] = evaluate(vertices[:, 1:].reshape(-1, n)).reshape(m, n)
    batch = NelderMeadBatch(vertices, all_values, xp.ones(m, dtype=bool))
    _sort(xp, batch)
    return batch


def step(xp, batch: NelderMeadBatch, evaluate: Callable, lower, upper, tol: float) -> None:
    """One Nelder-Mead iteration of every active simplex, in place; `evaluate` counts."""
    S, F, active = batch.vertices, batch.values, batch.active
    n = S.shape[2]
    best, worst = F[:, 0], F[:, n]
    second_worst = F[:, n - 1]
    centroid = S[:, :n].mean(axis=1)
    x_worst = S[:, n]

    x_r = xp.clip(centroid + RHO * (centroid - x_worst), lower, upper)
    f_r = evaluate_selected(xp, evaluate, active, x_r[:, None, :])[:, 0]

    expand = active & (f_r < best)
    take_r = active & (f_r >= best) & (f_r < second_worst)
    outside = active & (f_r >= second_worst) & (f_r < worst)
    inside = active & ~expand & ~take_r & ~outside

    x_e = xp.clip(centroid + CHI * (x_r - centroid), lower, upper)
    x_oc = centroid + GAMMA * (x_r - centroid)
    x_ic = centroid + GAMMA * (x_worst - centroid)
    x_2 = xp.where(expand[:, None], x_e, xp.where(outside[:, None], x_oc, x_ic))
    f_2 = evaluate_selected(xp, evaluate, expand | outside | inside, x_2[:, None, :])[:, 0]

    use_2 = (expand & (f_2 < f_r)) | (outside & (f_2 <= f_r)) | (inside & (f_2 < worst))
    use_r = take_r | (expand & ~use_2)
    shrink = (outside | inside) & ~use_2

    new_point = xp.where(use_2[:, None], x_2, x_r)
    new_value = xp.where(use_2, f_2, f_r)
    replace = use_2 | use_r
    S[:, n] = xp.where(replace[:, None], new_point, S[:, n])
    F[:, n] = xp.where(replace, new_value, F[:, n])

    shrunk = S[:, :1] + SIGMA * (S[:, 1:] - S[:, :1])
    f_shrunk = evaluate_selected(xp, evaluate, shrink, shrunk)
    S[:, 1:] = xp.where(shrink[:, None, None], shrunk, S[:, 1:])
    F[:, 1:] = xp.where(shrink[:, None], f_shrunk, F[:, 1:])

    _sort(xp, batch)
    batch.active = active & (simplex_sizes(xp, batch.vertices, upper - lower) >= tol)


def _sort(xp, batch: NelderMeadBatch) -> None:
    """Order every simplex best-first (stable, so ties keep their order)."""
    # CuPy's argsort is always stable and takes no `kind`; NumPy's default (quicksort) is not
    order = np.argsort(batch.values, axis=1, kind="stable") if xp is np else xp.argsort(batch.values, axis=1)
    batch.values = xp.take_along_axis(batch.values, order, axis=1)
    batch.vertices = xp.take_along_axis(batch.vertices, order[:, :, None], axis=1)
