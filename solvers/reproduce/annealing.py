"""Seed 002, Ferreiro et al., "An efficient implementation of parallel simulated annealing algorithm in GPUs".

The seed's text extraction lost every number of its tables and all its figures (only the layout of
the tables and the list of test problems, its Table 8, survived), and the SA configuration of its
Sec. 4.1. So this module reproduces the shape of each experiment with a configuration of our own,
stated in the report, and the paper column says *lost*:

- Tables 1-2 and Figures 4-5: the normalised Schwefel function, sequential (V0) against asynchronous
  (V1) against synchronous (V2): relative error against explored points, final error and speedup.
- Tables 3-4: more chains (error, time, speedup); Table 5: longer chains; Table 6 (more evaluations
  by any of these means) is covered by Tables 4 and 5.
- Table 7: single against double precision.
- Table 9: V1 and V2 on the 41 problems of Table 8.
- Table 10: V2 against the SA + Nelder-Mead hybrid on the largest problems.
"""
from __future__ import annotations

import math

import numpy as np

from . import baselines
from .context import Context, Measurement, compare, describe, speedup
from .plots import Series, bar_plot, line_plot
from .report import LOST, PaperInfo, Report, Table, fixed, num, rate, times

PAPER = PaperInfo(
    id="002", name="simulated_annealing",
    title="An efficient implementation of parallel simulated annealing on GPUs",
    authors="A. M. Ferreiro, J. A. García, J. G. López-Salas and C. Vázquez, Universidade da Coruña",
    seed_file="002_f09f4034fd8710b4.txt",
    paper_gpu="NVIDIA GeForce GTX 470 (Fermi)",
    paper_cpu="Intel Xeon E5620 2.4 GHz, one core (optimised C)",
    paper_software="CentOS, CUDA SDK 3.2 (CURAND, Thrust), GNU C++ 4.1.2",
    paper_precision="single (all tables but Table 7, which compares double)",
    default_dtype="float32",
    allowance_s=200.0,  # 140 s before the numba columns and Table 7's second measurement
)
ALGORITHM = "simulated_annealing"
SCHWEFEL = "schwefel"  # the normalised Schwefel function of the paper's eq. (6)

# Table 8: the test suite (reference, our problem name, dimension)
SUITE = (
    ("F0_a", "schwefel", 8), ("F0_b", "schwefel", 16), ("F0_c", "schwefel", 32),
    ("F0_d", "schwefel", 64), ("F0_e", "schwefel", 128), ("F0_f", "schwefel", 256),
    ("F0_g", "schwefel", 512), ("F1_a", "ackley", 30), ("F1_b", "ackley", 100),
    ("F1_c", "ackley", 200), ("F1_d", "ackley", 400), ("F2", "branin", 2),
    ("F3_a", "cosine_mixture", 2), ("F3_b", "cosine_mixture", 4), ("F4", "dekkers_aarts", 2),
    ("F5", "easom", 2), ("F6", "exponential", 4), ("F7", "goldstein_price", 2),
    ("F8_a", "griewank", 100), ("F8_b", "griewank", 200), ("F8_c", "griewank", 400),
    ("F9", "himmelblau", 2), ("F10_a", "levy_montalvo_1", 2), ("F10_b", "levy_montalvo_1", 5),
    ("F10_c", "levy_montalvo_1", 10), ("F11_a", "langerman", 2), ("F11_b", "langerman", 5),
    ("F12_a", "michalewicz", 2), ("F12_b", "michalewicz", 5), ("F12_c", "michalewicz", 10),
    ("F13_a", "rastrigin", 100), ("F13_b", "rastrigin", 400), ("F14", "rosenbrock", 4),
    ("F15", "salomon", 10), ("F16", "six_hump_camel", 2), ("F17", "shubert", 2),
    ("F18_a", "shekel_5", 4), ("F18_b", "shekel_7", 4), ("F18_c", "shekel_10", 4),
    ("F19_a", "shekel_foxholes", 2), ("F19_b", "shekel_foxholes", 5),
)
LARGE = ("F0_g", "F1_d", "F8_c", "F13_b")  # Table 10's problems

