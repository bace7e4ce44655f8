"""The run loop: advances a solver in chunks and publishes snapshots; Qt-free and thread-safe.

``Runner.run()`` blocks the thread that calls it (the GUI runs it on a QThread worker, the CLI on
the main thread). Other threads control it with ``pause``, ``resume``, ``step_once``, ``stop``,
``update_params`` and ``set_delay``; those only set flags under a lock, read between chunks.
Timing counts only the time spent computing: pauses and the teaching delay are left out, so a
slowed-down animation reports the same evaluations per second as a full-speed run.
"""
from __future__ import annotations

import dataclasses
import threading
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .arrays import to_numpy
from .config import RunConfig
from .engines import get_engine, reference_class
from .errors import ConfigError
from .params import changed_fields, make_params, specs
from . import measure, shards
from .rng import ArrayRNG
from .snapshot import Snapshot

# Coordinates evaluated per slice of a large iteration (~0.05-0.3 s of NumPy): the time budget,
# Stop, pause and closing the window wait at most one slice, not one whole iteration.
SLICE_WORK = 2**22
# A GUI thread shares the GIL with the solver. PyQt takes the GIL for every virtual call while it
# paints, and a solver loop of small numpy operations (a few walkers in 2-D) takes it straight back
# each time, so a repaint waited seconds and Stop minutes (measured: 255 s in the window test).
# A runner built with share_gil=True therefore sleeps after each chunk for this share of the
# chunk's time (bounded); the sleep is outside the timed region, so rates stay compute-only.
GIL_SHARE, GIL_SLEEP_MIN_S, GIL_SLEEP_MAX_S = 0.5, 0.0005, 0.02
SLOW_ITERATION_S = 3.0  # an iteration that cannot be split and takes longer is warned about


@dataclass(frozen=True)
class RunResult:
    """What a finished run found and what it cost."""

    algorithm: str
    problem: str
    dim: int
    engine: str
    dtype: str
    seed: int
    params: dict
    best_x: np.ndarray
    best_f: float
    f_min: float | None
    evals: int
    iterations: int
    seconds: float
    stop_reason: str
    history: np.ndarray = field(repr=False)  # (k, 3): evals, seconds, best_f
    warnings: tuple[str, ...] = ()  # e.g. a budget too small for the walkers (Algorithm.warnings)
    # evaluations that gave NaN or +-inf (treated as +inf); None where the engine does not count
    nonfinite_evals: int | None = None
    points_per_iteration: int = 0  # walkers x groups: the points one iteration moves
    # live changes, in order: dicts of iteration, evals, seconds (the run's count when it took
    # effect), name, old, new; `params` holds the values at the end
    param_changes: tuple[dict, ...] = ()

    def to_dict(self) -> dict:
        return {"algorithm": self.algorithm, "problem": self.problem, "dim": self.dim,
                "engine": self.engine, "dtype": self.dtype, "seed": self.seed,
                "params": self.params, "best_f": self.best_f, "f_min": self.f_min,
                "best_x": [float(v) for v in self.best_x], "evals": self.evals,
                "iterations": self.iterations, "seconds": self.seconds,
                "evals_per_second": self.evals / self.seconds if self.seconds > 0 else None,
                "stop_reason": self.stop_reason, "warnings": list(self.warnings),
                "nonfinite_evals": self.nonfinite_evals,
                "points_per_iteration": self.points_per_iteration,
                "param_changes": [dict(c) for c in self.param_changes],
                "history": [[int(e), float(s), float(b)] for e, s, b in self.history]}


def sample_indices(n: int, k: int) -> np.ndarray:
    """Evenly spread, fixed indices of at most k of n walkers (the same ones all run long)."""
    if n <= k:
        return np.arange(n)
    return np.unique(np.linspace(0, n - 1, k).round().astype(np.int64))


