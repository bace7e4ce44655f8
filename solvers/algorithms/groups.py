"""Reductions over independent groups of walkers (PSO swarms, DE populations).

Walkers of ``groups`` independent groups are stored flat, group after group: rows
``[g * members, (g + 1) * members)`` of an (n, ...) array belong to group g. Reshaping such a
C-contiguous array to (groups, members, ...) is a view on NumPy and CuPy alike, so these helpers
cost no copy and contain no Python loop over walkers or groups.
"""
from __future__ import annotations

from ..arrays import array_module
from ..errors import ConfigError
from ..params import MAX_WALKERS

MAX_TOTAL = MAX_WALKERS  # walkers x groups: a swarm or population run holds no more points than any run


def check_total(walkers: int, groups: int, group_word: str) -> None:
    """ConfigError unless walkers x groups stays within MAX_TOTAL (each limit alone is declared)."""
    if walkers * groups > MAX_TOTAL:
        raise ConfigError(f"walkers x {group_word} must be at most {MAX_TOTAL}, "
                          f"got {walkers} x {groups} = {walkers * groups}")


def grouped(a, groups: int):
    """View of a flat (n, ...) array as (groups, n // groups, ...)."""
    return a.reshape(groups, a.shape[0] // groups, *a.shape[1:])


def group_argmin(values, groups: int):
    """(index within its group, value) of the smallest value of each group; shapes (groups,).

    The first of equal minima wins (argmin's rule), so ties are resolved the same way every run.
    """
    xp = array_module(values)
    v = grouped(values, groups)
    local = xp.argmin(v, axis=1)
    return local, xp.take_along_axis(v, local[:, None], axis=1)[:, 0]


def group_best(X, f, groups: int):
    """Best point (groups, d) and value (groups,) of each group of rows of X with values f."""
    xp = array_module(f)
    local, best_f = group_argmin(f, groups)
    members = X.shape[0] // groups
    return X[xp.arange(groups) * members + local], best_f


def group_spread(X, groups: int, diagonal):
    """Mean distance of each group's walkers to the group's centre, divided by `diagonal`; (groups,)."""
    xp = array_module(X)
    G = grouped(X, groups)
    centre = G.mean(axis=1, keepdims=True)
    return xp.sqrt(((G - centre) ** 2).sum(axis=2)).mean(axis=1) / diagonal
