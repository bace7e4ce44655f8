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
from ..runner import Runner
from .table import TuneRow

CHUNK_SECONDS = 0.2  # a batched run checks Stop and reports progress about this often


@dataclass(frozen=True)
class Progress:
    """Where a grid stands: runs finished of all, and each run's best so far (NaN: not started)."""

    done: int
    total: int
    best: np.ndarray  # (groups,) in the order of Grid.pairs()
    seconds: float


class BatchedPlan:
    """The whole grid as one run of the reference array code: group g is (setting, seed) g."""

    def __init__(self, engine, config: RunConfig, probe, pairs, target):
        groups = len(pairs)
        self.engine, self.config, self.pairs = engine, config, pairs
        params = probe.params_for_groups(probe.params, groups)
        # built (memory checked for the whole batch) before anything runs
        self.algo = engine.build(config.algorithm, config.make_problem(), params, config.dtype,
                                 config.fast_math, budget=config.budget, threads=config.threads)
        names = sorted(pairs[0][1])
        self.algo.set_groups(groups, {n: [setting[n] for _, setting, _ in pairs] for n in names},
                             target=target)
        self.algo.warnings = probe.warnings  # its budget is per group, as the probe's

    def run(self, should_stop: Callable[[], bool], on_progress) -> tuple[list[TuneRow], bool]:
        algo, engine, budget = self.algo, self.engine, self.config.budget
        groups = algo.groups
        t0 = time.perf_counter()
        state = algo.init(GroupedRNG(engine.xp, [seed for _, _, seed in self.pairs]))
        chunk, stopped = 1, False
        while True:
            if budget.max_evals is not None and state.evals >= budget.max_evals * groups:
                break
            if budget.max_iters is not None and state.iteration >= budget.max_iters:
                break
            if should_stop():
                stopped = True
                break
            iters = chunk
            if budget.max_iters is not None:
                iters = min(iters, budget.max_iters - state.iteration)
            if budget.max_evals is not None:
                left = budget.max_evals * groups - state.evals
                iters = min(iters, int(np.ceil(left / max(1.0, algo.evals_per_iteration()))))
            t = time.perf_counter()
            algo.step(state, max(1, iters))
            engine.synchronize()
            dt = time.perf_counter() - t
            chunk = max(1, int(max(1, iters) * min(4.0, max(0.25, CHUNK_SECONDS / dt)))) if dt > 0 else chunk * 4
            if on_progress is not None:
                on_progress(Progress(0, groups, to_numpy(state.group_best_f).astype(np.float64),
                                     time.perf_counter() - t0))
        seconds = time.perf_counter() - t0
        best = to_numpy(state.group_best_f).astype(np.float64)
        reach = to_numpy(state.group_reach)
        per_group = state.evals // groups
        rows = [TuneRow(setting=i, params=setting, seed=seed, best_f=float(best[g]), evals=int(per_group),
                        seconds=seconds / groups, reached_at=None if reach[g] < 0 else int(reach[g]))
                for g, (i, setting, seed) in enumerate(self.pairs)]
        if on_progress is not None:
            on_progress(Progress(groups, groups, best, seconds))
        return rows, stopped


class OneByOnePlan:
    """The fallback: one run per (setting, seed) through the Runner, on any engine."""

    def __init__(self, config: RunConfig, cls, base: dict, pairs, target):
        self.pairs, self.target = pairs, target
        self.configs = [config.replace(params=make_params(cls.Params, {**base, **setting}), seed=seed)
                        for _, setting, seed in pairs]

    def run(self, should_stop: Callable[[], bool], on_progress) -> tuple[list[TuneRow], bool]:
        rows: list[TuneRow] = []
        best = np.full(len(self.pairs), np.nan)
        t0 = time.perf_counter()
        for g, ((i, setting, seed), config) in enumerate(zip(self.pairs, self.configs)):
            if should_stop():
                return rows, True
            runner = Runner(config, on_snapshot=lambda _snap, r=None: None)
            runner._on_snapshot = lambda _snap, runner=runner: runner.stop() if should_stop() else None
            result = runner.run()
            if result.stop_reason == "stopped":
                return rows, True
            reached = None
            if self.target is not None:
                hits = np.flatnonzero(result.history[:, 2] <= self.target)
                reached = int(result.history[hits[0], 0]) if hits.size else None
            rows.append(TuneRow(setting=i, params=setting, seed=seed, best_f=float(result.best_f),
                                evals=int(result.evals), seconds=float(result.seconds), reached_at=reached))
            best[g] = result.best_f
            if on_progress is not None:
                on_progress(Progress(g + 1, len(self.pairs), best.copy(), time.perf_counter() - t0))
        return rows, False
