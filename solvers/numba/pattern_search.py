"""Multi-walk pattern search on the numba engine: kernels/pattern_search.cu on CPU cores.

Same Params and iteration as solvers/algorithms/pattern_search.py: one compass search per walker,
2 d evaluations per walker per iteration, a whole chunk of iterations per call under ``prange``.
Initial points and restarts are drawn by Philox exactly as ps_init draws them (streams INIT and
RESTART), so the numba and cuda engines start from the same points.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit, prange

from ..algorithms.pattern_search import PatternSearch, PatternSearchState
from . import functions, philox
from .base import PJIT, NumbaAlgorithm


@njit(**PJIT)
def ps_init(X, f, step, improved, lower, upper, fid, seed, walker0, stream, draw, delta0, single,
            bad):
    n, d = X.shape
    first = draw * philox.blocks_per_point_jit(d, single)
    for i in prange(n):
        x = np.empty(d, dtype=np.float64)
        row = np.empty(d, dtype=X.dtype)
        philox.fill_uniform(seed, walker0 + i, stream, first, lower, upper, row, single)
        for j in range(d):
            X[i, j] = row[j]
            x[j] = row[j]
        f[i] = functions.counted(fid, x, bad, i)
        step[i] = delta0
        improved[i] = 0


@njit(**PJIT)
def ps_iterate(X, f, step, improved_last, lower, upper, fid, iterations, delta0, tol, bad):
    n, d = X.shape
    for i in prange(n):
        x = np.empty(d, dtype=np.float64)  # the walker's point widened once; trials patch it
        for j in range(d):
            x[j] = X[i, j]
        fi = f[i]
        s = step[i]
        improved = False
        for _ in range(iterations):
            improved = False
            for j in range(d):
                lo = lower[j]
                hi = upper[j]
                xj = X[i, j]
                delta = s * (hi - lo)
                plus = min(xj + delta, hi)
                minus = max(xj - delta, lo)
                x[j] = plus
                fp = X.dtype.type(functions.counted(fid, x, bad, i))
                x[j] = minus
                fm = X.dtype.type(functions.counted(fid, x, bad, i))
                take_plus = fp <= fi and fp <= fm
                take_minus = (not take_plus) and fm <= fi
                if take_plus or take_minus:
                    fn = fp if take_plus else fm
                    X[i, j] = plus if take_plus else minus
                    improved = improved or fn < fi
                    fi = fn
                x[j] = X[i, j]
            if not improved:
                s = s * 0.5
            if s < tol:
                s = delta0
        f[i] = fi
        step[i] = s
        improved_last[i] = 1 if improved else 0


@dataclass
class PatternSearchNumbaState(PatternSearchState):
    seed: int = 0  # Philox key (``improved`` holds uint8 flags)


class PatternSearchNumba(NumbaAlgorithm, PatternSearch):
    """Compiled compass searches; "auto" walkers, snapshot and the rest from the reference."""

    def memory_words_per_walker(self) -> float:
        return self.problem.dim + 4.0 + 8.0 / self.dtype.itemsize  # X, f, step, flag, NaN count

    def init(self, rng) -> PatternSearchNumbaState:
        n, d = int(self.params.walkers), self.problem.dim
        state = PatternSearchNumbaState(
            X=np.empty((n, d), dtype=self.dtype), f=np.empty(n, dtype=self.dtype),
            best_x=np.zeros(d, dtype=self.dtype), best_f=np.asarray(np.inf, dtype=self.dtype),
            seed=self.seed_from(rng), step=np.empty(n, dtype=self.dtype),
            improved=np.zeros(n, dtype=np.uint8))
        self._draw(state, philox.STREAM_INIT, 0)
        return state

    def _draw(self, state, stream: int, draw: int) -> None:
        self.use_threads()
        bad = self.nonfinite_counter(self.params.walkers)
        ps_init(state.X, state.f, state.step, state.improved, self.lower, self.upper, self.fid,
                np.uint64(state.seed), np.int64(self.walker0), stream, np.uint64(draw),
                self.dtype.type(self.params.delta0), self.single, bad)
        state.evals += int(self.params.walkers)
        self.tally_nonfinite(state, bad)
        self.fold_best(state, state.X, state.f)

    def step(self, state: PatternSearchNumbaState, iterations: int) -> None:
        p, n = self.params, int(self.params.walkers)
        tol = self.dtype.type(p.delta0 / 2.0 ** p.tol_halvings)
        remaining = int(iterations)
        while remaining > 0 and not self.budget_spent(state):
            if p.restart and state.iteration > 0 and state.iteration % p.round_iterations == 0:
                self._draw(state, philox.STREAM_RESTART, state.iteration)
            todo = remaining
            if p.restart:  # a chunk never crosses a round boundary (the round's best is kept)
                todo = min(todo, p.round_iterations - state.iteration % p.round_iterations)
            todo = self.budget_iterations(state, todo, 2 * self.problem.dim * n)
            if todo == 0:
                return
            self.use_threads()
            bad = self.nonfinite_counter(n)
            ps_iterate(state.X, state.f, state.step, state.improved, self.lower, self.upper,
                       self.fid, todo, self.dtype.type(p.delta0), tol, bad)
            state.evals += 2 * self.problem.dim * n * todo
            self.tally_nonfinite(state, bad)
            state.iteration += todo
            remaining -= todo
            self.fold_best(state, state.X, state.f)
