"""Speedup sweep: time the same fixed work on each engine for growing walker counts (Qt-free).

The pattern-search seed's Table 1 in one call: for one algorithm, problem and dimension, run a fixed
number of iterations with 2^lo ... 2^hi walkers on each engine and report time, evaluations per
second and the speedup over a CPU baseline (numpy, or numba on all or one core) at the same walker
count.

How to wire it (gui/sweep.py runs it on a QThread; the CLI can print it):
    spec = SweepSpec.build("pattern_search", "ackley", 20, iterations=20,
                           engines=list_engines(), min_exp=8, max_exp=20,
                           point_cap_s=10.0)               # ConfigError on bad input
    cancel = threading.Event()                             # set() from any thread to stop
    for record in run_sweep(spec, cancel):                 # blocks; one SweepRecord per point
        show(record.walkers, record.engine, record.seconds, record.speedup, record.progress)
    write_csv(records, "sweep.csv", spec)
An engine stops growing at the first point that runs out of memory, would pass the per-point time
cap or fails; that record has status "stopped"/"error" and says why in ``note``.
"""
from __future__ import annotations

import csv
import io
import math
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator, Mapping, Sequence

from .algorithms import get_algorithm
from . import measure
from .atomic_write import atomic_write_text
from .config import DEFAULT_DTYPE, DEFAULT_SEED, bind_problem, check_dtype
from .engines import get_engine
from .errors import ConfigError, DeviceMemoryError, EngineUnavailable
from .params import MAX_WALKERS, make_params, specs
from .problems import Problem, get_problem, param_defaults

WALKER_PARAM = "walkers"
MAX_EXP = MAX_WALKERS.bit_length() - 1  # 2^24 walkers: the walkers parameters' upper limit
# the sweep's defaults (the window's Speedup sweep tab starts from them)
DEFAULT_ITERATIONS = 20  # the pattern-search paper's Table 1
DEFAULT_MIN_EXP = 8
DEFAULT_MAX_EXP = 20
DEFAULT_POINT_CAP_S = 10.0
# The timed run is cut into chunks of about this long so a cancel is seen quickly; chunks only
# split the iterations, the work done and counted is the same.
CHUNK_SECONDS = 0.25


