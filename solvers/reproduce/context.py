"""What one reproduction run shares: the engines chosen, the mode, the seed, and timed measurements.

"CPU" is the reference engine (numpy); "GPU" is the first GPU engine that can run an algorithm:
the compiling one (cuda) first, else the array code on the GPU (cupy), and the report says why.
The compiled CPU baselines (``numba`` on every core, ``numba1`` on one core, the papers' sequential
baseline) are measured beside the numpy one, by the same rule, wherever a table gives a speedup.
Every measurement goes through the public run loop (``RunConfig`` and ``Runner``), so its time is
the runner's compute time: the initial evaluation and every iteration, after a device synchronise,
without kernel compilation. Runs are timed by solvers/measure.py's rule (``time_runs``): a short
run of the same configuration warms up first, untimed (once per configuration, on every engine,
numpy included; it compiles the cuda and numba kernels), and short GPU runs are repeated and the
median kept (a CPU run, already long, is timed once).

CPU baselines are capped by time: a capped run stops at the first iteration boundary past the cap
and is compared with the GPU by evaluations per second (marked in the report). A paper has a time
allowance; once it is spent, the remaining measurements are skipped and the report lists them, so
that ``reproduce all`` keeps to its time on any machine.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping, Sequence

import numpy as np

from .. import measure as rule
from ..config import Budget, RunConfig
from ..atomic_write import check_writable_folder
from ..engines import get_engine, list_engines, reference_engine
from ..errors import ConfigError, DeviceMemoryError, EngineUnavailable
from ..runner import Runner


def gpu_engines_by_preference() -> list[str]:
    """GPU engines, the compiled kernels first (the array code on the GPU is the fallback)."""
    gpus = [get_engine(e) for e in list_engines() if get_engine(e).is_gpu]
    return [e.name for e in sorted(gpus, key=lambda e: not e.compiles)]


@dataclass
class Measurement:
    """One timed run, or why there is none (``ok`` False, ``reason`` says why)."""

    engine: str
    ok: bool = False
    reason: str = ""
    seconds: float = math.nan
    evals: int = 0
    iterations: int = 0
    best_f: float = math.nan
    best_x: np.ndarray | None = None
    f_min: float | None = None
    stop_reason: str = ""
    capped: bool = False  # stopped by the CPU time cap before its own budget
    repeats: int = 1
    history: np.ndarray | None = field(default=None, repr=False)  # (k, 3): evals, seconds, best_f

    @property
    def rate(self) -> float:
        """Evaluations per second."""
        if not self.ok or not self.seconds > 0:
            return math.nan
        return self.evals / self.seconds

    def seconds_for(self, evals: float | None) -> float:
        """Time for `evals` evaluations at this run's rate (its own time when not capped)."""
        if not self.ok:
            return math.nan
        if not self.capped or evals is None:
            return self.seconds
        return evals / self.rate

    def error(self, relative: bool = False) -> float:
        """|best_f - f_min| (divided by |f_min| when `relative`); NaN when f_min is unknown."""
        if not self.ok or self.f_min is None:
            return math.nan
        gap = abs(self.best_f - self.f_min)
        return gap / abs(self.f_min) if relative and self.f_min != 0 else gap


def speedup(cpu: Measurement, gpu: Measurement) -> tuple[float, bool]:
    """(GPU evals/s over CPU evals/s, marked): the time ratio when both ran the same evaluations.

    Marked when it is not a plain time ratio: a run was capped or the evaluation counts differ
    by more than 1 % (algorithms whose starts stop once converged count differently per engine).
    """
    if not (cpu.ok and gpu.ok):
        return math.nan, False
    ratio = gpu.rate / cpu.rate
    same = abs(cpu.evals - gpu.evals) <= 0.01 * max(cpu.evals, gpu.evals)
    return ratio, bool(cpu.capped or gpu.capped or not same)


