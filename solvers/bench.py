"""``python main.py bench``: the same work timed on each engine, evaluations per second and speedups.

Every measurement runs after compilation and a warm-up; GPU work is timed with a device
synchronise around it (wall clock, so launch and Python overheads count). Two kinds of case:

- ``rate``: ``step(state, iterations)`` on a warmed-up state, repeated; the median is kept.
  Evaluations per second are the run's own exact counts over the time. A slow engine may do fewer
  iterations (``numpy_iterations``); every evaluation is a full objective evaluation on every engine,
  so rates compare the same work per evaluation, and the table says how many each engine did.
- ``end_to_end``: build the solver, draw and evaluate the initial walkers, run ``iterations``
  iterations and read the best value on the host (the pattern-search paper's Table 1 setting).

Speedups are ratios of evaluations per second measured in the same invocation on the same problem
and parameters; "vs eval-only" compares a cuda algorithm with the evaluation-only kernel
(solvers/cuda/evaluation_only.py) on the same problem, size, dtype and math mode.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from .atomic_write import atomic_write_text, check_writable_file
from .errors import ConfigError, EngineUnavailable
from .json_safe import strict_dumps

TARGETS_FILE = Path(__file__).with_name("bench_targets.toml")


def load_targets(path: Path = TARGETS_FILE) -> dict:
    """The issues' speed targets: data in bench_targets.toml beside this module (see its comments)."""
    with open(path, "rb") as fh:
        return tomllib.load(fh)


TARGETS = load_targets()



@dataclass(frozen=True)
class Case:
    """One benchmark setting; ``iterations`` per engine may differ (see the module docstring)."""

    algorithm: str
    problem: str
    dim: int
    walkers: int
    iterations: int
    params: dict = field(default_factory=dict)
    mode: str = "rate"  # "rate" or "end_to_end"
    numpy_iterations: int | None = None
    cupy_iterations: int | None = None
    label: str = ""
    options: dict = field(default_factory=dict)  # attributes set on the cuda solver (tuning knobs)
    bounds: tuple | None = None  # the box, same in every coordinate (an "expr: ..." problem's)
    fresh: bool = False  # rate mode: each repeat times the run's first iterations (measure.time_steps)

    @property
    def variant(self) -> str:
        return str(self.params.get("variant", ""))

    def iterations_for(self, engine: str) -> int:
        """The engine's own iteration count (``<engine>_iterations``) where the case sets one; a
        CPU engine without one runs numpy's. (Rates compare, not amounts of work: given the GPU's
        count, the single-threaded numba1 row of pattern search at 131,072 walkers took 126 s and
        pushed the H100 suite past its time.)"""
        from .engines import get_engine  # noqa: PLC0415

        own = getattr(self, f"{engine}_iterations", None)
        if own is None and not get_engine(engine).is_gpu:
            own = self.numpy_iterations
        return own or self.iterations


# A hybrid schedule short enough that the timed run reaches Nelder-Mead polishing (66 levels). Its
# cases time a fresh run each repeat (Case.fresh): continuing the warmed-up run, the window held the
# polishing or not depending on how far the warm-up (a fixed time, so more iterations on a faster
# kernel) had gone, and the row's rate flipped between 0.75 and 24 G/s from one run to the next.
# The schedule is "fixed": under the default "auto" these T0, T_min and alpha were replaced by fitted
# ones (~197 levels, ~19,700 iterations) and the timed 8,000 never reached the polishing its label
# names (found in this session's warm-up work; numba was still annealing at level 80).
HYBRID_BENCH = {"variant": "hybrid", "schedule": "fixed", "t0": 10.0, "t_min": 0.01, "alpha": 0.9}


def _h100_suite() -> list[Case]:
    n, d = 131072, 30
    rate = [
        Case("evaluation_only", "rastrigin", d, n, 2000, numpy_iterations=3, cupy_iterations=20),
        Case("pattern_search", "rastrigin", d, n, 40, numpy_iterations=1, cupy_iterations=2),
        Case("simulated_annealing", "rastrigin", d, n, 2000, {"variant": "async"},
             numpy_iterations=5, cupy_iterations=50),
        Case("simulated_annealing", "rastrigin", d, n, 2000, {"variant": "sync"},
             numpy_iterations=5, cupy_iterations=50),
        Case("simulated_annealing", "rastrigin", d, n, 8000, HYBRID_BENCH,
             numpy_iterations=5, cupy_iterations=50, label="full schedule + polishing on cuda", fresh=True),
        Case("evaluation_only", "ackley", 20, n, 2000, numpy_iterations=3, cupy_iterations=20),
        Case("pattern_search", "ackley", 20, n, 40, numpy_iterations=1, cupy_iterations=2),
    ]
    smaller = [
        Case("evaluation_only", "rastrigin", d, 1024, 20000, numpy_iterations=200, cupy_iterations=200),
        Case("simulated_annealing", "rastrigin", d, 1024, 20000, {"variant": "sync"},
             numpy_iterations=200, cupy_iterations=200),
        Case("evaluation_only", "rastrigin", d, 16384, 5000, numpy_iterations=20, cupy_iterations=50),
        Case("pattern_search", "rastrigin", d, 16384, 100, numpy_iterations=1, cupy_iterations=2),
        Case("simulated_annealing", "rastrigin", d, 16384, 5000, {"variant": "sync"},
             numpy_iterations=20, cupy_iterations=50),
    ]
    table1 = [Case("pattern_search", "ackley", 20, 15360, 20, mode="end_to_end",
                   label="pattern-search paper, Table 1 setting")]
    # the same setting with each thread mapping forced (lanes per walker), cuda only
    table1 += [Case("pattern_search", "ackley", 20, 15360, 20, mode="end_to_end",
                    label=f"Table 1, {lanes} lane(s) per walker", options={"lanes": lanes})
               for lanes in (1, 2, 4, 8)]
    return table1 + rate + smaller + _part2_cases(d)


