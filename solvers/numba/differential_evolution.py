"""Differential evolution DE/rand/1/bin on the numba engine (kernels/differential_evolution.cu on CPU
cores).

Same Params, mutation, bounce-back, binomial crossover and generational greedy selection as
solvers/algorithms/differential_evolution.py, and the random numbers of the cuda kernel: stream STEP,
per generation t and individual (1 + ceil(d / P)) Philox blocks (block 0: r1, r2, r3, j_rand; then
the crossover uniforms, P per block), bounce-back uniforms in their own stream.

Two paths, bit-identical (the same per-individual helpers and Philox draws), chosen by
``NumbaAlgorithm.runs_wide``. Many populations (at least as many as threads, or too little work
per thread): populations are independent, ``prange`` runs over populations and each runs a whole
chunk of generations (double-buffered through the trial array) with no barrier
(``de_generations``). Fewer populations than threads: a launch runs one generation, every trial
in parallel, then every selection in parallel (``de_generation_wide``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit, prange

from ..algorithms.differential_evolution import (DifferentialEvolution, DifferentialEvolutionParams,
                                                  DifferentialEvolutionState)
from . import functions, philox
from .base import (PJIT, WIDE_PJIT, WORKERS, NumbaAlgorithm, claim_counter, claim_walkers, draw_uniform_points,
                   thread_blocks, widened)

STREAM_BOUNCE = 16  # DE_STREAM_BOUNCE


@njit(nogil=True, cache=True)
def distinct(w0, w1, w2, m, me):
    """r1, r2, r3 distinct from each other and from `me` (de_distinct / draw_distinct_indices)."""
    r1 = philox.below(w0, m - 1)
    r1 += r1 >= me
    a = min(me, r1)
    b = max(me, r1)
    r2 = philox.below(w1, m - 2)
    r2 += r2 >= a
    r2 += r2 >= b
    e0, e1, e2 = a, b, r2
    if e2 < e1:
        e1, e2 = e2, e1
    if e1 < e0:
        e0, e1 = e1, e0
    r3 = philox.below(w2, m - 3)
    r3 += r3 >= e0
    r3 += r3 >= e1
    r3 += r3 >= e2
    return r1, r2, r3


@njit(nogil=True, cache=True, inline="always")
def de_gene(X, trials, i, j, u, jr, a1, a2, a3, lower, upper, Fw, Cr):
    """trials[i, j] = the mutant's gene where its crossover uniform u <= Cr or j == j_rand, else
    X[i, j]; whether it is a mutant's gene outside the box (the caller bounces it back:
    ``bounce``). Selects, not branches: the mutant is computed for every gene and every operand
    loaded first (a load under a condition stays a branch, mispredicted at Cr = 0.9, and the loop
    scalar: 30 genes took ~130 ns)."""
    T = X.dtype.type
    take = (T(u) <= Cr) | (j == jr)
    mutant = X[a1, j] + Fw * (X[a2, j] - X[a3, j])
    own = X[i, j]
    lo = lower[j]
    hi = upper[j]
    trials[i, j] = mutant if take else own
    return take & ((mutant < lo) | (mutant > hi))


@njit(nogil=True, cache=True, inline="always")
def bounce(X, trials, i, j, a1, lower, upper, ub, left):
    """Gene j of trial i where `left` (a mutant's gene outside the box) back inside: between the
    bound it crossed and X[a1, j] (its base vector's gene) by the uniform ub; computed for every
    gene and selected (no branch per gene)."""
    T = X.dtype.type
    v = trials[i, j]
    lo = lower[j]
    hi = upper[j]
    a = X[a1, j]
    bound = lo if v < lo else hi
    back = bound + T(ub) * (a - bound)
    trials[i, j] = back if left else v


# inlined into both kernels at numba's level: as a call (a dozen arrays passed as their fields)
# the call alone cost tens of ns a trial (30-D float64, 2-core AMD EPYC)
@njit(nogil=True, cache=True, inline="always")
def de_trial(X, trials, f_trials, i, base, key, lower, upper, fid, m, seed, t, Fw, Cr, single, bad, x,
             live, W, left):
    """Trial of individual i (row base + il of its population, `key` its global index: Philox's
    walker) at generation t: mutation from three others of its population, bounce-back, binomial
    crossover; evaluated into f_trials[i] (x: float64 scratch of d); not `live` (max_evals cuts
    it): +inf, unevaluated. W: (4, >= philox.batch_columns(1 + ceil(d / P))) uint64 scratch: the
    generation's Philox blocks, drawn first in one vectorised loop (philox.fill_words: the same
    numbers), then the bounce-back blocks; left: bool scratch of d (the genes to bounce back).

    Two passes: the crossover (one loop per dtype, a gene's uniform by shifts and masks, not the
    runtime j // P, j % P and uniform_k's branches), then, only where a mutant gene left the box,
    the bounces from the stream BOUNCE's blocks of the generation drawn at once (the same numbers
    as one block per bounce: gene j's uniform is word j % P of block t ceil(d / P) + j // P)."""
    d = X.shape[1]
    T = X.dtype.type
    per = 4 if single else 2
    cross_blocks = (d + per - 1) // per
    per_gen = 1 + cross_blocks
    philox.fill_words(seed, key, philox.STREAM_STEP, t * np.uint64(per_gen), per_gen, W)
    r1, r2, r3 = distinct(W[0, 0], W[1, 0], W[2, 0], m, i - base)
    jr = philox.below(W[3, 0], d)
    a1, a2, a3 = base + r1, base + r2, base + r3
    out = False
    if single:  # gene j: word j & 3 of block 1 + j // 4 (24 bits)
        for j in range(d):
            left[j] = de_gene(X, trials, i, j, philox.u01f(W[j & 3, 1 + (j >> 2)]), jr, a1, a2, a3,
                              lower, upper, Fw, Cr)
            out |= left[j]
    else:  # gene j: words 2 (j & 1), 2 (j & 1) + 1 of block 1 + j // 2 (53 bits)
        for j in range(d):
            q = 2 * (j & 1)
            b = 1 + (j >> 1)
            left[j] = de_gene(X, trials, i, j, philox.u01d(W[q, b], W[q + 1, b]), jr, a1, a2, a3,
                              lower, upper, Fw, Cr)
            out |= left[j]
    if out:  # the generation's bounce-back blocks, over the crossover's (no longer read)
        philox.fill_words(seed, key, STREAM_BOUNCE, t * np.uint64(cross_blocks), cross_blocks, W)
        if single:  # gene j: word j % 4 of block j // 4
            for j in range(d):
                bounce(X, trials, i, j, a1, lower, upper, philox.u01f(W[j & 3, j >> 2]), left[j])
        else:  # gene j: words 2 (j % 2), 2 (j % 2) + 1 of block j // 2
            for j in range(d):
                q = 2 * (j & 1)
                bounce(X, trials, i, j, a1, lower, upper, philox.u01d(W[q, j >> 1], W[q + 1, j >> 1]),
                       left[j])
    f_trials[i] = T(functions.counted(fid, widened(trials, i, x), bad, i)) if live else T(np.inf)


@njit(nogil=True, cache=True)
def de_select(X, f, trials, f_trials, accepted, i, live):
    """Greedy selection of individual i, ties to the trial; a trial not evaluated (not `live`,
    max_evals) is never taken."""
    take = live and f_trials[i] <= f[i]
    accepted[i] = take
    if take:
        f[i] = f_trials[i]
        for j in range(X.shape[1]):
            X[i, j] = trials[i, j]


@njit(**PJIT)
def de_generations(X, f, trials, f_trials, accepted, lower, upper, fid, m, seed, walker0, first_gen,
                   generations, last_active, Fw, Cr, single, bad):
    """Many populations: ``prange`` over populations, each running `generations` generations; in
    the last one only individuals i < last_active evaluate their trial (max_evals)."""
    n, d = X.shape
    for g in prange(n // m):
        base = g * m
        x = np.empty(d, dtype=np.float64)
        W = np.empty((4, philox.batch_columns_jit(1 + (d + 1) // 2)), dtype=np.uint64)  # most: P = 2
        left = np.empty(d, dtype=np.bool_)
        for gen in range(generations):
            t = np.uint64(first_gen + gen)
            cut = gen + 1 == generations
            for i in range(base, base + m):  # every trial from the same population
                de_trial(X, trials, f_trials, i, base, walker0 + i, lower, upper, fid, m, seed, t, Fw,
                         Cr, single, bad, x, not cut or i < last_active, W, left)
            for i in range(base, base + m):
                de_select(X, f, trials, f_trials, accepted, i, not cut or i < last_active)


@njit(**WIDE_PJIT)
def de_generation_wide(X, f, trials, f_trials, accepted, lower, upper, fid, m, seed, walker0, t,
                       last_active, Fw, Cr, single, bad):
    """Few populations: one generation t, every trial in parallel (from the same X), then every
    selection in parallel; only individuals i < last_active evaluate (max_evals)."""
    n, d = X.shape
    blocks = thread_blocks(n)
    counter = claim_counter()
    for worker in prange(min(WORKERS, blocks)):  # each claims blocks of walkers until none are left
        x = np.empty(d, dtype=np.float64)
        W = np.empty((4, philox.batch_columns_jit(1 + (d + 1) // 2)), dtype=np.uint64)
        left = np.empty(d, dtype=np.bool_)
        i0, i1 = claim_walkers(counter, blocks, n)
        while i0 < i1:
            for i in range(i0, i1):
                de_trial(X, trials, f_trials, i, (i // m) * m, walker0 + i, lower, upper, fid, m, seed,
                         np.uint64(t), Fw, Cr, single, bad, x, i < last_active, W, left)
            i0, i1 = claim_walkers(counter, blocks, n)
    for i in prange(n):
        de_select(X, f, trials, f_trials, accepted, i, i < last_active)


class DifferentialEvolutionNumba(NumbaAlgorithm, DifferentialEvolution):
    """Compiled generations; snapshots inherited from the reference."""

    def memory_words_per_walker(self) -> float:
        return 2.0 * self.problem.dim + 6.0  # X, trials, f, their values, accepted, NaN count

    def init(self, rng) -> DifferentialEvolutionState:
        n, d = self.total_walkers(), self.problem.dim
        self._seed = self.seed_from(rng)
        X = np.empty((n, d), dtype=self.dtype)
        f = np.empty(n, dtype=self.dtype)
        self.use_threads()
        bad = self.nonfinite_counter(n)
        draw_uniform_points(X, f, self.lower, self.upper, self.fid, np.uint64(self._seed), self.single,
                            bad, np.int64(self.walker0))
        state = DifferentialEvolutionState(X=X, f=f, best_x=np.zeros(d, dtype=self.dtype),
                                           best_f=np.asarray(np.inf, dtype=self.dtype),
                                           trials=X.copy(), accepted=np.zeros(n, dtype=bool))
        state.f_trials = np.empty(n, dtype=self.dtype)
        self.cap_drawn(state, f, bad)  # max_evals below the population: +inf past it
        self.fold_best(state, X, f)
        return state

    def step(self, state: DifferentialEvolutionState, iterations: int) -> None:
        self.step_fused(state, iterations, self._generations)  # the cut iteration in the same launch

    def _generations(self, state: DifferentialEvolutionState, iterations: int, last_active: int) -> None:
        p, T = self.params, self.dtype.type
        self.use_threads()
        n = self.total_walkers()
        bad = self.nonfinite_counter(n)
        arrays = (state.X, state.f, state.trials, state.f_trials, state.accepted, self.lower, self.upper,
                  self.fid, int(p.walkers), np.uint64(self._seed), np.int64(self.walker0))
        first, F, Cr = int(state.iteration), T(p.F), T(p.Cr)
        if self.runs_wide(p.populations):
            for t in range(first, first + int(iterations)):
                active = last_active if t + 1 == first + int(iterations) else n
                de_generation_wide(*arrays, np.int64(t), np.int64(active), F, Cr, self.single, bad)
        else:
            de_generations(*arrays, np.int64(first), int(iterations), np.int64(last_active), F, Cr,
                           self.single, bad)
        state.evals += n * (int(iterations) - 1) + int(last_active)
        self.tally_nonfinite(state, bad)
        state.iteration += int(iterations)
        self.fold_best(state, state.X, state.f)
