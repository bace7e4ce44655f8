"""reached_at as a property of the run, whatever its chunking: the evaluations at the end of the
first iteration whose best is within the target (f_min + tolerance).

The array code (numpy, cupy) records it as it goes: update_best at each iteration's end writes
state.group_reach (set_groups in a batch, Algorithm.watch_target for a run alone; slices of an
iteration and pattern search's restarts leave it to the iteration's end). A fused kernel (numba,
cuda: Algorithm.fused) runs a chunk of iterations per launch and its best is known when the launch
ends, and chunks are sized by time: a numba run read reached_at 20,000, the end of its only chunk,
where its iteration's end was 9,640. For those the chunk is searched afterwards, untimed: the same
run fresh from its seeds (a run does not depend on its chunking: tests/test_chunking.py) goes
through the chunk in FANOUT launches, then through the one that got there likewise, and so on down
to one iteration a launch, where a launch's end is an iteration's end.
"""
from __future__ import annotations

import time
from typing import Callable

import numpy as np

from ..arrays import to_numpy
from ..runner import Runner

STEP_SECONDS = 0.2  # a fast-forward's launches take about this long (Stop is asked between them)
# Launches per chunk and level of the search. One iteration a launch throughout cost numba's
# small runs 1.5-4.5x their compute in launches (and far more on a loaded machine), a cuda grid's
# small iterations more; with 16, a chunk of 4,096 iterations is found in 3 replays of <= 16.
FANOUT = 16


def advance(algo, engine, state, to: int, stop: Callable[[], bool], pace: list[int]) -> bool | None:
    """Step `state` to iteration `to` in launches of about STEP_SECONDS (`pace`: [iterations a
    launch], kept from one replay to the next): True once there, False if the run ended first
    (budget spent, converged), None if stop() asked to end."""
    while state.iteration < to:
        if stop():
            return None
        before, t = state.iteration, time.perf_counter()
        algo.step(state, min(pace[0], to - state.iteration))
        engine.synchronize()
        dt = time.perf_counter() - t
        if state.iteration == before:
            return False
        done = state.iteration - before
        pace[0] = max(1, int(done * min(4.0, STEP_SECONDS / dt))) if dt > 0 else pace[0] * 4
    return True


def search(engine, fresh: Callable, lo: np.ndarray, hi: np.ndarray, hits: Callable,
           values: Callable, stop: Callable[[], bool]) -> tuple[np.ndarray, bool]:
    """Each target t first got there in iterations (lo[t], hi[t]]: (the evaluations at the end of
    that iteration, -1 where unknown; False if stop() ended the search). `fresh()`: (algorithm,
    state) of the run from its start; `hits(state)`, `values(state)`: per target, whether it has
    got there and its evaluations as recorded at the last launch's end."""
    lo, hi = np.array(lo, dtype=np.int64), np.array(hi, dtype=np.int64)
    out = np.full(lo.shape, -1, dtype=np.int64)
    pending, pace = hi - lo > 1, [1]
    while pending.any():
        state = None  # the last replay's memory, before the next one's
        algo, state = fresh()
        for a, b in sorted(set(zip(lo[pending].tolist(), hi[pending].tolist()))):
            members = pending & (lo == a) & (hi == b)
            going = advance(algo, engine, state, a, stop, pace)
            if going is None:
                return out, False
            width = max(1, -(-(b - a) // FANOUT))
            while going and state.iteration < b and members.any():
                if stop():
                    return out, False
                start = state.iteration
                algo.step(state, min(width, b - start))
                engine.synchronize()
                got = members & hits(state)
                if state.iteration - start == 1:
                    out[got] = values(state)[got]
                    pending &= ~got
                else:
                    lo[got], hi[got] = start, state.iteration
                members &= ~got
                going = state.iteration > start
            pending &= ~members  # never got there again (cannot happen: runs repeat): unknown
    return out, True


class RunBracket:
    """A run alone on a fused kernel: the iterations (after, upto] in which its best first got to
    the target, from its snapshots (the last one above the target, the first one within it)."""

    def __init__(self, target: float):
        self.target, self.after, self.upto, self.evals = target, 0, None, None

    def see(self, snap) -> None:
        if self.upto is not None:
            return
        if snap.best_f <= self.target:
            self.upto, self.evals = snap.iteration, snap.evals
        else:
            self.after = snap.iteration

    def reached(self, config, stop: Callable[[], bool]) -> int | None:
        """The evaluations at the end of the iteration it got there in, searching the bracket
        where it is wider than one iteration; None if it never did, or stop() ended the search."""
        if self.upto is None or self.upto - self.after <= 1:
            return self.evals  # at its start (iteration 0), or a chunk of one iteration
        from ..engines import get_engine  # noqa: PLC0415

        def fresh():
            runner = Runner(config)  # the same configuration and seed, from its start
            runner.prepare()
            return runner.algorithm, runner.state

        out, _ = search(get_engine(config.engine), fresh, [self.after], [self.upto],
                        lambda state: np.array([float(to_numpy(state.best_f)) <= self.target]),
                        lambda state: np.array([int(state.evals)]), stop)
        return None if out[0] < 0 else int(out[0])


class GroupBrackets:
    """A batch on a fused kernel: for every chunk of more than one iteration in which some groups
    first reached the target, those groups and the chunk's iterations (after, upto]."""

    def __init__(self, reach, groups: int):
        self.after = np.zeros(groups, dtype=np.int64)
        self.upto = np.zeros(groups, dtype=np.int64)  # equal: exact (or not reached)
        # as init left it (reached by the initial points: exact)
        self._reach = np.full(groups, -1, np.int64) if reach is None else to_numpy(reach).copy()

    def see(self, after: int, upto: int, reach) -> None:
        if reach is None:
            return
        reach = to_numpy(reach)
        new = (reach >= 0) & (self._reach < 0)
        if upto - after > 1:
            self.after[new], self.upto[new] = after, upto
        self._reach = reach.copy()

    def pending(self) -> np.ndarray:
        """The groups whose reached_at is still a chunk's end."""
        return np.flatnonzero(self.upto - self.after > 1)

    def refine(self, algo, engine, init: Callable,
               stop: Callable[[], bool]) -> tuple[dict[int, int | None], bool]:
        """(group -> evaluations at the end of the iteration it got there in, None where stop()
        ended the search first; whether it ran to its end), from fresh batches `init()`."""
        groups = self.pending()
        if not groups.size:
            return {}, True
        out, complete = search(engine, lambda: (algo, init()), self.after[groups], self.upto[groups],
                               lambda state: to_numpy(state.group_reach)[groups] >= 0,
                               lambda state: to_numpy(state.group_reach)[groups], stop)
        return {int(g): int(v) if v >= 0 else None for g, v in zip(groups, out)}, complete