# Issue 4 (part 2): PSO and DE in ONE swarm/population of each size; MDS with 131,072 starts (restart
# on, so that starts that collapse keep working: a time-limited run's steady state).
PART2_SIZES = ((131072, 2000, 2, 20), (16384, 5000, 10, 50), (1024, 20000, 200, 200))  # n, it, numpy, cupy


def _part2_cases(d: int) -> list[Case]:
    cases = []
    for n, iterations, numpy_iterations, cupy_iterations in PART2_SIZES:
        for variant in ("classic", "spso2011"):
            cases.append(Case("particle_swarm", "rastrigin", d, n, iterations, {"variant": variant, "swarms": 1},
                              numpy_iterations=numpy_iterations, cupy_iterations=cupy_iterations,
                              label="one swarm"))
        cases.append(Case("differential_evolution", "rastrigin", d, n, iterations, {"populations": 1},
                          numpy_iterations=numpy_iterations, cupy_iterations=cupy_iterations,
                          label="one population"))
    cases.append(Case("multidirectional_search", "rastrigin", d, 131072, 40, {"restart": True},
                      numpy_iterations=1, cupy_iterations=3, label="131,072 starts, restart on"))
    return cases


def _quick_suite() -> list[Case]:
    return [
        Case("evaluation_only", "sphere", 8, 256, 4),
        Case("pattern_search", "rastrigin", 4, 256, 2),
        Case("simulated_annealing", "rastrigin", 4, 256, 20, {"variant": "sync", "chain_length": 5}),
        Case("pattern_search", "ackley", 4, 128, 3, mode="end_to_end"),
    ]


# Issue 11: built-ins typed as expressions, timed beside the built-in functors in the same run.
EXPRESSION_TWINS = (
    ("rastrigin", 30, (-5.12, 5.12), "10*n + sum(x[i]**2 - 10*cos(2*pi*x[i]))"),
    ("ackley", 20, (-30.0, 30.0),
     "-20*exp(-0.2*sqrt(sum(x[i]**2)/n)) - exp(sum(cos(2*pi*x[i]))/n) + 20 + e"),
)
EXPRESSION_LABEL = "expression of "


def _expression_suite() -> list[Case]:
    n = 131072
    cases = []
    for name, d, box, text in EXPRESSION_TWINS:
        for problem, label in ((name, ""), (f"expr: {text}", EXPRESSION_LABEL + name)):
            cases.append(Case("evaluation_only", problem, d, n, 2000, numpy_iterations=3,
                              cupy_iterations=20, label=label, bounds=box))
            cases.append(Case("pattern_search", problem, d, n, 40, numpy_iterations=1,
                              cupy_iterations=2, label=label, bounds=box))
            cases.append(Case("particle_swarm", problem, d, n, 40, numpy_iterations=2,
                              cupy_iterations=4, label=label, bounds=box))
    return cases


def expression_targets(records: list[dict]) -> list[str]:
    """Each expression row's rate as a fraction of its built-in twin's, measured in the same run."""
    lines = []
    for index, r in enumerate(records):
        label = r.get("label") or ""
        if r.get("error") or not label.startswith(EXPRESSION_LABEL):
            continue
        # the twin measured last before it: its own suite's (records pooled from several commands
        # may hold the same built-in case twice)
        twin = next((b for b in reversed(records[:index]) if not b.get("error")
                     and b["problem"] == label[len(EXPRESSION_LABEL):]
                     and all(b[k] == r[k] for k in ("algorithm", "variant", "dim", "walkers", "engine",
                                                    "dtype", "fast_math", "mode"))), None)
        if twin is None or not twin.get("evals_per_second") or not r.get("evals_per_second"):
            continue
        frac = r["evals_per_second"] / twin["evals_per_second"]
        want = TARGETS["expressions"]["fraction_of_builtin"]
        lines.append(f"{_verdict(frac >= want)}: {label} {r['dim']}-D, {r['algorithm']}, {r['engine']}, "
                     f"{r['dtype']}: {frac:.0%} of the built-in's rate (target >= {want:.0%})")
    return lines


