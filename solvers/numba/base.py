"""Base class of the numba engine's algorithms: compiled per-walker loops on all CPU cores.

A subclass has the interface of :class:`solvers.algorithms.base.Algorithm` and the Params of its
reference module. Walkers are NumPy (n, d) arrays; each compiled kernel runs a whole chunk of
iterations with ``prange`` over walkers, so Python runs once per chunk; the grouped algorithms
(particle swarm, differential evolution) with fewer groups than threads run their wide path
instead, a launch per iteration with ``prange`` over every walker (``runs_wide``). Random numbers
come from Philox keyed by (seed, walker, stream, draw) as in kernels/random.cuh, so a run depends
on neither the number of threads nor the path. The best point is found on the host after each
chunk by ``np.argmin`` (first minimum wins, the same rule on every thread count).
"""
from __future__ import annotations

from typing import ClassVar

import numba
import numpy as np
from llvmlite import ir
from numba import njit, prange, types
from numba.core import cgutils
from numba.core.cpu import ParallelOptions
from numba.extending import intrinsic, overload

from ..algorithms.base import Algorithm, State
from ..errors import ConfigError
from . import functions, philox

PJIT = dict(parallel=True, nogil=True, cache=True, fastmath=False)
# A wide kernel (one iteration over all walkers of few groups) runs several parallel loops in turn,
# each reading what the one before wrote through helper calls numba cannot see into: never fused.
# An options object, not a dict: numba pops the keys of a dict, and a second signature's compile
# would get fusion back.
WIDE_PJIT = dict(PJIT, parallel=ParallelOptions({"fusion": False}))
# A wide launch per iteration costs ~20 us (the call, the threads' wake-up); below this many
# coordinates per thread and iteration it costs more than the threads win (2 threads, float32: one
# swarm of 128 particles in 2-D ran at 5.7 M evals/s wide and 7.4 M/s on one thread, of 512 at
# 10.1 and 7.7 M/s; in 30-D wide won from 128 particles on)
WIDE_MIN_WORK_PER_THREAD = 512


# A parallel loop over walkers that needs scratch arrays runs over this many blocks of walkers
# (fewer where there are fewer walkers); every walker's numbers depend on the walker only, so how
# the blocks are shared out changes no result. (The thread count itself, from
# numba.get_num_threads(), would keep the kernels out of numba's on-disk cache.)
WALKER_BLOCKS = 1024
# The blocks are claimed, not assigned: numba splits a parallel loop statically (the OpenMP layer
# gives each thread a contiguous run of iterations; its chunk-size setting does not rebalance them,
# tested), so the slowest CPU paced every loop. On a lent 16-CPU machine whose CPUs ran at 0.54 to
# 1.0 of their lone rate with all busy (scripts/cpu_scaling.py's crowd probe), 16 threads made
# pattern search 9.1x one thread, about 16 x 0.54. Instead `WORKERS` loop iterations each take the
# next unclaimed block (claim: an atomic add) until none are left, allocating their scratch once (a
# malloc and free per walker in every thread contend in the allocator). More workers than threads:
# the static split hands each thread several, run one after another, the later ones finding the
# blocks gone.
WORKERS = 256


@intrinsic
def _fetch_add_one(typingctx, counter):
    """counter[0] += 1, atomically; the value before."""
    if not (isinstance(counter, types.Array) and counter.dtype == types.int64 and counter.ndim == 1):
        return None

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, signature.args[0], ary, [context.get_constant(types.intp, 0)])
        return builder.atomic_rmw("add", ptr, ir.Constant(ir.IntType(64), 1), "monotonic")

    return types.int64(counter), codegen


@njit(nogil=True, cache=True)
def claim_counter():
    """A fresh counter for claim (one per parallel loop)."""
    counter = np.empty(1, dtype=np.int64)
    counter[0] = 0
    return counter


@njit(nogil=True, cache=True)
def claim(counter):
    """The next unclaimed block number (numbers past the last block mean: none left)."""
    return _fetch_add_one(counter)


@njit(nogil=True, cache=True)
def thread_blocks(n):
    """How many blocks of walkers a parallel loop over n walkers runs (see WALKER_BLOCKS)."""
    return max(1, min(n, WALKER_BLOCKS))


@njit(nogil=True, cache=True)
def block_range(k, blocks, n):
    """Walkers [lo, hi) of block k of `blocks` over n walkers (contiguous, sizes differing by <= 1)."""
    return k * n // blocks, (k + 1) * n // blocks


@njit(nogil=True, cache=True)
def claim_walkers(counter, blocks, n):
    """Walkers [lo, hi) of the next unclaimed block of `blocks` over n walkers (claim); (n, n), an
    empty range, once none is left (blocks <= n: thread_blocks, so no block is empty)."""
    k = claim(counter)
    return block_range(k, blocks, n) if k < blocks else (n, n)


@njit(nogil=True, cache=True)
def load_row(X, i, x):
    """x[:] = X[i] (x: the float64 scratch a walker's objective reads and its trials patch)."""
    for j in range(X.shape[1]):
        x[j] = X[i, j]


