"""Multi-directional search on the cuda engine (kernels/multidirectional_search.cu), many starts at once.

Same Params, moves, acceptance rule, bound handling, collapse test, restarts and evaluation counting
as solvers/algorithms/multidirectional_search.py (the reference; this class inherits its Params,
per-iteration estimate and snapshot). The moves use no random numbers, so from the same simplices
the two engines take the same steps up to the objective's rounding; fresh simplices are drawn with
the in-kernel Philox generator. A group of lanes per start (the kernel's comment says which and
why); a launch runs a whole chunk of iterations, the simplices in shared memory where they fit.
Evaluations vary (rejected trials, collapsed starts), so the kernel counts them in a device counter
read once per chunk, with the number of starts still active (the run is done when none is and
restart is off).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..arrays import to_numpy
from ..algorithms.multidirectional_search import MultidirectionalSearch
from .base import REDUCE_BLOCKS, CudaAlgorithm, CudaState, allocation_guard
from .resident import WARP, allow_shared

MAX_BLOCK = 128  # __launch_bounds__ of mds_iterate
NO_CAP = 2**64 - 1  # the kernels' "no evaluation allowance" (~0ull)


@dataclass
class MultidirectionalSearchCudaState(CudaState):
    simplices: Any = None  # (starts, n+1, n), vertex 0 the best
    values: Any = None  # (starts, n+1)
    active: Any = None  # (starts,) uint8, 0 once collapsed
    keep_f: Any = None  # (starts,) best head value of each start over its restarts
    keep_x: Any = None  # (starts, n) its point
    done: bool = False


@dataclass(frozen=True)
class _Launch:
    group: int  # lanes per start
    block: int
    ld: int  # row stride of a simplex in shared memory (odd)
    shared_bytes: int  # 0: the starts work on the global arrays in place


class MultidirectionalSearchCuda(CudaAlgorithm, MultidirectionalSearch):
    kernel_file = "multidirectional_search.cu"
    block = MAX_BLOCK
    shared_limit = 100 * 1024  # bytes of simplices per block in shared memory (beyond: global)

    def bytes_needed(self, n: int) -> int:
        d, item = self.problem.dim, self.dtype.itemsize
        per_start = ((d + 1) * d + (d + 1) + 1 + d) * item + 1 + 2 * (d + 1) * item  # + global scratch
        return n * per_start

    def _launch_shape(self) -> _Launch:
        n, item = self.problem.dim, self.dtype.itemsize
        group = min(WARP, 1 << max(0, (n - 1).bit_length()))
        ld = n | 1
        per_start = ((n + 1) * ld + 3 * (n + 1)) * item
        first = max(WARP, min(int(self.block), MAX_BLOCK) // WARP * WARP)
        for block in sorted({first, 64, 32}, reverse=True):
            if block <= first and block // group * per_start <= self.shared_limit:
                return _Launch(group, block, ld, block // group * per_start)
        return _Launch(group, first, n, 0)

    def _grid(self) -> int:
        return self.blocks(self._starts * self._launch.group, self._launch.block)

    def init(self, rng) -> MultidirectionalSearchCudaState:
        return self._new_state(self.seed_from(rng), None)

    def state_from_simplices(self, simplices) -> MultidirectionalSearchCudaState:
        """A state holding the given simplices (starts, n+1, n), evaluated and counted. A module
        compiled for its box (``boxed``: kernels/common.cuh MW_COSPI_BOXED) evaluates a coordinate's
        cosine exactly only within +-2^20: simplices beyond that are refused."""
        from kernels.loader import BOXED_LIMIT  # noqa: PLC0415

        if self.boxed and float(self.xp.abs(self.xp.asarray(simplices)).max()) > 2 * BOXED_LIMIT:
            raise ValueError(f"simplices reach beyond +-{2 * BOXED_LIMIT:g}, far outside the box "
                             f"[{float(self.problem.lower.min()):g}, {float(self.problem.upper.max()):g}]")
        return self._new_state(0, simplices)

    def _new_state(self, seed: int, simplices) -> MultidirectionalSearchCudaState:
        xp, n = self.xp, self.problem.dim
        self._starts = starts = int(self.params.walkers) if simplices is None else int(simplices.shape[0])
        self.require_memory(self.bytes_needed(starts))
        self._launch = launch = self._launch_shape()
        with allocation_guard(xp):
            state = MultidirectionalSearchCudaState(
                X=None, f=None, best_x=None, best_f=None, seed=seed,
                simplices=xp.empty((starts, n + 1, n), dtype=self.dtype),
                values=xp.empty((starts, n + 1), dtype=self.dtype),
                active=xp.zeros(starts, dtype=np.uint8), keep_f=xp.empty(starts, dtype=self.dtype),
                keep_x=xp.empty((starts, n), dtype=self.dtype))
            self._scratch = xp.empty(1 if launch.shared_bytes else starts * 2 * (n + 1), dtype=self.dtype)
            self._counters = xp.zeros(4, dtype=np.uint64)  # + evaluations claimed (max_evals)
            self.tracker = self.new_best(parts=max(REDUCE_BLOCKS, self._grid()))
        if simplices is not None:
            state.simplices[...] = xp.asarray(simplices, dtype=self.dtype)
        state.X, state.f = state.simplices[:, 0], state.values[:, 0]
        self.link_best(state, self.tracker)
        p = self.params
        left = self.evals_left(state)
        allow = NO_CAP if left is None or left >= starts * (n + 1) else left  # max_evals
        self._run("mds_init", state, np.int32(simplices is None), self.scalar(p.edge), self.scalar(p.tol),
                  np.uint64(allow))
        evals, active, _ = self._read_counters()
        state.evals += evals
        state.done = not p.restart and active == 0
        return state

    def step(self, state: MultidirectionalSearchCudaState, iterations: int) -> None:
        remaining = int(iterations)
        while remaining > 0 and not state.done and self.evals_left(state) != 0:
            todo, allow = self._allowance(state, remaining)
            self._iterate(state, todo, allow)
            remaining -= todo

    def _allowance(self, state: MultidirectionalSearchCudaState, iterations: int) -> tuple[int, int]:
        """(iterations to launch, evaluations they may make; NO_CAP = all). max_evals as a hard cap:
        chunks that cannot pass it run uncapped; the iteration that may pass it runs alone, its
        starts sharing what is left (the kernel's mds_claim)."""
        left = self.evals_left(state)
        most = 2 * self.problem.dim * self._starts  # an iteration's most: every start's two trials
        if left is None or left >= most * iterations:
            return iterations, NO_CAP
        if left >= most:
            return left // most, NO_CAP
        return 1, left

    def _iterate(self, state: MultidirectionalSearchCudaState, iterations: int, allow: int) -> None:
        p = self.params
        self._run("mds_iterate", state, np.int64(state.iteration), np.int32(iterations), self.scalar(p.edge),
                  self.scalar(p.expansion), self.scalar(p.contraction), self.scalar(p.tol),
                  np.int32(bool(p.restart)), np.uint64(allow))
        evals, active, last = self._read_counters()  # one small copy per launch
        state.evals += evals
        if not p.restart and active == 0:
            # the reference stops counting iterations once every start has collapsed
            state.done = True
            state.iteration = max(state.iteration, last)
        else:
            state.iteration += iterations

    def _run(self, kernel: str, state: MultidirectionalSearchCudaState, *args) -> None:
        launch, n = self._launch, self.problem.dim
        starts = int(state.values.shape[0])
        self._counters.fill(0)
        function = self.kernels.get(kernel)
        allow_shared(function, launch.shared_bytes)
        head = (state.simplices, state.values, state.active, state.keep_f, state.keep_x, self._scratch,
                self.lower, self.upper, np.int64(starts), np.int32(n), np.int32(launch.group),
                np.int32(launch.ld), np.int32(launch.shared_bytes > 0), np.uint64(state.seed))
        function((self._grid(),), (launch.block,), (*head, *args, self._counters, *self.tracker.args()),
                 shared_mem=launch.shared_bytes)

    def _read_counters(self) -> tuple[int, int, int]:
        evals, active, last, _ = (int(v) for v in to_numpy(self._counters))
        return evals, active, last
