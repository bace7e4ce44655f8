"""Multi-directional search (Torczon), many starts at once.

Stchedroff, "Multi-directional Optimisation on the GPU" (seed 001), Sec. 2, following Torczon,
"On the convergence of the multi-directional search algorithm" (SIAM J. Optim. 1, 1991) and
Kelley's mds.m (Iterative Methods for Optimization, 1999). Every start holds an (n+1)-vertex
simplex S = {v0, ..., vn}, v0 its best vertex; all starts are one array of shape (starts, n+1, n).
Per iteration and active start:

    reflection   r_i = v0 - (v_i - v0)                  (coefficient 1, seed Sec. 7)
    expansion    e_i = v0 - mu (v_i - v0)               (mu = 2, seed eq. 2.3 and Sec. 7)
    contraction  c_i = v0 + theta (v_i - v0)            (theta = 0.5, seed eq. 2.4 and Sec. 7)

Acceptance is Torczon's rule: if min f(r_i) < f(v0), the expansion is evaluated and taken when
min f(e_i) < min f(r_i), otherwise the reflection is taken; if the reflection does not beat v0, the
contraction is taken. The seed's printed rule is swapped (it keeps the expansion when f(e) >= f(v0)
and the reflection when f(e) < f(v0)), and its eq. 2.3 as printed, (1 - mu) v0 + r_i, lost the
factor mu on r_i; both are taken here as Torczon wrote them. So every iteration costs 2n evaluations
per active start (reflection, then expansion or contraction), fewer where a trial leaves the box.
As in the seed (Sec. 6), the simplex is not sorted: the best vertex is swapped to the head.

Bounds (extreme barrier, as in Lewis & Torczon's bound-constrained pattern search): a trial simplex
with any vertex outside the box is rejected without evaluating it, as if its values were +inf. A
rejected reflection therefore leads to a contraction, a rejected expansion to the reflection.
Contractions are convex combinations of vertices in the box, so every simplex stays in the box and
keeps Torczon's shape (clipping would flatten it against the boundary).

A start stops, costing no more evaluations, once its simplex has collapsed: every vertex within
``tol`` (fraction of each side of the box) of v0 (the seed's Sec. 6 test against an endless loop).
With ``restart`` on (time-limited runs) a collapsed start instead begins a fresh random simplex in
its next iteration (n + 1 evaluations); the best point found is kept. When every start has
collapsed and restart is off, the run is done.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..arrays import to_numpy
from ..errors import ConfigError
from ..params import param
from .base import Algorithm, SnapshotData, State
from .registry import register_algorithm
from .simplex import axis_simplices, evaluate_selected, move_best_to_head, simplex_sizes

MAX_DRAWN_SIMPLICES = 8


@dataclass(frozen=True)
class MultidirectionalSearchParams:
    walkers: int = param(0, lo=1, hi=2**22, step=256, title="Starts", auto=True,
                         tip="Independent simplices run in parallel (the seed uses 20,000-100,000); "
                             "auto: enough for 50 iterations in the evaluation budget, at most 2048")
    edge: float = param(0.05, lo=1e-6, hi=0.5, step=0.01, title="Initial edge (x range)",
                        tip="Edge of the initial axis-aligned simplex as a fraction of the range "
                            "(the seed gives none; range/20 as pattern search's delta_0)")
    expansion: float = param(2.0, lo=1.05, hi=8.0, step=0.1, title="Expansion mu", live=True,
                             tip="Expansion coefficient mu > 1 (seed and Torczon: 2)")
    contraction: float = param(0.5, lo=0.05, hi=0.95, step=0.05, title="Contraction theta", live=True,
                               tip="Contraction coefficient 0 < theta < 1 (seed and Torczon: 0.5)")
    tol: float = param(1e-7, lo=1e-15, hi=0.1, step=1e-7, title="Collapse tolerance (x range)", live=True,
                       tip="A start stops when every vertex is within this fraction of the range of "
                           "its best vertex (our choice; the seed names the test, not the value)")
    restart: bool = param(False, title="Restart collapsed starts", live=True,
                          tip="Start a fresh random simplex where one has collapsed, for time-limited runs")

    def check(self) -> None:
        if not self.tol < self.edge:
            raise ConfigError("parameter 'tol' must be smaller than 'edge' (a fresh simplex would "
                              "count as collapsed)")


@dataclass
class MultidirectionalSearchState(State):
    simplices: Any = None  # (starts, n+1, n), vertex 0 the best
    values: Any = None  # (starts, n+1)
    active: Any = None  # (starts,) False once collapsed
    done: bool = False


@register_algorithm
class MultidirectionalSearch(Algorithm):
    name = "multidirectional_search"
    title = "Multi-directional search"
    Params = MultidirectionalSearchParams
    reference = "Stchedroff, Multi-directional Optimisation on the GPU (seed 001), after Torczon 1991"
    walker_word = "starts"

    def memory_words_per_walker(self) -> float:
        # the simplex (d+1) d, the reflected and second trials, S - v0, new vertices and the where()
        # result: 7 (d+1) d at the peak (measured 6.4-7.0 (d+1) d), plus the values
        d = self.problem.dim
        return 7.0 * (d + 1) * d + 4.0 * (d + 1) + 8.0

    def evals_per_iteration(self) -> float:
        # 2n per active start; a restart costs n + 1 <= 2n in place of the iteration's trials
        return 2.0 * self.problem.dim * self.params.walkers

    def auto_values(self, params, max_evals):
        return {"walkers": self.auto_count(2048, 2.0 * self.problem.dim)}

    def init(self, rng) -> MultidirectionalSearchState:
        xp = self.xp
        self._rng = rng
        simplices = self._random_simplices(self.params.walkers)
        state = MultidirectionalSearchState(X=None, f=None, best_x=simplices[0, 0].copy(),
                                            best_f=xp.asarray(np.inf, dtype=self.dtype))
        self._set_simplices(state, simplices)
        return state

    def state_from_simplices(self, simplices) -> MultidirectionalSearchState:
        """A state holding the given simplices (starts, n+1, n), evaluated and counted."""
        xp = self.xp
        simplices = xp.asarray(simplices, dtype=self.dtype).copy()
        state = MultidirectionalSearchState(X=None, f=None, best_x=simplices[0, 0].copy(),
                                            best_f=xp.asarray(np.inf, dtype=self.dtype))
        self._set_simplices(state, simplices)
        return state

    def step(self, state: MultidirectionalSearchState, iterations: int) -> None:
        for _ in range(iterations):
            if state.done or self.budget_spent(state):
                return
            for _ in self._iteration(state, state.simplices.shape[0]):
                pass

    def iteration_slices(self, state: MultidirectionalSearchState, work: float):
        if state.done:
            return None
        # a start's iteration evaluates 2 d vertices of d coordinates
        per_start = 2.0 * self.problem.dim ** 2
        return self._iteration(state, max(1, int(work // per_start)))

    # --- one iteration ---------------------------------------------------------------------------
    def _iteration(self, state: MultidirectionalSearchState, block: int):
        """One iteration over the starts in blocks of `block`, yielding between blocks (the starts
        are independent; each block leaves its simplices, values and the best consistent)."""
        starts = state.simplices.shape[0]
        for lo in range(0, starts, block):
            hi = min(starts, lo + block)
            self._iterate_rows(state, lo, hi)
            if hi < starts:
                yield
        p = self.params
        state.X, state.f = state.simplices[:, 0], state.values[:, 0]
        state.done = not p.restart and not bool(state.active.any())
        state.iteration += 1

    def _iterate_rows(self, state: MultidirectionalSearchState, lo: int, hi: int) -> None:
        xp, p = self.xp, self.params
        S, F = state.simplices[lo:hi], state.values[lo:hi]  # views: updates land in the state
        evaluate = lambda X: self.evaluate(state, X)  # noqa: E731 - counts every row
        active = state.active[lo:hi]
        restarting = ~active if p.restart else xp.zeros_like(active)
        moving = active

        v0 = S[:, :1, :]
        reflected = v0 - (S[:, 1:] - v0)
        r_ok = moving & self._inside(reflected)
        f_r = evaluate_selected(xp, evaluate, r_ok, reflected)
        f_r_min = f_r.min(axis=1)
        success = r_ok & (f_r_min < F[:, 0])

        # the second trial is the expansion where the reflection succeeded, else the contraction
        factor = xp.where(success, -p.expansion, p.contraction).astype(self.dtype)[:, None, None]
        second = v0 + factor * (S[:, 1:] - v0)
        second_ok = moving & (~success | self._inside(second))
        f_2 = evaluate_selected(xp, evaluate, second_ok, second)
        take_expansion = success & second_ok & (f_2.min(axis=1) < f_r_min)
        take_second = take_expansion | (moving & ~success)  # expansion or contraction
        take_reflection = success & ~take_expansion

        new_vertices = xp.where(take_second[:, None, None], second, reflected)
        new_values = xp.where(take_second[:, None], f_2, f_r)
        replaced = take_second | take_reflection
        S[:, 1:] = xp.where(replaced[:, None, None], new_vertices, S[:, 1:])
        F[:, 1:] = xp.where(replaced[:, None], new_values, F[:, 1:])
        move_best_to_head(xp, S, F)
        state.active[lo:hi] = moving & (simplex_sizes(xp, S, self.span) >= p.tol)

        if bool(restarting.any()):
            self._restart(state, restarting, offset=lo)
        # reaching a target is recorded at the iteration's end (its last block of starts), so
        # that slicing an iteration never moves a run's reached_at
        self.update_best(state, S[:, 0], F[:, 0], reach=hi == state.simplices.shape[0])

    def _restart(self, state: MultidirectionalSearchState, which, offset: int = 0) -> None:
        """Fresh random simplices (evaluated, counted) for the starts in `which` (a mask over the
        starts from `offset` on)."""
        xp = self.xp
        idx = xp.nonzero(which)[0] + offset
        fresh = self._random_simplices(int(idx.shape[0]))
        n = self.problem.dim
        values = self.evaluate(state, fresh.reshape(-1, n)).reshape(-1, n + 1)
        move_best_to_head(xp, fresh, values)
        state.simplices[idx] = fresh
        state.values[idx] = values
        state.active[idx] = True

    # --- helpers ---------------------------------------------------------------------------------
    def _random_simplices(self, count: int):
        base = self.uniform_points(self._rng, count)
        return axis_simplices(self.xp, base, self.params.edge, self.lower, self.upper)

    def _set_simplices(self, state: MultidirectionalSearchState, simplices) -> None:
        xp, n = self.xp, self.problem.dim
        values = self.evaluate(state, simplices.reshape(-1, n)).reshape(-1, n + 1)
        move_best_to_head(xp, simplices, values)
        state.simplices, state.values = simplices, values
        state.active = simplex_sizes(xp, simplices, self.span) >= self.params.tol
        state.X, state.f = simplices[:, 0], values[:, 0]
        self.update_best(state, state.X, state.f)
        state.done = not self.params.restart and not bool(state.active.any())

    def _inside(self, vertices):
        """(starts,) True where every vertex of the (starts, k, n) array lies in the box."""
        return ((vertices >= self.lower) & (vertices <= self.upper)).all(axis=(1, 2))

    def snapshot(self, state: MultidirectionalSearchState, sample: np.ndarray) -> SnapshotData:
        data = super().snapshot(state, sample)
        drawn = sample[np.unique(np.linspace(0, len(sample) - 1, MAX_DRAWN_SIMPLICES).round()
                                 .astype(np.int64))] if len(sample) else sample
        data.overlays["simplices"] = to_numpy(state.simplices[self.xp.asarray(drawn)])
        sizes = to_numpy(simplex_sizes(self.xp, state.simplices, self.span))
        data.extras["starts still active"] = float(to_numpy(state.active).mean())
        data.extras["simplex size (median, x range)"] = float(np.median(sizes))
        return data
