"""What every algorithm implements, on every engine.

An algorithm is built for one problem, one validated Params instance, an array module and a dtype.
``init(rng)`` returns a State holding all walkers; ``step(state, iterations)`` advances every walker
by that many iterations and counts every evaluation in ``state.evals``; ``snapshot(state, sample)``
copies what is drawn to the host. Numpy-engine implementations double as the readable reference;
the cupy engine runs the same class with ``xp = cupy``; the cuda engine provides classes with the
same interface in ``solvers/cuda``.
"""
from __future__ import annotations

import abc
import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar, Iterator

import numpy as np

from ..arrays import to_numpy
from ..device_constants import box_arrays
from ..params import specs

AUTO_ITERATIONS = 50  # "auto" populations are sized so that a run gets at least this many iterations
FEW_ITERATIONS = 20  # fewer iterations than this for the budget: the result carries a warning
from ..problems.base import Problem


@dataclass
class State:
    """All walkers of a run. Subclasses add algorithm-specific arrays.

    ``X`` (n, d) are the walkers' current points and ``f`` (n,) their values, as arrays of the
    engine's module; ``best_x``/``best_f`` the best point ever evaluated (``best_f`` kept on the
    device as a 0-d array so that no step has to copy to the host).
    """

    X: Any
    f: Any
    best_x: Any
    best_f: Any
    evals: int = 0
    iteration: int = 0
    nonfinite: Any = 0  # counted evaluations that gave NaN or +-inf (a device scalar on a GPU)
    # only when the walkers form independent runs of a parameter grid (Algorithm.set_groups):
    group_best_f: Any = None  # (groups,) best value each run has evaluated
    group_reach: Any = None  # (groups,) its evaluations when it first reached the target; -1: not yet
    # the walker (row) whose point best_x is, where an engine folds the best once a launch (numba;
    # the cuda engine keeps it on the device): ties between walkers go to the smaller index
    best_i: Any = None


@dataclass
class SnapshotData:
    """What an algorithm hands the runner for one snapshot (host arrays)."""

    positions: np.ndarray
    fitness: np.ndarray
    extras: dict = field(default_factory=dict)
    overlays: dict = field(default_factory=dict)