class Context:
    """Engines, mode, seed, time allowance and the measurements of one paper's reproduction."""

    def __init__(self, engines: Sequence[str] | None = None, *, quick: bool = False, seed: int = 0,
                 dtype: str | None = None, command: str = "", log: Callable[[str], None] | None = None):
        requested = list(dict.fromkeys(engines or list_engines()))
        for engine in requested:
            get_engine(engine)  # ConfigError naming the known engines
        self.requested = requested
        self.status = {e: get_engine(e).status() for e in requested}
        self.unavailable = {e: why for e, (ok, why) in self.status.items() if not ok}
        cpu = reference_engine().name
        self.cpu = cpu if self.status.get(cpu, (False, ""))[0] else None
        self.gpu_candidates = [e for e in gpu_engines_by_preference()
                               if self.status.get(e, (False, ""))[0]]
        # the compiled CPU baselines requested (numba, numba1), available or not: an unavailable
        # one keeps its columns, which then say why
        self.baselines = [e for e in requested if not get_engine(e).is_gpu and e != cpu]
        self.quick = quick
        self.seed = int(seed)
        self.dtype_override = dtype
        self.command = command
        self.log = log or (lambda text: None)
        self.deadline = math.inf
        self.skips: list[str] = []  # what was skipped once the allowance was spent, one line each
        self.warm_seconds = 0.0  # spent compiling and warming up configurations (GPU and numba)
        # (algorithm, problem) -> why the preferred GPU engine could not run it (the next one did)
        self.fallbacks: dict[tuple[str, str], str] = {}
        self._fell_back_from: dict[tuple[str, str], str] = {}  # the engine that could not
        self.gpu_used: dict[str, set[str]] = {}
        self._warm: set = set()
        self._done: dict = {}  # measurements by their full configuration: identical runs run once

    # --- engines --------------------------------------------------------------------------------
    @property
    def has_cpu(self) -> bool:
        return self.cpu is not None

    @property
    def has_gpu(self) -> bool:
        return bool(self.gpu_candidates)

    @property
    def skipped(self) -> int:
        """Measurements skipped because the allowance was spent."""
        return len(self.skips)

    def baseline_status(self, engine: str) -> str:
        """One line for the header: the CPU and thread count of a compiled baseline, or why not."""
        ok, why = self.status[engine]
        return why if ok else f"unavailable ({why})"

    def compiled_gpu(self) -> str | None:
        """The available GPU engine with compiled kernels (cuda), or None."""
        return next((e for e in self.gpu_candidates if get_engine(e).compiles), None)

    def gpu_note(self, algorithm: str) -> str:
        """One sentence: which engine the GPU column of `algorithm` used, and why if not cuda."""
        used = sorted(self.gpu_used.get(algorithm, set()))
        if not used:
            return ""
        keys = [key for key in self.fallbacks if key[0] == algorithm]
        reasons = sorted({self.fallbacks[key] for key in keys})
        text = f"GPU column: {' and '.join(used)} engine"
        if reasons:
            failed = " and ".join(sorted({self._fell_back_from[key] for key in keys}))
            others = " and ".join(e for e in used if e != failed) or "next GPU"
            text += (f"; the {failed} engine could not run it (" + "; ".join(reasons)
                     + f"), so the {others} engine did")
        return text + "."

    # --- time allowance -------------------------------------------------------------------------
    def start_allowance(self, seconds: float) -> None:
        self.deadline = time.monotonic() + seconds
        self.skips = []

    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    # --- measuring ------------------------------------------------------------------------------
    def dtype(self, default: str) -> str:
        return self.dtype_override or default

    def measure(self, side: str, algorithm: str, problem: str, dim: int, params: Mapping, *,
                dtype: str, max_iters: int | None = None, max_evals: int | None = None,
                max_seconds: float | None = None, cap_s: float | None = None, seed: int | None = None,
                fast_math: bool = False, history_hz: float | None = None,
                repeat_short: bool = True, only: str | None = None, fresh: bool = False) -> Measurement:
        """Run once on the CPU ("cpu": numpy), the GPU ("gpu") or a compiled CPU baseline (a name in
        ``baselines``: "numba", "numba1"); never raises for a run that fails.

        `cap_s` caps the run's time (CPU baselines); `max_seconds` is the experiment's own time
        limit (time-limited runs), which does not mark the run as capped. `only` restricts the
        side to one engine (no fallback). An identical measurement made before is reused unless
        `fresh` (a table that promises a second measurement).
        """
        seed = self.seed if seed is None else seed
        key = (side, only, algorithm, problem, dim, tuple(sorted(params.items())), dtype, max_iters,
               max_evals, max_seconds, cap_s, seed, fast_math, history_hz)
        if key in self._done and not fresh:
            return self._done[key]
        result = self._measure(side, algorithm, problem, dim, params, dtype=dtype, max_iters=max_iters,
                               max_evals=max_evals, max_seconds=max_seconds, cap_s=cap_s, seed=seed,
                               fast_math=fast_math, history_hz=history_hz, repeat_short=repeat_short,
                               only=only)
        if result.ok:
            self._done[key] = result
        return result

    def _measure(self, side, algorithm, problem, dim, params, *, dtype, max_iters, max_evals, max_seconds,
                 cap_s, seed, fast_math, history_hz, repeat_short, only) -> Measurement:
        if side == "cpu":
            engines = [self.cpu] if self.cpu else []
        elif side == "gpu":
            engines = list(self.gpu_candidates)
        elif side in self.baselines:
            if side in self.unavailable:
                return Measurement(engine=side, reason=f"{side} unavailable: {self.unavailable[side]}")
            engines = [side]
        else:
            raise ValueError(f"side must be 'cpu', 'gpu' or one of {self.baselines}, got {side!r}")
        if only is not None:
            engines = [e for e in engines if e == only]
        if not engines:
            return Measurement(engine=side, reason=f"no {side.upper()} engine selected or available")
        if self.remaining() <= 0:
            self.skips.append(skip_line(side, algorithm, problem, dim, params, dtype, fast_math))
            return Measurement(engine=engines[0], reason=SKIPPED)
        limit = max_seconds
        if cap_s is not None:
            cap_s = max(0.05, min(cap_s, self.remaining()))
            limit = cap_s if limit is None else min(limit, cap_s)
        last = Measurement(engine=engines[0], reason="not run")
        for engine in engines:
            if self._fell_back_from.get((algorithm, problem)) == engine:
                continue
            last = self._measure_on(engine, algorithm, problem, dim, params, dtype=dtype,
                                    max_iters=max_iters, max_evals=max_evals, limit=limit,
                                    own_limit=max_seconds, seed=seed, fast_math=fast_math,
                                    history_hz=history_hz, repeat_short=repeat_short and side == "gpu")
            # the compiled engine may lack a kernel (or a functor, or a variant): the next GPU
            # engine runs the same array code instead, and the report says why. Out of memory is
            # not a reason to try an engine that needs more memory.
            if (not last.ok and engine != engines[-1]
                    and not last.reason.startswith(("out of memory", "skipped"))):
                self.fallbacks[(algorithm, problem)] = last.reason.split(": ", 1)[-1]
                self._fell_back_from[(algorithm, problem)] = engine
                continue
            break
        if side == "gpu" and last.ok:
            self.gpu_used.setdefault(algorithm, set()).add(last.engine)
        return last

    def _config(self, engine, algorithm, problem, dim, params, *, dtype, max_iters, max_evals, limit,
                seed, fast_math, history_hz) -> RunConfig:
        return RunConfig.build(algorithm, problem, dim, params=dict(params), engine=engine, dtype=dtype,
                               seed=seed, max_evals=max_evals, max_iters=max_iters, max_seconds=limit,
                               fast_math=get_engine(engine).effective_fast_math(fast_math), sample_size=1,
                               snapshot_hz=history_hz or 30.0)

    def _measure_on(self, engine, algorithm, problem, dim, params, *, dtype, max_iters, max_evals,
                    limit, own_limit, seed, fast_math, history_hz, repeat_short) -> Measurement:
        try:
            config = self._config(engine, algorithm, problem, dim, params, dtype=dtype,
                                  max_iters=max_iters, max_evals=max_evals, limit=limit, seed=seed,
                                  fast_math=fast_math, history_hz=history_hz)
            results = []

            def run_once():
                results.append(Runner(config).run())
                r = results[-1]
                return r.seconds, r.evals, r.best_f

            timing = rule.time_runs(run_once, get_engine(engine),
                                    repeats=rule.REPEATS if repeat_short else 1,
                                    warm=lambda: self._warm_up(config))
        except EngineUnavailable as exc:
            return Measurement(engine=engine, reason=f"unavailable: {exc}")
        except ConfigError as exc:
            return Measurement(engine=engine, reason=f"not run: {exc}")
        except (DeviceMemoryError, MemoryError) as exc:
            return Measurement(engine=engine, reason=f"out of memory: {_first_line(exc)}")
        except Exception as exc:  # noqa: BLE001 - one failed run must not lose the whole report
            if "OutOfMemory" in type(exc).__name__:
                return Measurement(engine=engine, reason=f"out of memory: {_first_line(exc)}")
            return Measurement(engine=engine, reason=f"failed: {type(exc).__name__}: {_first_line(exc)}")
        r = results[timing.index]
        capped = r.stop_reason == "max_seconds" and (own_limit is None or r.seconds < own_limit)
        return Measurement(engine=engine, ok=True, seconds=r.seconds, evals=r.evals,
                           iterations=r.iterations, best_f=r.best_f, best_x=r.best_x, f_min=r.f_min,
                           stop_reason=r.stop_reason, capped=capped, repeats=len(results),
                           history=r.history)

    def _warm_up(self, config: RunConfig) -> None:
        """Compile and cache the code of this configuration with a two-iteration run (on the CPU
        engines once per configuration, sizes included: which kernel runs may depend on them, e.g. the numba
        engine's wide path for few swarms of many particles, whose compile (2-4 s) once landed in a
        timed numba run of the H100 reports when only a smaller size had been warmed)."""
        key = (config.engine, config.algorithm, config.problem, config.dim, config.dtype,
               config.fast_math, tuple(sorted(config.params_dict().items())),
               config.budget.max_evals is not None)  # with max_evals: the cut iteration's kernels
        if key in self._warm and not get_engine(config.engine).warmup_seconds:
            return  # compiled, and the engine needs no warm clocks (the CPU engines)
        # a GPU engine's warm-up is repeated for its warm-up seconds (measure.time_runs): each call
        # runs the short run, so the device works (and its clocks rise) instead of the host spinning
        # compile_first: the measuring rule's warm-up, which also compiles what the timed run first
        # reaches later (the iteration its max_evals cuts: kept in the budget, polishing)
        t0 = time.perf_counter()
        budget = Budget.build(max_iters=2, max_evals=config.budget.max_evals)
        Runner(config.replace(budget=budget), compile_first=True).run()
        self.warm_seconds += time.perf_counter() - t0
        self._warm.add(key)