NM_SHARE = 0.15  # Table 10: Nelder-Mead's share of the hybrid's budget (the default was 0.15 when reported)
# Our SA configurations (the paper's were lost): geometric cooling from t0 to t_min by alpha,
# chain_length proposals per chain per level.
FULL = dict(
    chains=4096, base=dict(schedule="fixed", t0=100.0, t_min=0.01, alpha=0.9, chain_length=50),
    versions_dims=(8, 32), v0_cap_s=4.0, cpu_cap_s=1.5,
    speed_dims=(8, 256), speed=dict(schedule="fixed", t0=100.0, t_min=0.01, alpha=0.7, chain_length=50),
    chain_counts=(1024, 2048, 4096, 8192, 16384), lengths=(25, 50, 100, 200),
    precision_dim=32,
    suite=dict(schedule="fixed", t0=100.0, t_min=1e-3, alpha=0.8, chain_length=50), suite_cpu_cap_s=0.5,
    hybrid_cap_s=5.0,
)
QUICK = dict(
    chains=64, base=dict(schedule="fixed", t0=100.0, t_min=0.01, alpha=0.7, chain_length=10),
    versions_dims=(4,), v0_cap_s=0.5, cpu_cap_s=0.5,
    speed_dims=(2, 16), speed=dict(schedule="fixed", t0=100.0, t_min=0.01, alpha=0.5, chain_length=10),
    chain_counts=(64, 128), lengths=(5, 10), precision_dim=4,
    suite=dict(schedule="fixed", t0=100.0, t_min=0.01, alpha=0.5, chain_length=5), suite_cpu_cap_s=0.3,
    hybrid_cap_s=0.3,
)
SUITE_CHAINS = {True: 32, False: 4096}  # quick, full


def levels(schedule: dict) -> int:
    """Temperature levels from t0 down to t_min, multiplied out as the algorithm does (T <- alpha T
    after each level; the schedule ends at the first T <= t_min)."""
    temperature, count = float(schedule["t0"]), 0
    while True:
        count += 1
        temperature *= schedule["alpha"]
        if temperature <= schedule["t_min"]:
            return count


def iterations(schedule: dict) -> int:
    """Iterations (one proposal per chain each) of one full schedule."""
    return levels(schedule) * int(schedule["chain_length"])


def params(chains: int, variant: str, schedule: dict, **extra) -> dict:
    return {"walkers": chains, "variant": variant, **schedule, **extra}


def run(ctx: Context, report: Report) -> None:
    """Run this paper's experiments (quick or full sizes) and fill `report`."""
    size = QUICK if ctx.quick else FULL
    report.text(
        "**The seed's text extraction lost every number in this paper's tables and figures, and the "
        "SA configuration of its Sec. 4.1.** The paper columns therefore say *lost*; we reproduce "
        "the shape of each experiment with the configuration stated in each section (ours, in the "
        "spirit of the authors' CUSIMANN code: geometric cooling, a fixed chain length per level, "
        "start points uniform in the box).")
    versions(ctx, report, size)
    more_chains(ctx, report, size)
    longer_chains(ctx, report, size)
    precision(ctx, report, size)
    suite(ctx, report, size)
    hybrid(ctx, report, size)
    report.difference(
        "Hardware: a 2010 GeForce GTX 470 against one core of a Xeon E5620 running the same "
        "algorithm sequentially in C; we compare our GPU engine with our numpy engine, which runs "
        "all chains vectorised on one core. Speedups are not expected to match; the trends are.")
    report.difference(baselines.difference_text(ctx))
    report.difference(
        "Algorithm: the neighbour changes one random coordinate, drawn uniformly between its value "
        "and a bound (CUSIMANN's move); Metropolis acceptance; T <- alpha T after every level of "
        "chain_length proposals per chain. V2 (sync) restarts every chain from the best point found "
        "so far after each level; CUSIMANN broadcasts the best of the chains' final states, which is "
        "never better. The hybrid polishes the 16 best points with Nelder-Mead (CUSIMANN uses NLopt).")
    report.difference(
        "Our relative error is |f - f*| / |f*| for the normalised Schwefel function (f* = -418.98) "
        "and the absolute error |f - f_min| on the suite (many minima are 0), always of the best "
        "point evaluated.")


