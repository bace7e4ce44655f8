"""The one rule for timing an engine: used by the benchmark, the sweep, the reproductions and the
window's compare tab, so that the same set-up gives the same speed and speedup in each.

The rule:
1. Build untimed. ``Engine.build`` compiles kernels on engines that compile (cached afterwards) and
   checks memory; building and compiling are never part of a timing.
2. Warm up untimed: draw and evaluate the walkers, run one iteration, compile what a run reaches
   only later (``warm_kernels``: the iteration max_evals cuts, polishing), then keep iterating until
   the engine's ``warmup_seconds`` have passed (0 on the CPU; 0.3 s on a GPU, which an idle spell,
   e.g. a CPU baseline, leaves at low clocks).
3. Time repeats: each repeat is ``step(state, iterations)`` between two device synchronisations,
   on the host's wall clock (launch and Python overheads count). Up to ``repeats`` repeats
   (REPEATS by default), fewer once the timed repeats have taken ENOUGH_SECONDS together.
4. Keep the median: the repeat with the median rate (evaluations per second, exact counts) is
   reported, its seconds and evaluations together.

End-to-end timings (a whole run: build, initial walkers, iterations, reading the best on the host)
follow the same rule with the run as the repeated unit: ``time_runs``.

Measure where nothing else competes for the interpreter: a thread that shares the GIL with a busy
GUI thread (repainting charts) is slowed by waiting for it, which is why the compare tab measures
its rates after the live race, not during it.
"""
from __future__ import annotations

import math
import statistics
import time
from dataclasses import dataclass
from typing import Callable

from .rng import ArrayRNG

REPEATS = 3  # timed repeats, at most
ENOUGH_SECONDS = 1.0  # no further repeat once the timed repeats have taken this long together
REPEAT_SECONDS = 0.2  # a repeat's length when the caller leaves the iteration count to the rule


@dataclass(frozen=True)
class Timing:
    """The median repeat of one measurement, and how it was obtained."""

    seconds: float
    evals: int
    iterations: int
    repeats: int
    best_f: float = math.nan
    rates: tuple = ()  # evaluations per second of every repeat, in order
    index: int = 0  # which repeat is the median one

    @property
    def evals_per_second(self) -> float | None:
        return self.evals / self.seconds if self.seconds > 0 else None


def _best(state) -> float:
    from .arrays import to_numpy  # noqa: PLC0415

    return float(to_numpy(state.best_f))


def warm_up(algo, engine, seed: int = 0, state=None):
    """Rule step 2: (state, seconds of one iteration). A fresh state unless one is given. After
    its first iteration, the kernels a run first uses later are compiled too (warm_kernels)."""
    if state is None:
        state = algo.init(ArrayRNG(algo.xp, seed))
    per_iter = _time_step(algo, engine, state, 1)
    warm_kernels(algo, engine, state)
    # the GPU's clock warm-up counts from here: a long CPU-side compile in warm_kernels would
    # otherwise use up warmup_seconds while the device idles
    start = time.perf_counter()
    while time.perf_counter() - start < engine.warmup_seconds and not getattr(state, "done", False):
        per_iter = _time_step(algo, engine, state, 1)
    return state, per_iter


def warm_kernels(algo, engine, state) -> None:
    """Compile, untimed, what a run reaches only after its first iteration (the iteration max_evals
    cuts, the SA hybrid's polishing: Algorithm.warm_kernels, on copies of `state`), on an engine
    that compiles at first use; a first iteration alone left those compiles inside timed runs."""
    if engine.compiles or engine.compiles_when_run:
        algo.warm_kernels(state)
        engine.synchronize()


def _time_step(algo, engine, state, iterations: int) -> float:
    engine.synchronize()
    t0 = time.perf_counter()
    algo.step(state, iterations)
    engine.synchronize()
    return time.perf_counter() - t0


def iterations_for(per_iter: float, seconds: float = REPEAT_SECONDS) -> int:
    """Iterations that take about `seconds` at `per_iter` seconds each (at least one)."""
    return max(1, int(seconds / per_iter)) if per_iter > 0 else 1