@dataclass(frozen=True)
class SweepSpec:
    """What to sweep: everything but the walker count is fixed."""

    algorithm: str
    problem: str
    dim: int
    iterations: int
    engines: tuple[str, ...]
    min_exp: int = DEFAULT_MIN_EXP
    max_exp: int = DEFAULT_MAX_EXP
    params: Mapping = field(default_factory=dict)  # other parameters (not walkers)
    dtype: str = DEFAULT_DTYPE
    seed: int = DEFAULT_SEED
    fast_math: bool = False
    point_cap_s: float = DEFAULT_POINT_CAP_S  # no point may take longer than this (predicted or measured)
    baseline: str | None = "numpy"  # the engine speedups are measured against (swept first)
    threads: int | None = None  # CPU threads of the engines that honour them (None: all cores)
    # the Problem object given to build (a Python callable or an expression with its own box,
    # f_min and x_min), which every point runs as it is; None: found by the name `problem`
    problem_object: Problem | None = field(default=None, repr=False)

    @staticmethod
    def build(algorithm: str, problem: str | Problem, dim: int | None = None, *,
              iterations: int = DEFAULT_ITERATIONS, engines: Sequence[str] = ("numpy",),
              min_exp: int = DEFAULT_MIN_EXP, max_exp: int = DEFAULT_MAX_EXP,
              params: Mapping | None = None, dtype: str = DEFAULT_DTYPE, seed: int = DEFAULT_SEED,
              fast_math: bool = False, point_cap_s: float = DEFAULT_POINT_CAP_S, baseline: str | None = None,
              threads: int | None = None) -> "SweepSpec":
        """Validate; ConfigError with one clear line on the first bad value. `problem`: a function's
        name, or a Problem object, which every point then runs itself (as solvers.run does)."""
        cls = get_algorithm(algorithm)
        if WALKER_PARAM not in {s.name for s in specs(cls.Params)}:
            raise ConfigError(f"algorithm '{algorithm}' has no '{WALKER_PARAM}' parameter to sweep")
        params = {k: v for k, v in dict(params or {}).items() if k != WALKER_PARAM}
        make_params(cls.Params, params)  # the fixed parameters must be valid on their own
        source, bound, problem = bind_problem(problem, dim)
        # the function's own defaults for this algorithm (as a run's), where not given
        params = {**param_defaults(bound, algorithm), **params}  # of the definition, not the name
        if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 1:
            raise ConfigError(f"iterations must be an integer >= 1, got {iterations!r}")
        engines = tuple(dict.fromkeys(engines))  # keep order, drop repeats
        if not engines:
            raise ConfigError("choose at least one engine")
        for engine in engines:
            get_engine(engine)  # ConfigError naming the known engines
        # the baseline (numpy unless chosen) first: every other engine's speedup is measured
        # against it at the same walker count, so it is swept even when not checked
        if baseline is None:  # numpy if swept, else the first CPU engine swept, else no speedups
            cpu = [e for e in engines if not get_engine(e).is_gpu]
            baseline = next((e for e in cpu if get_engine(e).is_reference), cpu[0] if cpu else None)
        elif get_engine(baseline).is_gpu:
            raise ConfigError(f"the speedup baseline must be a CPU engine, got '{baseline}'")
        if baseline is not None:
            engines = (baseline,) + tuple(e for e in engines if e != baseline)
        if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int)
                                    or threads < 1):
            raise ConfigError(f"threads must be an integer >= 1, got {threads!r}")
        for name, value in (("min_exp", min_exp), ("max_exp", max_exp)):
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_EXP:
                raise ConfigError(f"{name} must be an integer in [0, {MAX_EXP}], got {value!r}")
        if min_exp > max_exp:
            raise ConfigError(f"smallest walker count 2^{min_exp} is above the largest 2^{max_exp}")
        # a count below the algorithm's least (PSO 2, DE 4) failed as the first point, and a failed
        # point ends the sweep: no point of DE from 2^0 was measured
        least = next(s.lo for s in specs(cls.Params) if s.name == WALKER_PARAM) or 1
        if 2 ** min_exp < least:
            first = math.ceil(math.log2(least))
            raise ConfigError(f"smallest walker count 2^{min_exp} = {2 ** min_exp} is below the {int(least)} "
                              f"{algorithm} needs at least: start at 2^{first}")
        check_dtype(dtype)
        if not (isinstance(point_cap_s, (int, float)) and math.isfinite(point_cap_s)
                and point_cap_s > 0):
            raise ConfigError(f"time cap per point must be > 0 seconds, got {point_cap_s!r}")
        return SweepSpec(algorithm=algorithm, problem=problem, dim=bound.dim, iterations=iterations,
                         engines=engines, min_exp=min_exp, max_exp=max_exp, params=params,
                         dtype=dtype, seed=int(seed), fast_math=bool(fast_math),
                         point_cap_s=float(point_cap_s), baseline=baseline, threads=threads,
                         problem_object=source)

    def baseline_label(self) -> str:
        """The baseline as titles name it: "numpy", "numba, 16 threads" ("" when none)."""
        return "" if self.baseline is None else get_engine(self.baseline).baseline_label(self.threads)

    def walker_counts(self) -> list[int]:
        return [2 ** e for e in range(self.min_exp, self.max_exp + 1)]

    def total_points(self) -> int:
        return len(self.walker_counts()) * len(self.engines)


@dataclass(frozen=True)
class SweepRecord:
    """One point of the sweep. ``status``: "ok" (timed), "stopped" (engine stops here: memory,
    time cap or unavailable) or "error" (unexpected failure); ``note`` says why."""

    walkers: int
    engine: str
    status: str
    seconds: float | None = None  # timed iterations only (after warm-up)
    evals: int = 0
    evals_per_second: float | None = None
    speedup: float | None = None  # baseline's seconds / this engine's seconds, same walker count
    iterations: int = 0
    note: str = ""
    progress: float = 0.0  # fraction of all points handled (skipped points count as handled)

    @property
    def ok(self) -> bool:
        return self.status == "ok"


CSV_COLUMNS = ("walkers", "engine", "status", "seconds", "evals", "evals_per_second", "speedup",
               "iterations", "note")