def _main_side(ctx: Context) -> str:
    return "gpu" if ctx.has_gpu else "cpu"


def _rel(m: Measurement) -> float:
    return m.error(relative=True)


# --- Tables 1-2, Figures 4-5 -----------------------------------------------------------------------
def versions(ctx: Context, report: Report, size: dict) -> None:
    chains, base = size["chains"], size["base"]
    iters = iterations(base)
    ctx.log(f"  V0/V1/V2 on the normalised Schwefel function, {chains} chains, {iters} iterations")
    rows = []
    for n in size["versions_dims"]:
        runs = {}
        side = _main_side(ctx)
        for variant, key in (("async", "V1"), ("sync", "V2")):
            runs[key] = ctx.measure(side, ALGORITHM, SCHWEFEL, n, params(chains, variant, base),
                                    dtype=report.dtype, max_iters=iters, history_hz=200.0,
                                    cap_s=None if side == "gpu" else size["cpu_cap_s"] * 2)
            if side == "gpu" and ctx.has_cpu:
                runs[key + " CPU"] = ctx.measure("cpu", ALGORITHM, SCHWEFEL, n,
                                                 params(chains, variant, base), dtype=report.dtype,
                                                 max_iters=iters, cap_s=size["cpu_cap_s"])
        for variant, key in (("async", "V1"), ("sync", "V2")):  # the compiled CPU baselines last
            for engine in ctx.baselines:
                runs[f"{key} {engine}"] = ctx.measure(
                    engine, ALGORITHM, SCHWEFEL, n, params(chains, variant, base), dtype=report.dtype,
                    max_iters=iters, cap_s=size["cpu_cap_s"] * (1 if side == "gpu" else 2))
        # V0: one chain exploring as many points per level as all parallel chains together
        v0_params = params(1, "async", dict(base, chain_length=base["chain_length"] * chains))
        compiled = ctx.compiled_gpu()
        v0 = Measurement(engine="gpu", reason="no GPU engine with compiled kernels")
        if compiled is not None:
            v0 = ctx.measure("gpu", ALGORITHM, SCHWEFEL, n, v0_params, dtype=report.dtype,
                             max_iters=iters * chains, cap_s=size["v0_cap_s"], history_hz=200.0,
                             only=compiled, repeat_short=False)
        if not v0.ok and ctx.has_cpu:
            v0 = ctx.measure("cpu", ALGORITHM, SCHWEFEL, n, v0_params, dtype=report.dtype,
                             max_iters=iters * chains, cap_s=size["v0_cap_s"], history_hz=200.0)
        runs["V0"] = v0
        ctx.log(f"    n = {n}: " + "; ".join(f"{k} {describe(m)}" for k, m in runs.items()))
        rows.append((n, runs))

    report.section(
        "Tables 1-2 and Figures 4-5: sequential (V0), asynchronous (V1) and synchronous (V2)",
        f"Paper: Tables 1-2 (relative error, time and speedup of V0, V1, V2 for several n) and "
        f"Figures 4-5 (relative error against explored points); all values {LOST}. The paper finds V2 "
        f"converging fastest and most accurately, V1 a bit faster but much less accurate. Ours: "
        f"{chains:,} chains, T0 = {base['t0']:g}, T_min = {base['t_min']:g}, alpha = {base['alpha']:g}, "
        f"{base['chain_length']} proposals per chain and level ({levels(base)} levels, {iters:,} "
        f"iterations, {chains * (iters + 1):,} explored points). V0 is one chain with "
        f"{base['chain_length'] * chains:,} proposals per level (as many points per level as all "
        "chains together) and the same temperatures; it runs on the cuda engine when there is one "
        "(a sequential chain gains nothing from the cupy engine), else on numpy, capped by time.")
    has_cpu_pair = _main_side(ctx) == "gpu" and ctx.has_cpu
    cols = ["n", "Paper", "V0 rel. error", "V1 rel. error", "V2 rel. error", "V0 explored / s",
            "V1 s", "V2 s"]
    if has_cpu_pair:
        cols += ["V1 CPU s", "V2 CPU s", "V1 speedup", "V2 speedup"]
    cols += baselines.columns(ctx, "s", " V1 / V2")
    t = Table(cols)
    for n, runs in rows:
        v0, v1, v2 = runs["V0"], runs["V1"], runs["V2"]

        def err(m):
            return num(_rel(m), 3) if m.ok else t.missing(m.reason)

        def secs(m, evals=None):
            if not m.ok:
                return t.missing(m.reason)
            return ("≈ " if m.capped and evals else "") + fixed(m.seconds_for(evals), 3)

        v0_text = (f"{v0.evals:,} in {v0.seconds:.2f} s ({v0.engine}{', capped' if v0.capped else ''})"
                   if v0.ok else t.missing(v0.reason))
        cells = [str(n), LOST, err(v0), err(v1), err(v2), v0_text, secs(v1), secs(v2)]
        if has_cpu_pair:
            c1, c2 = runs["V1 CPU"], runs["V2 CPU"]
            cells += [secs(c1, v1.evals if v1.ok else None), secs(c2, v2.evals if v2.ok else None),
                      times(*speedup(c1, v1)), times(*speedup(c2, v2))]
        # per baseline, "V1 / V2" in one cell: its times for the full schedule, then the GPU's speedups
        v1_cells, v2_cells = (baselines.cells(ctx, t, {e: runs[f"{key} {e}"] for e in ctx.baselines},
                                              runs[key], chains * (iters + 1), lambda x: fixed(x, 3))
                              for key in ("V1", "V2"))
        cells += [f"{a} / {b}" for a, b in zip(v1_cells, v2_cells)]
        t.add(*cells)
    report.table(t)
    report.notes([ctx.gpu_note(ALGORITHM),
                  "V1 and V2 ran on the GPU engine; the CPU columns time the same runs on numpy, "
                  "capped by time (≈: extrapolated from its rate)." if has_cpu_pair else
                  "No GPU engine: V1 and V2 ran on numpy (capped by time if needed).",
                  "The numba columns time V1 and V2 on the compiled CPU engine (every core, one core), "
                  "capped like the numpy runs, for the full schedule (≈: extrapolated)."
                  if ctx.baselines else ""])
    for n, runs in rows:
        f_star = abs(runs["V2"].f_min or runs["V1"].f_min or 1.0)
        series = []
        for key in ("V0", "V1", "V2"):
            m = runs[key]
            if m.ok and m.history is not None and len(m.history):
                h = m.history
                series.append(Series(f"{key} ({m.engine})", h[:, 0], np.abs(h[:, 2] - (m.f_min or 0.0))
                                     / f_star, {"marker": None, "drawstyle": "steps-post"}))
        report.image(line_plot(report.plot_path(f"figure4_n{n}"),
                               f"Figures 4-5: normalised Schwefel, n = {n}", "explored points",
                               "relative error of the best", series, logx=True, logy=True),
                     f"relative error against explored points, n = {n}")


