"""Parallel simulated annealing with many Markov chains: asynchronous, synchronous and hybrid.

Ferreiro, Garcia, Lopez-Salas & Vazquez, "An efficient implementation of parallel simulated
annealing algorithm in GPUs" (seed 002), Sec. 2, and the authors' code for it, CUSIMANN
(cusimann.cuh), where the seed's extraction lost formulas and numbers. One chain per walker:

- Neighbour (seed Sec. 2.1 step 2, CUSIMANN's kernel): pick one coordinate j uniformly; with
  probability 1/2 draw its new value uniformly between x_j and the lower bound, otherwise uniformly
  between x_j and the upper bound. ``width`` < 1 shrinks both intervals towards x_j (width = 1 is
  CUSIMANN's move). The move never leaves the box; the clip only guards against rounding.
- Metropolis acceptance (seed step 3): accept iff u < exp(-(f_new - f) / T), u uniform in [0, 1);
  an objective that returns NaN/inf at the proposal is never accepted.
- Geometric cooling (seed step 5): T <- alpha T after every level of ``chain_length`` proposals per
  chain; levels run while T > T_min (CUSIMANN's do-while). One iteration here = one proposal (one
  evaluation) per chain, so a level lasts ``chain_length`` iterations.

Variants (seed Sec. 2.2):
- ``async``: independent chains, the best over all chains is reported (seed's V1).
- ``sync``: after every temperature level every chain restarts from the best point found so far
  by all chains (seed's V2, Sec. 2.2.2). CUSIMANN broadcasts the best of the chains' final states;
  we broadcast the best point ever evaluated, which is never worse.
- ``hybrid``: SA (sync or async, ``hybrid_base``) until T reaches T_min, then batched Nelder-Mead
  (coefficients 1, 2, 1/2, 1/2) polishes the ``polish_points`` best chains' points, one NM
  iteration per iteration, every evaluation counted (seed Sec. 4.2, Table 10; CUSIMANN polishes
  with NLopt). The polished best vertices are written back into those chains' rows, so they are
  drawn moving. The run is done when every polishing simplex has collapsed.

When T reaches T_min in async/sync mode the schedule restarts at T0 (reheating) with the chains
where they are (sync: at the best point) and the best kept, so time-limited runs keep searching;
the seed stops there instead.

Schedule (``schedule``): ``fixed`` is the seed's, as given (T0 = 1000, T_min = 0.01, alpha = 0.99,
100 proposals per level: about 114,600 proposals per chain, far beyond any interactive budget).
``auto`` (the default; our choice, after the usual practice and scipy's dual_annealing) fits it to
the run: T0 = std(f over the initial points) / -ln(0.8), so that an uphill move of one standard
deviation is first accepted with probability 0.8; the schedule cools geometrically to
T0 * AUTO_COOLING_RANGE over the iterations the budget (max_evals or max_iters) allows, in at least
AUTO_LEVELS levels (the level shortened from ``chain_length`` if needed), and ends there without a
reheat; the hybrid keeps ``polish_share`` of the budget for Nelder-Mead. Also our addition under
``auto``: the move's width shrinks as sqrt(T / T0), so the last levels search locally (the seed's
move always reaches the bound). With no evaluation or iteration budget (time-limited runs) only T0
and T_min = T0 * AUTO_COOLING_RANGE are fitted, alpha and the level length are kept, and the
schedule reheats. The fitted values are the effective parameters a run reports, so each stays
within its declared limits (a result's params are given back: make_params, a configuration file,
the window): T0 is held to t0's (the fit is scale-free for spreads of f of about 2e-10 to 2e11
only), the fall is smaller where T_min would come below t_min's, a budget of fewer than 5 levels
cools by alpha's lower limit a level, and one of more than about 2e6 levels lengthens the level
rather than pass alpha's upper limit.

Start points are uniform in the box (CUSIMANN uses a regular grid, which degenerates in high
dimension).

Tuning grids (solvers/tune, ``set_groups``): the chains split into equal groups, group g being the
run of (setting, seed) g, each with its own alpha, chain length, T0 and T_min (``group_params``)
and its own schedule (temperature, level, position in the level, rounds, acceptance counts: a
``GroupSchedule``), its own random stream (GroupedRNG) and its own best point, which sync
broadcasts to that group's chains only. The schedule does not depend on the values, so it is kept
on the host as (groups,) arrays; the chains' arrays are updated for every group at once (one
(groups, chains) view, no loop over groups). A group computes exactly the numbers of its run alone.
Grids run the fixed schedule: "auto" fits alpha, the chain length, T0 and T_min to each run's
budget and initial values, so a grid over any of them switches to ``schedule fixed`` (or is refused
where the user asked for auto: ``fitted_params``). The hybrid polishes the best chains of the whole
run with Nelder-Mead: its grids run one run per (setting, seed) (``group_refusal``).
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..arrays import to_numpy
from ..errors import ConfigError
from ..params import MAX_WALKERS, param, specs
from . import nelder_mead
from .base import Algorithm, SnapshotData, State
from .groups import group_argmin
from .registry import register_algorithm

VARIANTS = ("async", "sync", "hybrid")
SCHEDULES = ("auto", "fixed")
AUTO_ACCEPTANCE = 0.8  # initial acceptance of an uphill move of one std(f) under the auto schedule
AUTO_COOLING_RANGE = 1e-9  # auto schedule: T falls from T0 to T0 * this over the budget
AUTO_LEVELS = 100  # auto schedule: at least this many temperature levels (when the budget allows)
AUTO_CHAIN_ITERATIONS = 250  # auto chains: each chain gets this many proposals per dimension (>= 500)
WIDTH_POWER = 0.5  # auto schedule: move width ~ (T / T0) ** WIDTH_POWER
MAX_DRAWN_SIMPLICES = 8


@dataclass(frozen=True)
class SimulatedAnnealingParams:
    walkers: int = param(0, lo=1, hi=MAX_WALKERS, step=256, title="Chains", auto=True,
                         tip="Markov chains run in parallel (CUSIMANN's samples: 64 blocks x 256 "
                             "threads = 16384); auto: 250 d (at least 500) proposals per chain in the budget")
    schedule: str = param("auto", choices=SCHEDULES, title="Schedule",
                          tip="auto: T0 from the spread of f, cooling fitted to the budget, width "
                              "shrinking with T (our choice); fixed: T0, T_min, alpha, chain length "
                              "as given (the seed's)")
    variant: str = param("sync", choices=VARIANTS, title="Variant",
                         tip="async: independent chains; sync: all restart from the best after each "
                             "level (the seed's recommendation); hybrid: SA then Nelder-Mead")
    t0: float = param(1000.0, lo=1e-9, hi=1e12, step=100.0, title="Initial temperature T0", live=True,
                      tip="Temperature of the first level, in units of f (CUSIMANN's samples: 1000)")
    t_min: float = param(0.01, lo=1e-12, hi=1e12, step=0.01, title="Final temperature T_min", live=True,
                         tip="Levels run while T > T_min (CUSIMANN's samples: 0.01)")
    alpha: float = param(0.99, lo=0.01, hi=0.99999, step=0.01, title="Cooling factor alpha", live=True,
                         tip="T <- alpha T after each level (seed: close to one; CUSIMANN: 0.99)")
    chain_length: int = param(100, lo=1, hi=10**7, step=10, title="Chain length per level", live=True,
                              tip="Proposals per chain at each temperature (CUSIMANN's Shekel sample: 100)")
    width: float = param(1.0, lo=1e-9, hi=1.0, step=0.05, title="Neighbourhood width", live=True,
                         tip="Fraction of the way to the bound a move may go (1 = the seed's move)")
    hybrid_base: str = param("sync", choices=("sync", "async"), title="Hybrid: SA variant", variants=("hybrid",),
                             tip="Which SA runs before Nelder-Mead in the hybrid (seed: sync)")
    polish_points: int = param(16, lo=1, hi=65536, step=1, title="Hybrid: points polished", variants=("hybrid",),
                               tip="How many of the best chains' points Nelder-Mead polishes (our choice)")
    polish_edge: float = param(0.01, lo=1e-9, hi=0.5, step=0.01, title="Hybrid: initial simplex edge", variants=("hybrid",),
                               tip="Nelder-Mead's initial edge as a fraction of the range (our choice)")
    # 0.3 (was 0.15): on the 10-D robustness functions (10 seeds, 2e5 evaluations) and at 30-D (5 seeds,
    # 1e6) the median error fell or stayed on every function (10-D rosenbrock 7.3e-10 -> 1.4e-15;
    # 30-D rosenbrock 21.8 -> 15.8, rastrigin 19.9 -> 14.9); 0.5 was worse on rastrigin and ackley
    polish_share: float = param(0.3, lo=0.0, hi=0.9, step=0.05, title="Hybrid: Nelder-Mead share",
                                variants=("hybrid",),
                                tip="Share of the budget kept for Nelder-Mead by the auto schedule "
                                    "(our choice)")
    polish_tol: float = param(1e-9, lo=1e-15, hi=0.1, step=1e-9, title="Hybrid: collapse tolerance", variants=("hybrid",),
                              live=True, tip="A polishing simplex stops when all vertices are this "
                                             "close to its best (fraction of the range)")

    def check(self) -> None:
        # under the auto schedule both are replaced by fitted ones (fit_schedule): not the user's to fix
        if self.schedule != "auto" and not self.t_min < self.t0:
            raise ConfigError("parameter 't_min' must be smaller than 't0'")


# --- the auto schedule ---------------------------------------------------------------------------
# Its fitted values are the run's effective params (result.params), which make_params, a
# configuration file and the window take back: each stays within its declared limits. Within them
# the fit is the one described above; where the budget or f's spread would leave them, it bends.

def _limits(name: str) -> tuple:
    """The declared (lo, hi) of a SimulatedAnnealingParams field."""
    spec = next(s for s in specs(SimulatedAnnealingParams) if s.name == name)
    return spec.lo, spec.hi


def _within(name: str, value):
    """`value` held to `name`'s declared limits (the fit's own rounding stays inside them too)."""
    lo, hi = _limits(name)
    return min(max(value, lo), hi)


def auto_t0(f0) -> float:
    """T0 = std(f0) / -ln(AUTO_ACCEPTANCE) (std 1 for a flat start), within t0's limits: the fit
    is scale-free only for spreads of about 2e-10 to 2e11 (a 1e15 * sphere gave T0 = 2e17)."""
    finite = f0[np.isfinite(f0)]
    spread = float(np.std(finite)) if finite.size > 1 else 0.0
    return _within("t0", float((spread if spread > 0 else 1.0) / -np.log(AUTO_ACCEPTANCE)))


def auto_cooling(t0: float, levels: int | None = None, past: float = 0.0) -> float:
    """T_end / T0: AUTO_COOLING_RANGE, or a smaller fall where T_min, `past` levels beyond T_end
    over `levels` levels (None: T_min = T_end), would come below its lower limit (a flat start,
    easom on 4 chains, gave T_min = 3e-15)."""
    exponent = 1.0 if levels is None else levels / (levels + past)
    return max(AUTO_COOLING_RANGE, (_limits("t_min")[0] / t0) ** exponent)


def auto_levels(iterations: int, chain_length: int) -> tuple[int, int]:
    """(level length, levels) over `iterations`: at least AUTO_LEVELS levels of at most
    chain_length proposals where the budget allows, and no more levels than fall by
    AUTO_COOLING_RANGE at alpha's upper limit: longer levels instead (above about 2e8 iterations
    at 100 a level, where alpha was 0.999998)."""
    most = int(math.log(AUTO_COOLING_RANGE) / math.log(_limits("alpha")[1]))
    length = int(min(chain_length, max(1, iterations // AUTO_LEVELS)))
    if iterations // length > most:
        length = int(_within("chain_length", -(-iterations // most)))
    return length, min(max(1, iterations // length), most)


def auto_schedule(t0: float, iterations: int, chain_length: int, hybrid: bool) -> dict:
    """The fitted t0, t_min, alpha and chain_length of a budget of `iterations`: T falls by
    auto_cooling over the budget's levels, by alpha's lower limit a level where fewer than 5."""
    # T_min half a level past T_end: async/sync never reach it within the budget (no reheat);
    # the hybrid passes it on its last level and turns to Nelder-Mead
    past = -0.5 if hybrid else 0.5
    length, levels = auto_levels(iterations, chain_length)
    cooling = auto_cooling(t0, levels, past)
    alpha = float(cooling ** (1.0 / levels))
    alpha_lo = _limits("alpha")[0]
    if alpha < alpha_lo:  # max_iters=3 gave alpha = 1e-3: cool less instead
        alpha, cooling = alpha_lo, alpha_lo ** levels
    t_min = float(t0 * cooling * alpha ** past)
    # the limits hold the fit's rounding, and alpha where a small T0 (a smaller fall) meets more
    # than about 7e5 levels: the schedule then ends before the budget does
    return dict(t0=t0, t_min=_within("t_min", t_min), alpha=_within("alpha", alpha),
                chain_length=length)


@dataclass
class SimulatedAnnealingState(State):
    temperature: float = 0.0
    level: int = 0  # temperature levels completed, over all rounds
    level_iteration: int = 0  # proposals per chain made at the current level
    rounds: int = 0  # completed schedules (async/sync reheat to T0 after each)
    accepted: Any = None  # (chains,) bool, the last proposal of each chain
    level_accepts: Any = 0  # accepted proposals at the current level (device scalar)
    last_level_acceptance: Any = None  # acceptance rate of the last completed level
    phase: str = "anneal"  # "anneal", then "polish" in the hybrid
    polish: Any = None  # nelder_mead.NelderMeadBatch while polishing
    polish_rows: Any = None  # chains whose rows show the polished points
    done: bool = False
    # a tuning grid only (set_groups): each group's own schedule; the scalar fields above then
    # mirror group 0's (the snapshot shows the first run)
    schedule: Any = None


@dataclass
class GroupSchedule:
    """Each group's schedule in a tuning grid: host arrays (groups,) (the schedule does not depend
    on the values) and the device arrays the chains' update reads or that count acceptances."""

    t0: np.ndarray  # float64, as a run's params hold them
    t_min: np.ndarray
    alpha: np.ndarray
    chain_length: np.ndarray  # int64
    temperature: np.ndarray  # float64, as a run's state.temperature
    level: np.ndarray  # int64, levels completed
    level_iteration: np.ndarray  # int64, proposals per chain at the current level
    rounds: np.ndarray  # int64, completed schedules
    column: Any = None  # (groups, 1) device: the temperatures in the run's dtype
    level_accepts: Any = None  # (groups,) device: accepted proposals at the current level
    last_level_acceptance: Any = None  # (groups,) device float64: the last completed level's rate
    best_x: Any = None  # (groups, d) device (cuda: (d, groups)): each group's best point (sync broadcasts it)
    best_f: Any = None  # (groups,) device