SKIPPED = "skipped: this paper's time allowance was spent"


def skip_line(side, algorithm, problem, dim, params, dtype, fast_math) -> str:
    """What a skipped measurement would have been, in the words of the report's tables."""
    where = {"cpu": "CPU (numpy)", "gpu": "GPU"}.get(side, side)
    parts = [f"`{problem}`", f"n = {dim}"]
    if "walkers" in params:
        parts.append(f"{int(params['walkers']):,} walkers")
    parts += [f"{k} {v}" for k, v in sorted(params.items()) if isinstance(v, str)]
    parts += [k for k, v in sorted(params.items()) if v is True]
    parts.append(dtype)
    if fast_math:
        parts.append("fast math")
    return f"{algorithm} on {where}: " + ", ".join(parts)


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


def output_dir(path: str | Path) -> Path:
    """The output folder, created and proven writable (probe file) before any experiment runs."""
    return check_writable_folder(path)


@dataclass
class Compared:
    """One configuration on the numpy CPU engine, the GPU and the compiled CPU baselines.

    Unpacks as ``cpu, gpu``; ``base`` maps each baseline engine (numba, numba1) to its run.
    """

    cpu: Measurement
    gpu: Measurement
    base: dict[str, Measurement] = field(default_factory=dict)

    def __iter__(self):
        return iter((self.cpu, self.gpu))