# --- Tables 3-5 -------------------------------------------------------------------------------------
def _speed_rows(ctx, report, size, n, settings):
    """V2 on both engines for each (x, chains, schedule); rows (x, chains, schedule, cpu, gpu)."""
    rows = []
    for x, chains, schedule in settings:
        both = compare(ctx, ALGORITHM, SCHWEFEL, n, params(chains, "sync", schedule),
                       dtype=report.dtype, max_iters=iterations(schedule), cpu_cap_s=size["cpu_cap_s"],
                       label=f"n = {n}, {x:,}")
        rows.append((x, chains, schedule, both.cpu, both.gpu, both.base))
    return rows


def _speed_table(ctx, report, rows, first_col: str) -> Table:
    cols = [first_col, "Evaluations", "Paper time / speedup"]
    cols += ["GPU s", "CPU s", "Speedup", "GPU rel. error"] if ctx.has_gpu else \
        ["CPU s", "CPU rate", "CPU rel. error"]
    cols += baselines.columns(ctx, "s")
    t = Table(cols)
    for x, chains, schedule, cpu, gpu, base in rows:
        label = f"{x:,}"
        evals = chains * (iterations(schedule) + 1)
        cpu_s = t.missing(cpu.reason) if not cpu.ok else (
            ("≈ " if cpu.capped else "") + fixed(cpu.seconds_for(evals), 3))
        extra = baselines.cells(ctx, t, base, gpu, evals, lambda v: fixed(v, 3))
        if ctx.has_gpu:
            t.add(label, f"{evals:,}", LOST, fixed(gpu.seconds, 3) if gpu.ok else t.missing(gpu.reason),
                  cpu_s, times(*speedup(cpu, gpu)), num(_rel(gpu), 3) if gpu.ok else "n/a", *extra)
        else:
            t.add(label, f"{evals:,}", LOST, cpu_s, rate(cpu.rate),
                  num(_rel(cpu), 3) + (" (capped)" if cpu.capped else "") if cpu.ok else "n/a", *extra)
    return t