SUITES = {"h100": _h100_suite, "quick": _quick_suite, "expressions": _expression_suite}


# --- running ---------------------------------------------------------------------------------------
def solver_class(algorithm: str, engine: str | None = None) -> type:
    """The class that runs `algorithm` on `engine` (evaluation_only included); the reference class
    (whose Params every engine shares) when no engine is named."""
    from .engines import get_engine, reference_class  # noqa: PLC0415

    return reference_class(algorithm) if engine is None else get_engine(engine).algorithm_class(algorithm)


def measure(case: Case, engine: str, dtype: str, fast_math: bool, seed: int, repeats: int,
            devices=None) -> dict:
    """Time one case on one engine by solvers/measure.py's rule; a record for the JSON output."""
    from . import measure as rule  # noqa: PLC0415
    from .arrays import to_numpy  # noqa: PLC0415
    from .engines import get_engine  # noqa: PLC0415
    from .params import make_params  # noqa: PLC0415
    from .problems import get_problem  # noqa: PLC0415
    from .rng import ArrayRNG  # noqa: PLC0415

    eng = get_engine(engine)
    xp = eng.xp
    problem = get_problem(case.problem, case.dim, bounds=case.bounds)
    cls = solver_class(case.algorithm, engine)
    params = make_params(cls.Params, {"walkers": case.walkers, **case.params})
    iterations = case.iterations_for(engine)

    def build():
        from . import shards  # noqa: PLC0415

        algo = shards.build(eng, case.algorithm, problem, params, dtype, fast_math, devices=devices)
        for part in shards.parts(algo):
            for name, value in case.options.items():
                setattr(part, name, value)
        return algo

    extra = {}
    if case.mode == "end_to_end":
        step_gpu: list[float] = []

        def once(iters=iterations, warm=False):
            t0 = time.perf_counter()
            algo = build()
            if eng.is_gpu:  # device time of initialisation and iterations, for the breakdown
                start, end = xp.cuda.Event(), xp.cuda.Event()
                start.record()
            # one call, so that an engine may run the initial draw and the iterations as one launch
            state = algo.init_and_step(ArrayRNG(xp, seed), iters)
            if eng.is_gpu:
                end.record()
            best = float(to_numpy(state.best_f))  # the host has the answer: the end of "end to end"
            seconds = time.perf_counter() - t0
            if eng.is_gpu:
                step_gpu.append(xp.cuda.get_elapsed_time(start, end) / 1e3)
            if warm:  # untimed: what a longer run first reaches later (polishing), as warm_up does
                rule.warm_kernels(algo, eng, state)
            return seconds, int(state.evals), best

        # warm-up: a one-iteration run compiles, loads and warms the allocator (and the GPU's clocks)
        timing = rule.time_runs(once, eng, repeats=repeats, warm=lambda: once(1, warm=True))
        if eng.is_gpu:
            extra["step_device_seconds"] = step_gpu[-timing.repeats:][timing.index]
    else:
        timing = rule.measure_rate(eng, case.algorithm, problem, params, dtype=dtype, fast_math=fast_math,
                                   seed=seed, iterations=iterations, repeats=repeats, devices=devices,
                                   configure=lambda algo: [setattr(algo, k, v) for k, v in case.options.items()],
                                   fresh=case.fresh)
    if case.options:
        extra["options"] = dict(case.options)
    return {**extra,
        "algorithm": case.algorithm, "variant": case.variant, "problem": case.problem,
        "dim": case.dim, "walkers": case.walkers, "engine": engine, "dtype": dtype,
        "fast_math": eng.effective_fast_math(fast_math), "mode": case.mode,
        "iterations": iterations, "evaluations": timing.evals, "seconds": timing.seconds,
        "evals_per_second": timing.evals_per_second, "repeats": timing.repeats,
        "best_f": timing.best_f, "params": dict(case.params), "label": case.label,
        "devices": devices_label(devices),
    }


def devices_label(devices) -> str | None:
    """'0,1' for a run split over devices 0 and 1; None for the default single device."""
    from .shards import parse_devices  # noqa: PLC0415

    devices = parse_devices(devices)
    return None if devices is None else (devices if isinstance(devices, str) else ",".join(map(str, devices)))


def device_targets(records: list[dict]) -> list[str]:
    """Issue 15's scaling: the rate of each split run over the same case on one device, with the
    target for 2 GPUs (bench_targets.toml's split_over_2_devices)."""
    lines = []
    for r in records:
        if "error" in r or not r.get("devices") or not r.get("speedup_vs_one_device"):
            continue
        shards = len(r["devices"].split(","))
        goals = TARGETS["split_over_2_devices"]
        goal = goals.get(r["algorithm"], goals["default"])
        target = f" (target >= {goal}x)" if shards == 2 and r["devices"] != "0,0" else ""
        lines.append(f"{r['algorithm']} {r['variant'] or ''} {r['problem']} d={r['dim']} "
                     f"{r['walkers']} walkers {r['dtype']} {r['engine']}: devices {r['devices']} "
                     f"{r['speedup_vs_one_device']:.3g}x the rate of one device{target}")
    return lines


