"""Parallel simulated annealing on the cuda engine (kernels/simulated_annealing.cu): async, sync, hybrid.

Same Params, neighbour move, Metropolis rule, schedule, reheating, synchronous broadcast and
Nelder-Mead polishing as solvers/algorithms/simulated_annealing.py (the reference; this class
inherits its Params, 'auto' chains, fitted schedule, live parameters, counting and snapshot over
the same state fields, drawing its own polishing simplices); only the random
numbers differ (in-kernel Philox instead of the engine's generator). A thread per chain runs a whole
chunk of proposals per launch, except that a launch ends at every level end that needs a global
exchange: in ``sync`` (and the hybrid) each level is one launch, followed on the GPU by the best
reduction (fused into the launch) and the broadcast of the best point to every chain -- no host
round trip. ``async`` launches span any number of levels; the kernel follows the schedule itself
and the host mirrors it (same double arithmetic) for the snapshot's temperature.

The hybrid's polishing runs one warp per simplex, a chunk of Nelder-Mead iterations per launch,
counting evaluations in a device counter that the host reads once per chunk.

Tuning grids (async and sync, fixed schedule; set_groups): the chains form runs of equal size,
each keyed by its own Philox key (the key its seed gives a run alone) with its chains numbered
from 0, each with its own schedule kept on the host by the reference's GroupSchedule. Every
``sa_anneal_groups`` launch ends at the first level end of any run, so each run has one temperature
per launch (a (groups,) double array read once per thread) and acceptances are counted per run;
after each launch each run's best point is reduced from its chains' bests of the launch (cupy
reductions over a (groups, chains) view, no loop over runs), and at a run's level end sync
broadcasts it to that run's chains only. A run's numbers are those of the same run alone: the same
draws (keyed by the global iteration), the same move and rule (shared device functions), and the
same double arithmetic of the schedule, only the launches are cut more often.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..arrays import to_numpy
from ..algorithms.simulated_annealing import (WIDTH_POWER, SimulatedAnnealing, SimulatedAnnealingState,
                                              group_schedule)
from .base import REDUCE_BLOCKS, CudaAlgorithm, CudaState, allocation_guard

NO_CAP = 2**64 - 1  # the kernels' "no evaluation allowance" (~0ull)


@dataclass
class SimulatedAnnealingCudaState(CudaState, SimulatedAnnealingState):
    """The reference's fields on the GPU (``accepted`` as uint8 flags, ``polish`` NelderMeadBuffers)
    plus the kernel's bookkeeping."""

    B: Any = None  # (d, n) each chain's best point of the current launch (kernel bookkeeping)
    at_best: Any = None  # (n,) uint8
    chain_best: Any = None  # (n,) a grid's launch: each chain's best value of the launch


@dataclass
class NelderMeadBuffers:
    """m simplices on the GPU: slots S (m, d+1, d), values V (m, d+1), best-first order O (m, d+1)."""

    rows: Any
    S: Any
    V: Any
    O: Any
    W: Any
    active: Any
    counters: Any