def _speed_plot(ctx, report, name, title, xlabel, per_n):
    series = []
    for n, rows in per_n:
        xs = [r[0] for r in rows]
        if ctx.has_gpu:
            series.append(Series(f"n = {n}", xs, [speedup(cpu, gpu)[0] for _, _, _, cpu, gpu, _ in rows]))
        else:
            series.append(Series(f"n = {n} (CPU rate)", xs, [cpu.rate for _, _, _, cpu, _, _ in rows]))
    report.image(line_plot(report.plot_path(name), title, xlabel,
                           "speedup (x)" if ctx.has_gpu else "evaluations / s", series,
                           logx=True, logy=True), title)


def more_chains(ctx: Context, report: Report, size: dict) -> None:
    schedule = size["speed"]
    ctx.log("  Tables 3-4: more chains")
    per_n = [(n, _speed_rows(ctx, report, size, n, [(c, c, schedule) for c in size["chain_counts"]]))
             for n in size["speed_dims"]]
    report.section(
        "Tables 3-4: more chains (V2)",
        f"Paper: Table 3 (relative error as the number of threads is multiplied) and Table 4 (time "
        f"and speedup, for an n that is not memory-bound and one that is); values {LOST}. The paper "
        f"reports the speedup growing with the number of threads in both cases. Ours: V2, "
        f"T0 = {schedule['t0']:g}, T_min = {schedule['t_min']:g}, alpha = {schedule['alpha']:g}, "
        f"{schedule['chain_length']} proposals per level ({levels(schedule)} levels), n = "
        f"{' and '.join(str(n) for n in size['speed_dims'])}.")
    for n, rows in per_n:
        report.text(f"**n = {n}**")
        report.table(_speed_table(ctx, report, rows, "Chains"))
    report.notes([ctx.gpu_note(ALGORITHM)])
    _speed_plot(ctx, report, "table4_chains", "Tables 3-4: speedup against chains", "chains", per_n)