def compare(ctx: Context, algorithm: str, problem: str, dim: int, params: Mapping, *, dtype: str,
            max_iters: int | None = None, max_evals: int | None = None, cpu_cap_s: float | None = None,
            gpu_cap_s: float | None = None, seed: int | None = None, fast_math: bool = False,
            label: str = "", fresh: bool = False) -> Compared:
    """The same run on the CPU (capped by time), on the GPU and on each compiled CPU baseline
    (numba, numba1: capped like the CPU, the same rule); any may be missing (ok False). The
    baselines run last, so that an allowance running out takes them before the paper's columns."""
    cpu = ctx.measure("cpu", algorithm, problem, dim, params, dtype=dtype, max_iters=max_iters,
                      max_evals=max_evals, cap_s=cpu_cap_s, seed=seed, fresh=fresh) if ctx.has_cpu else \
        Measurement(engine=reference_engine().name, reason="CPU engine not selected")
    gpu = ctx.measure("gpu", algorithm, problem, dim, params, dtype=dtype, max_iters=max_iters,
                      max_evals=max_evals, cap_s=gpu_cap_s, seed=seed, fast_math=fast_math, fresh=fresh) \
        if ctx.has_gpu else Measurement(engine="gpu", reason="no GPU engine")
    base = {e: ctx.measure(e, algorithm, problem, dim, params, dtype=dtype, max_iters=max_iters,
                           max_evals=max_evals, cap_s=cpu_cap_s, seed=seed, fresh=fresh)
            for e in ctx.baselines}
    ctx.log(f"    {label or problem}: " + "; ".join(
        describe(m) for m in (cpu, *([gpu] if ctx.has_gpu else []), *base.values())))
    return Compared(cpu, gpu, base)


def describe(m: Measurement) -> str:
    """A short log line for one measurement."""
    if not m.ok:
        return f"{m.engine} {m.reason}"
    capped = " (capped)" if m.capped else ""
    return f"{m.engine} {m.seconds:.3g} s{capped}, {m.evals} evals, best {m.best_f:.4g}"