def environment() -> dict:
    """Device and library versions for the records."""
    from .engines import gpu_status  # noqa: PLC0415

    info = {"python": platform.python_version(), "numpy": np.__version__,
            "cpu": _cpu_name(), "platform": platform.platform()}
    ok, device = gpu_status()
    info["gpu"] = device
    if ok:
        import cupy  # noqa: PLC0415

        rt = cupy.cuda.runtime
        info["cupy"] = cupy.__version__
        info["cuda_runtime"] = _cuda_version(rt.runtimeGetVersion())
        info["cuda_driver"] = _cuda_version(rt.driverGetVersion())
    return info


def _cuda_version(v: int) -> str:
    return f"{v // 1000}.{v % 1000 // 10}"


def _cpu_name() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def add_ratios(records: list[dict]) -> None:
    """Speedup vs numpy and, for cuda algorithms, the fraction of the evaluation-only rate."""
    def key(r, **over):
        base = {k: r[k] for k in ("algorithm", "variant", "problem", "dim", "walkers", "dtype", "mode")}
        base["devices"] = r.get("devices")
        base.update(over)
        return tuple(sorted(base.items()))

    by_key = {}
    for r in records:
        by_key[key(r) + (("engine", r["engine"]), ("fast_math", r["fast_math"]))] = r
    from .engines import reference_engine  # noqa: PLC0415

    reference = reference_engine().name
    for r in records:
        numpy_rec = by_key.get(key(r) + (("engine", reference), ("fast_math", False)))
        r["speedup_vs_numpy"] = None
        if numpy_rec and numpy_rec.get("evals_per_second") and r.get("evals_per_second"):
            if r["mode"] == "end_to_end":
                r["speedup_vs_numpy"] = numpy_rec["seconds"] / r["seconds"]
            else:
                r["speedup_vs_numpy"] = r["evals_per_second"] / numpy_rec["evals_per_second"]
        one = by_key.get(key(r, devices=None) + (("engine", r["engine"]), ("fast_math", r["fast_math"])))
        r["speedup_vs_one_device"] = None
        if r.get("devices") and one and one.get("evals_per_second") and r.get("evals_per_second"):
            r["speedup_vs_one_device"] = (one["seconds"] / r["seconds"] if r["mode"] == "end_to_end"
                                          else r["evals_per_second"] / one["evals_per_second"])
        r["fraction_of_eval_only"] = None
        if r["algorithm"] != "evaluation_only" and r["mode"] == "rate":
            eo = by_key.get(key(r, algorithm="evaluation_only", variant="")
                            + (("engine", r["engine"]), ("fast_math", r["fast_math"])))
            if eo and eo.get("evals_per_second") and r.get("evals_per_second"):
                r["fraction_of_eval_only"] = r["evals_per_second"] / eo["evals_per_second"]


def _si(x: float | None) -> str:
    if x is None:
        return "-"
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(x) >= scale:
            return f"{x / scale:.3g} {unit}"
    return f"{x:.3g}"


def table(records: list[dict]) -> str:
    """A markdown table of the records."""
    head = ("| algorithm | variant | problem | d | walkers | dtype | math | engine | mode | iterations "
            "| evaluations | seconds | evals/s | vs numpy | vs eval-only |")
    rows = [head, "|" + "---|" * 15]
    for r in records:
        if "error" in r:
            rows.append(f"| {r['algorithm']} | {r['variant']} | {r['problem']} | {r['dim']} | "
                        f"{r['walkers']} | {r['dtype']} | | {r['engine']} | {r['mode']} | "
                        f"| | | not run: {r['error']} | | |")
            continue
        speed = r.get("speedup_vs_numpy")
        engine = r["engine"] + (f" [devices {r['devices']}]" if r.get("devices") else "")
        frac = r.get("fraction_of_eval_only")
        variant = (r["variant"] or "-") + "".join(f" [{k}={v}]" for k, v in (r.get("options") or {}).items())
        rows.append(
            f"| {r['algorithm']} | {variant} | {r['problem']} | {r['dim']} | {r['walkers']} "
            f"| {r['dtype']} | {'fast' if r['fast_math'] else 'precise'} | {engine} | {r['mode']} "
            f"| {r['iterations']} | {r['evaluations']:,} | {r['seconds']:.4g} | {_si(r['evals_per_second'])} "
            f"| {'-' if speed is None else f'{speed:.4g}x'} | {'-' if frac is None else f'{frac:.0%}'} |")
    return "\n".join(rows)


def _verdict(ok: bool) -> str:
    return "MET" if ok else "NOT MET"


def _is(r: dict, section: dict, *keys: str) -> bool:
    """The record has the target section's values of `keys` (problem, dim, walkers)."""
    return all(r[k] == section[k] for k in keys)