def run_sweep(spec: SweepSpec, cancel: threading.Event | None = None,
              on_point_start: Callable[[int, str], None] | None = None) -> Iterator[SweepRecord]:
    """Run the sweep, yielding one record per point as soon as it is measured.

    Returns (ends the iteration) when done or soon after `cancel` is set: between points, and
    between chunks of a timed run (a cancelled point is not reported). `on_point_start(walkers,
    engine)` is called before each point is built and timed, for a status line.
    """
    cancel = cancel or threading.Event()
    counts = spec.walker_counts()
    total = spec.total_points()
    handled = 0
    stopped: dict[str, str] = {}  # engine -> why it stopped growing
    last_seconds: dict[str, tuple[int, float]] = {}  # engine -> (walkers, seconds) of last point
    base_seconds: dict[int, float] = {}  # the baseline engine's seconds by walker count

    for engine in spec.engines:
        ok, reason = get_engine(engine).status()
        if not ok:
            stopped[engine] = f"engine unavailable: {reason}"
    for n in counts:
        for engine in spec.engines:
            if cancel.is_set():
                return
            handled += 1
            progress = handled / total
            if engine in stopped:
                if n == counts[0]:  # say once, at the first count, why an engine never ran
                    yield SweepRecord(n, engine, "stopped", note=stopped[engine], progress=progress)
                continue
            predicted = _predict(last_seconds.get(engine), n)
            if predicted is not None and predicted > spec.point_cap_s:
                stopped[engine] = (f"time cap: predicted {predicted:.3g} s > {spec.point_cap_s:g} s "
                                   f"per point")
                yield SweepRecord(n, engine, "stopped", note=stopped[engine], progress=progress)
                continue
            if on_point_start is not None:
                on_point_start(n, engine)
            failure = None
            try:
                seconds, evals = _time_point(spec, engine, n, cancel)
            except _Cancelled:
                return
            except Exception as exc:  # noqa: BLE001 - every failure becomes a record, never a crash
                failure = _failure(exc)
            # outside the except block, so the traceback (holding the point's arrays) is gone
            _release_memory(engine)
            if failure is not None:
                status, note = failure
                stopped[engine] = note
                yield SweepRecord(n, engine, status, note=note, progress=progress)
                continue
            last_seconds[engine] = (n, seconds)
            if engine == spec.baseline:
                base_seconds[n] = seconds
            base = base_seconds.get(n)
            speedup = base / seconds if base is not None and seconds > 0 else None
            yield SweepRecord(n, engine, "ok", seconds=seconds, evals=evals,
                              evals_per_second=evals / seconds if seconds > 0 else None,
                              speedup=speedup, iterations=spec.iterations, progress=progress)


def sweep_job(spec: SweepSpec, *, cancel: threading.Event, emit: Callable) -> Iterator[SweepRecord]:
    """run_sweep as a job on a cluster worker (solvers/study/remote.py): the records are yielded, the
    point starts sent through ``emit`` as ("start", walkers, engine), in the order they happen."""
    yield from run_sweep(spec, cancel, lambda walkers, engine: emit(("start", walkers, engine)))


def write_csv(records: Iterable[SweepRecord], path: str | Path, spec: SweepSpec | None = None) -> Path:
    """Write the records as CSV; `spec` adds comment lines (# key=value) naming the setting."""
    path = Path(path)
    with io.StringIO(newline="") as handle:  # built in memory, saved atomically below
        if spec is not None:
            for key, value in describe(spec).items():
                # one line, as a typed function may span several (the rest would leave the comment)
                handle.write(f"# {key}={' '.join(str(value).splitlines())}\n")
        writer = csv.writer(handle)
        writer.writerow(CSV_COLUMNS)
        for r in records:
            writer.writerow([r.walkers, r.engine, r.status, _num(r.seconds), r.evals,
                             _num(r.evals_per_second), _num(r.speedup), r.iterations, r.note])
        text = handle.getvalue()
    return atomic_write_text(path, text)


