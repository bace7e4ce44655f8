"""Running a checked grid: batched (every run a group of one array run) or one run at a time."""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..arrays import to_numpy
from ..config import RunConfig
from ..params import make_params
from ..rng import GroupedRNG
from ..runner import GIL_SHARE, GIL_SLEEP_MAX_S, GIL_SLEEP_MIN_S, Runner
from .compiling import warm_batch, warm_run
from .reach import GroupBrackets, RunBracket
from .stepping import BatchStepper
from .table import TuneRow

CHUNK_SECONDS = 0.2  # a batched run checks Stop and reports progress about this often
SHARED_CHUNK_SECONDS = 1.0 / 30  # the same beside a window (share_gil): a frame's time


@dataclass(frozen=True)
class Progress:
    """Where a grid stands: runs finished of all, and each run's best so far (NaN: not started).

    ``fraction``: the share of the whole grid's work done (budget spent, or runs finished), for a
    progress bar and the time left; ``reached``: each run's evaluations when it first got within
    the tolerance (NaN: not yet, or unknown); ``seconds``: compute time, pauses not counted."""

    done: int
    total: int
    best: np.ndarray  # (groups,) in the order of Grid.pairs()
    seconds: float
    fraction: float = 0.0
    reached: np.ndarray | None = None


class Clock:
    """Time since start less the time spent in `hold` (a paused window waits there) and in
    `untimed` (finding reached_at again: solvers/tune/reach.py)."""

    def __init__(self, hold: Callable[[], None] | None):
        self._hold, self._t0, self._held = hold, time.perf_counter(), 0.0

    def hold(self) -> None:
        if self._hold is not None:
            self.untimed(self._hold)

    def untimed(self, work: Callable[[], object]):
        t = time.perf_counter()
        try:
            return work()
        finally:
            self._held += time.perf_counter() - t

    def seconds(self) -> float:
        return time.perf_counter() - self._t0 - self._held


def _reach_floats(reach) -> np.ndarray:
    reach = to_numpy(reach).astype(np.float64)
    return np.where(reach < 0, np.nan, reach)


class BatchedPlan:
    """The whole grid as one run of the reference array code: group g is (setting, seed) g."""

    def __init__(self, engine, config: RunConfig, probe, pairs, target):
        groups = len(pairs)
        self.engine, self.config, self.pairs, self.target = engine, config, pairs, target
        params = probe.params_for_groups(probe.params, groups)
        # built (memory checked for the whole batch) before anything runs
        self.algo = engine.build(config.algorithm, config.make_problem(), params, config.dtype,
                                 config.fast_math, budget=config.budget, threads=config.threads)
        names = sorted(pairs[0][1])
        self.algo.set_groups(groups, {n: [setting[n] for _, setting, _ in pairs] for n in names},
                             target=target)
        self.algo.warnings = probe.warnings  # its budget is per group, as the probe's

    def compile(self, stop: Callable[[], bool]) -> bool:
        """Compile the batch's kernels, untimed (solvers/tune/compiling.py); False if stopped."""
        return warm_batch(self.algo, self.engine, self._seeds(), stop)

    def _seeds(self) -> list[int]:
        return [seed for _, _, seed in self.pairs]

    def run(self, should_stop: Callable[[], bool], on_progress, share_gil: bool = False,
            clock: Clock | None = None) -> tuple[list[TuneRow], bool]:
        """Run the batch; with `share_gil` (a window's thread) short chunks, each followed by a
        sleep of half its time (the runner's rule), so the window keeps the GIL often enough.
        A chunk is at least one iteration, or one slice of an iteration too large for Stop to wait
        for. `clock.hold()` is called between chunks (a paused window blocks there; not counted)."""
        algo, engine, budget = self.algo, self.engine, self.config.budget
        target = SHARED_CHUNK_SECONDS if share_gil else CHUNK_SECONDS
        groups = algo.groups
        clock = clock or Clock(None)
        state = self._init()
        # a fused kernel records reaching the target at launch ends: its chunks are kept to find
        # the iterations again at the end (solvers/tune/reach.py)
        brackets = GroupBrackets(state.group_reach, groups) if algo.fused and self.target is not None else None
        # a slice of a large iteration at a time, so Stop waits one slice (solvers/tune/stepping.py)
        stepper = BatchStepper(algo, state, budget)
        chunk, stopped = 1, False
        while True:
            clock.hold()
            if stepper.budget_spent():
                break
            if should_stop():
                stopped = True
                stepper.cut()
                break
            iters = chunk
            if budget.max_iters is not None:
                iters = min(iters, budget.max_iters - state.iteration)
            if budget.max_evals is not None:
                left = budget.max_evals * groups - state.evals
                iters = min(iters, int(np.ceil(left / max(1.0, algo.evals_per_iteration()))))
            t, before = time.perf_counter(), state.iteration
            iters = stepper.advance(max(1, iters))
            engine.synchronize()
            dt = time.perf_counter() - t
            if brackets is not None:
                brackets.see(before, state.iteration, state.group_reach)
            chunk = max(1, int(iters * min(4.0, max(0.25, target / dt)))) if dt > 0 else chunk * 4
            if on_progress is not None:
                on_progress(Progress(0, groups, to_numpy(state.group_best_f).astype(np.float64),
                                     clock.seconds(), self._fraction(state, groups),
                                     _reach_floats(state.group_reach)))
            if share_gil:
                time.sleep(min(GIL_SLEEP_MAX_S, max(GIL_SLEEP_MIN_S, GIL_SHARE * dt)))
        seconds = clock.seconds()
        best = to_numpy(state.group_best_f).astype(np.float64)
        reach = to_numpy(state.group_reach).copy()
        per_group = state.evals // groups
        fraction = self._fraction(state, groups) if stopped else 1.0
        if brackets is not None:
            del state, stepper  # the batch's memory, for running it again
            stopped = self._find_reached(brackets, reach, stopped, should_stop, clock)
        rows = [TuneRow(setting=i, params=setting, seed=seed, best_f=float(best[g]), evals=int(per_group),
                        seconds=seconds / groups, reached_at=None if reach[g] < 0 else int(reach[g]))
                for g, (i, setting, seed) in enumerate(self.pairs)]
        if on_progress is not None:
            on_progress(Progress(groups, groups, best, seconds, fraction, _reach_floats(reach)))
        return rows, stopped

    def _init(self):
        return self.algo.init(GroupedRNG(self.engine.xp, self._seeds()))

    def _find_reached(self, brackets: GroupBrackets, reach: np.ndarray, stopped: bool, should_stop,
                      clock: Clock) -> bool:
        """A fused kernel's reached_at: in `reach`, each chunk end replaced by the end of the
        iteration (solvers/tune/reach.py), untimed; unknown (-1) where Stop came first, and a
        stopped grid ends at once. Returns whether the grid was stopped."""
        reach[brackets.pending()] = -1
        if stopped:
            return True
        found, complete = clock.untimed(lambda: brackets.refine(self.algo, self.engine, self._init,
                                                                should_stop))
        for g, evals in found.items():
            reach[g] = -1 if evals is None else evals
        return not complete

    def _fraction(self, state, groups: int) -> float:
        """The share of the budget spent (the larger of evaluations and iterations)."""
        budget, done = self.config.budget, 0.0
        if budget.max_evals is not None:
            done = state.evals / (budget.max_evals * groups)
        if budget.max_iters is not None:
            done = max(done, state.iteration / budget.max_iters)
        return float(min(1.0, done))