def iterations_before_budget(left: int, iterations: int, most_per_iteration: float) -> int:
    """Of `iterations`, how many may run with `left` evaluations of budget so that each starts
    before the budget is spent: all while it surely allows them, then one at a time (0 when spent)."""
    if left <= 0:
        return 0
    return int(max(1, min(int(iterations), int(left) // max(1, int(most_per_iteration)))))


class Algorithm(abc.ABC):
    """Base class: subclasses set the class attributes and implement init/step/snapshot."""

    name: ClassVar[str]
    title: ClassVar[str]
    Params: ClassVar[type]
    reference: ClassVar[str]  # the seed paper / original method it follows
    walker_word: ClassVar[str] = "walkers"  # "particles", "chains", ... for labels
    # evaluations pass through ``evaluate``, which counts NaN/inf values (state.nonfinite); the numba
    # kernels count theirs too; engines whose kernels evaluate uncounted (cuda) set False
    counts_nonfinite: ClassVar[bool] = True
    # random streams keyed by the walker's global index (Philox on cuda/numba): a shard of a split
    # run then draws with ``walker0``; False: one sequential generator (solvers/shards.py: ShardRNG)
    keyed_by_walker: ClassVar[bool] = False
    # How a run splits over devices (solvers/shards.py), declared on the reference class: the Params
    # field counting the independent units (None: the run cannot be split); see split_* below.
    split_field: ClassVar[str | None] = None
    # Parameters that may take a different value in each group of walkers, so that a whole grid of
    # settings x seeds runs as one batch (solvers/tune). Empty: the tuner falls back to one run per
    # (setting, seed); engines whose kernels take no per-group values set it empty again.
    group_params: ClassVar[tuple[str, ...]] = ()
    # Whether a walker's point can change while its value stays the same (pattern search and DE take
    # an equal trial). Engines that fold the run's best once a launch (numba, cuda) then let a fold at
    # the same value and walker take the newer point, as one longer launch would read it; rows that
    # keep the first point of their value (personal bests, chain bests, kept vertices) leave it False.
    rows_move_at_ties: ClassVar[bool] = False
    # Parameters a grid may not vary, with why (the tuner refuses them with this reason).
    structural_params: ClassVar[dict[str, str]] = {
        "walkers": "it sets the size of every run; tune it by hand, a grid compares settings at one size"}
    # Parameters the algorithm replaces by fitted values under some setting of another field:
    # name -> (field, value under which it is fitted, value under which it is used as given).
    # A grid over such a parameter switches the field (or is refused where the user set it).
    fitted_params: ClassVar[dict[str, tuple[str, str, str]]] = {}
    # True where a compiled kernel runs a whole chunk of iterations per launch and the run's best
    # is known only when the launch ends (numba, cuda): what it records as the evaluations at which
    # a run reached a target is the end of a chunk, so a tuning grid finds the iteration by running
    # that chunk again (solvers/tune/reach.py). False: the array code records it per iteration.
    fused: ClassVar[bool] = False

    def __init__(self, problem: Problem, params, *, xp=np, dtype=np.float64):
        self.problem = problem
        self.params = params
        self.xp = xp
        self.dtype = np.dtype(dtype)
        # shared read-only device arrays on a GPU engine (device_constants): never write them in place
        self.lower, self.upper, self.span = box_arrays(xp, problem.lower, problem.upper, self.dtype)
        self.requested = params  # as the user gave them; self.params holds the effective values
        self.groups = 1  # independent runs the walkers form (set_groups); each has max_evals
        self._row_values: dict = {}  # per-group parameter values repeated per walker row, (n, 1)
        self._reach_target = None
        self.plan(None)

    # --- the run's budget ----------------------------------------------------------------------
    def plan(self, budget) -> None:
        """Fit the "auto" parameters to the run's budget (a config.Budget, or None when unknown).

        The runner calls this before ``init``; without it (direct use, benches) "auto" resolves to
        the seed papers' settings. Sets ``self.params`` (effective values), ``self.max_evals`` (the
        hard cap that ``evaluate`` enforces) and ``self.warnings``.
        """
        self.budget = budget
        self.max_evals = getattr(budget, "max_evals", None)
        self.params = self.resolve(self.requested)
        self.warnings = self.budget_warnings()

    def resolve(self, params):
        """Params with every "auto" (0) field replaced by ``auto_values``' choice."""
        auto = [s.name for s in specs(type(params)) if s.auto and getattr(params, s.name) == 0]
        if not auto:
            return params
        chosen = self.auto_values(params, self.max_evals)
        return dataclasses.replace(params, **{name: chosen[name] for name in auto})

    def auto_values(self, params, max_evals: int | None) -> dict:
        """Values of the auto-capable fields for an evaluation budget (None: the paper's values)."""
        return {}

    def auto_count(self, paper: int, per_walker: float, lo: int = 1,
                   iterations: int = AUTO_ITERATIONS) -> int:
        """An "auto" walker count: as many as keep ``iterations`` iterations within max_evals
        (``per_walker`` evaluations per walker and iteration), at least ``lo``, at most the paper's
        ``paper``; the paper's count when no evaluation budget is known."""
        if self.max_evals is None:
            return int(paper)
        return int(min(paper, max(lo, self.max_evals // (iterations * per_walker))))

    def budget_warnings(self) -> tuple[str, ...]:
        """A warning when the evaluation budget allows fewer than FEW_ITERATIONS iterations."""
        if self.max_evals is None:
            return ()
        iterations = self.max_evals / max(1.0, self.evals_per_iteration())
        if iterations >= FEW_ITERATIONS:
            return ()
        # 'use fewer walkers' is no advice when there are already as few as the algorithm takes
        # (a 100,000-D pattern search with 1 walker, a PSO swarm of 2): then only the budget helps
        least = self.least_walkers()
        advice = (f"use fewer {self.walker_word} (or 'auto') or a larger budget"
                  if self.total_walkers() > least else
                  "that is already the fewest it takes: give a larger budget")
        return (f"the budget of {self.max_evals:,} evaluations allows only about {iterations:.2g} "
                f"iterations of {self.total_walkers():,} {self.walker_word}; {advice}",)

    def least_walkers(self) -> int:
        """The smallest total_walkers() the declared limits allow: the least walkers of one group
        (swarm, population) in one group."""
        spec = next((s for s in specs(type(self.params)) if s.name == "walkers"), None)
        return max(1, int(spec.lo)) if spec is not None and spec.lo is not None else 1

    # --- interface ---------------------------------------------------------------------------
    @abc.abstractmethod
    def init(self, rng) -> State:
        """Draw the initial walkers, evaluate them (counted) and return the state."""

    @abc.abstractmethod
    def step(self, state: State, iterations: int) -> None:
        """Advance all walkers by `iterations` iterations, counting every evaluation."""

    def init_and_step(self, rng, iterations: int) -> State:
        """init then step: a whole run with no look in between (an engine may fuse the two)."""
        state = self.init(rng)
        if iterations > 0:
            self.step(state, iterations)
        return state

    def warm_kernels(self, state: State) -> None:
        """Compile (untimed) the code a run reaches only after its first iteration, on an engine
        that compiles at first use (numba, CuPy): the measuring rule's warm-up calls this after its
        throwaway state's first iteration (solvers/measure.py), so that such a compile does not land
        in a timed window (e.g. MDS's iteration cut by max_evals). Works on copies: changes neither
        `state` nor this object. Default: nothing first runs later."""

    def snapshot(self, state: State, sample: np.ndarray) -> SnapshotData:
        """Host copy of the sampled walkers; subclasses add extras and overlays."""
        return SnapshotData(positions=to_numpy(state.X[sample]), fitness=to_numpy(state.f[sample]))

    def total_walkers(self) -> int:
        """How many points move in parallel (PSO/DE: walkers x swarms)."""
        return int(self.params.walkers)

    # Interpreter and small per-run arrays (the best point, group bests, RNG state) not proportional
    # to the walkers; measured at well under this by tests/test_memory_estimates.py.
    FIXED_MEMORY_BYTES: ClassVar[int] = 1 << 20

    def memory_words_per_walker(self) -> float:
        """Peak array elements (of the run's dtype) one walker needs during init and step, counting
        every temporary; subclasses declare theirs, checked against tracemalloc in the tests."""
        return 6.0 * (self.problem.dim + 2)

    def memory_extra_bytes(self) -> int:
        """Peak bytes not proportional to the walkers (the hybrid's Nelder-Mead simplices, ...)."""
        return 0

    def memory_estimate(self) -> int:
        """Bytes the run needs at most, checked before the first allocation (the engine asks)."""
        words = self.total_walkers() * self.memory_words_per_walker()
        return int(words * self.dtype.itemsize) + int(self.memory_extra_bytes()) + self.FIXED_MEMORY_BYTES

    # --- max_evals between iterations ------------------------------------------------------------
    # A run stops at the first iteration boundary at or past max_evals (evaluate() cuts the last
    # iteration's evaluations). No iteration starts once the budget is spent, so how a run's steps
    # are chunked (the runner's frame-sized chunks, a split run's shards) never changes its numbers.
    # A shard of a split run leaves this to the split run (its max_evals is only its share of the
    # last iteration's cut: solvers/shards.py), which steps all shards alike.
    stops_at_budget = True

    def budget_spent(self, state: State) -> bool:
        """max_evals reached (every group's, in a tuning grid): no further iteration starts."""
        if self.max_evals is None or not self.stops_at_budget:
            return False
        return int(state.evals) >= int(self.max_evals) * max(1, self.groups)

    # The fused engines' hard cap (cuda, numba: their kernels run whole chunks of iterations, so the
    # host splits a chunk into full iterations and the one the budget cuts; the reference cuts in
    # evaluate() instead)
    def evals_left(self, state: State) -> int | None:
        """Evaluations max_evals still allows (None: no evaluation budget); in a grid, to each run
        (every run makes the same number of evaluations: state.evals is groups times that)."""
        if self.max_evals is None:
            return None
        return max(0, int(self.max_evals) - int(state.evals) // max(1, self.groups))

    def capped_iterations(self, state: State, iterations: int, per_iteration: int) -> tuple[int, int | None]:
        """(full iterations, evaluations of one cut iteration after them, None for none) for a chunk
        of `iterations` iterations of exactly `per_iteration` evaluations each (in a grid: of each
        run, and the cut iteration's count is each run's). A shard of a split run (stops_at_budget
        False: solvers/shards.py) runs the run's cut iteration even where its own share of it is 0:
        its walkers move (or build trials, or halve steps) as in the unsplit run, none evaluates."""
        left = self.evals_left(state)
        if left is None or left >= per_iteration * iterations:
            return int(iterations), None
        full = left // per_iteration
        cut = left - full * per_iteration
        if cut == 0 and self.stops_at_budget:
            return int(full), None
        return int(full), int(cut)

    def capped_chains(self, state: State, iterations: int, chains: int) -> tuple[int, int]:
        """The hard cap for one proposal per chain per iteration (annealing's fused kernels):
        (iterations, chains that make the last one's proposal). Full iterations while the budget
        allows them; the one that would pass it is made by the first `left` chains only (the
        others skip it, uncounted); in a grid, `chains` and the cut are each run's."""
        left = self.evals_left(state)
        if left is None or left >= chains * iterations:
            return int(iterations), int(chains)
        if left >= chains:
            return left // chains, int(chains)
        return 1, int(left)

    def steps_on(self, state: State) -> bool:
        """Whether a step may still start an iteration: budget left, or a shard (whose iterations the
        split run's budget decides: it runs a cut iteration with nothing left to evaluate)."""
        return self.evals_left(state) != 0 or not self.stops_at_budget

    def evals_per_iteration(self) -> float:
        """Expected evaluations per iteration, for budgeting chunks (upper estimate is fine)."""
        return float(self.total_walkers())

    def iteration_work(self) -> float:
        """Coordinates evaluated in one iteration (evaluations x d): what one iteration costs."""
        return self.evals_per_iteration() * self.problem.dim

    def iteration_slices(self, state: State, work: float) -> Iterator[None] | None:
        """One iteration split into slices of about `work` coordinates evaluated each: a generator
        that yields between slices (the state consistent there: points, values and best agree,
        every evaluation counted; best updated with reach=False, so that a grid's reached_at stays
        the iteration's) and ends when the iteration is complete. None where an iteration cannot
        be split; the runner then warns when one iteration takes long. A batched tuning grid
        slices too (solvers/tune/stepping.py), so Stop waits one slice there."""
        return None

    def set_params(self, state: State, params) -> None:
        """Apply parameters changed mid-run; only fields declared live differ from self.params."""
        self.requested = params
        self.params = self.resolve(params)

    # --- split over devices (solvers/shards.py) ------------------------------------------------
    @classmethod
    def split_refusal(cls, params) -> str | None:
        """Why a run with these (effective) parameters cannot be split; None if it can."""
        if cls.split_field is None:
            return "its walkers are coupled and its kernels do not take a walker offset yet"
        return None

    @classmethod
    def split_unit_walkers(cls, params) -> int:
        """Walkers per unit of ``split_field`` (PSO/DE: a swarm's walkers; otherwise 1)."""
        return 1

    split_after_init = None  # (shard algorithm, its state, params before init, field, all values f)

    def exchange_best(self, state: State) -> None:
        """Where a step takes the best point of all walkers (SA sync's broadcast): a shard of a
        split run replaces this to make the best of every shard its own first."""

    def take_best(self, state: State, x, f) -> None:
        """Make host point x with value f the run's best (a shard receiving the best of all; its
        walker is another shard's, index -1: only a strictly smaller value replaces it)."""
        state.best_x = self.xp.asarray(np.asarray(x), dtype=self.dtype)
        state.best_f = self.xp.asarray(np.asarray(f), dtype=self.dtype)
        state.best_i = -1

    # --- helpers for subclasses --------------------------------------------------------------
    def evaluate(self, state: State, X):
        """Evaluate rows of X, count them, map NaN/inf to +inf so they never become the best.

        max_evals is a hard cap: when fewer evaluations remain than X has rows, all rows are
        computed (one array call) but only the first ones that the budget allows are counted and
        kept; the others read +inf, so no algorithm accepts them or reports them as the best.
        With independent groups (set_groups) the cap holds for each group's block of rows. Once the
        cap is reached nothing is computed: every row reads +inf (the rest of an iteration the cap
        cut, which the runner finishes sliced or not, costs no evaluation).
        """
        if self.groups == 1 and self.max_evals is not None and state.evals >= self.max_evals:
            return self.xp.full(int(X.shape[0]), np.inf, dtype=self.dtype)
        raw = self.problem.evaluate(X).astype(self.dtype, copy=False)
        xp = self.xp
        bad = ~xp.isfinite(raw)
        f = xp.where(bad, xp.asarray(xp.inf, dtype=raw.dtype), raw)  # never taken as the best
        if self.groups > 1:
            return self._evaluate_groups(state, bad, f)
        rows = int(X.shape[0])
        if self.max_evals is not None and state.evals + rows > self.max_evals:
            rows = max(0, self.max_evals - state.evals)
        # counted on the device (no host copy per step); the runner reads it with each snapshot
        state.nonfinite = state.nonfinite + xp.count_nonzero(bad[:rows])
        f[rows:] = np.inf
        state.evals += rows
        return f

    def _evaluate_groups(self, state: State, bad, f):
        """evaluate's budget, per group: each group's first rows up to its own max_evals count."""
        groups = self.groups
        per = int(f.shape[0]) // groups
        keep = per
        done = state.evals // groups  # every group evaluates the same number of rows per call
        if self.max_evals is not None:
            keep = max(0, min(per, self.max_evals - done))
        if keep < per:
            grouped_f = f.reshape(groups, per)
            grouped_f[:, keep:] = np.inf
            bad = bad.reshape(groups, per)[:, :keep]
        state.nonfinite = state.nonfinite + self.xp.count_nonzero(bad)
        state.evals += keep * groups
        return f

    # --- independent groups with their own parameters (a tuning grid) ---------------------------
    def params_for_groups(self, params, groups: int):
        """`params` (one run's effective values) for `groups` such runs side by side."""
        raise NotImplementedError(f"{self.name} cannot run independent groups in one batch")

    def group_refusal(self) -> str | None:
        """Why a grid with these (effective) parameters cannot run as groups, although the varied
        parameters are in group_params (the tuner then runs one run per setting and seed, saying
        this); None where it can."""
        return None

    def set_groups(self, groups: int, values: dict, target: float | None = None) -> None:
        """Treat the walkers as `groups` independent runs, call before ``init``: each group of
        rows has its own evaluation budget (max_evals), its own best (state.group_best_f) and its
        own values of the parameters in `values` (name -> sequence of `groups` numbers, each read
        once here and repeated over the group's rows). `target`: record in state.group_reach the
        group's evaluations when its best first gets to or below it."""
        xp = self.xp
        n = self.accept_groups(groups, values, target)
        self._row_values = {
            name: xp.asarray(np.repeat(np.asarray(v, dtype=np.float64), n // groups)[:, None],
                             dtype=self.dtype) for name, v in values.items()}

    def watch_target(self, target: float) -> None:
        """A run alone (one group): record in state.group_reach its evaluations at the end of the
        iteration in which its best first gets to or below `target`, as a grid's groups do. Call
        before ``init``; the array code only (a fused kernel sees its best at launch ends)."""
        self._reach_target = target

    def accept_groups(self, groups: int, values: dict, target: float | None) -> int:
        """set_groups' checks and bookkeeping (every engine's): returns the walkers."""
        n = self.total_walkers()
        if n % groups:
            raise ValueError(f"{n} walkers do not split into {groups} groups")
        unknown = set(values) - set(self.group_params)
        if unknown:
            raise ValueError(f"{self.name} cannot vary {sorted(unknown)} between groups")
        self.groups = int(groups)
        self._reach_target = target
        return n

    def row_value(self, name: str):
        """Parameter `name`: the run's number, or its per-group values as an (n, 1) column."""
        column = self._row_values.get(name)
        return getattr(self.params, name) if column is None else column

    def _update_group_best(self, state: State, f, reach: bool = True) -> None:
        from .groups import group_argmin  # noqa: PLC0415 - groups imports nothing from here

        xp = self.xp
        if state.group_best_f is None:
            state.group_best_f = xp.full(self.groups, xp.inf, dtype=self.dtype)
            state.group_reach = xp.full(self.groups, -1, dtype=xp.int64)
        state.group_best_f = xp.minimum(state.group_best_f, group_argmin(f, self.groups)[1])
        if reach and self._reach_target is not None:
            hit = (state.group_best_f <= self._reach_target) & (state.group_reach < 0)
            state.group_reach = xp.where(hit, state.evals // self.groups, state.group_reach)

    def uniform_points(self, rng, n: int):
        """n points drawn uniformly in the problem's box."""
        return rng.uniform(self.lower, self.upper, (n, self.problem.dim), self.dtype)

    def update_best(self, state: State, X, f, reach: bool = True) -> None:
        """Keep state.best_x/best_f as the best of (X, f) and the previous best, on the device.
        `reach` False (a slice of an iteration): a grid's runs record when they reached the target
        at the iteration's end only, so slicing never moves a run's reached_at."""
        xp = self.xp
        i = int(xp.argmin(f)) if xp is np else xp.argmin(f)
        candidate = f[i]
        better = candidate < state.best_f
        state.best_f = xp.where(better, candidate, state.best_f)
        state.best_x = xp.where(better, X[i], state.best_x)
        if self._row_values or self.groups > 1 or self._reach_target is not None:
            self._update_group_best(state, f, reach)

    def clip(self, X):
        """Bound handling by clipping to the box."""
        return self.xp.clip(X, self.lower, self.upper)

    @classmethod
    def param_specs(cls):
        return specs(cls.Params)