class SimulatedAnnealingCuda(CudaAlgorithm, SimulatedAnnealing):
    kernel_file = "simulated_annealing.cu"
    group_params = SimulatedAnnealing.group_params  # a tuning grid's runs in one launch
    group_columns = ()  # no static table: each run's temperature is passed per launch

    def set_groups(self, groups: int, values: dict, target: float | None = None) -> None:
        SimulatedAnnealing.set_groups(self, groups, values, target)  # refuses the hybrid and auto

    def bytes_needed(self, n: int) -> int:
        # X and B (d, n), f, accepted, at_best, reduction partials; a grid: each chain's best value
        grid = self.dtype.itemsize if self._group_values is not None else 0
        return n * (2 * self.problem.dim * self.dtype.itemsize + self.dtype.itemsize + 2 + 16 + grid)

    def init(self, rng) -> SimulatedAnnealingCudaState:
        xp, n, d, p = self.xp, int(self.params.walkers), self.problem.dim, self.params
        self.require_memory(self.bytes_needed(n))
        with allocation_guard(xp):
            state = SimulatedAnnealingCudaState(
                X=None, f=xp.empty(n, dtype=self.dtype), best_x=None, best_f=None,
                XT=xp.empty((d, n), dtype=self.dtype), seed=self.seed_key(rng),
                temperature=float(p.t0), accepted=xp.zeros(n, dtype=np.uint8),
                B=xp.empty((d, n), dtype=self.dtype), at_best=xp.ones(n, dtype=np.uint8))
            self.bind_groups(rng)
            self.tracker = self.new_best(parts=max(REDUCE_BLOCKS, self.blocks(n)))
            if self._group_values is not None:
                state.chain_best = xp.empty(n, dtype=self.dtype)
        state.X = state.XT.T
        self.link_best(state, self.tracker)
        self.launch("sa_init", n, state.XT, state.f, state.accepted, self.lower, self.upper,
                    np.int64(n), np.int32(d), np.uint64(state.seed), np.int64(self.walker0),
                    *self.group_args(values=False))
        state.evals += self.cap_values(state, state.f)  # max_evals below the chains: +inf past it
        self.reduce_best(self.tracker, state.f, state.XT)
        self.fit_schedule(to_numpy(state.f))  # one copy at start: the auto schedule's spread of f
        state.temperature = float(self.params.t0)
        if self._group_values is not None:
            self._start_groups(state)
        return state

    def step(self, state: SimulatedAnnealingCudaState, iterations: int) -> None:
        remaining = int(iterations)
        while remaining > 0 and not state.done and self.steps_on(state):
            if state.schedule is not None:
                remaining -= self._anneal_groups(state, remaining)
            elif state.phase == "polish":
                remaining -= self._polish(state, remaining)
            else:
                remaining -= self._anneal(state, remaining)

    # --- a tuning grid: every run its own schedule (the reference's GroupSchedule) -----------------
    def _start_groups(self, state: SimulatedAnnealingCudaState) -> None:
        xp, groups, d = self.xp, self.groups, self.problem.dim
        if self.group_size == 0:
            raise ValueError("a grid's runs need one random stream each (a GroupedRNG)")
        sched = group_schedule(self._group_values, self.params, groups)
        sched.level_accepts = xp.zeros(groups, dtype=np.int64)
        sched.best_x = xp.zeros((d, groups), dtype=self.dtype)  # (d, groups), as the tracker's zeros
        sched.best_f = xp.full(groups, np.inf, dtype=self.dtype)
        sched.best_local = xp.full(groups, -1, dtype=np.int64)  # the chain (within its run) at best_x
        state.schedule = sched
        self._temperatures = xp.asarray(sched.temperature)
        state.at_best.fill(1)
        self._fold_group_points(state, state.f)
        self._mirror_group0(state)

    def _fold_group_points(self, state: SimulatedAnnealingCudaState, values) -> None:
        """Each run's best from each chain's best `values` (n,) of the launch, at X where the chain
        sits on it (at_best), else at B: the first of equal minima (the kernels' tie rule), taken
        where smaller, or equal at a smaller chain of the run (reduce.cuh's mw_replaces_best, as a
        run alone keeps its best: then a grid's run equals it on plateaus too)."""
        xp, sched, groups = self.xp, state.schedule, self.groups
        m = int(values.shape[0]) // groups
        local = xp.argmin(values.reshape(groups, m), axis=1)
        rows = xp.arange(groups) * m + local
        candidate = values[rows]
        on_x = state.at_best[rows].astype(bool)
        points = xp.where(on_x[None, :], state.XT[:, rows], state.B[:, rows])
        tie = (candidate == sched.best_f) & xp.isfinite(candidate) & (local < sched.best_local)
        better = (candidate < sched.best_f) | tie
        sched.best_f = xp.where(better, candidate, sched.best_f)
        sched.best_local = xp.where(better, local, sched.best_local)
        sched.best_x = xp.ascontiguousarray(xp.where(better[None, :], points, sched.best_x))
        # the best of all runs; a run's point can change at its value (a smaller chain's tie)
        self.reduce_best(self.tracker, sched.best_f, sched.best_x, moves=True)
        self.fold_group_best(state, sched.best_f)

    def broadcast_groups(self, state: SimulatedAnnealingCudaState, on) -> None:
        xp, sched, groups, d = self.xp, state.schedule, self.groups, self.problem.dim
        m = int(state.f.shape[0]) // groups
        X3 = state.XT.reshape(d, groups, m)  # a view of the (d, n) array
        X3[...] = xp.where(on[None, :, None], sched.best_x[:, :, None], X3)
        f2 = state.f.reshape(groups, m)
        f2[...] = xp.where(on[:, None], sched.best_f[:, None], f2)

    def _anneal_groups(self, state: SimulatedAnnealingCudaState, budget: int) -> int:
        """One launch of every run, up to the first level end of any run (or `budget`)."""
        xp, sched, groups = self.xp, state.schedule, self.groups
        n, d = int(self.params.walkers), self.problem.dim
        m = n // groups
        todo = min(int(budget), int((sched.chain_length - sched.level_iteration).min()))
        todo, last_chains = self.capped_chains(state, todo, m)
        counts = xp.zeros(groups, dtype=np.uint64)
        stage = self.column_stage_bytes()  # chains' points in shared memory (SaColumn) when they fit
        self.launch("sa_anneal_groups", n, state.XT, state.f, state.accepted, state.B, state.at_best,
                    state.chain_best, self.lower, self.upper, np.int64(n), np.int32(d),
                    *self.group_args(values=False), self._temperatures, np.int64(state.iteration),
                    np.int32(todo), self.scalar(self.params.width), np.int64(last_chains), counts,
                    np.int32(1 if stage else 0), shared_mem=stage)
        state.evals += groups * (m * (todo - 1) + last_chains)
        state.iteration += todo
        sched.level_accepts = sched.level_accepts + counts.astype(np.int64)
        sched.level_iteration += todo
        self._fold_group_points(state, state.chain_best)
        ends = sched.level_iteration >= sched.chain_length
        if ends.any():
            self._end_group_levels(state, ends)
            self._temperatures = xp.asarray(sched.temperature)
        self._mirror_group0(state)
        return todo

    # --- annealing -------------------------------------------------------------------------------
    def _anneal(self, state: SimulatedAnnealingCudaState, budget: int) -> int:
        p, n, d = self.params, int(self.params.walkers), self.problem.dim
        L = int(p.chain_length)
        first_end = max(1, L - state.level_iteration)  # proposals until the current level ends
        todo = budget
        if self.synchronous or p.variant == "hybrid":
            todo = min(todo, first_end)  # a global exchange (or the switch to polishing) follows
        todo, last_chains = self.capped_chains(state, todo, n)
        ends = 0 if todo < first_end else 1 + (todo - first_end) // L
        counts = self.xp.zeros(ends + 1, dtype=np.uint64)
        stage = self.column_stage_bytes()  # chains' points in shared memory (SaColumn) when they fit
        self.launch("sa_anneal", n, state.XT, state.f, state.accepted, state.B, state.at_best,
                    self.lower, self.upper, np.int64(n), np.int32(d), np.uint64(state.seed),
                    np.int64(self.walker0), np.int64(state.iteration), np.int32(todo),
                    np.float64(state.temperature),
                    np.int32(state.level_iteration), np.int32(L), np.float64(p.alpha),
                    np.float64(p.t_min), np.float64(p.t0), self.scalar(p.width),
                    np.float64(WIDTH_POWER if p.schedule == "auto" else 0.0), np.int64(last_chains),
                    counts, *self.tracker.args(), np.int32(1 if stage else 0), shared_mem=stage)
        state.evals += n * (todo - 1) + last_chains
        state.iteration += todo
        if ends == 0:
            state.level_accepts = state.level_accepts + counts[0]
            state.level_iteration += todo
            return todo
        # mirror the kernel's schedule (and the reference's _end_level) for every level end
        for k in range(ends):
            length = state.level_iteration + first_end if k == 0 else L
            accepts = counts[k] + state.level_accepts if k == 0 else counts[k]
            if not self.close_level(state, accepts / float(n * length)):
                return todo  # the launch was cut here: the hybrid polishes next
        state.level_accepts = counts[ends]
        state.level_iteration = todo - first_end - (ends - 1) * L
        return todo

    def broadcast_best(self, state: SimulatedAnnealingCudaState) -> None:
        n, d = int(self.params.walkers), int(self.problem.dim)
        self.launch("mw_broadcast_point", n, state.XT, state.f, np.int64(n), np.int32(d),
                    self.tracker.best_x, self.tracker.best_f)

    # --- hybrid: Nelder-Mead polishing -----------------------------------------------------------
    def _polish(self, state: SimulatedAnnealingCudaState, budget: int) -> int:
        if state.polish is None:
            self._polish_start(state)
            return 1
        p, n, d = self.params, int(self.params.walkers), self.problem.dim
        nm = state.polish
        m = int(nm.rows.shape[0])
        budget, allow = self._polish_allowance(state, budget, m)
        if budget == 0:  # max_evals spent (step does not call then)
            return 1
        nm.counters.fill(0)
        state.accepted.fill(0)
        self.launch("nm_iterate", 32 * m, state.XT, state.f, state.accepted, np.int64(n), np.int32(d),
                    nm.rows, np.int32(m), np.int32(budget), np.uint64(allow), self.scalar(p.polish_tol),
                    self.lower, self.upper, nm.S, nm.V, nm.O, nm.W, nm.active, nm.counters, block=128)
        self.reduce_best(self.tracker, state.f, state.XT)
        evals, ran, still_active, _ = (int(v) for v in to_numpy(nm.counters))  # one small copy a chunk
        state.evals += evals
        state.iteration += ran
        state.done = still_active == 0
        return budget if not state.done else max(ran, 1)

    def _polish_allowance(self, state, iterations: int, m: int) -> tuple[int, int]:
        """(Nelder-Mead iterations to launch, evaluations they may make; ~0 = no cap). max_evals as
        a hard cap: chunks that cannot pass it run uncapped; near the end one iteration at a time,
        its simplices sharing what is left (nm_claim in the kernel)."""
        left = self.evals_left(state)
        most = m * (self.problem.dim + 2)  # reflection, second trial, shrink: one simplex's iteration
        if left is None or left >= most * iterations:
            return int(iterations), NO_CAP
        if left >= most:
            return int(left // most), NO_CAP
        return (1, left) if left > 0 else (0, 0)

    def _polish_start(self, state: SimulatedAnnealingCudaState) -> None:
        xp, p, n, d = self.xp, self.params, int(self.params.walkers), self.problem.dim
        m = min(int(p.polish_points), n)
        item = self.dtype.itemsize
        self.require_memory(m * ((d + 1) * (d + 1) * item + (d + 1) * 4 + 3 * d * item + 1 + 8))
        with allocation_guard(xp):
            rows = xp.argsort(state.f)[:m].astype(np.int64)
            nm = NelderMeadBuffers(
                rows=rows, S=xp.empty((m, d + 1, d), dtype=self.dtype),
                V=xp.empty((m, d + 1), dtype=self.dtype), O=xp.empty((m, d + 1), dtype=np.int32),
                W=xp.empty((m, 3 * d), dtype=self.dtype), active=xp.ones(m, dtype=np.uint8),
                counters=xp.zeros(4, dtype=np.uint64))
        # the chains may have moved away from the best point ever found: polish that one too
        first = rows[0]
        better = self.tracker.best_f < state.f[first]
        base_x = xp.where(better, self.tracker.best_x, state.XT[:, first])
        base_f = xp.where(better, self.tracker.best_f, state.f[first]).reshape(1)
        left = self.evals_left(state)
        allow = m * d if left is None else min(m * d, left)  # max_evals: the first vertices only
        self.launch("nm_start", m, state.XT, state.f, np.int64(n), np.int32(d), rows, np.int32(m),
                    np.int64(allow), xp.ascontiguousarray(base_x), base_f, self.scalar(p.polish_edge), self.lower,
                    self.upper, nm.S, nm.V, nm.O, nm.active, block=64)
        state.evals += allow
        before = state.f[rows].copy()
        state.accepted.fill(0)
        # zero iterations: writes every simplex's best vertex into its chain's row
        self.launch("nm_iterate", 32 * m, state.XT, state.f, state.accepted, np.int64(n), np.int32(d),
                    rows, np.int32(m), np.int32(0), np.uint64(NO_CAP), self.scalar(p.polish_tol),
                    self.lower, self.upper,
                    nm.S, nm.V, nm.O, nm.W, nm.active, nm.counters, block=128)
        state.accepted[rows] = (state.f[rows] < before).astype(np.uint8)
        self.reduce_best(self.tracker, state.f, state.XT)
        state.polish = nm
        state.iteration += 1

    # --- drawing ---------------------------------------------------------------------------------
    def polished_simplices(self, state: SimulatedAnnealingCudaState, drawn: np.ndarray) -> np.ndarray:
        """The drawn simplices' vertices in their best-first order (the slots are not moved)."""
        xp, nm = self.xp, state.polish
        rows = xp.asarray(drawn)
        order = nm.O[rows].astype(np.int64)
        return to_numpy(xp.take_along_axis(nm.S[rows], order[:, :, None], axis=1))