def widened(X, i, x):
    """Row i of X as the float64 point an objective reads: X[i] itself where X is float64 (no
    copy: a move's copy of its 30 coordinates cost ~14 ns, PSO classic's whole move ~70), else
    copied into the float64 scratch x (compiled code only)."""
    raise NotImplementedError("widened() runs in compiled code only")  # pragma: no cover


@overload(widened, jit_options=dict(nogil=True, cache=True))
def _widened(X, i, x):
    if isinstance(X, types.Array) and X.dtype == types.float64 and X.layout == "C":
        return lambda X, i, x: X[i]

    def copy(X, i, x):
        load_row(X, i, x)
        return x
    return copy


@njit(**PJIT)
def evaluate_rows(fid, X, out, bad):
    """out[i] = f(X[i]) for every row, NaN/inf mapped to +inf (counted in bad[i]); rows in parallel."""
    n, d = X.shape
    blocks = thread_blocks(n)
    counter = claim_counter()
    for worker in prange(min(WORKERS, blocks)):  # each claims blocks of walkers until none are left
        x = np.empty(d, dtype=np.float64)
        i0, i1 = claim_walkers(counter, blocks, n)
        while i0 < i1:
            for i in range(i0, i1):
                load_row(X, i, x)
                out[i] = functions.counted(fid, x, bad, i)
            i0, i1 = claim_walkers(counter, blocks, n)


@njit(**PJIT)
def draw_uniform_points(X, f, lower, upper, fid, seed, single, bad, walker0=0):
    """Row i of X uniform in the box (Philox stream INIT, walker walker0 + i, draw 0 on: the cuda
    engine's initial points) and f[i] its value (non-finite values counted in bad[i])."""
    n, d = X.shape
    blocks = thread_blocks(n)
    counter = claim_counter()
    for worker in prange(min(WORKERS, blocks)):  # each claims blocks of walkers until none are left
        x = np.empty(d, dtype=np.float64)
        row = np.empty(d, dtype=X.dtype)
        i0, i1 = claim_walkers(counter, blocks, n)
        while i0 < i1:
            for i in range(i0, i1):
                philox.fill_uniform(seed, walker0 + i, philox.STREAM_INIT, np.uint64(0), lower, upper, row,
                                    single)
                for j in range(d):
                    X[i, j] = row[j]
                    x[j] = row[j]
                f[i] = functions.counted(fid, x, bad, i)
            i0, i1 = claim_walkers(counter, blocks, n)


def default_threads() -> int:
    """Every core numba may use (NUMBA_NUM_THREADS, else the machine's core count)."""
    return int(numba.config.NUMBA_NUM_THREADS)


def check_threads(threads) -> int:
    """A valid thread count: None -> all cores; ConfigError for anything else out of range."""
    limit = default_threads()
    if threads is None:
        return limit
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or not 1 <= threads <= limit:
        raise ConfigError(f"threads must be an integer from 1 to {limit} (the cores numba may use "
                          f"here), got {threads!r}")
    return int(threads)