def longer_chains(ctx: Context, report: Report, size: dict) -> None:
    chains = size["chains"]
    ctx.log("  Table 5: longer chains")
    per_n = [(n, _speed_rows(ctx, report, size, n, [(L, chains, dict(size["speed"], chain_length=L))
                                                    for L in size["lengths"]]))
             for n in size["speed_dims"]]
    report.section(
        "Table 5: longer Markov chains (V2)",
        f"Paper: Table 5, the speedup as the chain length L doubles; values {LOST} (the text: 'the "
        f"speedups are maintained even for large lengths'). Table 6 (more evaluations by doubling L, "
        f"the threads or the temperature range) is covered by this table and Table 4. Ours: V2, "
        f"{chains:,} chains, the schedule of Tables 3-4 with L doubled.")
    for n, rows in per_n:
        report.text(f"**n = {n}**")
        report.table(_speed_table(ctx, report, rows, "L"))
    report.notes([ctx.gpu_note(ALGORITHM)])
    _speed_plot(ctx, report, "table5_length", "Table 5: speedup against chain length", "chain length L",
                per_n)


# --- Table 7 ---------------------------------------------------------------------------------------
def precision(ctx: Context, report: Report, size: dict) -> None:
    n, chains, base = size["precision_dim"], size["chains"], size["base"]
    ctx.log(f"  Table 7: float against double, n = {n}")
    rows, extra = [], {}
    for dtype in ("float32", "float64"):
        # fresh: every engine measures again, although Tables 1-2 timed the same configuration
        both = compare(ctx, ALGORITHM, SCHWEFEL, n, params(chains, "sync", base), dtype=dtype,
                       max_iters=iterations(base), cpu_cap_s=size["cpu_cap_s"], label=dtype, fresh=True)
        rows.append((dtype, both.cpu, both.gpu))
        extra[dtype] = both.base
    report.section(
        f"Table 7: single against double precision (V2, n = {n})",
        f"Paper: Table 7 (time and relative error); values {LOST}. The text: double runs about twice "
        f"as slow on the Fermi GPU, with a lower error, and single precision is accurate enough. "
        f"Ours: the configuration of Tables 1-2, both precisions on every engine, measured again "
        f"here (without recording a convergence history): with the same seed the {report.dtype} row "
        f"repeats the errors of Tables 1-2, and its times are a second measurement.")
    cols = ["Precision", "Paper time / rel. error"]
    cols += ["GPU s", "CPU s", "Speedup", "GPU rel. error", "CPU rel. error"] if ctx.has_gpu else \
        ["CPU s", "CPU rate", "CPU rel. error"]
    cols += baselines.columns(ctx, "s")
    t = Table(cols)
    evals = chains * (iterations(base) + 1)
    for dtype, cpu, gpu in rows:
        cpu_s = t.missing(cpu.reason) if not cpu.ok else ("≈ " if cpu.capped else "") + fixed(
            cpu.seconds_for(evals), 3)
        cpu_err = (num(_rel(cpu), 3) + (" (capped)" if cpu.capped else "")) if cpu.ok else "n/a"
        more = baselines.cells(ctx, t, extra[dtype], gpu, evals, lambda v: fixed(v, 3))
        if ctx.has_gpu:
            t.add(dtype, LOST, fixed(gpu.seconds, 3) if gpu.ok else t.missing(gpu.reason), cpu_s,
                  times(*speedup(cpu, gpu)), num(_rel(gpu), 3) if gpu.ok else "n/a", cpu_err, *more)
        else:
            t.add(dtype, LOST, cpu_s, rate(cpu.rate), cpu_err, *more)
    report.table(t)
    report.notes([ctx.gpu_note(ALGORITHM)])
    side = 1 if not ctx.has_gpu else 2
    # a ratio of rates: the time each precision needs for the same work, capped runs included
    ratio = rows[0][side].rate / rows[1][side].rate if rows[0][side].ok and rows[1][side].ok else math.nan
    errs = [_rel(r[side]) if r[side].ok else math.nan for r in rows]
    if all(math.isfinite(e) for e in errs) and errs[1] >= errs[0]:
        report.text(f"In this run double precision did not give a lower error than single "
                    f"({errs[1]:.3g} against {errs[0]:.3g}), unlike the paper's text: at this budget "
                    f"the error is set by where the chains are when the schedule ends, which differs "
                    f"between the two runs' random streams, not by rounding.")
    if math.isfinite(ratio):
        report.text(f"Time in double over time in single precision for the same work on the "
                    f"{'GPU' if ctx.has_gpu else 'CPU'}: {ratio:.2f}x (the paper: about 2x on its GPU).")