def targets(records: list[dict]) -> list[str]:
    """The issue's targets (bench_targets.toml) that these records can decide, one line each."""
    lines = []
    table1 = TARGETS["table1"]
    for r in records:
        if (r.get("error") or r["engine"] != TARGETS["engine"] or r["fast_math"]
                or r["dtype"] != TARGETS["dtype"]):
            continue
        if r["mode"] == "rate":
            lines.extend(_group_rate_target(r))
            lines.extend(_fraction_target(r))
            lines.extend(_issue14_targets(r))
        if r["mode"] == "end_to_end" and _is(r, table1, "problem", "dim", "walkers"):
            ms = r["seconds"] * 1e3
            if r.get("options"):
                lines.append(f"(info) Table 1 setting with {r['options']}: {ms:.3f} ms end to end, "
                             f"{r.get('step_device_seconds', 0) * 1e3:.3f} ms between events around init_and_step")
                continue
            want_ms = table1["end_to_end_ms"]
            lines.append(f"{_verdict(ms <= want_ms)}: Table 1 setting on {r['engine']} in "
                         f"{ms:.3f} ms (target <= {want_ms} ms; {r.get('step_device_seconds', 0) * 1e3:.3f} "
                         f"ms between GPU events around init_and_step)")
            speed = r.get("speedup_vs_numpy")
            if speed is not None:
                numpy_s = r["seconds"] * speed
                most_s = table1["numpy_tolerance"] * table1["numpy_seconds"]
                want = table1["speedup_vs_numpy"]
                lines.append(f"{_verdict(numpy_s <= most_s)}: numpy "
                             f"Table 1 baseline {numpy_s:.2f} s (<= {most_s:.2f} s); "
                             f"speedup {speed:.0f}x ({_verdict(speed >= want)}: >= {want}x)")
    return lines


def _name(r: dict) -> str:
    return r["algorithm"] + (f" ({r['variant']})" if r["variant"] else "")


def _one_group(r: dict) -> bool:
    """The record is of ONE swarm (PSO) or population (DE): what a one-group target is about."""
    groups = (r.get("params") or {}).get("swarms" if r["algorithm"] == "particle_swarm" else "populations")
    return str(groups) == "1"


def _issue14_targets(r: dict) -> list[str]:
    """Issue 14's rates and fractions of evaluation-only (bench_targets.toml [issue14]) that this
    record decides."""
    lines = []
    section = TARGETS.get("issue14", {})

    def matches(t: dict) -> bool:
        return (t["algorithm"] == r["algorithm"] and t.get("variant", r["variant"]) == r["variant"]
                and _is(r, t, "problem", "dim", "walkers") and (not t.get("one_group") or _one_group(r)))

    for t in section.get("rate", []):
        rate = r.get("evals_per_second")
        if matches(t) and rate is not None:
            where = ""
            if t.get("one_group"):
                where = " in one swarm" if r["algorithm"] == "particle_swarm" else " in one population"
            lines.append(f"{_verdict(rate >= t['at_least'])}: (issue 14) {_name(r)} {r['problem']} {r['dim']}-D "
                         f"at {r['walkers']:,}{where}: {_si(rate)}/s (target >= {_si(t['at_least'])}/s)")
    for t in section.get("fraction_of_eval_only", []):
        frac = r.get("fraction_of_eval_only")
        if matches(t):
            ok = frac is not None and frac >= t["at_least"]
            lines.append(f"{_verdict(ok)}: (issue 14) {_name(r)} at {'-' if frac is None else f'{frac:.0%}'} of "
                         f"evaluation-only (target >= {t['at_least']:.0%})")
    return lines


def _group_rate_target(r: dict) -> list[str]:
    """Issue 4's rate of one swarm / population, if this record decides one."""
    section = TARGETS["one_group_rate"]
    rates = section.get(r["algorithm"])
    if not isinstance(rates, dict) or not _is(r, section, "problem", "dim"):
        return []
    want = rates.get(str(r["walkers"]))
    rate = r.get("evals_per_second")
    if want is None or rate is None or not _one_group(r):  # the target is of ONE group's rate
        return []
    return [f"{_verdict(rate >= want)}: {_name(r)} at {r['walkers']:,} in one "
            f"{'swarm' if r['algorithm'] == 'particle_swarm' else 'population'}: {_si(rate)}/s "
            f"(target >= {_si(want)}/s)"]


def _fraction_target(r: dict) -> list[str]:
    """The rate as a fraction of evaluation-only's (issues 3 and 4), if this record decides one."""
    section = TARGETS["fraction_of_eval_only"]
    want = section.get(r["algorithm"])
    if want is None or not _is(r, section, "problem", "dim", "walkers"):
        return []
    frac = r.get("fraction_of_eval_only")
    ok = frac is not None and frac >= want
    return [f"{_verdict(ok)}: {_name(r)} at {'-' if frac is None else f'{frac:.0%}'} of evaluation-only "
            f"(target >= {want:.0%})"]