class NumbaAlgorithm(Algorithm):
    """Common machinery: function id, thread count, seeding, host-side best update."""

    single: bool = False  # float32 run: 24-bit uniforms, 4 per Philox block (as the cuda engine)
    group_params: ClassVar[tuple[str, ...]] = ()  # kernels take one parameter set per run (tuner falls back)
    threads: ClassVar[int | None] = None  # None = all cores; set per instance by the engine
    fused: ClassVar[bool] = True  # a compiled kernel runs whole iterations (False: reference code)
    # global index of walker 0: 0, except in a shard of a run split over devices (solvers/shards.py);
    # the Philox streams are keyed by the global walker index, as on the cuda engine
    walker0: int = 0
    keyed_by_walker: ClassVar[bool] = True
    # None: runs_wide's rule picks the path of a grouped algorithm; True/False force one (tests)
    wide: ClassVar[bool | None] = None

    def __init__(self, problem, params, *, xp=np, dtype=np.float64, threads: int | None = None):
        super().__init__(problem, params, xp=np, dtype=dtype)
        self.fid = functions.function_id(problem)
        self.threads = check_threads(threads if threads is not None else type(self).threads)
        self.single = self.dtype == np.float32
        self.lower = np.ascontiguousarray(problem.lower, dtype=self.dtype)
        self.upper = np.ascontiguousarray(problem.upper, dtype=self.dtype)
        self.span = self.upper - self.lower

    def runs_wide(self, groups: int) -> bool:
        """Whether a grouped algorithm (swarms, populations) runs its wide path: one iteration per
        launch, a parallel loop over every walker, then the per-group reductions. The rule: fewer
        groups than threads (a parallel loop over groups would leave threads idle) and at least
        WIDE_MIN_WORK_PER_THREAD coordinates (walkers x dimension) per thread in an iteration (a
        small swarm runs faster on one thread than with a launch per iteration). Otherwise a launch
        runs a whole chunk of iterations with ``prange`` over groups. Both paths give bit-identical
        runs."""
        if self.wide is not None:
            return bool(self.wide)
        work = self.total_walkers() * self.problem.dim
        return groups < self.threads and work >= WIDE_MIN_WORK_PER_THREAD * self.threads

    def use_threads(self) -> None:
        """Set this run's thread count for the calling thread's next parallel kernels."""
        numba.set_num_threads(self.threads)

    def iteration_slices(self, state: State, work: float):
        """None for a fused kernel: a call runs whole iterations (the reference's slices would run
        its array code on the kernel's state); the reference's slices where only evaluation is
        compiled."""
        return super().iteration_slices(state, work) if not self.fused else None

    def seed_from(self, rng) -> int:
        """The 64-bit Philox key of a run (the cuda engine's rule: same seed -> same key)."""
        return int(rng.raw_seed()) & 0xFFFFFFFFFFFFFFFF

    def evaluate(self, state: State, X):
        """Values of the rows of X through the compiled function (counted), in the run's dtype.

        max_evals as the reference's ``evaluate`` applies it: only the first rows the budget allows
        are evaluated and counted, the others read +inf (the hybrid's Nelder-Mead polishing)."""
        self.use_threads()
        X = np.ascontiguousarray(X)
        rows = int(X.shape[0])
        left = self.evals_left(state)
        if left is not None and self.groups == 1:
            rows = min(rows, left)
        out = np.full(X.shape[0], np.inf, dtype=np.float64)
        bad = self.nonfinite_counter(rows)
        evaluate_rows(self.fid, X[:rows], out[:rows], bad)
        state.evals += rows
        self.tally_nonfinite(state, bad)
        return out.astype(self.dtype)

    # --- max_evals as a hard cap: evals_left, capped_iterations and steps_on come from the
    # reference Algorithm (the cuda engine's rule, shared) ------------------------------------------
    def step_fused(self, state: State, iterations: int, launch) -> None:
        """Step a grouped algorithm's fused kernel under max_evals as a hard cap (the cuda engine's
        split): the full iterations and the one the budget cuts in ONE launch,
        ``launch(state, iterations, last_active)``, the cut iteration made by the first
        `last_active` walkers only."""
        n = self.total_walkers()
        full, last = self.capped_iterations(state, int(iterations), n)
        if full or last is not None:
            launch(state, full + (1 if last is not None else 0), n if last is None else last)

    def cap_drawn(self, state: State, f: np.ndarray, bad: np.ndarray) -> int:
        """Fresh points just evaluated (one per walker, f and its per-walker NaN counts `bad`):
        those past max_evals set to +inf, uncounted (the cuda engine's cap_values); adds the
        counted evaluations and their non-finite values to the state, returns how many counted."""
        n = int(f.shape[0])
        left = self.evals_left(state)
        counted = n if left is None or left >= n else left
        f[counted:] = np.inf
        state.evals += counted
        self.tally_nonfinite(state, bad[:counted])
        return counted

    @staticmethod
    def nonfinite_counter(n: int) -> np.ndarray:
        """Per-walker (or per-group) counts a kernel adds its NaN/inf evaluations to."""
        return np.zeros(int(n), dtype=np.int64)

    @staticmethod
    def tally_nonfinite(state: State, bad: np.ndarray) -> None:
        """Add a kernel's non-finite evaluations to the run's count (what the numpy engine counts)."""
        state.nonfinite = int(state.nonfinite) + int(bad.sum())

    def replaces_best(self, state: State, value, i: int) -> bool:
        """Whether walker i's `value` replaces the run's best (recording i if so): a smaller value,
        or the same (finite) value at a smaller walker index, or at the same walker where
        rows_move_at_ties (Algorithm). Folded once a launch from rows whose values never rise, this gives the
        run's smallest (value, walker) pair and its point however the iterations are split into
        launches; folding on the value alone, a tie went to whichever walker reached it in an
        earlier launch (the step function's plateaus: best_x differed between 1 launch of 30
        iterations and 30 of 1)."""
        best_f, best_i = state.best_f, state.best_i
        if value < best_f:
            pass
        elif not (value == best_f and np.isfinite(value) and best_i is not None):
            return False
        elif not (i < best_i or (self.rows_move_at_ties and i == best_i)):
            return False
        state.best_i = int(i)
        return True

    def fold_best(self, state: State, X, f) -> None:
        """Fold the first minimum of f (n,) at rows of X into state.best_x/best_f (replaces_best)."""
        i = int(np.argmin(f))
        if self.replaces_best(state, f[i], i):
            state.best_f = np.asarray(f[i], dtype=self.dtype)
            state.best_x = np.array(X[i], dtype=self.dtype)



def with_compiled_evaluation(reference: type) -> type:
    """The reference class with every evaluation through the compiled, multi-core objective.

    Same random stream and same arithmetic as the numpy engine (results equal up to the rounding
    of the compiled sums); used where a fused per-walker kernel does not exist yet.
    """

    compiled = type(f"{reference.__name__}Numba", (NumbaAlgorithm, reference),
                    {"__doc__": f"{reference.__name__} with compiled multi-core evaluation.",
                     "__module__": __name__, "fused": False,
                     "keyed_by_walker": False})  # the reference's sequential generator
    return compiled