# --- Table 9 ---------------------------------------------------------------------------------------
def suite(ctx: Context, report: Report, size: dict) -> None:
    chains, schedule = SUITE_CHAINS[ctx.quick], size["suite"]
    iters = iterations(schedule)
    side = _main_side(ctx)
    cap = None if side == "gpu" else size["suite_cpu_cap_s"]
    ctx.log(f"  Table 9: {len(SUITE)} problems, V1 and V2, {chains} chains, {iters} iterations on {side}")
    rows = []
    for ref, name, dim in SUITE:
        runs = [ctx.measure(side, ALGORITHM, name, dim, params(chains, v, schedule), dtype=report.dtype,
                            max_iters=iters, cap_s=cap, repeat_short=False) for v in ("async", "sync")]
        ctx.log(f"    {ref} {name} {dim}: " + "; ".join(describe(m) for m in runs))
        rows.append((ref, name, dim, *runs))
    report.section(
        f"Table 9: the test suite (Table 8's {len(SUITE)} problems), V1 and V2",
        f"Paper: Table 9 (function evaluations, then time and error of V1 and V2); values {LOST}, "
        f"except that its Michalewicz rows (F12) print '–' in two cells. Ours: {chains:,} chains, "
        f"T0 = {schedule['t0']:g}, T_min = {schedule['t_min']:g}, alpha = {schedule['alpha']:g}, "
        f"{schedule['chain_length']} proposals per level ({levels(schedule)} levels, "
        f"{chains * (iters + 1):,} evaluations per run), on the "
        f"{'GPU' if side == 'gpu' else 'CPU (no GPU engine; runs capped by time)'}. Error: "
        "|best f - f_min|, relative for the normalised Schwefel rows (F0). The paper tunes its "
        "configuration per problem for small errors; we use one configuration for all.")
    t = Table(["Ref.", "Problem", "n", "Paper", "Evaluations", "V1 s", "V1 error", "V2 s", "V2 error",
               "Known minimum"])
    for ref, name, dim, v1, v2 in rows:
        rel = name == SCHWEFEL

        def err(m):
            if not m.ok:
                return t.missing(m.reason)
            e = m.error(relative=rel)
            return (num(e, 3) if math.isfinite(e) else f"best {num(m.best_f, 5)}") + \
                (" (capped)" if m.capped else "")

        evals = v2.evals if v2.ok else (v1.evals if v1.ok else None)
        known = v2.f_min if v2.ok else v1.f_min
        t.add(ref, f"`{name}`", str(dim), LOST + (" ('–' in two cells)" if ref.startswith("F12") else ""),
              f"{evals:,}" if evals else "n/a",
              fixed(v1.seconds, 3) if v1.ok else "n/a", err(v1),
              fixed(v2.seconds, 3) if v2.ok else "n/a", err(v2),
              num(known, 6) if known is not None else "n/a")
    report.table(t)
    report.notes([ctx.gpu_note(ALGORITHM)])
    refs = [r[0] for r in rows]

    def errs(i):
        return [max(r[i].error(relative=r[1] == SCHWEFEL), 1e-12) if r[i].ok else math.nan for r in rows]

    report.image(bar_plot(report.plot_path("table9_errors"), "Table 9: error of V1 and V2 per problem",
                          "error (floor 1e-12)", refs, [Series("V1 async", refs, errs(3)),
                                                        Series("V2 sync", refs, errs(4))], logy=True),
                 "Table 9 errors")


# --- Table 10 --------------------------------------------------------------------------------------
def hybrid_capped_text(rows) -> str:
    """Which of Table 10's runs reached the time cap, from the measurements (rows: ref, name, dim,
    V2 run, hybrid run)."""
    parts = []
    for label, k in (("V2", 3), ("the hybrid", 4)):
        ran = [r[k] for r in rows if r[k].ok]
        capped = sum(1 for m in ran if m.capped)
        if not ran:
            parts.append(f"{label} did not run")
        elif capped == 0:
            parts.append(f"{label} finished within it on {'all' if len(ran) > 1 else 'its'} "
                         f"{len(ran)} problem{'s' if len(ran) > 1 else ''}")
        else:
            parts.append(f"{label} reached it on {capped} of {len(ran)} problems")
    return "in this run " + " and ".join(parts)


