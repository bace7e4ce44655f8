"""Batched simplex helpers and the batched Nelder-Mead used by the hybrid annealing."""
from __future__ import annotations

import numpy as np
import pytest

from solvers.algorithms import nelder_mead
from solvers.algorithms.simplex import (axis_simplices, evaluate_selected, move_best_to_head,
                                        simplex_sizes)

LOWER, UPPER = np.array([-5.0, -5.0]), np.array([5.0, 5.0])


class CountingSphere:
    """Sphere around `centre` that counts every evaluated row."""

    def __init__(self, centre=0.0):
        self.centre, self.rows = centre, 0

    def __call__(self, X):
        self.rows += X.shape[0]
        return ((X - self.centre) ** 2).sum(axis=1)


def test_axis_simplices_step_along_axes_and_flip_inside_the_box():
    base = np.array([[0.0, 0.0], [4.9, -4.9]])
    S = axis_simplices(np, base, 0.1, LOWER, UPPER)  # h = 1 in both coordinates
    assert S.shape == (2, 3, 2)
    assert np.array_equal(S[0], [[0, 0], [1, 0], [0, 1]])
    assert np.allclose(S[1], [[4.9, -4.9], [3.9, -4.9], [4.9, -3.9]])  # +h would leave x, not y
    assert np.all((S >= LOWER) & (S <= UPPER))


def test_simplex_sizes_are_relative_to_the_box():
    S = np.array([[[0, 0], [1, 0], [0, 2.5]]], dtype=float)
    assert simplex_sizes(np, S, UPPER - LOWER) == pytest.approx([0.25])


def test_move_best_to_head_swaps_only_two_vertices_and_keeps_ties():
    S = np.arange(12.0).reshape(2, 3, 2)
    F = np.array([[3.0, 5.0, 1.0], [2.0, 2.0, 9.0]])
    S0, F0 = S.copy(), F.copy()
    move_best_to_head(np, S, F)
    assert np.array_equal(F[0], [1.0, 5.0, 3.0])
    assert np.array_equal(S[0], S0[0][[2, 1, 0]])
    assert np.array_equal(S[1], S0[1]) and np.array_equal(F[1], F0[1])  # tie: head stays


def test_evaluate_selected_spends_nothing_on_unselected_simplices():
    f = CountingSphere()
    points = np.ones((4, 3, 2))
    values = evaluate_selected(np, f, np.array([True, False, True, False]), points)
    assert f.rows == 6
    assert np.array_equal(values[[0, 2]], np.full((2, 3), 2.0))
    assert np.all(np.isinf(values[[1, 3]]))


def _batch(f, m=6, seed=0, edge=0.1):
    rng = np.random.default_rng(seed)
    points = rng.uniform(LOWER, UPPER, (m, 2))
    return nelder_mead.start_batch(np, points, f(points), edge, LOWER, UPPER, f)


def test_batched_nelder_mead_converges_and_counts_every_evaluation():
    f = CountingSphere(centre=np.array([1.0, -2.0]))
    batch = _batch(f, m=6)
    assert f.rows == 6 + 6 * 2  # the start points plus n new vertices each
    evals_per_step = []
    for _ in range(200):
        before = f.rows
        active_before = int(batch.active.sum())
        nelder_mead.step(np, batch, f, LOWER, UPPER, tol=1e-10)
        evals_per_step.append(f.rows - before)
        assert f.rows - before <= active_before * (2 + 2)  # at most n + 2 per active simplex
        assert np.all((batch.vertices >= LOWER) & (batch.vertices <= UPPER))
        assert np.all(np.diff(batch.values, axis=1) >= 0)  # sorted best-first
    assert np.all(batch.values[:, 0] < 1e-12)
    assert not batch.active.any()
    assert evals_per_step[-1] == 0  # collapsed simplices cost nothing


def _one_step(vertices, values_fn):
    S = np.asarray(vertices, dtype=float)[None]
    calls = CountingFn(values_fn)
    F = calls(S[0])[None]
    batch = nelder_mead.NelderMeadBatch(S, F, np.array([True]))
    nelder_mead._sort(np, batch)
    calls.rows = 0
    nelder_mead.step(np, batch, calls, LOWER, UPPER, tol=0.0)
    return batch, calls.rows


class CountingFn:
    def __init__(self, fn):
        self.fn, self.rows = fn, 0

    def __call__(self, X):
        self.rows += X.shape[0]
        return self.fn(X)


# a hand-made simplex: best (0,0), second (1,0), worst (0,1); centroid (0.5, 0); reflection (1,-1),
# expansion (1.5,-2), outside contraction (0.75,-0.5), inside contraction (0.25, 0.5)
SIMPLEX = [[0, 0], [1, 0], [0, 1]]


def _vertices(batch):
    return {tuple(np.round(v, 12)) for v in batch.vertices[0]}


def test_nelder_mead_takes_the_expansion_when_it_beats_the_reflection():
    target = np.array([1.5, -2.0])
    batch, rows = _one_step(SIMPLEX, lambda X: ((X - target) ** 2).sum(axis=1))
    assert rows == 2 and _vertices(batch) == {(0, 0), (1, 0), (1.5, -2)}


def test_nelder_mead_takes_the_reflection_between_best_and_second_worst():
    # f(best) = 0 <= f(r) = 1 < f(second worst) = 2: the reflection replaces the worst, no expansion
    table = {(0, 0): 0.0, (1, 0): 2.0, (0, 1): 5.0, (1, -1): 1.0, (1.5, -2): 9.0}
    batch, rows = _one_step(SIMPLEX, _lookup(table))
    assert rows == 1 and _vertices(batch) == {(0, 0), (1, 0), (1, -1)}


def test_nelder_mead_contracts_outside_inside_and_shrinks():
    outside = {(0, 0): 0.0, (1, 0): 2.0, (0, 1): 5.0, (1, -1): 3.0, (0.75, -0.5): 2.5}
    batch, rows = _one_step(SIMPLEX, _lookup(outside))
    assert rows == 2 and _vertices(batch) == {(0, 0), (1, 0), (0.75, -0.5)}
    inside = {(0, 0): 0.0, (1, 0): 2.0, (0, 1): 5.0, (1, -1): 6.0, (0.25, 0.5): 4.0}
    batch, rows = _one_step(SIMPLEX, _lookup(inside))
    assert rows == 2 and _vertices(batch) == {(0, 0), (1, 0), (0.25, 0.5)}
    shrink = {(0, 0): 0.0, (1, 0): 2.0, (0, 1): 5.0, (1, -1): 6.0, (0.25, 0.5): 7.0,
              (0.5, 0): 1.0, (0, 0.5): 1.5}
    batch, rows = _one_step(SIMPLEX, _lookup(shrink))
    assert rows == 2 + 2 and _vertices(batch) == {(0, 0), (0.5, 0), (0, 0.5)}


def _lookup(table):
    def fn(X):
        return np.array([table[tuple(np.round(x, 12))] for x in X])
    return fn
