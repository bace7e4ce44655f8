"""Differential evolution DE/rand/1/bin on the cuda engine (kernels/differential_evolution.cu).

Same Params, mutation, bounce-back, crossover, greedy selection and evaluation counting as
solvers/algorithms/differential_evolution.py (the reference; this class inherits its Params,
counting and snapshot); only the random numbers differ (in-kernel Philox). A launch runs a whole
chunk of generations, each fused (mutation, crossover, evaluation, selection in one pass), with
double-buffered populations: a population on one block, or spread over several blocks that meet at
a barrier after each generation (solvers/cuda/resident.py). Unlike the other kernels the population
is row-major (n, d), the reference's own layout: DE reads three random members per trial, and a
warp reads a member as one coalesced row (see the kernel's comment).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..algorithms.differential_evolution import DifferentialEvolution
from ..errors import ConfigError
from .base import REDUCE_BLOCKS, CudaAlgorithm, CudaState, allocation_guard
from .resident import WARP, allow_shared, group_shape, multiprocessors, resident_blocks, shared_optin, spread

MAX_BLOCK = 256  # __launch_bounds__ of de_generations and de_generations_grid
# de_generations_wide runs blocks of up to 1,024 threads, one a multiprocessor, where the trial
# scratch of so many warps fits the shared memory a block may have (float, d <= 46 on an H100), a
# population spans several of them and they leave no more threads idle than blocks of MAX_BLOCK
# (within 3%); otherwise blocks of MAX_BLOCK, four a multiprocessor, as the others. Four blocks of a
# multiprocessor finished in launch order every generation (the schedulers favour the older warps:
# 17.8, 19.2, 20.9 and 22.9 us, scripts/barrier_trace.py), every block then waiting for the
# youngest; one block has one age. H100, one population of 131,072: 5.35 -> 5.73 G/s, on 128 of
# the 132 multiprocessors (notes-gpu.md v15)
WIDE_MAX_BLOCK = 1024
FOUR_BLOCKS_SHARED = 56 * 1024  # a block's dynamic shared memory where four share a multiprocessor
COLUMN = 33  # DE_COLUMN: a warp's scratch holds gene j of its 32 trials at j * COLUMN + k
PICK_BYTES = 16  # a thread's DePick in shared memory (three row offsets and a crossover mask)
LIST_WORDS = 4  # the bounce lists: 4 * itemsize bytes a thread (32 * 32 / P two-byte entries a warp)
# de_generations_wide (trials built and rows selected 4 at a time, fewer spills) from this many warps
# a multiprocessor on; de_generations (8 at a time, more loads in flight a lane) below. H100,
# rastrigin 30-D float32, one population (notes-gpu.md v14): 131,072 (31 warps a multiprocessor)
# 4.63 -> 5.10 G/s wide, 16,384 (4 warps) 1.65 -> 1.49 and 1,024 0.108 -> 0.097 G/s
WIDE_WARPS_PER_SM = 16


@dataclass
class DifferentialEvolutionCudaState(CudaState):
    X_next: Any = None  # (n, d) the other population buffer
    trials: Any = None  # (n, d) the last generation's trial vectors
    accepted: Any = None  # (n,) uint8: each trial replaced its target


@dataclass(frozen=True)
class _Launch:
    shape: Any  # resident.GroupShape
    shared_bytes: int  # the picks and bounce lists, and the scratch when scratch_shared
    scratch_shared: bool  # False: the trial scratch is in global memory
    kernel: str  # the kernel this shape was made for (its shared-memory limit raised), launched by every step


class DifferentialEvolutionCuda(CudaAlgorithm, DifferentialEvolution):
    kernel_file = "differential_evolution.cu"
    block = MAX_BLOCK  # every kernel's blocks at most; lowered, de_generations_wide's too
    wide_block = WIDE_MAX_BLOCK  # de_generations_wide's blocks at most, while `block` is MAX_BLOCK
    group_params = DifferentialEvolution.group_params  # a tuning grid's runs in one launch
    group_columns = ("F", "Cr")  # de_generations' gvals row
    # dynamic shared memory per block (picks, bounce lists and the trial scratch) at most: beyond, the
    # scratch goes to a global buffer. None: 56 KB for blocks of up to MAX_BLOCK, so that the four
    # blocks the registers allow share a multiprocessor (float: d <= 46 in shared memory), and all a
    # block may have for larger ones (one a multiprocessor); 0: always in global memory (tests)
    scratch_shared_max: int | None = None
    wide: bool | None = None  # None: de_generations_wide by the warps a multiprocessor (_wide); True / False force it (before init)

    def _wide(self) -> bool:
        """Whether the ordinary launch takes de_generations_wide: WIDE_WARPS_PER_SM or more of the
        run's warps (a warp per 32 individuals) per multiprocessor. The same numbers either way."""
        if self.wide is not None:
            return bool(self.wide)
        warps = -(-int(self.params.walkers) // WARP) * int(self.params.populations)
        return warps >= WIDE_WARPS_PER_SM * multiprocessors(int(self.xp.cuda.runtime.getDevice()))

    def bytes_needed(self, n: int) -> int:
        d, item = self.problem.dim, self.dtype.itemsize
        return n * ((3 * d + 1) * item + 1) + (n // 32 + 1) * COLUMN * d * item  # + scratch at most

    def _kernel_name(self) -> str:
        if self._group_values is not None:
            return "de_generations_grid"  # a tuning grid
        return "de_generations_wide" if self._wide() else "de_generations"

    def _launch_shape(self) -> _Launch:
        p, d, item = self.params, self.problem.dim, self.dtype.itemsize
        m, populations = int(p.walkers), int(p.populations)
        if m * d * item >= 2**32:  # the kernel's row offsets within a population are 32-bit
            raise ConfigError(f"a population of {m:,} walkers at d={d} ({self.dtype.name}) is "
                              f"{m * d * item / 2**30:.1f} GiB, beyond the cuda engine's 4 GiB per "
                              "population: use more populations of fewer walkers")
        name = self._kernel_name()
        kernel = self.kernels.get(name)
        threads = -(-m // WARP) * WARP  # a warp per 32 individuals

        def shared_bytes(block: int) -> tuple[int, int]:  # (picks and bounce lists, the scratch)
            return block * (PICK_BYTES + LIST_WORDS * item), block // WARP * COLUMN * d * item

        # what a block may have, its static shared memory left out
        optin = shared_optin(int(self.xp.cuda.runtime.getDevice())) - int(getattr(kernel, "shared_size_bytes", 0))
        cap = min(int(self.block), MAX_BLOCK)
        block, per_group = spread(threads, populations, cap)
        if name == "de_generations_wide" and int(self.block) >= MAX_BLOCK:
            wide = min(int(self.wide_block), WIDE_MAX_BLOCK)
            if wide > cap and sum(shared_bytes(wide)) <= optin:  # else blocks of MAX_BLOCK, four a multiprocessor
                big, big_group = spread(threads, populations, wide)
                # only a population over several of the larger blocks (the shape measured), and no
                # more idle threads than the smaller blocks leave (64 populations of 1,100 would
                # leave 46% of the threads idle in blocks of 1,024, against 14% in blocks of 256)
                if big > cap and big_group > 1 and big * big_group <= 1.03 * block * per_group:
                    block, per_group = big, big_group
        limit = self.scratch_shared_max
        if limit is None:
            limit = optin if block > MAX_BLOCK else min(FOUR_BLOCKS_SHARED, optin)
        always, scratch = shared_bytes(block)
        scratch_shared = always + scratch <= limit
        nbytes = always + (scratch if scratch_shared else 0)
        allow_shared(kernel, nbytes)
        resident = resident_blocks(kernel, block, nbytes) if per_group > 1 else 0
        return _Launch(group_shape(threads, populations, block, per_group, resident), nbytes, scratch_shared, name)

    def init(self, rng) -> DifferentialEvolutionCudaState:
        xp, d, n = self.xp, self.problem.dim, self.total_walkers()
        self.require_memory(self.bytes_needed(n))
        self._launch = launch = self._launch_shape()
        shape = launch.shape
        grid = shape.groups_per_launch * shape.per_group
        with allocation_guard(xp):
            X = xp.empty((n, d), dtype=self.dtype)
            state = DifferentialEvolutionCudaState(
                X=X, f=xp.empty(n, dtype=self.dtype), best_x=None, best_f=None, XT=X.T,
                seed=self.seed_key(rng), X_next=xp.empty((n, d), dtype=self.dtype),
                accepted=xp.zeros(n, dtype=np.uint8))
            self.tracker = self.new_best(parts=max(REDUCE_BLOCKS, grid, self.blocks(n)))
            self._bars = xp.zeros(shape.groups_per_launch, dtype=np.uint64)  # barrier arrival counters
            size = 1 if launch.scratch_shared else grid * shape.block // WARP * COLUMN * d
            self._scratch = xp.empty(size, dtype=self.dtype)
            self.bind_groups(rng)
        self.link_best(state, self.tracker)
        self.launch("de_init", n, state.X, state.f, self.lower, self.upper, np.int64(n), np.int32(d),
                    np.uint64(state.seed), np.int64(self.walker0), *self.tracker.args(),
                    *self.group_args(values=False))
        counted = self.cap_values(state, state.f)
        if counted < n:  # max_evals below the population: the best among the counted ones only
            self.tracker.best_f.fill(np.inf)
            self.reduce_best(self.tracker, state.f, self.xp.ascontiguousarray(state.X.T))
        state.evals += counted
        state.trials = state.X.copy()  # no trial yet: drawn where the individuals are
        self.fold_group_best(state, state.f)
        return state

    def step(self, state: DifferentialEvolutionCudaState, iterations: int) -> None:
        per_run = self.group_walkers()
        full, last = self.capped_iterations(state, int(iterations), per_run)
        if full:
            self._generations(state, full, per_run)
        if last is not None:  # max_evals: the last generation's trials of the first `last` individuals (of each run)
            self._generations(state, 1, last)
        self.fold_group_best(state, state.f)  # greedy selection: f holds each individual's best

    def _generations(self, state: DifferentialEvolutionCudaState, iterations: int, last_active: int) -> None:
        p, d, n = self.params, self.problem.dim, self.total_walkers()
        launch = self._launch
        shape = launch.shape
        kernel = self.kernels.get(launch.kernel)  # chosen at init (a later change of `wide` waits for the next init)
        for first, count in shape.launches(int(p.populations)):
            if shape.per_group > 1:
                self._bars.fill(0)  # the barrier counters only grow within a launch
            kernel((count * shape.per_group,), (shape.block,), (
                state.X, state.X_next, state.f, state.trials, state.accepted, self.lower, self.upper,
                np.int64(n), np.int32(p.walkers), np.int32(d), np.int64(first), np.int32(shape.per_group),
                np.uint64(state.seed), np.int64(self.walker0), np.int64(state.iteration),
                np.int32(iterations), np.int64(last_active), self.scalar(p.F), self.scalar(p.Cr),
                np.int32(launch.scratch_shared), self._scratch, self._bars, *self.tracker.args(),
                *self.group_args()),
                shared_mem=launch.shared_bytes)
        if iterations % 2:  # the kernel ping-pongs the buffers once per generation
            state.X, state.X_next = state.X_next, state.X
            state.XT = state.X.T
        state.evals += n * (iterations - 1) + last_active * self.groups  # last_active: per run
        state.iteration += iterations
