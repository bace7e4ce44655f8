"""Per-group reductions shared by particle swarm and differential evolution."""
from __future__ import annotations

import numpy as np

from solvers.algorithms.groups import group_argmin, group_best, group_spread, grouped


def test_grouped_is_a_view_in_group_order():
    a = np.arange(12.0).reshape(6, 2)
    g = grouped(a, 3)
    assert g.shape == (3, 2, 2)
    assert np.shares_memory(g, a)
    assert np.array_equal(g[1], a[2:4])


def test_group_argmin_against_a_loop_with_ties_and_inf():
    rng = np.random.default_rng(0)
    values = rng.integers(0, 4, 5 * 7).astype(float)  # many ties
    values[7:14] = np.inf  # a group where nothing is finite
    local, best = group_argmin(values, 5)
    for g in range(5):
        members = values[g * 7:(g + 1) * 7]
        assert best[g] == members.min()
        assert local[g] == int(np.flatnonzero(members == members.min())[0])  # first of ties


def test_group_best_returns_each_groups_point():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(4 * 6, 3))
    f = (X ** 2).sum(axis=1)
    best_x, best_f = group_best(X, f, 4)
    for g in range(4):
        rows = slice(g * 6, (g + 1) * 6)
        i = np.argmin(f[rows])
        assert best_f[g] == f[rows][i]
        assert np.array_equal(best_x[g], X[rows][i])


def test_group_spread_against_hand_values():
    # group 0: points at (+-1, 0) around centre 0 -> mean distance 1; group 1: all equal -> 0
    X = np.array([[1.0, 0.0], [-1.0, 0.0], [5.0, 5.0], [5.0, 5.0]])
    spread = group_spread(X, 2, diagonal=4.0)
    assert np.allclose(spread, [0.25, 0.0])