class OneByOnePlan:
    """The fallback: one run per (setting, seed) through the Runner, on any engine."""

    def __init__(self, config: RunConfig, cls, base: dict, pairs, target):
        self.pairs, self.target = pairs, target
        self.configs = [config.replace(params=make_params(cls.Params, {**base, **setting}), seed=seed)
                        for _, setting, seed in pairs]

    def compile(self, stop: Callable[[], bool]) -> bool:
        """Compile the runs' kernels, untimed (solvers/tune/compiling.py); False if stopped."""
        return warm_run(self.configs[0], stop)

    def run(self, should_stop: Callable[[], bool], on_progress, share_gil: bool = False,
            clock: Clock | None = None) -> tuple[list[TuneRow], bool]:
        """Run after run; `clock.hold()` between runs (a paused window blocks there; not counted)."""
        rows: list[TuneRow] = []
        best = np.full(len(self.pairs), np.nan)
        reached_all = np.full(len(self.pairs), np.nan)
        clock = clock or Clock(None)
        for g, ((i, setting, seed), config) in enumerate(zip(self.pairs, self.configs)):
            clock.hold()
            if should_stop():
                return rows, True
            result, reached = self._run_one(config, should_stop, share_gil, clock)
            if result is None:
                return rows, True
            rows.append(TuneRow(setting=i, params=setting, seed=seed, best_f=float(result.best_f),
                                evals=int(result.evals), seconds=float(result.seconds), reached_at=reached))
            best[g] = result.best_f
            reached_all[g] = np.nan if reached is None else reached
            if on_progress is not None:
                on_progress(Progress(g + 1, len(self.pairs), best.copy(), clock.seconds(),
                                     (g + 1) / len(self.pairs), reached_all.copy()))
        return rows, False

    def _run_one(self, config: RunConfig, should_stop, share_gil: bool, clock: Clock):
        """(result, reached_at) of one run; (None, None) when Stop ended it. Stop reaches a run at
        its next snapshot (between chunks)."""
        target, started = self.target, []
        bracket = RunBracket(target) if target is not None else None

        def on_snapshot(snap) -> None:
            if bracket is not None:
                bracket.see(snap)
            if should_stop():
                started[0].stop()

        def on_built(algo) -> None:
            if target is not None and not algo.fused:
                algo.watch_target(target)  # recorded per iteration (solvers/tune/reach.py)

        runner = Runner(config, share_gil=share_gil, on_snapshot=on_snapshot, on_built=on_built)
        started.append(runner)
        result = runner.run()
        if result.stop_reason == "stopped":
            return None, None
        if target is None:
            return result, None
        if not runner.algorithm.fused:
            reach = runner.state.group_reach
            reach = -1 if reach is None else int(to_numpy(reach)[0])
            return result, None if reach < 0 else reach
        started.clear()
        del runner  # its memory, for running it again
        return result, clock.untimed(lambda: bracket.reached(config, should_stop))