def describe(spec: SweepSpec) -> dict:
    """The sweep's fixed setting as flat key/value pairs (for CSV headers and plot titles)."""
    problem = spec.problem_object if spec.problem_object is not None else get_problem(spec.problem, spec.dim)
    box = f"[{float(problem.lower.min()):g}, {float(problem.upper.max()):g}]"  # its extent if per coordinate
    return {"algorithm": spec.algorithm, "problem": spec.problem, "box": box, "dim": spec.dim,
            "iterations": spec.iterations, "dtype": spec.dtype, "seed": spec.seed,
            "engines": " ".join(spec.engines), "walkers": f"2^{spec.min_exp}..2^{spec.max_exp}",
            "speedup_vs": spec.baseline_label(),
            "params": " ".join(f"{k}={v}" for k, v in sorted(spec.params.items())) or "defaults"}


# --- internals ----------------------------------------------------------------------------------
class _Cancelled(Exception):
    pass


class _OverCap(Exception):
    pass


def _predict(last: tuple[int, float] | None, n: int) -> float | None:
    """Time at n walkers from the previous point, assuming time grows at least linearly in walkers
    once the device is busy; small GPU points are flat, so this is a safe overestimate there."""
    if last is None:
        return None
    walkers, seconds = last
    return seconds * n / walkers


def _build(spec: SweepSpec, engine: str, walkers: int):
    """(algorithm object, engine) of one point; compiles on first use and checks memory."""
    engine = get_engine(engine)
    cls = engine.algorithm_class(spec.algorithm)
    params = make_params(cls.Params, {**spec.params, WALKER_PARAM: walkers})
    problem = spec.problem_object if spec.problem_object is not None else get_problem(spec.problem, spec.dim)
    return engine.build(spec.algorithm, problem, params, spec.dtype, spec.fast_math,
                        threads=spec.threads), engine


def _time_point(spec: SweepSpec, engine: str, walkers: int, cancel: threading.Event) -> tuple[float, int]:
    """Seconds and evaluations of `spec.iterations` iterations at `walkers`, by the measuring rule
    of solvers/measure.py (build and warm-up untimed, timed repeats, median).

    The warm-up's last iteration also gives the per-iteration estimate used to check the cap
    before the timed run and to size its chunks (a cancel is seen between chunks).
    """
    algo, engine = _build(spec, engine, walkers)
    state, per_iter = measure.warm_up(algo, engine, spec.seed)
    if per_iter * spec.iterations > spec.point_cap_s and not cancel.is_set():
        # the first step on an engine may include compiling CuPy's kernels: measure once more
        state, per_iter = measure.warm_up(algo, engine, spec.seed, state=state)
    if cancel.is_set():
        raise _Cancelled
    predicted = per_iter * spec.iterations
    if predicted > spec.point_cap_s:
        raise _OverCap(f"predicted {predicted:.3g} s > {spec.point_cap_s:g} s per point")

    def check(seconds: float, done: int) -> None:
        if cancel.is_set():
            raise _Cancelled
        if seconds > spec.point_cap_s and done < spec.iterations:
            raise _OverCap(f"passed {spec.point_cap_s:g} s after {done} of {spec.iterations} "
                           f"iterations")

    timing = measure.time_steps(algo, engine, state, spec.iterations, seed=spec.seed,
                                chunk=measure.iterations_for(per_iter, CHUNK_SECONDS), check=check)
    return timing.seconds, timing.evals


def _release_memory(engine: str) -> None:
    """Free the point's arrays before the next, larger one (CuPy keeps freed blocks pooled)."""
    get_engine(engine).release_memory()


def _failure(exc: Exception) -> tuple[str, str]:
    """(status, note) for a point that failed: expected limits stop an engine, others are errors."""
    if isinstance(exc, (DeviceMemoryError, MemoryError)):  # CuPy's OutOfMemoryError included
        return "stopped", f"out of memory: {_one_line(exc)}"
    if isinstance(exc, _OverCap):
        return "stopped", f"time cap: {exc}"
    if isinstance(exc, (ConfigError, EngineUnavailable)):
        return "stopped", _one_line(exc)
    # a kernel or driver failure: report it and keep the other engines going
    return "error", f"{type(exc).__name__}: {_one_line(exc)}"


def _one_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


def _num(value: float | None) -> str:
    return "" if value is None else f"{value:.6g}"
