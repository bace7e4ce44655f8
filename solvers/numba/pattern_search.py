"""Multi-walk pattern search on the numba engine: kernels/pattern_search.cu on CPU cores.

Same Params and iteration as solvers/algorithms/pattern_search.py: one compass search per walker,
2 d evaluations per walker per iteration, a whole chunk of iterations per call under ``prange``.
A coordinate's two trials are evaluated together where the objective is a fold of per-coordinate
terms (functions.fold_pair: Rastrigin, Ackley, ...): every other coordinate's term is computed once
for both, as the cuda kernel does, each trial still summing its own terms.
Initial points and restarts are drawn by Philox exactly as ps_init draws them (streams INIT and
RESTART), so the numba and cuda engines start from the same points.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit, prange

from ..algorithms.pattern_search import PatternSearch, PatternSearchState
from . import functions, philox
from .base import PJIT, WORKERS, NumbaAlgorithm, claim_counter, claim_walkers, load_row, thread_blocks


@njit(**PJIT)
def ps_init(X, f, step, improved, lower, upper, fid, seed, walker0, stream, draw, delta0, single,
            bad):
    n, d = X.shape
    first = draw * philox.blocks_per_point_jit(d, single)
    blocks = thread_blocks(n)
    counter = claim_counter()
    for worker in prange(min(WORKERS, blocks)):  # each claims blocks of walkers until none are left
        x = np.empty(d, dtype=np.float64)
        row = np.empty(d, dtype=X.dtype)
        i0, i1 = claim_walkers(counter, blocks, n)
        while i0 < i1:
            for i in range(i0, i1):
                philox.fill_uniform(seed, walker0 + i, stream, first, lower, upper, row, single)
                for j in range(d):
                    X[i, j] = row[j]
                    x[j] = row[j]
                f[i] = functions.counted(fid, x, bad, i)
                step[i] = delta0
                improved[i] = 0
            i0, i1 = claim_walkers(counter, blocks, n)


@njit(**PJIT)
def ps_iterate(X, f, step, improved_last, lower, upper, fid, iterations, delta0, tol, last_evals,
               bad):
    """`iterations` iterations of every walker; in the last one only the trials numbered below
    `last_evals` are evaluated (max_evals, as kernels/pattern_search.cu numbers them: walker i's
    trial of coordinate j and sign s is (2 j + s) n + i), the others read +inf, uncounted."""
    n, d = X.shape
    no_cap = np.int64(2 * d * n)
    fold = functions.is_fold(fid)  # a fold's two trials share its other coordinates' terms
    blocks = thread_blocks(n)
    counter = claim_counter()
    for worker in prange(min(WORKERS, blocks)):  # each claims blocks of walkers until none are left
        x = np.empty(d, dtype=np.float64)  # the walker's point widened once; trials patch it
        work = functions.pair_work(d)
        i0, i1 = claim_walkers(counter, blocks, n)
        while i0 < i1:
            for i in range(i0, i1):
                load_row(X, i, x)
                fi = f[i]
                s = step[i]
                improved = False
                for it in range(iterations):
                    improved = False
                    allowed = no_cap if it + 1 < iterations else np.int64(last_evals)
                    for j in range(d):
                        lo = lower[j]
                        hi = upper[j]
                        xj = X[i, j]
                        delta = s * (hi - lo)
                        plus = min(xj + delta, hi)
                        minus = max(xj - delta, lo)
                        e = np.int64(2 * j * n + i)  # the plus trial's number; minus: e + n
                        fp = X.dtype.type(np.inf)
                        fm = X.dtype.type(np.inf)
                        if e < allowed and fold:  # both trials in one pass, or plus only (max_evals)
                            vp, vm = functions.counted_fold_pair(fid, x, j, np.float64(plus), np.float64(minus),
                                                                 e + n < allowed, work, bad, i)
                            fp = X.dtype.type(vp)
                            fm = X.dtype.type(vm)
                        elif e < allowed:
                            x[j] = plus
                            fp = X.dtype.type(functions.counted(fid, x, bad, i))
                            if e + n < allowed:
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
            i0, i1 = claim_walkers(counter, blocks, n)


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
        """Fresh walkers (counted: n evaluations, those past max_evals +inf and uncounted)."""
        self.use_threads()
        bad = self.nonfinite_counter(self.params.walkers)
        ps_init(state.X, state.f, state.step, state.improved, self.lower, self.upper, self.fid,
                np.uint64(state.seed), np.int64(self.walker0), stream, np.uint64(draw),
                self.dtype.type(self.params.delta0), self.single, bad)
        self.cap_drawn(state, state.f, bad)
        self.fold_best(state, state.X, state.f)

    def step(self, state: PatternSearchNumbaState, iterations: int) -> None:
        p, n = self.params, int(self.params.walkers)
        tol = self.dtype.type(p.delta0 / 2.0 ** p.tol_halvings)
        per_iteration = 2 * self.problem.dim * n
        remaining = int(iterations)
        while remaining > 0 and self.steps_on(state):
            if p.restart and state.iteration > 0 and state.iteration % p.round_iterations == 0:
                self._draw(state, philox.STREAM_RESTART, state.iteration)
            todo = remaining
            if p.restart:  # a chunk never crosses a round boundary (the round's best is kept)
                todo = min(todo, p.round_iterations - state.iteration % p.round_iterations)
            # max_evals as a hard cap: the iteration it cuts makes only its first `last` trials
            full, last = self.capped_iterations(state, todo, per_iteration)
            launch = full + (1 if last is not None else 0)
            if launch:
                self.use_threads()
                bad = self.nonfinite_counter(n)
                ps_iterate(state.X, state.f, state.step, state.improved, self.lower, self.upper,
                           self.fid, launch, self.dtype.type(p.delta0), tol,
                           np.int64(per_iteration if last is None else last), bad)
                state.evals += per_iteration * full + (last or 0)
                self.tally_nonfinite(state, bad)
                state.iteration += launch
                self.fold_best(state, state.X, state.f)
            if full < todo:
                return  # max_evals reached
            remaining -= todo
