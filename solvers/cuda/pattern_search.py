"""Multi-walk pattern search on the cuda engine (kernels/pattern_search.cu).

Same Params and the same iteration as solvers/algorithms/pattern_search.py (the reference; this
class inherits its Params, 'auto' walkers, counting and snapshot over the same state fields): a thread
per walker runs the seed's Fig. 1 loop for a whole chunk of iterations in one launch, with exactly
2 d evaluations per walker per iteration. With ``restart``, each round ends by redrawing every
walker (Philox stream MW_STREAM_RESTART, keyed by the iteration number) and a launch never crosses
a round boundary, so the best point of the finished round is reduced before it is overwritten.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..algorithms.pattern_search import PatternSearch, PatternSearchState
from .base import REDUCE_BLOCKS, CudaAlgorithm, CudaState, allocation_guard

STREAM_INIT = 1  # MW_STREAM_INIT
STREAM_RESTART = 2  # MW_STREAM_RESTART


@dataclass
class PatternSearchCudaState(CudaState, PatternSearchState):
    """The reference's fields on the GPU (``improved`` as uint8 flags) plus the Philox key."""


class PatternSearchCuda(CudaAlgorithm, PatternSearch):
    kernel_file = "pattern_search.cu"
    group_params = PatternSearch.group_params  # a tuning grid's runs in one launch
    group_columns = ("delta0", "tol")  # the kernels' gvals row; tol from delta0 and tol_halvings

    def group_column(self, name: str, group_values: dict) -> float:
        if name != "tol":
            return super().group_column(name, group_values)
        return self._tol(super().group_column("delta0", group_values),
                         super().group_column("tol_halvings", group_values))

    @staticmethod
    def _tol(delta0: float, tol_halvings: float) -> float:
        """delta resets once below this (computed in double, then rounded to the run's dtype)."""
        return float(delta0) / 2.0 ** float(tol_halvings)
    # Lanes per walker: 1 (ps_iterate) or 2, 4, 8 (ps_iterate_group: the plus/minus trials of 1, 2
    # or 4 coordinates at once). Groups are used while one lane per walker would leave fewer than
    # GROUP_BELOW_THREADS_PER_SM threads per multiprocessor, with the most lanes that keep the
    # threads within GROUP_LANES_THREADS_PER_SM. A fold objective (kernels/problems.cuh: Rastrigin,
    # Ackley, ...) shifts the balance: ps_iterate evaluates a coordinate's two trials in one pass
    # (MwPair), one lane doing a pair of group lanes' work for little more than one trial, so a fold
    # takes 1 lane from FOLD_ONE_LANE_WALKERS_PER_SM. Measured on the H100 (scripts/ps_lanes.py,
    # 20-D, device ms of the 20-iteration launch, docs/benchmarks/notes-gpu.md, issue 14):
    #   ackley (fold), 1/2/4/8 lanes:   1,024: 0.497/0.660/0.542/0.487   4,096: 0.498/0.663/0.570/0.531
    #                                  15,360: 0.497/0.728/0.789/1.194
    #   rosenbrock:                     1,024: 0.317/0.317/0.268/0.247   8,448: 0.318/0.324/0.300/0.355
    #                                  15,360: 0.318/0.365/0.413/0.614  33,792: 0.396/0.503/0.729/1.106
    # (before issue 14's kernels, 2 lanes won at 15,360: 1.16 ms against 1.91 for 1 lane).
    # None = choose by walker count; 1/2/4/8 force it.
    GROUP_BELOW_THREADS_PER_SM = 96
    GROUP_LANES_THREADS_PER_SM = 256
    FOLD_ONE_LANE_WALKERS_PER_SM = 16
    lanes: int | None = None

    def bytes_needed(self, n: int) -> int:
        # X (d, n), f, step, improved flags, plus the best fold's partials (one per block of the
        # widest launch: _allocate)
        item = self.dtype.itemsize
        return n * ((self.problem.dim + 2) * item + 1) + max(REDUCE_BLOCKS, self.blocks(8 * n)) * (item + 8)

    def _allocate(self, rng) -> PatternSearchCudaState:
        xp, n, d = self.xp, int(self.params.walkers), self.problem.dim
        self.require_memory(self.bytes_needed(n))
        with allocation_guard(xp):
            state = PatternSearchCudaState(
                X=None, f=xp.empty(n, dtype=self.dtype), best_x=None, best_f=None,
                XT=xp.empty((d, n), dtype=self.dtype), seed=self.seed_key(rng),
                step=xp.empty(n, dtype=self.dtype), improved=xp.empty(n, dtype=np.uint8))
            self.bind_groups(rng)
            # partials for the in-kernel best fold: one per block of the widest launch (8 lanes)
            self.tracker = self.new_best(parts=max(REDUCE_BLOCKS, self.blocks(8 * n)))
        state.X = state.XT.T
        self.link_best(state, self.tracker)
        return state

    def init(self, rng) -> PatternSearchCudaState:
        state = self._allocate(rng)
        self._draw(state, STREAM_INIT, 0)
        return state

    def init_and_step(self, rng, iterations: int) -> PatternSearchCudaState:
        """init + step in one launch (no host work between; the best folded in the same launch):
        the same numbers as the two calls. Restart mode redraws between rounds: two calls."""
        n, iterations = int(self.params.walkers), int(iterations)
        if (self.params.restart or iterations <= 0 or self.groups > 1
                or self.capped(n + iterations * self._per_iteration())):
            return super().init_and_step(rng, iterations)
        state = self._allocate(rng)
        state.evals += n
        self._iterate(state, iterations, fresh=STREAM_INIT)
        return state

    def _draw(self, state: PatternSearchCudaState, stream: int, draw: int) -> None:
        """Fresh uniform walkers (counted: n evaluations), then the best reduction."""
        n = int(self.params.walkers)
        self.launch("ps_init", n, state.XT, state.f, state.step, state.improved, self.lower,
                    self.upper, np.int64(n), np.int32(self.problem.dim), np.uint64(state.seed),
                    np.int64(self.walker0), np.uint32(stream), np.uint64(draw),
                    self.scalar(self.params.delta0), *self.group_args())
        state.evals += self.cap_values(state, state.f)
        self.reduce_best(self.tracker, state.f, state.XT)
        self.fold_group_best(state, state.f)

    def step(self, state: PatternSearchCudaState, iterations: int) -> None:
        p = self.params
        remaining = int(iterations)
        while remaining > 0 and self.steps_on(state):
            if p.restart and state.iteration > 0 and state.iteration % p.round_iterations == 0:
                self._draw(state, STREAM_RESTART, state.iteration)
            todo = remaining
            if p.restart:  # stop at the next round boundary (see the module docstring)
                todo = min(todo, p.round_iterations - state.iteration % p.round_iterations)
            full, last = self.capped_iterations(state, todo, self._per_iteration() // self.groups)
            if full:
                self._iterate(state, full)
            if last is not None:  # the iteration the budget cuts: only its first `last` trials (of each run)
                self._iterate(state, 1, last_evals=last)
            if full < todo:
                return  # max_evals reached
            remaining -= todo

    def _per_iteration(self) -> int:
        return 2 * self.problem.dim * int(self.params.walkers)

    def _iterate(self, state: PatternSearchCudaState, todo: int, fresh: int = 0,
                 last_evals: int | None = None) -> None:
        """One launch: `todo` iterations (from fresh walkers of stream `fresh` if not 0), the
        launch's best folded into the run's best by the same launch; `last_evals`: only that many
        trials (numbered as the reference evaluates them) in the launch's last iteration (max_evals)."""
        p, n = self.params, int(self.params.walkers)
        per_iteration = self._per_iteration()
        last = per_iteration // self.groups if last_evals is None else int(last_evals)  # of each run
        tol = self._tol(p.delta0, p.tol_halvings)
        lanes = self._lanes(n)
        args = (state.XT, state.f, state.step, state.improved, self.lower, self.upper,
                np.int64(n), np.int32(self.problem.dim), np.int32(todo), self.scalar(p.delta0),
                self.scalar(tol), np.int64(last))
        tail = (np.uint64(state.seed), np.int64(self.walker0), np.uint32(fresh), np.uint64(0),
                np.int32(1), *self.tracker.args(), *self.group_args())
        if lanes == 1:
            self.launch("ps_iterate", n, *args, *tail)
        else:
            self.launch("ps_iterate_group", lanes * n, *args, np.int32(lanes), *tail)
        state.evals += per_iteration * (todo - 1) + last * self.groups
        state.iteration += todo
        self.fold_group_best(state, state.f)  # before a restart redraws the walkers

    def pairs_trials(self) -> bool:
        """Whether ps_iterate evaluates a coordinate's two trials in one pass (a fold functor).
        (fold_functors parses problems.cuh once per process: this is asked per launch.)"""
        from kernels.loader import fold_functors  # noqa: PLC0415 - kernels imports without CuPy

        return self.problem.definition.cuda_functor in fold_functors()

    def _lanes(self, n: int) -> int:
        if self.lanes is not None:
            if self.lanes not in (1, 2, 4, 8):
                raise ValueError(f"lanes must be 1, 2, 4 or 8, got {self.lanes}")
            return int(self.lanes)
        sms = self.sm_count()
        if n >= self.GROUP_BELOW_THREADS_PER_SM * sms:
            return 1
        if self.pairs_trials() and n >= self.FOLD_ONE_LANE_WALKERS_PER_SM * sms:
            return 1
        lanes = 2
        while lanes < 8 and 2 * lanes * n <= self.GROUP_LANES_THREADS_PER_SM * sms:
            lanes *= 2
        return lanes