def group_schedule(values: dict, params, groups: int) -> GroupSchedule:
    """The schedules of `groups` runs at their start: per-group values where given, else the run's."""
    def column(name, dtype):
        v = values.get(name)
        if v is None:
            return np.full(groups, getattr(params, name), dtype=dtype)
        return np.asarray(v, dtype=np.float64).astype(dtype)

    t0 = column("t0", np.float64)
    return GroupSchedule(t0=t0, t_min=column("t_min", np.float64), alpha=column("alpha", np.float64),
                         chain_length=column("chain_length", np.int64), temperature=t0.copy(),
                         level=np.zeros(groups, np.int64), level_iteration=np.zeros(groups, np.int64),
                         rounds=np.zeros(groups, np.int64))


@register_algorithm
class SimulatedAnnealing(Algorithm):
    name = "simulated_annealing"
    title = "Simulated annealing"
    Params = SimulatedAnnealingParams
    reference = "Ferreiro et al., Parallel simulated annealing on GPUs (seed 002), and CUSIMANN"
    walker_word = "chains"
    split_field = "walkers"  # chains (sync: the shards meet at each level's broadcast)

    # the auto schedule replaces these (fit_schedule): a grid over them runs the fixed schedule
    fitted_params = {name: ("schedule", "auto", "fixed") for name in ("t0", "t_min", "alpha", "chain_length")}
    # a tuning grid's groups of chains each have their own schedule (GroupSchedule)
    group_params = ("alpha", "chain_length", "t0", "t_min")
    _group_values: dict | None = None  # set_groups: name -> per-group values (host); None: not a grid

    def params_for_groups(self, params, groups: int):
        return dataclasses.replace(params, walkers=params.walkers * groups)

    def group_refusal(self) -> str | None:
        """Why these parameters' grids cannot run as groups (the tuner then runs them one by one)."""
        p = self.params
        if p.variant == "hybrid":
            return ("the hybrid polishes the best chains of the whole run with Nelder-Mead; "
                    "grids of variant async or sync run as groups")
        if p.schedule == "auto":
            return ("the auto schedule fits alpha, the chain length, T0 and T_min to each run's "
                    "budget and initial values; grids run as groups under schedule fixed")
        return None

    def set_groups(self, groups: int, values: dict, target: float | None = None) -> None:
        why = self.group_refusal()
        if why is not None:
            raise ConfigError(f"simulated annealing cannot run a grid as groups: {why}")
        self.accept_groups(groups, values, target)  # no (n, 1) columns: a GroupSchedule instead
        self._group_values = {name: np.asarray(v, dtype=np.float64) for name, v in values.items()}

    def memory_words_per_walker(self) -> float:
        # X, the proposal, the best-of-chain copy and a temporary: measured 4 d + 11
        return 4.0 * self.problem.dim + 12.0

    def memory_extra_bytes(self) -> int:
        """The hybrid's Nelder-Mead batch: polish_points (+ the best point) simplices of (d+1) x d,
        their trial vertices and centroids: measured 5.1-5.8 (d+1) d elements per simplex."""
        if self.params.variant != "hybrid":
            return 0
        d = self.problem.dim
        k = min(self.params.polish_points, self.params.walkers) + 1
        return int(k * (6.0 * (d + 1) * d + 8.0 * (d + 1)) * self.dtype.itemsize)

    def auto_values(self, params, max_evals):
        proposals = max(500, AUTO_CHAIN_ITERATIONS * self.problem.dim)
        return {"walkers": self.auto_count(16384, 1.0, lo=4, iterations=proposals)}

    def fit_schedule(self, f0) -> None:
        """Under schedule "auto", replace T0, T_min, alpha and the level length in self.params by
        values fitted to the spread of the initial values f0 (host array) and the budget."""
        p = self.params
        if p.schedule != "auto":
            self._fitted = {}
            return
        t0 = auto_t0(f0)
        iterations = self._schedule_iterations()
        if iterations is None:  # time-limited: the schedule keeps alpha and the level, and reheats
            fitted = dict(t0=t0, t_min=_within("t_min", t0 * auto_cooling(t0)))
        else:
            fitted = auto_schedule(t0, iterations, p.chain_length, p.variant == "hybrid")
        self._fitted = fitted
        self.params = dataclasses.replace(p, **fitted)

    def _schedule_iterations(self) -> int | None:
        """Iterations the budget leaves the annealing (the hybrid keeps polish_share of it for
        Nelder-Mead); None without an evaluation or iteration budget."""
        p, budget = self.params, self.budget
        share = p.polish_share if p.variant == "hybrid" else 0.0
        n = int(p.walkers)
        if getattr(budget, "max_evals", None) is not None:
            iterations = ((1.0 - share) * budget.max_evals - n) / n
        elif getattr(budget, "max_iters", None) is not None:
            iterations = (1.0 - share) * budget.max_iters
        else:
            return None
        return max(1, int(iterations))

    @classmethod
    def split_refusal(cls, params) -> str | None:
        if params.variant == "hybrid":  # (async and sync split exactly: solvers/shards.py)
            return ("the hybrid polishes the best chains of the whole run with Nelder-Mead; "
                    "use variant async or sync")
        return None

    @staticmethod
    def split_after_init(algo, state, before, field: str, values) -> None:
        """A shard's "auto" schedule fitted to the initial values of every chain of the run (the
        unsplit run's fit), not to its own chains'."""
        own = getattr(algo.params, field)
        algo.params = dataclasses.replace(before, **{field: int(len(values))})
        algo.fit_schedule(values)
        algo.params = dataclasses.replace(algo.params, **{field: own})
        state.temperature = float(algo.params.t0)

    def width_at(self, temperature: float) -> float:
        """The move's width at a temperature: shrinking as sqrt(T / T0) under the auto schedule."""
        p = self.params
        if p.schedule != "auto":
            return float(p.width)
        return float(p.width * min(1.0, temperature / p.t0) ** WIDTH_POWER)

    def set_params(self, state, params) -> None:
        Algorithm.set_params(self, state, params)
        fitted = getattr(self, "_fitted", {})
        if self.params.schedule == "auto" and fitted:
            self.params = dataclasses.replace(self.params, **fitted)

    def evals_per_iteration(self) -> float:
        n = float(self.params.walkers)
        if self.params.variant != "hybrid":
            return n
        k = min(self.params.polish_points, self.params.walkers)
        return max(n, k * (self.problem.dim + 2.0))  # NM: at most n + 2 per simplex

    @property
    def synchronous(self) -> bool:
        p = self.params
        return p.variant == "sync" or (p.variant == "hybrid" and p.hybrid_base == "sync")

    def init(self, rng) -> SimulatedAnnealingState:
        xp, n = self.xp, self.params.walkers
        self._rng = rng
        self._rows = xp.arange(n)
        X = self.uniform_points(rng, n)
        state = SimulatedAnnealingState(X=X, f=None, best_x=X[0].copy(),
                                        best_f=xp.asarray(np.inf, dtype=self.dtype),
                                        temperature=float(self.params.t0),
                                        accepted=xp.zeros(n, dtype=bool))
        state.f = self.evaluate(state, X)
        self.update_best(state, X, state.f)
        self.fit_schedule(to_numpy(state.f))
        state.temperature = float(self.params.t0)
        if self._group_values is not None:
            self._start_groups(state)
        return state

    # --- a tuning grid: every group its own schedule ---------------------------------------------
    def _start_groups(self, state: SimulatedAnnealingState) -> None:
        xp, groups = self.xp, self.groups
        sched = group_schedule(self._group_values, self.params, groups)
        sched.column = xp.asarray(sched.temperature[:, None], dtype=self.dtype)
        sched.level_accepts = xp.zeros(groups, dtype=xp.int64)
        m = state.X.shape[0] // groups
        sched.best_x = state.X.reshape(groups, m, -1)[:, 0].copy()  # as a run's X[0] (all +inf)
        sched.best_f = xp.full(groups, np.inf, dtype=self.dtype)
        state.schedule = sched
        self._update_group_points(state)
        self._mirror_group0(state)

    def _update_group_points(self, state: SimulatedAnnealingState) -> None:
        """Each group's best point, as update_best keeps a run's: the first of equal minima, taken
        when strictly better."""
        xp, sched, groups = self.xp, state.schedule, self.groups
        local, candidate = group_argmin(state.f, groups)
        m = state.X.shape[0] // groups
        better = candidate < sched.best_f
        sched.best_f = xp.where(better, candidate, sched.best_f)
        sched.best_x = xp.where(better[:, None], state.X[xp.arange(groups) * m + local], sched.best_x)

    def _mirror_group0(self, state: SimulatedAnnealingState) -> None:
        """The scalar schedule fields show group 0 (the snapshot's first run)."""
        sched = state.schedule
        state.temperature = float(sched.temperature[0])
        state.level, state.rounds = int(sched.level[0]), int(sched.rounds[0])
        state.level_iteration = int(sched.level_iteration[0])
        state.level_accepts = sched.level_accepts[0]
        if sched.level[0] > 0 and sched.last_level_acceptance is not None:
            state.last_level_acceptance = sched.last_level_acceptance[0]

    def broadcast_groups(self, state: SimulatedAnnealingState, on) -> None:
        """Sync in a grid: the chains of the groups `on` (device bool (groups,)) restart from their
        group's best point."""
        xp, sched, groups = self.xp, state.schedule, self.groups
        m = state.X.shape[0] // groups
        X3 = state.X.reshape(groups, m, -1)  # a view: state.X is C-contiguous
        X3[...] = xp.where(on[:, None, None], sched.best_x[:, None, :], X3)
        state.f = xp.where(on[:, None], sched.best_f[:, None], state.f.reshape(groups, m)).reshape(-1)

    def _end_group_levels(self, state: SimulatedAnnealingState, ends: np.ndarray) -> None:
        """close_level for the groups `ends` (host bool mask), each with its own numbers, in the
        same order of operations (so the same double arithmetic) as a run alone."""
        xp, sched = self.xp, state.schedule
        m = state.X.shape[0] // self.groups
        on = xp.asarray(ends)
        rate = sched.level_accepts / xp.asarray((m * sched.level_iteration).astype(np.float64))
        previous = sched.last_level_acceptance
        if previous is None:  # groups without a completed level have none yet (NaN), as alone
            previous = xp.full(self.groups, np.nan)
        sched.last_level_acceptance = xp.where(on, rate, previous)
        sched.level_accepts = xp.where(on, 0, sched.level_accepts)
        sched.level_iteration[ends] = 0
        sched.level[ends] += 1
        sched.temperature[ends] *= sched.alpha[ends]
        finished = ends & (sched.temperature <= sched.t_min)
        if self.synchronous:  # each ending group's chains restart from that group's best point
            self.broadcast_groups(state, on)
        sched.temperature[finished] = sched.t0[finished]
        sched.rounds[finished] += 1
        sched.column = xp.asarray(sched.temperature[:, None], dtype=self.dtype)

    def step(self, state: SimulatedAnnealingState, iterations: int) -> None:
        for _ in range(iterations):
            if state.done or self.budget_spent(state):
                return
            if state.phase == "polish":
                self._polish_iteration(state)
            else:
                self._anneal_iteration(state)
            state.iteration += 1

    # --- annealing -------------------------------------------------------------------------------
    def _anneal_iteration(self, state: SimulatedAnnealingState) -> None:
        xp, p, rng = self.xp, self.params, self._rng
        X, rows = state.X, self._rows
        n, d = X.shape
        j = rng.integers(0, d, n)
        u = rng.random(n, self.dtype)
        a = rng.random(n, self.dtype)
        x, lo, hi = X[rows, j], self.lower[j], self.upper[j]
        width = self.width_at(state.temperature)
        towards_lower = x - width * (1 - 2 * u) * (x - lo)
        towards_upper = x + width * (2 * u - 1) * (hi - x)
        proposal = xp.clip(xp.where(u < 0.5, towards_lower, towards_upper), lo, hi)
        X[rows, j] = proposal  # evaluate in place, undo the rejected moves below
        f_new = self.evaluate(state, X)
        sched = state.schedule
        with np.errstate(invalid="ignore", over="ignore"):
            # inf - inf is NaN, and u < NaN is False: a NaN point never replaces another
            if sched is None:
                exponent = -(f_new - state.f) / state.temperature
            else:  # a grid: each group's temperature, as its run alone divides by its own
                exponent = (-(f_new - state.f).reshape(self.groups, -1) / sched.column).reshape(-1)
            accept = a < xp.exp(xp.minimum(exponent, 0.0))
        X[rows, j] = xp.where(accept, proposal, x)
        state.f = xp.where(accept, f_new, state.f)
        state.accepted = accept
        # an improvement on the chain's point is always accepted, so the best is among the chains
        self.update_best(state, X, state.f)
        if sched is not None:
            self._update_group_points(state)
            sched.level_accepts = sched.level_accepts + accept.reshape(self.groups, -1).sum(axis=1)
            sched.level_iteration += 1
            ends = sched.level_iteration >= sched.chain_length
            if ends.any():
                self._end_group_levels(state, ends)
            self._mirror_group0(state)
            return
        state.level_accepts = state.level_accepts + accept.sum()
        state.level_iteration += 1
        if state.level_iteration >= p.chain_length:
            self._end_level(state)

    def _end_level(self, state: SimulatedAnnealingState) -> None:
        n = state.X.shape[0]
        self.close_level(state, state.level_accepts / float(n * state.level_iteration))

    def close_level(self, state: SimulatedAnnealingState, acceptance: float) -> bool:
        """The schedule's step at a level's end, on every engine (the fused kernels run several
        levels per launch and replay their ends here): cool, and for sync broadcast the best point;
        at T_min reheat, or for the hybrid switch to polishing (returns False: annealing is over)."""
        p = self.params
        state.last_level_acceptance = acceptance
        state.level_accepts, state.level_iteration = 0, 0
        state.level += 1
        state.temperature *= p.alpha
        finished = state.temperature <= p.t_min
        if finished and p.variant == "hybrid":
            state.phase = "polish"  # the simplices are built at the next iteration
            return False
        if self.synchronous:
            self.exchange_best(state)  # a split run: the best of every shard first
            self.broadcast_best(state)
        if finished:
            state.temperature = float(p.t0)
            state.rounds += 1
        return True

    def broadcast_best(self, state: SimulatedAnnealingState) -> None:
        """Sync: every chain restarts the next level from the best point found."""
        state.X[...] = state.best_x
        state.f[...] = state.best_f

    # --- hybrid: Nelder-Mead polishing -----------------------------------------------------------
    def warm_kernels(self, state: SimulatedAnnealingState) -> None:
        """The hybrid's polishing first runs at the end of the schedule: its start and one step on
        a copy (numba: the evaluate_rows kernel the annealing never calls; cupy: Nelder-Mead's
        array operations). Its evaluations count on the copy only."""
        if self.params.variant != "hybrid":
            return
        scratch = dataclasses.replace(state, X=state.X.copy(), polish=None)  # X is patched in place
        self._polish_iteration(scratch)
        self._polish_iteration(scratch)

    def _polish_iteration(self, state: SimulatedAnnealingState) -> None:
        xp, p = self.xp, self.params
        evaluate = lambda X: self.evaluate(state, X)  # noqa: E731 - counts every row
        before = state.f
        if state.polish is None:
            k = min(p.polish_points, state.X.shape[0])
            rows = xp.argsort(state.f)[:k]
            points, values = state.X[rows].copy(), state.f[rows].copy()
            # the chains may have moved away from the best point ever found: polish that one too
            better = state.best_f < values[0]
            points[0] = xp.where(better, state.best_x, points[0])
            values[0] = xp.where(better, state.best_f, values[0])
            state.polish_rows = rows
            state.polish = nelder_mead.start_batch(xp, points, values, p.polish_edge,
                                                   self.lower, self.upper, evaluate)
        else:
            nelder_mead.step(xp, state.polish, evaluate, self.lower, self.upper, p.polish_tol)
        rows = state.polish_rows
        state.X[rows] = state.polish.vertices[:, 0]
        f = state.f.copy()
        f[rows] = state.polish.values[:, 0]
        state.accepted = f < before
        state.f = f
        self.update_best(state, state.X, state.f)
        state.done = not bool(state.polish.active.any())

    # --- drawing ---------------------------------------------------------------------------------
    def snapshot(self, state: SimulatedAnnealingState, sample: np.ndarray) -> SnapshotData:
        # the same on every engine: reduced where the arrays live, only the sample and a few
        # numbers cross to the host
        data = super().snapshot(state, sample)
        xp, accepted = self.xp, state.accepted
        n = int(accepted.shape[0]) // max(1, self.groups)  # chains of one run (a grid: group 0's)
        data.overlays["temperature"] = np.full(len(sample), state.temperature)
        data.overlays["accepted"] = to_numpy(accepted[xp.asarray(sample)]).astype(np.int8)
        if state.last_level_acceptance is not None:
            level_rate = float(to_numpy(state.last_level_acceptance))
        elif state.level_iteration > 0:  # no level completed yet: the current one so far
            level_rate = float(to_numpy(state.level_accepts)) / (n * state.level_iteration)
        else:
            level_rate = float("nan")
        # the phase in words, shown by the window (the hybrid's Nelder-Mead polish is its own phase)
        data.extras["phase"] = ("polishing with Nelder-Mead" if state.phase == "polish"
                                else "annealing")
        data.extras["temperature"] = float(state.temperature)
        data.extras["temperature level"] = int(state.level)
        data.extras["acceptance rate (last level)"] = level_rate
        data.extras["acceptance rate (last iteration)"] = float(accepted.mean())
        if state.polish is not None:
            active = state.polish.active
            m = int(active.shape[0])
            drawn = np.unique(np.linspace(0, m - 1, min(m, MAX_DRAWN_SIMPLICES)).round().astype(np.int64))
            data.overlays["simplices"] = self.polished_simplices(state, drawn)
            data.extras["polishing simplices active"] = float(active.mean())
        return data

    def polished_simplices(self, state: SimulatedAnnealingState, drawn: np.ndarray) -> np.ndarray:
        """Host copy of the polishing simplices `drawn` (k, d+1, d), best vertex first."""
        return to_numpy(state.polish.vertices[self.xp.asarray(drawn)])