def run_bench(cases: list[Case], engines: list[str], dtypes: list[str], fast_math_modes: list[bool],
              seed: int, repeats: int, out=None, on_record=None, scheduler: str | None = None,
              devices=None) -> list[dict]:
    """Measure every case x dtype x math mode x engine; ``on_record(records)`` after each case.
    ``devices``: each measurement also made split over these devices (``speedup_vs_one_device``).

    ``scheduler`` ('local' or a Dask address): each case is one task on a Dask worker (one per GPU
    on a GPU machine), its engines measured one after another there, so its ratios stay fair.
    """
    out = out or sys.stdout  # looked up now: a default bound at import would keep a closed capture
    env = environment()
    records = []
    if scheduler is None:
        for case in cases:
            for rec in measure_case(case, engines, dtypes, fast_math_modes, seed, repeats, env, devices):
                records.append(rec)
                _progress(rec, out)
                if on_record is not None:
                    on_record(records)
    else:
        from distributed import as_completed  # noqa: PLC0415

        from .study.cluster import open_client  # noqa: PLC0415

        with open_client(scheduler) as client:
            print(f"bench: {len(cases)} case(s) on Dask, dashboard {client.dashboard_link}", file=out, flush=True)
            futures = {client.submit(measure_case, case, engines, dtypes, fast_math_modes, seed, repeats,
                                     None, devices, pure=False): i for i, case in enumerate(cases)}
            by_case: dict[int, list[dict]] = {}
            for fut in as_completed(futures):
                by_case[futures[fut]] = fut.result()
                for rec in by_case[futures[fut]]:
                    _progress(rec, out)
                if on_record is not None:
                    on_record([r for i in sorted(by_case) for r in by_case[i]])
            records = [r for i in sorted(by_case) for r in by_case[i]]
    add_ratios([r for r in records if "error" not in r])
    return records


def measure_case(case: Case, engines: list[str], dtypes: list[str], fast_math_modes: list[bool], seed: int,
                 repeats: int, env: dict | None = None, devices=None) -> list[dict]:
    """The records of one case on every dtype x math mode x engine (a Dask task with --scheduler);
    with `devices`, each also split over them, right after its one-device measurement."""
    from .engines import get_engine  # noqa: PLC0415

    env = env or environment()
    splits = (None, devices) if devices is not None else (None,)
    records = []
    for dtype in dtypes:
        for fast in fast_math_modes:
            for engine, split in ((e, s) for e in engines for s in splits):
                eng = get_engine(engine)
                if (fast or case.options) and not eng.honours_fast_math:
                    continue  # fast math and the tuning options are kernel switches only
                ok, why = eng.status()
                rec = None
                if not ok:
                    rec = {"error": why}
                else:
                    try:
                        # end to end runs are short on a GPU: more of them (measure.py stops
                        # repeating long ones, e.g. numpy's, after ENOUGH_SECONDS)
                        n_repeats = max(repeats, 10) if case.mode == "end_to_end" else repeats
                        rec = measure(case, engine, dtype, fast, seed, n_repeats, devices=split)
                    except (EngineUnavailable, MemoryError, ConfigError) as exc:
                        rec = {"error": f"{type(exc).__name__}: {exc}"}
                if "error" in rec:
                    rec.update({"algorithm": case.algorithm, "variant": case.variant,
                                "problem": case.problem, "dim": case.dim, "walkers": case.walkers,
                                "engine": engine, "dtype": dtype, "fast_math": fast,
                                "mode": case.mode, "devices": devices_label(split)})
                rec.update({"device": env.get("gpu") if eng.is_gpu else env["cpu"],
                            "versions": env})
                records.append(rec)
    return records


def _progress(rec: dict, out) -> None:
    engine = rec["engine"] + (f" [devices {rec['devices']}]" if rec.get("devices") else "")
    if "error" in rec:
        print(f"  {rec['algorithm']:<20} {engine:<5}  not run: {rec['error']}", file=out, flush=True)
        return
    print(f"  {rec['algorithm']:<20} {rec['variant']:<6} {rec['problem']:<10} d={rec['dim']:<3} "
          f"n={rec['walkers']:<7} {rec['dtype']} {'fast' if rec['fast_math'] else '    '} "
          f"{engine:<5} {rec['evaluations']:>14,} evals {rec['seconds']:10.4g} s "
          f"{_si(rec['evals_per_second']):>9}/s", file=out, flush=True)


