"""Parallel simulated annealing on the numba engine (kernels/simulated_annealing.cu on CPU cores).

Same Params, neighbour move, Metropolis rule, schedule, reheating and synchronous broadcast as
solvers/algorithms/simulated_annealing.py, and the random numbers of the cuda kernel (one Philox
block per chain and proposal, stream STEP, draw index = the global iteration). A chain runs a whole
chunk of proposals per call under ``prange``; in ``sync`` (and the hybrid) a chunk ends at every
level end, where the host broadcasts the best point. ``async`` chunks span levels: the kernel
follows the schedule itself and the host mirrors it for the snapshot's temperature.

The hybrid's Nelder-Mead polishing (a handful of simplices) runs the reference's batched code
(solvers/algorithms/nelder_mead.py) with compiled evaluations, one NM iteration per iteration.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit, prange

from ..algorithms.simulated_annealing import WIDTH_POWER, SimulatedAnnealing, SimulatedAnnealingState
from . import functions, philox
from .base import (PJIT, WORKERS, NumbaAlgorithm, claim_counter, claim_walkers, draw_uniform_points, load_row,
                   thread_blocks)


@njit(**PJIT)
def sa_anneal(X, f, accepted, B, Bf, at_best, lower, upper, fid, seed, walker0, first_iter, iterations,
              temperature, level_iter, chain_length, alpha, t_min, t0, width, width_power, last_chains,
              counts, ends, single, bad):
    """`iterations` proposals per chain from global iteration `first_iter`, crossing `ends` level
    ends. counts[i] = accepted proposals of chain i in the first level this call touches, in the
    last level it completes, and in the level left unfinished (the host needs no others, and a
    column per level would grow with the chunk); Bf/B/at_best: each chain's best of
    the call (B holds its point only once the chain has left it, as the cuda kernel keeps it).
    max_evals as a hard cap: only chains i < last_chains make the call's last proposal (the others
    skip it, uncounted, and follow the schedule), as in kernels/simulated_annealing.cu."""
    n, d = X.shape
    T = X.dtype.type
    blocks = thread_blocks(n)
    counter = claim_counter()
    for worker in prange(min(WORKERS, blocks)):  # each claims blocks of walkers until none are left
        x = np.empty(d, dtype=np.float64)
        i0, i1 = claim_walkers(counter, blocks, n)
        while i0 < i1:
            for i in range(i0, i1):
                load_row(X, i, x)
                fi = f[i]
                chain_best = fi
                at_chain_best = True
                acc = False
                slot = 0
                lit = level_iter
                temp = temperature
                # the auto schedule's width ~ (T / T0)^width_power (0: the seed's fixed width)
                w = T(width * min(temp / t0, 1.0) ** width_power) if width_power > 0.0 else T(width)
                for it in range(iterations):
                    if it + 1 == iterations and i >= last_chains:
                        break  # the budget cuts this last proposal; the schedule below is the host's
                    w0, w1, w2, w3 = philox.words(seed, walker0 + i, philox.STREAM_STEP,
                                                  np.uint64(first_iter + it))
                    j = philox.below(w0, d)
                    if single:
                        u = T(philox.u01f(w1))
                        a = T(philox.u01f(w2))
                    else:
                        u = T(philox.u01d(w1, w2))
                        a = T(float(w3) * (1.0 / 4294967296.0))
                    lo = lower[j]
                    hi = upper[j]
                    xj = X[i, j]
                    towards_lower = xj - w * (T(1) - T(2) * u) * (xj - lo)
                    towards_upper = xj + w * (T(2) * u - T(1)) * (hi - xj)
                    proposal = min(max(towards_lower if u < T(0.5) else towards_upper, lo), hi)
                    x[j] = proposal
                    fn = T(functions.counted(fid, x, bad, i))
                    e = -(fn - fi) / T(temp)
                    acc = (e >= T(0)) or (a < np.exp(e))  # NaN e: both false, rejected
                    if acc:
                        if fn < chain_best:
                            chain_best = fn
                            at_chain_best = True
                        elif at_chain_best:  # leaving the chain's best point: keep a copy
                            for k in range(d):
                                B[i, k] = X[i, k]
                            at_chain_best = False
                        X[i, j] = proposal
                        fi = fn
                        if slot == 0:
                            counts[i, 0] += 1
                        elif slot == ends - 1:
                            counts[i, 1] += 1
                        elif slot == ends:
                            counts[i, 2] += 1
                    else:
                        x[j] = xj
                    lit += 1
                    if lit >= chain_length:
                        slot += 1
                        lit = 0
                        temp *= alpha
                        if temp <= t_min:
                            temp = t0
                        if width_power > 0.0:
                            w = T(width * min(temp / t0, 1.0) ** width_power)
                f[i] = fi
                accepted[i] = acc
                Bf[i] = chain_best
                at_best[i] = at_chain_best
            i0, i1 = claim_walkers(counter, blocks, n)


@dataclass
class SimulatedAnnealingNumbaState(SimulatedAnnealingState):
    seed: int = 0
    B: Any = None  # (n, d) each chain's best point of the last chunk, where it has left it
    Bf: Any = None  # (n,) each chain's best value of the last chunk
    at_best: Any = None  # (n,) bool: the chain sits on that best point


class SimulatedAnnealingNumba(NumbaAlgorithm, SimulatedAnnealing):
    """Compiled chains; schedule bookkeeping, polishing and snapshots inherited from the reference."""

    def memory_words_per_walker(self) -> float:
        return 2.0 * self.problem.dim + 14.0  # X, B, f, Bf, flags, 3 int64 acceptance counts, NaN count

    def init(self, rng) -> SimulatedAnnealingNumbaState:
        n, d, p = int(self.params.walkers), self.problem.dim, self.params
        self._rng = rng
        state = SimulatedAnnealingNumbaState(
            X=np.empty((n, d), dtype=self.dtype), f=np.empty(n, dtype=self.dtype),
            best_x=np.zeros(d, dtype=self.dtype), best_f=np.asarray(np.inf, dtype=self.dtype),
            temperature=float(p.t0), accepted=np.zeros(n, dtype=bool), seed=self.seed_from(rng),
            B=np.empty((n, d), dtype=self.dtype), Bf=np.empty(n, dtype=self.dtype),
            at_best=np.ones(n, dtype=bool))
        self.use_threads()
        bad = self.nonfinite_counter(n)
        draw_uniform_points(state.X, state.f, self.lower, self.upper, self.fid, np.uint64(state.seed),
                            self.single, bad, np.int64(self.walker0))
        self.cap_drawn(state, state.f, bad)  # max_evals below the chains: +inf past it
        self.fold_best(state, state.X, state.f)
        self.fit_schedule(state.f)  # the auto schedule's T0 from the spread of f, the budget's levels
        state.temperature = float(self.params.t0)
        return state

    def step(self, state: SimulatedAnnealingNumbaState, iterations: int) -> None:
        remaining = int(iterations)
        while remaining > 0 and not state.done and self.steps_on(state):
            if state.phase == "polish":
                self._polish_iteration(state)
                state.iteration += 1
                remaining -= 1
            else:
                remaining -= self._anneal(state, remaining)

    def _anneal(self, state: SimulatedAnnealingNumbaState, budget: int) -> int:
        p, n = self.params, int(self.params.walkers)
        L = int(p.chain_length)
        first_end = max(1, L - state.level_iteration)  # proposals until the current level ends
        todo = int(budget)
        if self.synchronous or p.variant == "hybrid":
            todo = min(todo, first_end)  # a global exchange (or the switch to polishing) follows
        todo, last_chains = self.capped_chains(state, todo, n)
        ends = 0 if todo < first_end else 1 + (todo - first_end) // L
        counts = np.zeros((n, 3), dtype=np.int64)
        bad = self.nonfinite_counter(n)
        self.use_threads()
        T = self.dtype.type
        sa_anneal(state.X, state.f, state.accepted, state.B, state.Bf, state.at_best, self.lower,
                  self.upper, self.fid, np.uint64(state.seed), np.int64(self.walker0),
                  np.int64(state.iteration), int(todo),
                  float(state.temperature), int(state.level_iteration), L, float(p.alpha),
                  float(p.t_min), float(p.t0), float(p.width),
                  float(WIDTH_POWER if p.schedule == "auto" else 0.0), np.int64(last_chains), counts,
                  ends, self.single, bad)
        state.evals += n * (todo - 1) + last_chains
        self.tally_nonfinite(state, bad)
        state.iteration += todo
        self._fold_chain_bests(state)
        first, last_done, unfinished = (int(c) for c in counts.sum(axis=0))
        if ends == 0:
            state.level_accepts = state.level_accepts + first
            state.level_iteration += todo
            return todo
        for k in range(ends):  # the reference's _end_level for every level end of the chunk
            length = state.level_iteration + first_end if k == 0 else L
            accepts = first + int(state.level_accepts) if k == 0 else last_done
            if not self.close_level(state, accepts / float(n * length)):
                return todo  # the chunk was cut here: the hybrid polishes next
        state.level_accepts = unfinished
        state.level_iteration = todo - first_end - (ends - 1) * L
        return todo

    def _fold_chain_bests(self, state: SimulatedAnnealingNumbaState) -> None:
        i = int(np.argmin(state.Bf))
        if self.replaces_best(state, state.Bf[i], i):
            state.best_f = np.asarray(state.Bf[i], dtype=self.dtype)
            state.best_x = np.array(state.X[i] if state.at_best[i] else state.B[i], dtype=self.dtype)
