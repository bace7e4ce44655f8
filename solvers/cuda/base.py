"""Base class of the cuda engine's algorithms: fused kernels from kernels/ driven through CuPy.

A subclass inherits its reference class, CudaAlgorithm first (``class XCuda(CudaAlgorithm, X)``:
Params, "auto" values, budget, snapshot over the same state fields) and adds ``kernel_file``,
``bytes_needed``, ``init`` and ``step``. Walker points live on the GPU as one (d, n) array
``state.XT`` (coordinate-major, so that consecutive threads read consecutive addresses); ``state.X``
is its (n, d) transposed view for the reference's code (the snapshot reads it). The best
point is found by a reduction on the GPU (kernels/reduce.cuh) and stays there: only ``snapshot`` and
reading ``best_f`` copy to the host.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ..device_constants import placeholder
from ..errors import DeviceMemoryError, EngineUnavailable
from ..algorithms.base import Algorithm, State
from ..problems.base import refuse_foreign_twin

BLOCK = 128  # threads per block of the per-walker kernels (a thread per walker)
STAGE_LIMIT = 44 * 1024  # bytes of staged columns per block (48 KB default cap, minus static use)
REDUCE_BLOCKS = 512  # blocks of the standalone best-walker reduction


@dataclass
class CudaState(State):
    """All walkers on the GPU. ``XT`` is (d, n); ``X`` its (n, d) view; ``seed`` keys Philox."""

    XT: Any = None
    seed: int = 0


class BestTracker:
    """Device buffers of the run's best point and the reduction workspace (kernels/reduce.cuh).

    All six are views of one allocation whose head (best value +inf, index, ticket and point 0) is
    written by one host-to-device copy: a run's set-up is host time inside every end-to-end timing,
    and six allocations with four fills cost several times one of each."""

    ALIGN = 256  # every view starts on its own 256-byte boundary, as a separate allocation would

    def __init__(self, xp, dtype, dim: int, parts: int):
        self.xp = xp
        dtype = np.dtype(dtype)
        self.parts = max(1, int(parts))
        layout = [("best_f", dtype, ()), ("best_i", np.int64, (1,)), ("ticket", np.uint32, (1,)),
                  ("best_x", dtype, (dim,)), ("part_f", dtype, (self.parts,)),
                  ("part_i", np.int64, (self.parts,))]
        offsets, end = [], 0
        for _name, dt, shape in layout:
            offsets.append(end)
            end += -(-math.prod(shape) * np.dtype(dt).itemsize // self.ALIGN) * self.ALIGN
        buffer = xp.empty(end, dtype=np.uint8)
        for (name, dt, shape), offset in zip(layout, offsets):
            setattr(self, name, _view(xp, buffer, offset, np.dtype(dt), shape))
        head = offsets[4]  # best_f, best_i, ticket and best_x: +inf, then zeros
        host = np.zeros(head, dtype=np.uint8)
        host[:dtype.itemsize] = np.full(1, np.inf, dtype=dtype).view(np.uint8)
        if hasattr(buffer, "set"):  # CuPy: one host-to-device copy
            buffer[:head].set(host)
        else:  # NumPy (the tests' host emulation of the kernels)
            buffer[:head] = host

    def args(self):
        """The reduction arguments in kernel order: part_f, part_i, ticket, best_f, best_x, best_i."""
        return (self.part_f, self.part_i, self.ticket, self.best_f, self.best_x, self.best_i)


def _view(xp, buffer, offset: int, dtype, shape):
    """An array of dtype and shape over buffer's bytes from offset (CuPy: one array made from the
    memory pointer, where a slice, a view and a reshape would make three)."""
    if hasattr(buffer, "set"):
        return xp.ndarray(shape, dtype=dtype, memptr=buffer.data + offset)
    return buffer[offset:offset + math.prod(shape) * dtype.itemsize].view(dtype).reshape(shape)


class CudaAlgorithm(Algorithm):
    """Common machinery: kernel loading, launches, memory checks, best reduction, snapshots."""

    kernel_file: ClassVar[str]
    block: ClassVar[int] = BLOCK
    counts_nonfinite: ClassVar[bool] = False  # the kernels evaluate and map NaN/inf to +inf uncounted
    # global index of this object's walker 0: 0, except in a shard of a run split over devices
    # (solvers/shards.py), whose kernels key their random streams by the global walker index
    walker0: int = 0
    keyed_by_walker: ClassVar[bool] = True
    fused: ClassVar[bool] = True  # the run's best is folded once per launch (Algorithm.fused)
    # Kernels that take a tuning grid's per-group values (PSO classic, DE, pattern search,
    # annealing) declare the reference's group_params again (CudaAlgorithm comes first in their
    # bases); the others take one parameter set per run and the tuner falls back to one run per
    # (setting, seed).
    group_params: ClassVar[tuple[str, ...]] = ()
    # The kernel's column order of the per-group parameter table (gvals): Params fields, or names
    # that group_column() computes from them (pattern search's tol).
    group_columns: ClassVar[tuple[str, ...]] = ()
    groups: int = 1  # a tuning grid's runs side by side (set_groups); Algorithm.__init__ sets it too
    _group_values: dict | None = None  # set_groups: name -> per-group values (host), None outside a grid

    def __init__(self, problem, params, *, xp, dtype, fast_math: bool = False):
        # before the device: which function a run may compile does not depend on the machine
        refuse_foreign_twin(problem)  # the functor below names a built-in's code, not the object's fn
        if xp is np:
            raise EngineUnavailable("the cuda engine needs CuPy (xp=cupy), got NumPy")
        super().__init__(problem, params, xp=xp, dtype=dtype)
        self.fast_math = bool(fast_math)
        functor = problem.definition.cuda_functor
        if not functor:
            raise EngineUnavailable(problem.definition.no_cuda_reason
                                    or f"function '{problem.name}' has no CUDA functor")
        from kernels.loader import is_boxed, load  # noqa: PLC0415 - lazy: compiles on first use

        # a user's expression brings its functor's source; it enters the module (and cache key);
        # a box within +-2^19 (every built-in's) compiles cospi without its large-argument path
        self.boxed = is_boxed(problem.lower, problem.upper)
        self.kernels = load(self.kernel_file, functor, self.dtype.name, self.fast_math,
                            problem.definition.cuda_source or "",
                            device=int(xp.cuda.runtime.getDevice()),  # a module per device
                            boxed=self.boxed)
        self.lower = xp.ascontiguousarray(self.lower)
        self.upper = xp.ascontiguousarray(self.upper)

    def warm_kernels(self, state: State) -> None:
        """Nothing: building loads every kernel of the file, compiled as one module (the cut and
        polishing ones included: kernels/loader.py), and the reference's hook (SA's polishing)
        would run array code on this engine's state. Not covered: CuPy's element-wise kernels
        that host code first uses late (SA hybrid's _polish_start: where, astype, indexing), which
        CuPy compiles at that first use on a cold CuPy cache."""

    def column_stage_bytes(self, block: int | None = None) -> int:
        """Dynamic shared memory for every thread's point as a column of a (d, block) tile (kernels
        that stage their walkers' points: evaluation-only, annealing), or 0 when it does not fit the
        48 KB a launch may take without opting in (less a little for static shared memory)."""
        nbytes = self.problem.dim * (block or self.block) * self.dtype.itemsize
        return nbytes if nbytes <= STAGE_LIMIT else 0

    def box_scalars(self):
        """(lo, hi, uniform) for kernels with a uniform-box fast path: the box's bounds as scalars
        of the run's dtype when every coordinate has the same ones (every built-in), uniform = 1;
        else (0, 0, 0) and the kernel reads lower/upper per coordinate."""
        lower = np.asarray(self.problem.lower, dtype=self.dtype)
        upper = np.asarray(self.problem.upper, dtype=self.dtype)
        if lower.size and np.all(lower == lower[0]) and np.all(upper == upper[0]):
            return lower[0], upper[0], 1
        return self.dtype.type(0), self.dtype.type(0), 0

    # --- a tuning grid: independent runs as groups of one launch -------------------------------------
    # Group g is the run of (setting, seed) g: its walkers are keyed 0..size-1 under its own Philox
    # key (the key that seed gives a run alone), its parameters are row g of a (groups, columns)
    # table, and its budget is its own (max_evals per group). The kernels read key and row once per
    # thread at start (random.cuh: MwGroupKey); outside a grid they get gsize = 0 and read the scalar
    # arguments, so an ordinary launch does no extra work per iteration.
    def set_groups(self, groups: int, values: dict, target: float | None = None) -> None:
        self.accept_groups(groups, values, target)  # no (n, 1) columns: the kernels read a table
        self._group_values = {name: np.asarray(v, dtype=np.float64) for name, v in values.items()}

    def group_walkers(self) -> int:
        """Walkers of one run: the group's size in a grid, else all of them."""
        return self.total_walkers() // self.groups

    def group_column(self, name: str, group_values: dict) -> float:
        """One run's number for column `name` of the parameter table (per-group values are in
        group_values). Override for derived columns; the default reads the Params field."""
        return group_values.get(name, getattr(self.params, name))

    def _group_table(self):
        """(groups, columns) device table of the run's dtype, rounded as self.scalar rounds a
        run's own values, so a group computes with exactly the numbers of that run alone."""
        groups = self.groups
        rows = np.empty((groups, len(self.group_columns)), dtype=self.dtype)
        for g in range(groups):
            values = {name: v[g] for name, v in self._group_values.items()}
            rows[g] = [self.scalar(self.group_column(c, values)) for c in self.group_columns]
        return self.xp.asarray(rows)

    def bind_groups(self, rng) -> None:
        """At init: the group arguments of every launch (self.group_args): per-group Philox keys
        from the GroupedRNG's seeds (each as seed_from gives that seed's run) and the parameter
        table, or a placeholder and gsize 0 outside a grid."""
        xp = self.xp
        if self.groups > 1 or getattr(rng, "streams", None) is not None:
            keys = [self.seed_from(stream) for stream in rng.streams]
            if len(keys) != self.groups:
                raise ValueError(f"{len(keys)} random streams for {self.groups} groups")
            self.group_seeds = xp.asarray(np.array(keys, dtype=np.uint64))
            self.group_vals = self._group_table()
            self.group_size = self.group_walkers()
        else:  # never read (gsize 0): one shared pair per device
            self.group_seeds = placeholder(xp, np.uint64)
            self.group_vals = placeholder(xp, self.dtype)
            self.group_size = 0

    def group_args(self, values: bool = True) -> tuple:
        """(gseeds, gvals, gsize) kernel arguments; (gseeds, gsize) where the kernel takes no table."""
        if values:
            return (self.group_seeds, self.group_vals, np.int64(self.group_size))
        return (self.group_seeds, np.int64(self.group_size))

    def seed_key(self, rng) -> int:
        """The run's Philox key (0 for a grid, whose groups use group_seeds)."""
        return 0 if getattr(rng, "streams", None) is not None else self.seed_from(rng)

    def fold_group_best(self, state: State, values) -> None:
        """In a grid: each run's best so far from `values` (every walker's, or every swarm's, best
        value: (groups * k,) group after group, best only improving), and the run's evaluations
        when it first reached the target, read at the end of each launch: the end of a chunk, of
        which the tuner finds the iteration by running it again (solvers/tune/reach.py)."""
        if self._group_values is None and self._reach_target is None:
            return  # not a grid
        xp = self.xp
        current = values.reshape(self.groups, -1).min(axis=1)
        if state.group_best_f is None:
            state.group_best_f = current
            state.group_reach = xp.full(self.groups, -1, dtype=np.int64)
        else:
            state.group_best_f = xp.minimum(state.group_best_f, current)
        if self._reach_target is not None:
            hit = (state.group_best_f <= self._reach_target) & (state.group_reach < 0)
            state.group_reach = xp.where(hit, state.evals // self.groups, state.group_reach)

    # --- launching ------------------------------------------------------------------------------
    def scalar(self, value):
        """A kernel argument of the run's floating type."""
        return self.dtype.type(value)

    def blocks(self, n: int, block: int | None = None) -> int:
        block = block or self.block
        return max(1, (int(n) + block - 1) // block)

    def launch(self, name: str, n: int, *args, block: int | None = None, shared_mem: int = 0) -> None:
        """One thread per item of n (a walker, a chain...); shared_mem: dynamic shared bytes per block."""
        block = block or self.block
        self.kernels.get(name)((self.blocks(n, block),), (block,), args, shared_mem=shared_mem)

    def sm_count(self) -> int:
        """Multiprocessors of the current device (for choosing a kernel's thread mapping)."""
        return multiprocessor_count(self.xp)

    # --- memory ---------------------------------------------------------------------------------
    def bytes_needed(self, n: int) -> int:
        """Device bytes a run of n walkers needs; subclasses count their arrays."""
        return n * (self.problem.dim + 2) * self.dtype.itemsize

    # The run's arrays not proportional to its walkers (the best tracker, group tables, Philox
    # keys, counters): a few dozen, each at least one 512-byte block of CuPy's pool.
    SMALL_ARRAYS_BYTES: ClassVar[int] = 64 * 1024

    def memory_estimate(self) -> int:
        """The same question the numpy/cupy classes answer: device bytes of the whole run (the
        engine checks it before init; init checks bytes_needed again right before allocating)."""
        return int(self.bytes_needed(self.total_walkers())) + self.SMALL_ARRAYS_BYTES

    def require_memory(self, nbytes: int) -> None:
        """DeviceMemoryError, before anything is allocated, if nbytes is more than is free."""
        require_device_memory(self.xp, nbytes, f"{self.name} with {self.total_walkers():,} "
                              f"{self.walker_word} at d={self.problem.dim} ({self.dtype.name})")

    def new_best(self, parts: int = REDUCE_BLOCKS) -> BestTracker:
        return BestTracker(self.xp, self.dtype, self.problem.dim, parts)

    def reduce_best(self, tracker: BestTracker, f, XT, moves: bool | None = None) -> None:
        """Fold the best of values f (n,) at points XT (d, n) into the run's best, on the GPU.
        `moves`: a row's point can change at its value (default: the algorithm's rows_move_at_ties)."""
        n = int(f.shape[0])
        grid = min(tracker.parts, self.blocks(n, 256))
        moves = self.rows_move_at_ties if moves is None else moves
        self.kernels.get("mw_argmin_update")((grid,), (256,), (
            f, XT, np.int64(n), np.int32(self.problem.dim), *tracker.args(), np.int32(moves)))

    def take_best(self, state: State, x, f) -> None:
        """The host point x (value f) becomes the run's best, written into the tracker's buffers.
        Its walker is another shard's: index -1, so that only a strictly smaller value of this
        shard's walkers replaces it (mw_replaces_best's ties go to the smaller index)."""
        self.tracker.best_x[...] = self.xp.asarray(np.asarray(x, dtype=self.dtype))
        self.tracker.best_f[...] = self.dtype.type(f)
        self.tracker.best_i[...] = -1

    def link_best(self, state: State, tracker: BestTracker) -> None:
        """Point state.best_x/best_f at the tracker's device buffers (updated in place)."""
        state.best_f = tracker.best_f
        state.best_x = tracker.best_x

    def seed_from(self, rng) -> int:
        """The 64-bit Philox key of a run, derived from its ArrayRNG (same seed -> same key)."""
        return int(rng.raw_seed()) & 0xFFFFFFFFFFFFFFFF

    # --- max_evals, a hard cap -------------------------------------------------------------------
    # As the reference's ``evaluate``: evaluations past max_evals are not made (or not counted:
    # their values read +inf, so nothing accepts them). The kernels take how many of a launch's
    # last iteration's evaluations are allowed; the host splits a chunk so that only the iteration
    # the budget cuts is launched with fewer.
    def capped(self, evals: int, state: State | None = None) -> bool:
        """True if making `evals` more evaluations would pass max_evals."""
        if self.max_evals is None:
            return False
        return int(evals) > int(self.max_evals) - (int(state.evals) if state is not None else 0)

    def cap_values(self, state: State, f) -> int:
        """Evaluations to count for values f just computed (all of them counted by the kernel):
        those past max_evals are set to +inf in place (never the best), the rest counted."""
        n = int(f.shape[0])
        left = self.evals_left(state)
        per = n // self.groups  # in a grid: each run's first `left` values count
        if left is None or left >= per:
            return n
        f.reshape(self.groups, per)[:, left:] = np.inf
        return left * self.groups

    def iteration_slices(self, state: State, work: float):
        """None: a launch runs whole iterations (the reference's slices would run its array code
        on the kernels' state); the runner warns when one iteration takes long."""
        return None


_SM_COUNTS: dict[int, int] = {}
_L2_BYTES: dict[int, int] = {}


def multiprocessor_count(xp) -> int:
    """SM count of the current device, read once per device (one attribute query, not the whole
    attribute table: solvers are built per run, and the Table 1 timing includes building one)."""
    device = int(xp.cuda.runtime.getDevice())
    count = _SM_COUNTS.get(device)
    if count is None:
        count = _SM_COUNTS[device] = int(xp.cuda.Device(device).attributes["MultiProcessorCount"])
    return count


def l2_cache_bytes(xp) -> int:
    """L2 cache size of the current device in bytes, read once per device."""
    device = int(xp.cuda.runtime.getDevice())
    size = _L2_BYTES.get(device)
    if size is None:
        size = _L2_BYTES[device] = int(xp.cuda.runtime.getDeviceProperties(device)["l2CacheSize"])
    return size


def device_free_bytes(xp) -> int:
    """Bytes the device can still give: free device memory plus blocks cached by CuPy's pool."""
    free, _total = xp.cuda.runtime.memGetInfo()
    return int(free) + int(xp.get_default_memory_pool().free_bytes())


def require_device_memory(xp, nbytes: int, what: str) -> None:
    """Raise DeviceMemoryError (saying how much was asked and how much is free) before allocating."""
    free = device_free_bytes(xp)
    if nbytes > free:
        # the pool may hold cached blocks that do not fit this request: give them back, ask again
        xp.get_default_memory_pool().free_all_blocks()
        free = device_free_bytes(xp)
    if nbytes > free:
        raise DeviceMemoryError(f"{what} needs {nbytes / 2**30:.2f} GiB of GPU memory, "
                                f"but only {free / 2**30:.2f} GiB is free")


def allocation_guard(xp):
    """Context manager turning CuPy's OutOfMemoryError into DeviceMemoryError."""
    return _AllocationGuard(xp)


class _AllocationGuard:
    def __init__(self, xp):
        self.xp = xp

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is not None and exc_type.__name__ == "OutOfMemoryError":
            free = device_free_bytes(self.xp)
            raise DeviceMemoryError(f"GPU out of memory: {exc} ({free / 2**30:.2f} GiB free)") from exc
        return False