# --- command line ----------------------------------------------------------------------------------
def _split(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def cases_from_args(args) -> list[Case]:
    """The suite, or one case built from the options; options also override a suite's fields."""
    from .algorithms import list_algorithms  # noqa: PLC0415

    known = set(list_algorithms()) | {"evaluation_only"}
    for algorithm in _split(args.algorithm or ""):
        if algorithm not in known:
            raise ConfigError(f"unknown algorithm '{algorithm}' (known: {', '.join(sorted(known))})")
    if args.suite:
        if args.variant:  # a suite's cases carry their own variants: it would be ignored
            raise ConfigError("--variant applies to the cases of --algorithm, not to a suite")
        cases = SUITES[args.suite]()
    else:
        if not args.algorithm:
            raise ConfigError("bench needs --suite or --algorithm (see 'main.py bench --help')")
        cases = []
        if args.variant and not any(has_variant_param(a) for a in _split(args.algorithm)):
            raise ConfigError(f"--variant: {args.algorithm} has no variants (simulated_annealing and "
                              "particle_swarm have)")
        for algorithm in _split(args.algorithm):
            variants = _split(args.variant) if (args.variant and has_variant_param(algorithm)) else [None]
            for variant in variants:
                params = {"variant": variant} if variant else {}
                cases.append(Case(algorithm, args.problem or "rastrigin", args.dim or 30,
                                  args.walkers or 131072, args.iterations or 100, params,
                                  mode="end_to_end" if args.end_to_end else "rate"))
    overrides = {k: v for k, v in (("problem", args.problem), ("dim", args.dim), ("walkers", args.walkers),
                                   ("iterations", args.iterations), ("bounds", args.bounds))
                 if v is not None}
    cases = [replace(c, **overrides) for c in cases]
    if "walkers" in dict(getattr(args, "param", None) or []):
        # the cases' walkers (the table's column) would say one number while the runs used another
        raise ConfigError("give the walkers with -n/--walkers, not -p walkers=")
    if getattr(args, "param", None):  # checked with the rest by _validate (make_params)
        cases = [replace(c, params={**c.params, **dict(args.param)}) for c in cases]
    if args.numpy_iterations is not None:
        cases = [replace(c, numpy_iterations=args.numpy_iterations) for c in cases]
    if args.cupy_iterations is not None:
        cases = [replace(c, cupy_iterations=args.cupy_iterations) for c in cases]
    if args.suite and args.algorithm:
        wanted = set(_split(args.algorithm))
        suite_algorithms = sorted({c.algorithm for c in cases})
        cases = [c for c in cases if c.algorithm in wanted]
        if not cases:  # an empty table and exit 0 said nothing of why nothing was measured
            raise ConfigError(f"--algorithm {args.algorithm}: the suite '{args.suite}' has no case of it "
                              f"(its algorithms: {', '.join(suite_algorithms)})")
    if not cases:  # '-a ,': no name at all
        raise ConfigError("bench needs --suite or --algorithm (see 'main.py bench --help')")
    _validate(cases)
    return cases


def has_variant_param(algorithm: str) -> bool:
    from .params import specs  # noqa: PLC0415

    return any(s.name == "variant" for s in specs(solver_class(algorithm).Params))


def _validate(cases: list[Case]) -> None:
    from .params import make_params  # noqa: PLC0415
    from .problems import get_problem  # noqa: PLC0415

    for c in cases:
        get_problem(c.problem, c.dim, bounds=c.bounds)  # ConfigError: unknown problem, dimension, box
        for value, name in ((c.walkers, "walkers"), (c.iterations, "iterations")):
            if value < 1:
                raise ConfigError(f"--{name} must be >= 1, got {value}")
        cls = solver_class(c.algorithm)
        make_params(cls.Params, {"walkers": c.walkers, **c.params})


def cmd_bench(args) -> int:
    from .config import check_dtype  # noqa: PLC0415
    from .engines import engine_status, get_engine, list_engines  # noqa: PLC0415

    engines = _split(args.engines) if args.engines else list_engines()
    if not engines:  # '--engines ,' said 'no requested engine can run here ()'
        raise ConfigError(f"--engines: no engine named (known: {', '.join(list_engines())})")
    for e in engines:
        get_engine(e)  # ConfigError naming the known engines
    engines = [e for e in list_engines() if e in engines]
    # as reproduce does: a bench that can measure nothing here is bad input, not a table of "not
    # run" and exit 0 (a remote scheduler's workers may have the engines this machine lacks)
    if args.scheduler is None and not any(get_engine(e).available for e in engines):
        reasons = "; ".join(f"{e}: {engine_status(e)[1]}" for e in engines)
        raise ConfigError(f"no requested engine can run here ({reasons})")
    dtypes = _split(args.dtype)
    if not dtypes:  # '--precision ""' measured nothing: an empty table and exit 0
        raise ConfigError("--precision: give float32, float64 or both comma-separated")
    for d in dtypes:
        check_dtype(d)
    if args.repeats < 1:
        raise ConfigError(f"--repeats must be >= 1, got {args.repeats}")
    if args.seed < 0:
        raise ConfigError(f"--seed must be an integer >= 0, got {args.seed}")
    for option in ("numpy_iterations", "cupy_iterations"):
        value = getattr(args, option)
        if value is not None and value < 1:
            raise ConfigError(f"--{option.replace('_', '-')} must be >= 1, got {value}")
    if args.json and args.md and os.path.realpath(args.json) == os.path.realpath(args.md):
        raise ConfigError(f"--json and --md name the same file '{args.json}': the table would overwrite "
                          "the records")
    for option in ("json", "md"):  # before minutes of measuring, not after
        if getattr(args, option):
            check_writable_file(getattr(args, option), f"--{option} file")
    fast_modes = {"off": [False], "on": [True], "both": [False, True]}[args.fast_math]
    if args.fast_math == "on" and not any(get_engine(e).honours_fast_math for e in engines):
        # measure_case skips fast math on such engines: the bench printed an empty table, exit 0
        takers = [e for e in list_engines() if get_engine(e).honours_fast_math]
        raise ConfigError(f"--fast-math on: no engine of {', '.join(engines)} has a fast-math switch, "
                          f"so nothing would be measured (engines that have: {', '.join(takers) or 'none'})")
    if args.devices is not None:  # a device that does not exist: one line now, not per record
        from .shards import parse_devices, resolve_devices  # noqa: PLC0415

        args.devices = parse_devices(args.devices)
        for e in engines:
            if get_engine(e).available:
                resolve_devices(get_engine(e), args.devices)
    cases = cases_from_args(args)
    print(f"bench: {len(cases)} case(s), engines {', '.join(engines)}, dtype {', '.join(dtypes)}, "
          f"fast math {args.fast_math}", flush=True)
    command = " ".join(["main.py", *sys.argv[1:]]) if sys.argv else ""

    def write_json(records, lines=()):
        if args.json:  # rewritten after every measurement, so an interrupted run keeps its records
            atomic_write_text(args.json, strict_dumps(
                {"command": command, "environment": environment(), "records": records,
                 "targets": list(lines)}, indent=1, default=_json_default))

    records = run_bench(cases, engines, dtypes, fast_modes, args.seed, args.repeats,
                        on_record=write_json, scheduler=args.scheduler, devices=args.devices)
    text = table(records)
    print()
    print(text)
    lines = targets(records) + expression_targets(records) + device_targets(records)
    if lines:
        print("\nTargets (issues 3, 4, 14 and 15):")
        for line in lines:
            print("  " + line)
    write_json(records, lines)
    if args.md:
        atomic_write_text(args.md, text + "\n\n" + "\n".join(f"- {line}" for line in lines) + "\n")
    return 0


def _json_default(value):
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return float(value)
    return str(value)


def register_cli(subparsers) -> None:
    """Add the 'bench' command to main.py's subcommands."""
    from .cli import _parse_bounds, _parse_param  # noqa: PLC0415 - cli loads this module; one syntax
    from .study.cluster import add_scheduler_option  # noqa: PLC0415

    p = subparsers.add_parser("bench", help="time the engines on the same work (evaluations per second)")
    p.add_argument("--suite", choices=sorted(SUITES), default=None,
                   help="preset cases: h100 = the issue's target settings; quick = a seconds-long smoke run")
    p.add_argument("--algorithm", "-a", default=None,
                   help="comma-separated algorithms (evaluation_only included); filters a suite")
    p.add_argument("--variant", default=None, help="comma-separated variants (simulated_annealing)")
    p.add_argument("--problem", "--function", "-f", dest="problem", default=None,
                   help="function name or typed expression 'expr: ...' (default rastrigin)")
    p.add_argument("--bounds", type=_parse_bounds, default=None, metavar="LOWER,UPPER",
                   help="search box, same in every coordinate (default: the function's; [-5, 5] for 'expr: ...')")
    p.add_argument("--dim", "-d", type=int, default=None, help="dimension (default 30)")
    p.add_argument("--walkers", "-n", type=int, default=None, help="walkers (default 131072)")
    p.add_argument("--param", "-p", action="append", default=[], type=_parse_param, metavar="NAME=VALUE",
                   help="an algorithm parameter for every case (repeatable), e.g. -p populations=128")
    p.add_argument("--iterations", "-i", type=int, default=None, help="iterations timed on the GPU engines")
    p.add_argument("--numpy-iterations", type=int, default=None,
                   help="fewer iterations for the numpy engine (rates compare per evaluation)")
    p.add_argument("--cupy-iterations", type=int, default=None, help="iterations for the cupy engine")
    p.add_argument("--end-to-end", action="store_true",
                   help="time build + init + iterations + reading the best (instead of a steady rate)")
    p.add_argument("--engines", default=None,
                   help="comma-separated engines (default: every registered engine)")
    p.add_argument("--precision", "--dtype", dest="dtype", default="float32",
                   help="float32, float64 or both comma-separated (--dtype is the same option)")
    p.add_argument("--fast-math", choices=("off", "on", "both"), default="off",
                   help="cuda kernels with fast intrinsics (default off)")
    p.add_argument("--repeats", type=int, default=3, help="timed repeats on GPU engines (median kept)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", default=None, metavar="FILE", help="write one record per measurement")
    p.add_argument("--md", default=None, metavar="FILE", help="write the markdown table")
    p.add_argument("--devices", default=None, metavar="all|0,1",
                   help="also measure every case split over these devices (one run over several "
                        "GPUs), beside the one-device measurement; the ratio is printed")
    add_scheduler_option(p, "the cases (one task each; a case's engines stay together on one worker)")
    p.set_defaults(func=cmd_bench)


def main(argv=None) -> int:  # pragma: no cover - convenience: python -m solvers.bench
    parser = argparse.ArgumentParser(prog="bench")
    register_cli(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["bench", *(argv if argv is not None else sys.argv[1:])])
    return args.func(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