def hybrid(ctx: Context, report: Report, size: dict) -> None:
    chains, base = size["chains"], size["base"]
    side = _main_side(ctx)
    problems = [(ref, name, dim) for ref, name, dim in SUITE if ref in LARGE]
    ctx.log(f"  Table 10: V2 against the hybrid on {len(problems)} problems")
    rows = []
    for ref, name, dim in problems:
        v2 = ctx.measure(side, ALGORITHM, name, dim, params(chains, "sync", base), dtype=report.dtype,
                         max_iters=iterations(base), cap_s=size["hybrid_cap_s"], repeat_short=False)
        # the same SA stage as V2 (its schedule, its evaluations), then Nelder-Mead with a share
        # NM_SHARE of the hybrid's whole budget
        sa_stage = v2.evals if v2.ok else chains * (iterations(base) + 1)
        budget = int(sa_stage / (1.0 - NM_SHARE))
        hy = ctx.measure(side, ALGORITHM, name, dim, params(chains, "hybrid", base), dtype=report.dtype,
                         max_evals=budget, cap_s=size["hybrid_cap_s"], repeat_short=False)
        ctx.log(f"    {ref} {name} {dim}: V2 {describe(v2)}; hybrid {describe(hy)}")
        rows.append((ref, name, dim, v2, hy))
    report.section(
        "Table 10: V2 against the SA + Nelder-Mead hybrid on the largest problems",
        f"Paper: Table 10 (evaluations, time and error of V2 and of the hybrid); values {LOST}; the "
        f"text: 'both execution times and errors are much smaller' with the hybrid. Ours: V2 with the "
        f"configuration of Tables 1-2 ({levels(base)} levels); the hybrid runs the same SA stage "
        f"(the same schedule and evaluations) and then Nelder-Mead on the 16 best points with a "
        f"{NM_SHARE:.0%} share of its whole budget (V2's evaluations / {1 - NM_SHARE:g}), until the "
        f"simplices collapse or the budget is spent. Each run may take {size['hybrid_cap_s']:g} s at "
        f"most (then marked capped): {hybrid_capped_text(rows)}. (An earlier version gave the hybrid "
        f"a shorter SA stage within V2's evaluations and found it slower and worse.)")
    t = Table(["Ref.", "Problem", "n", "Paper", "V2 evaluations", "V2 s", "V2 error", "Hybrid evaluations",
               "Hybrid s", "Hybrid error"])
    for ref, name, dim, v2, hy in rows:
        rel = name == SCHWEFEL

        def cells(m):
            if not m.ok:
                return [t.missing(m.reason), "n/a", "n/a"]
            return [f"{m.evals:,}", fixed(m.seconds, 3) + (" (capped)" if m.capped else ""),
                    num(m.error(relative=rel), 3)]

        t.add(ref, f"`{name}`", str(dim), LOST, *cells(v2), *cells(hy))
    report.table(t)
    report.notes([ctx.gpu_note(ALGORITHM),
                  "Run on the GPU engine." if side == "gpu" else "No GPU engine: run on numpy."])
    refs = [r[0] for r in rows]
    report.image(bar_plot(report.plot_path("table10_errors"), "Table 10: V2 against the hybrid",
                          "error", refs,
                          [Series("V2", refs, [r[3].error(relative=r[1] == SCHWEFEL) if r[3].ok else math.nan
                                               for r in rows]),
                           Series("hybrid", refs, [r[4].error(relative=r[1] == SCHWEFEL) if r[4].ok
                                                   else math.nan for r in rows])], logy=True),
                 "Table 10 errors")
