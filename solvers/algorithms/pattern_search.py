"""Multi-walk pattern search (SIMT-PS).

Zhu & Curry, "Multi-walk Parallel Pattern Search on a GPU" (seed 000), Fig. 1: every walker runs
its own compass search. Per iteration and per coordinate j it evaluates x + delta e_j and
x - delta e_j and moves to the better of the two if it is no worse than x (the seed's rules b/c,
ties accepted). If no coordinate strictly improved during the iteration, delta is halved; once it
falls below delta_0 / 2^16 it is reset to delta_0 (the seed's reset, so converged walkers keep
searching). delta_0 = range / 20. For time-limited runs (the seed's Table 5) every walker restarts
from a fresh uniform point after each round of ``round_iterations`` iterations; the best point is kept.

Step sizes are kept as a fraction of each coordinate's range, so boxes with unequal sides work.
Bounds: a trial coordinate is clipped to the box (the clipped point is evaluated and counted).
Every trial is a full evaluation of the objective: 2 d evaluations per walker per iteration.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..arrays import to_numpy
from ..params import MAX_WALKERS, param
from .base import Algorithm, SnapshotData, State
from .registry import register_algorithm


@dataclass(frozen=True)
class PatternSearchParams:
    walkers: int = param(0, lo=1, hi=MAX_WALKERS, step=256, title="Walkers", auto=True,
                         tip="Independent compass searches run in parallel (the seed uses 15360); "
                             "auto: enough for 50 iterations in the evaluation budget, at most 15360")
    # 0.1, not the seed's 0.05: with 1/20 the 2-D searches of a 1e4-evaluation run end in a
    # rastrigin local minimum on 8 of 20 seeds, with 1/10 on none (the reproduction keeps 1/20)
    delta0: float = param(0.1, lo=1e-6, hi=0.5, step=0.01, title="Initial step (x range)",
                          tip="delta_0 as a fraction of each coordinate's range (seed: 1/20; "
                              "our default 1/10 escapes more local minima)")
    tol_halvings: int = param(16, lo=1, hi=52, step=1, title="Halvings before reset",
                              tip="delta resets to delta_0 once below delta_0 / 2^this (seed: 16)")
    restart: bool = param(False, title="Restart rounds", live=True,
                          tip="Restart every walker from a random point after each round (seed's Table 5)")
    round_iterations: int = param(20, lo=1, hi=100000, step=1, title="Iterations per round", live=True,
                                  tip="Length of a round when restarting (seed: 20)")


@dataclass
class PatternSearchState(State):
    step: Any = None  # (n,) step as a fraction of the range
    improved: Any = None  # (n,) walkers that strictly improved in the last iteration


@register_algorithm
class PatternSearch(Algorithm):
    name = "pattern_search"
    title = "Multi-walk pattern search"
    Params = PatternSearchParams
    rows_move_at_ties = True  # a trial of the same value moves the walker
    reference = "Zhu & Curry, Multi-walk Parallel Pattern Search on a GPU (seed 000), Fig. 1"
    split_field = "walkers"  # independent compass searches: a split run is exact
    group_params = ("delta0", "tol_halvings")  # one value per group of walkers in a grid

    def params_for_groups(self, params, groups: int):
        return dataclasses.replace(params, walkers=params.walkers * groups)

    def _walker_value(self, name: str):
        """A number, or in a tuning grid the (n,) per-walker values of a per-group parameter."""
        value = self.row_value(name)
        return value if isinstance(value, (int, float)) else value[:, 0]

    def _initial_steps(self, n: int):
        delta0 = self._walker_value("delta0")
        if isinstance(delta0, float):
            return self.xp.full(n, delta0, dtype=self.dtype)
        return delta0.copy()

    def memory_words_per_walker(self) -> float:
        # X, the step, the plus/minus values and their where() temporaries: 4 d + 9 measured 4 d + 8.5
        return 4.0 * self.problem.dim + 9.0

    def evals_per_iteration(self) -> float:
        # an upper bound: a restart round's first iteration also redraws every walker
        return (2.0 * self.problem.dim + (1.0 if self.params.restart else 0.0)) * self.params.walkers

    def auto_values(self, params, max_evals):
        return {"walkers": self.auto_count(15360, 2.0 * self.problem.dim)}

    def init(self, rng) -> PatternSearchState:
        xp, n = self.xp, self.params.walkers
        X = self.uniform_points(rng, n)
        state = PatternSearchState(X=X, f=None, best_x=X[0].copy(),
                                   best_f=xp.asarray(np.inf, dtype=self.dtype))
        state.f = self.evaluate(state, X)
        state.step = self._initial_steps(n)
        state.improved = xp.zeros(n, dtype=bool)
        self.update_best(state, X, state.f)
        self._rng = rng
        return state

    def step(self, state: PatternSearchState, iterations: int) -> None:
        for _ in range(iterations):
            if self.budget_spent(state):
                return
            for _ in self._iteration(state, self.problem.dim):
                pass

    def iteration_slices(self, state: PatternSearchState, work: float):
        # one coordinate costs two evaluations of every walker
        n, d = state.X.shape[0], self.problem.dim
        per_coordinate = 2.0 * n * d
        if per_coordinate > work and self._walkers_sliceable(state):
            # a coordinate of every walker is itself more than a slice (a million walkers on the
            # CPU: 1-3 s, which Stop and the time budget waited for): walkers in blocks too
            return self._iteration(state, 1, max(1, int(work // (2.0 * d))))
        return self._iteration(state, max(1, int(work // per_coordinate)))

    def _walkers_sliceable(self, state: PatternSearchState) -> bool:
        """Whether a coordinate may go in blocks of walkers with the numbers unchanged: one run (a
        tuning grid's budgets go by rows of whole runs) whose budget cannot cut this iteration
        (evaluate's cap counts rows in order: every walker's plus point before any minus point)."""
        whole = (2 * self.problem.dim + 1) * state.X.shape[0]  # + a restart's evaluations
        return self.groups == 1 and (self.max_evals is None or int(state.evals) + whole <= int(self.max_evals))

    def _iteration(self, state: PatternSearchState, block: int, walkers: int | None = None):
        """One iteration, yielding after every `block` coordinates (never after the last); with
        `walkers`, each coordinate in blocks of that many walkers, yielding after every block but
        the iteration's last (each walker's trials are its own: the same numbers, where
        _walkers_sliceable holds)."""
        xp, p = self.xp, self.params
        delta0 = self._walker_value("delta0")
        tol = delta0 / 2.0 ** self._walker_value("tol_halvings")
        if p.restart and state.iteration > 0 and state.iteration % p.round_iterations == 0:
            self._restart(state)
        X, f = state.X, state.f.copy()
        n, d = X.shape[0], self.problem.dim
        improved = xp.zeros(n, dtype=bool)
        for j in range(d):
            for lo in range(0, n, walkers or n):
                rows = slice(lo, min(n, lo + (walkers or n)))
                fr = f[rows]
                delta = state.step[rows] * self.span[j]
                xj = X[rows, j].copy()
                X[rows, j] = xp.minimum(xj + delta, self.upper[j])
                f_plus = self.evaluate(state, X[rows])
                plus = X[rows, j].copy()
                X[rows, j] = xp.maximum(xj - delta, self.lower[j])
                f_minus = self.evaluate(state, X[rows])
                take_plus = (f_plus <= fr) & (f_plus <= f_minus)
                take_minus = ~take_plus & (f_minus <= fr)
                X[rows, j] = xp.where(take_plus, plus, xp.where(take_minus, X[rows, j], xj))
                f_new = xp.where(take_plus, f_plus, xp.where(take_minus, f_minus, fr))
                improved[rows] |= f_new < fr
                f[rows] = f_new
                done = rows.stop == n and j + 1 == d
                if not done and (walkers or (j + 1) % block == 0 and rows.stop == n):
                    state.f = f  # X and f agree for every walker: a safe place to stop
                    self.update_best(state, X, f, reach=False)
                    yield
        state.f = f
        state.step = xp.where(improved, state.step, state.step * 0.5)
        state.step = xp.where(state.step < tol, xp.asarray(delta0, dtype=self.dtype), state.step)
        state.improved = improved
        state.iteration += 1
        self.update_best(state, X, f)

    def _restart(self, state: PatternSearchState) -> None:
        n = state.X.shape[0]
        state.X = self.uniform_points(self._rng, n)
        state.f = self.evaluate(state, state.X)
        state.step = self._initial_steps(n)
        # at the start of an iteration: a grid's runs record reaching the target at its end
        self.update_best(state, state.X, state.f, reach=False)

    def snapshot(self, state: PatternSearchState, sample: np.ndarray) -> SnapshotData:
        # the same on every engine: reduced where the arrays live, only the sample and two numbers
        # cross to the host
        data = super().snapshot(state, sample)
        xp = self.xp
        data.overlays["steps"] = to_numpy(state.step[xp.asarray(sample)])
        data.extras["step size (median, x range)"] = float(xp.median(state.step))
        data.extras["walkers improved last iteration"] = float(state.improved.mean())
        return data