def time_steps(algo, engine, state, iterations: int, *, seed: int = 0, repeats: int = REPEATS,
               chunk: int | None = None, check: Callable[[float, int], None] | None = None,
               fresh: bool = False) -> Timing:
    """Rule steps 3-4 on a warmed-up state. `chunk` splits a repeat into steps of at most that many
    iterations (same work, counted the same) so that `check(seconds_so_far, iterations_done)`, which
    may raise to abandon the measurement, runs between them. A state that has converged (no work
    left) is replaced by a fresh, warmed-up one before the next repeat. `fresh`: every repeat times
    iterations 1..`iterations` of a newly initialised run (initialisation untimed), for a case whose
    phases change along the run (SA hybrid: annealing, then Nelder-Mead polishing), so that the
    timed window is the same part of the run whatever the warm-up reached."""
    samples: list[tuple[float, int, float]] = []
    total = 0.0
    for _ in range(max(1, int(repeats))):
        if fresh:
            state = algo.init(ArrayRNG(algo.xp, seed))
            engine.synchronize()
        elif getattr(state, "done", False):
            state, _ = warm_up(algo, engine, seed)
        before, done, seconds = state.evals, 0, 0.0
        while done < iterations:
            n = iterations - done if chunk is None else min(chunk, iterations - done)
            seconds += _time_step(algo, engine, state, n)
            done += n
            if check is not None:
                check(seconds, done)
        samples.append((seconds, int(state.evals - before), _best(state)))
        total += seconds
        if total >= ENOUGH_SECONDS:
            break
    return _median(samples, iterations)


def _median(samples: list[tuple[float, int, float]], iterations: int) -> Timing:
    rates = [e / s if s > 0 else 0.0 for s, e, _ in samples]
    k = rates.index(statistics.median_low(rates))
    seconds, evals, best = samples[k]
    return Timing(seconds=seconds, evals=evals, iterations=iterations, repeats=len(samples),
                  best_f=best, rates=tuple(rates), index=k)


def measure_rate(engine, algorithm: str, problem, params, *, dtype="float64", fast_math: bool = False,
                 seed: int = 0, iterations: int | None = None, repeats: int = REPEATS,
                 configure: Callable | None = None, threads: int | None = None,
                 devices=None, fresh: bool = False) -> Timing:
    """The whole rule for a steady rate: build, warm up, timed repeats, median. `iterations` per
    repeat default to about REPEAT_SECONDS of work. `configure(algo)` may set tuning attributes.
    `threads`: CPU threads on an engine that honours them (None: its default). `devices`: the run
    split over these devices (solvers/shards.py; None: one device). `fresh`: see time_steps."""
    from . import shards  # noqa: PLC0415
    from .engines import get_engine  # noqa: PLC0415

    engine = get_engine(engine)
    algo = shards.build(engine, algorithm, problem, params, dtype, fast_math, threads=threads,
                        devices=devices)
    if configure is not None:
        for each in shards.parts(algo):
            configure(each)
    state, per_iter = warm_up(algo, engine, seed)
    if iterations is None:
        iterations = iterations_for(per_iter)
    if fresh and (engine.compiles or engine.compiles_when_run):
        # one untimed window first: it reaches phases a first iteration does not (the SA hybrid's
        # polishing), and whatever they compile at first use that warm_kernels missed. On a fresh
        # H100 (2026-11-26, a cold CuPy cache) a compile fell into the only timed repeat of the
        # hybrid case (ENOUGH_SECONDS): 563 M/s, where the same tree's kernels make 19.5 G/s
        time_steps(algo, engine, state, iterations, seed=seed, repeats=1, fresh=True)
    return time_steps(algo, engine, state, iterations, seed=seed, repeats=repeats, fresh=fresh)


def time_runs(run: Callable[[], tuple[float, int, float]], engine, *, repeats: int = REPEATS,
              warm: Callable[[], object] | None = None) -> Timing:
    """The rule with a whole run as the unit. `run()` returns (seconds, evaluations, best f) and
    times itself (it knows where its run starts and ends); `warm()` (default: `run`) is called once,
    then again until the engine's warm-up seconds have passed, untimed."""
    warm = warm or run
    start = time.perf_counter()
    warm()
    while time.perf_counter() - start < engine.warmup_seconds:
        warm()
    samples, total = [], 0.0
    for _ in range(max(1, int(repeats))):
        sample = run()
        samples.append(sample)
        total += sample[0]
        if total >= ENOUGH_SECONDS:
            break
    return _median(samples, 0)