class Runner:
    """Drives one run of one configuration; see the module docstring for threading."""

    def __init__(self, config: RunConfig, on_snapshot: Callable[[Snapshot], None] | None = None,
                 on_status: Callable[[str], None] | None = None, share_gil: bool = False,
                 compile_first: bool = False, on_built: Callable | None = None):
        """`compile_first`: on an engine that compiles when a run first iterates (numba, cupy),
        compile before the clock starts (the measuring rule's warm-up), so `seconds` is the run's
        own time; off, the first chunk includes the compile (the window says "first iteration").
        `on_built(algorithm)`: called once the solver is built, before its walkers are drawn (a
        tuning grid asks it there to record when the run reaches a target)."""
        self.config = config
        self._compile_first = compile_first
        self._on_built = on_built
        self._share_gil = share_gil
        self._on_snapshot = on_snapshot
        self._on_status = on_status
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._paused = False
        self._stop = False
        self._pending_steps = 0
        self._pending_params = None
        self._delay = 0.0
        self.algorithm = None
        self.engine = None
        self.state = None
        self.seconds = 0.0
        self.history: list[tuple[int, float, float]] = []
        self.param_changes: list[dict] = []  # see RunResult.param_changes
        self._slices = None  # the unfinished iteration's slice generator, if one is under way
        self._first_chunk_compiles = False  # "first iteration" shown until the first chunk ends
        self._last_snapshot: Snapshot | None = None

    # --- control, from any thread --------------------------------------------------------------
    def pause(self) -> None:
        with self._lock:
            self._paused = True

    def resume(self) -> None:
        with self._wake:
            self._paused = False
            self._wake.notify_all()

    def step_once(self) -> None:
        """While paused: run one iteration and publish a snapshot."""
        with self._wake:
            self._pending_steps += 1
            self._wake.notify_all()

    def stop(self) -> None:
        with self._wake:
            self._stop = True
            self._wake.notify_all()

    def set_delay(self, seconds: float) -> None:
        """Teaching speed: start a single-iteration chunk at most every `seconds` (the wait is
        not timed)."""
        with self._lock:
            self._delay = max(0.0, float(seconds))

    def update_params(self, values: dict) -> None:
        """Queue parameter changes for the next chunk; ConfigError for bad or non-live ones."""
        cls = reference_class(self.config.algorithm)
        with self._lock:
            base = self._pending_params or self.config.params
        new = make_params(cls.Params, values, base=base)
        live = {s.name for s in specs(cls.Params) if s.live}
        frozen = [n for n in changed_fields(self.config.params, new) if n not in live]
        if frozen:
            raise ConfigError(f"parameter '{frozen[0]}' can only change on reset")
        with self._wake:
            self._pending_params = new
            self._wake.notify_all()

    @property
    def paused(self) -> bool:
        return self._paused

    @property
    def last_snapshot(self) -> Snapshot | None:
        return self._last_snapshot

    # --- the loop, on the calling thread -------------------------------------------------------
    def prepare(self) -> None:
        """Build the solver (compiling kernels on the cuda engine) and draw the initial walkers."""
        cfg = self.config
        problem = cfg.make_problem()
        engine = self.engine = get_engine(cfg.engine)
        xp = engine.xp
        if engine.compiles:
            self._status(engine.compile_message)
        # "auto" parameters fitted to the budget (max_evals a hard cap), then the memory check
        # split over cfg.devices (solvers/shards.py); the engine's own object when None
        self.algorithm = shards.build(engine, cfg.algorithm, problem, cfg.params, cfg.dtype,
                                      cfg.fast_math, budget=cfg.budget, threads=cfg.threads,
                                      devices=cfg.devices)
        dropped = cfg.dropped_minimum()
        if dropped is not None:  # reported with the result, like the budget's warnings
            self.algorithm.warnings = (*self.algorithm.warnings, dropped)
            self._status(f"warning: {dropped}")
        if self._on_built is not None:
            self._on_built(self.algorithm)
        warmed = self._compile_first and engine.compiles_when_run
        if warmed:
            # untimed, as every measurement compiles (solvers/measure.py): a throwaway state's
            # first iteration; the run's own walkers are drawn below from its seed, as without it
            self._status(engine.compile_message)
            measure.warm_up(self.algorithm, engine, cfg.seed)
        self._status("initialising walkers")
        t0 = time.perf_counter()
        self.state = self.algorithm.init(ArrayRNG(xp, cfg.seed))
        engine.synchronize()
        self.seconds = time.perf_counter() - t0
        self._sample = sample_indices(self.algorithm.total_walkers(), cfg.sample_size)
        self.history = [(self.state.evals, self.seconds, self._best_f())]
        self._warn_if_slow()
        # an engine that compiles at its first iterations (CuPy's element-wise kernels, numba's step
        # kernels) may spend seconds there on a fresh machine: say so until the first chunk is done
        self._first_chunk_compiles = engine.compiles_when_run and not warmed
        self._status("first iteration" if self._first_chunk_compiles else "running")

    def run(self) -> RunResult:
        """Run until the budget is spent or stop() is called; returns the result."""
        if self.state is None:
            self.prepare()
        cfg, budget = self.config, self.config.budget
        engine = self.engine
        chunk_iters, target = 1, 1.0 / cfg.snapshot_hz
        last_publish = -1.0
        reason = ""
        self._publish(finished=False, reason="")
        while True:
            reason = self._budget_reason()
            if reason == "max_evals" and self._slices is not None:
                # the cap fell inside a sliced iteration: finish it, as an unsliced step does (its
                # points past the cap read +inf and cost no evaluation), so that a run counts the
                # same iterations and ends in the same state sliced or not; Stop and the time budget
                # still end it between slices
                reason = ""
            if reason:
                break
            single = self._wait_while_paused()
            if single is None:
                reason = "stopped"
                break
            self._apply_pending_params()
            with self._lock:
                delay = self._delay
            iters = 1 if (single or delay > 0) else self._clamp_chunk(chunk_iters)
            t0 = time.perf_counter()
            if self._advance(iters, whole=bool(single)):
                iters = 1  # a slice of an iteration: the chunk never grows past one iteration
            engine.synchronize()
            dt = time.perf_counter() - t0
            self.seconds += dt
            if self._first_chunk_compiles:
                self._first_chunk_compiles = False
                self._status("running")
            self.history.append((self.state.evals, self.seconds, self._best_f()))
            if not single and delay == 0:
                # grow or shrink chunks so one lasts about one display frame
                scale = target / dt if dt > 0 else 4.0
                chunk_iters = max(1, int(iters * min(4.0, max(0.25, scale))))
            now = time.perf_counter()
            with self._lock:
                pausing = self._paused  # show the state a pause (and the next step) starts from
            if single or delay > 0 or pausing or now - last_publish >= target:
                self._publish(finished=False, reason="")
                last_publish = now
            share = min(GIL_SLEEP_MAX_S, max(GIL_SLEEP_MIN_S, GIL_SHARE * dt)) if self._share_gil else 0.0
            if delay > 0:
                # the delay is a period counted from the iteration's start, so the pace holds
                # (the slider's "200 iterations/s" ran at 111/s when the compute and the
                # snapshot came on top of the wait); never less than the window's share of the GIL
                with self._wake:
                    self._wake.wait_for(lambda: self._stop,
                                        timeout=max(share, delay - (time.perf_counter() - t0)))
            elif share > 0:
                time.sleep(share)
        self._publish(finished=True, reason=reason)
        return self.result(reason)

    def result(self, reason: str = "") -> RunResult:
        cfg, state = self.config, self.state
        problem = self.algorithm.problem
        return RunResult(algorithm=cfg.algorithm, problem=cfg.problem, dim=cfg.dim, engine=cfg.engine,
                         dtype=cfg.dtype, seed=cfg.seed, params=self.effective_params(),
                         best_x=to_numpy(state.best_x).astype(np.float64), best_f=self._best_f(),
                         f_min=problem.f_min, evals=int(state.evals), iterations=int(state.iteration),
                         seconds=self.seconds, stop_reason=reason,
                         history=np.asarray(self.history, dtype=np.float64).reshape(-1, 3),
                         warnings=tuple(self.algorithm.warnings),
                         nonfinite_evals=self.nonfinite_evals(),
                         points_per_iteration=self.algorithm.total_walkers(),
                         param_changes=tuple(dict(c) for c in self.param_changes))

    def nonfinite_evals(self) -> int | None:
        """Evaluations so far that gave NaN or +-inf; None where the engine does not count them."""
        if not self.algorithm.counts_nonfinite:
            return None
        return int(to_numpy(self.state.nonfinite))

    def effective_params(self) -> dict:
        """The parameters the run uses: "auto" resolved, the annealing schedule as fitted."""
        return dataclasses.asdict(self.algorithm.params)

    # --- internals -----------------------------------------------------------------------------
    def _advance(self, iters: int, whole: bool = False) -> bool:
        """Run `iters` iterations, or, when one iteration is large and the algorithm can split it,
        one slice of it (all its remaining slices when `whole`: a single step). True if sliced."""
        algo = self.algorithm
        if self._slices is None and algo.iteration_work() > SLICE_WORK:
            self._slices = algo.iteration_slices(self.state, SLICE_WORK)
        if self._slices is None:
            algo.step(self.state, iters)
            return False
        while True:
            try:
                next(self._slices)
            except StopIteration:
                self._slices = None
                return True
            if not whole:
                return True

    def _warn_if_slow(self) -> None:
        """Warn (status line, the result's ``warnings``) when one iteration cannot be split and will take longer
        than SLOW_ITERATION_S, judged from the rate of the initial evaluation."""
        algo, state = self.algorithm, self.state
        if self.seconds <= 0 or state.evals <= 0:
            return
        if algo.iteration_work() <= SLICE_WORK:
            return
        probe = algo.iteration_slices(state, SLICE_WORK)
        if probe is not None:
            probe.close()  # never started: closing it runs nothing
            return
        rate = state.evals * self.config.dim / self.seconds  # coordinates per second
        expected = algo.iteration_work() / rate
        if expected > SLOW_ITERATION_S:
            text = (f"one iteration will take about {expected:.0f} s; the budget, Stop and Close "
                    "wait for it (use fewer walkers or a lower dimension)")
            algo.warnings = (*algo.warnings, text)  # reported with the result, like the budget's
            self._status(f"warning: {text}")


    def _status(self, text: str) -> None:
        if self._on_status is not None:
            self._on_status(text)

    def _best_f(self) -> float:
        return float(to_numpy(self.state.best_f))

    def _budget_reason(self) -> str:
        b, s = self.config.budget, self.state
        with self._lock:
            if self._stop:
                return "stopped"
        if b.max_evals is not None and s.evals >= b.max_evals:
            return "max_evals"
        if b.max_iters is not None and s.iteration >= b.max_iters:
            return "max_iters"
        if b.max_seconds is not None and self.seconds >= b.max_seconds:
            return "max_seconds"
        if getattr(s, "done", False):
            return "converged"
        return ""

    def _clamp_chunk(self, iters: int) -> int:
        """Keep a chunk inside the remaining iteration and evaluation budget."""
        b, s = self.config.budget, self.state
        if b.max_iters is not None:
            iters = min(iters, b.max_iters - s.iteration)
        if b.max_evals is not None:
            per_iter = max(1.0, self.algorithm.evals_per_iteration())
            iters = min(iters, int(np.ceil((b.max_evals - s.evals) / per_iter)))
        return max(1, iters)

    def _wait_while_paused(self) -> bool | None:
        """Block while paused. True: run a single step; False: run normally; None: stop."""
        with self._wake:
            while self._paused and not self._stop and self._pending_steps == 0:
                self._wake.wait(timeout=0.1)
            if self._stop:
                return None
            if self._paused and self._pending_steps > 0:
                self._pending_steps -= 1
                return True
            self._pending_steps = 0
            return False

    def _apply_pending_params(self) -> None:
        with self._lock:
            new, self._pending_params = self._pending_params, None
        if new is not None:
            before = self.effective_params()
            self.algorithm.set_params(self.state, new)
            self.config = self.config.replace(params=new)
            after = self.effective_params()
            # kept with the run: without it its history read as a run of the final values only
            # (the effective values: a change the algorithm does not take is not recorded)
            for name, old in before.items():
                if after.get(name) != old:
                    self.param_changes.append({"iteration": int(self.state.iteration),
                                               "evals": int(self.state.evals),
                                               "seconds": self.seconds, "name": name,
                                               "old": old, "new": after.get(name)})

    def _publish(self, finished: bool, reason: str) -> None:
        algo, state, cfg = self.algorithm, self.state, self.config
        data = algo.snapshot(state, self._sample)
        snap = Snapshot(algorithm=cfg.algorithm, problem=cfg.problem, engine=cfg.engine, dim=cfg.dim,
                        iteration=int(state.iteration), evals=int(state.evals), seconds=self.seconds,
                        evals_per_second=state.evals / self.seconds if self.seconds > 0 else 0.0,
                        best_x=to_numpy(state.best_x).astype(np.float64), best_f=self._best_f(),
                        positions=data.positions, fitness=data.fitness, sample_index=self._sample,
                        walkers=algo.total_walkers(), extras=dict(data.extras),
                        overlays=dict(data.overlays), finished=finished, stop_reason=reason,
                        params=self.effective_params(), warnings=tuple(algo.warnings),
                        nonfinite_evals=self.nonfinite_evals())
        self._last_snapshot = snap
        if self._on_snapshot is not None:
            self._on_snapshot(snap)
