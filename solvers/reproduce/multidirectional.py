"""Seed 001, Stchedroff, "Multi-directional Optimisation on the GPU".

Experiments: speedup against the number of variables on the portfolio problem (20,000 starts, at
most 10,000 evaluations per start; Sec. 7, Figure 3), the accuracy of the portfolio solution against
the exact w = 1/n (within 0.15 % in 1.65 s at n = 15), and the Schwefel function with 100,000 starts
with fast-math intrinsics on and off (Figure 5, peak 417x at n = 15). Figures 3 and 5 did not
survive the extraction; the numbers quoted in the text are the paper column.
"""
from __future__ import annotations

import math

import numpy as np

from ..engines import get_engine
from . import baselines
from .context import SKIPPED, Context, Measurement, compare, describe, speedup
from .plots import Series, line_plot
from .report import LOST, PaperInfo, Report, Table, fixed, num, rate, times

PAPER = PaperInfo(
    id="001", name="multidirectional_search",
    title="Multi-directional Optimisation on the GPU",
    authors="Niels Stchedroff",
    seed_file="001_c3e07325007b1868.txt",
    paper_gpu="NVIDIA Tesla C1060 (240 cores)",
    paper_cpu="Intel Core i7, one thread (reference CPU implementation)",
    paper_software="CUDA C",
    paper_precision="single (`float` in its Figure 2)",
    default_dtype="float32",
    allowance_s=130.0,  # 70 s before the numba columns (18 more capped runs of <= 3 s)
)
ALGORITHM = "multidirectional_search"
PORTFOLIO = "portfolio_variance"
SCHWEFEL = "schwefel_2_26"  # Hedar's Schwefel: 418.9829 n - sum x sin sqrt|x| on [-500, 500]^n

# Sec. 7 (text; Figure 3 lost): n -> speedup on the portfolio problem, 20,000 starts
PORTFOLIO_SPEEDUP = {5: "30x", 10: "110x", 15: "155x (GPU 1.65 s, CPU 257.95 s)"}
PORTFOLIO_BEYOND = "80-90x ('beyond n = 15 ... still common')"
PAPER_ACCURACY = "within 0.15 % of w = 1/n, in 1.65 s (n = 15)"
# Sec. 7 (text; Figure 5 lost): Schwefel, 100,000 starts
SCHWEFEL_PAPER = {15: "417x with __sinf (peak); sinf version 'much slower' (value lost)"}

FULL = dict(dims=(5, 10, 15, 20, 30), starts=20000, evals_per_start=10000, cpu_cap_s=3.0,
            gpu_cap_s=15.0, schwefel_dims=(5, 10, 15, 20), schwefel_starts=100000)
QUICK = dict(dims=(5, 10), starts=300, evals_per_start=300, cpu_cap_s=1.0, gpu_cap_s=5.0,
             schwefel_dims=(5,), schwefel_starts=1000)


def iterations_for(dim: int, evals_per_start: int) -> int:
    """Iterations that keep a start within its evaluations: n + 1 to start, then 2n per iteration."""
    return max(1, (evals_per_start - (dim + 1)) // (2 * dim))


def run(ctx: Context, report: Report) -> None:
    """Run this paper's experiments (quick or full sizes) and fill `report`."""
    size = QUICK if ctx.quick else FULL
    portfolio = speedup_against_variables(ctx, report, size)
    accuracy(ctx, report, size, portfolio)
    schwefel(ctx, report, size)
    report.difference(
        "Hardware: a 2009 Tesla C1060 against one thread of an Intel i7 running the reference C "
        "code; we compare our GPU engine with our numpy engine, which is vectorised over starts "
        "(one core, SIMD), so our speedups are not expected to match the paper's; the trend in n is.")
    report.difference(baselines.difference_text(ctx))
    report.difference(
        "Algorithm: Torczon's multi-directional search with reflection 1, expansion 2, contraction "
        "0.5 (the paper's Sec. 7). The acceptance rule as printed in the paper's Sec. 2 is swapped "
        "(it keeps the expansion when f(e) >= f(v0)); we use Torczon's rule, as the module "
        "solvers/algorithms/multidirectional_search.py explains. A start stops once its simplex "
        "collapses (the paper's Sec. 6 test; our tolerance 1e-7 of the range), so a start costs at "
        "most 10,000 evaluations but often fewer, and the two engines, with different random "
        "streams, do not count exactly the same evaluations: speedups are ratios of evaluation rates.")
    report.difference(
        "Parallel layout: the paper runs one start per block with the simplex in shared memory; our "
        "layout is the engine's own (see the cuda engine's multi-directional kernel, or one array "
        "over all starts on the cupy engine).")


# --- speedup against n (Figure 3) ------------------------------------------------------------------
def speedup_against_variables(ctx: Context, report: Report, size: dict):
    starts, per_start = size["starts"], size["evals_per_start"]
    ctx.log(f"  Portfolio: {starts} starts, <= {per_start} evaluations per start")
    rows, base = [], {}
    for n in size["dims"]:
        cpu, gpu = both = compare(ctx, ALGORITHM, PORTFOLIO, n, {"walkers": starts}, dtype=report.dtype,
                                  max_iters=iterations_for(n, per_start), cpu_cap_s=size["cpu_cap_s"],
                                  gpu_cap_s=size["gpu_cap_s"], label=f"n = {n}")
        rows.append((n, cpu, gpu))
        base[n] = both.base

    report.section(f"Speedup against the number of variables (portfolio, {starts:,} starts)",
                   f"Paper: Sec. 7 and Figure 3 (the figure is {LOST}; the text gives n = 5, 10, 15 "
                   f"and 'beyond'). Each start may use at most {per_start:,} evaluations: n + 1 for its "
                   "first simplex and 2n per iteration, so the run is capped at "
                   f"({per_start:,} - n - 1) / 2n iterations.")
    cols = ["n", "Paper speedup", "Iterations"]
    cols += ["GPU s", "CPU s", "Speedup", "GPU evaluations", "GPU rate", "CPU rate"] if ctx.has_gpu \
        else ["CPU s", "CPU evaluations", "CPU rate"]
    cols += baselines.columns(ctx, "s")
    t = Table(cols)
    for n, cpu, gpu in rows:
        paper = PORTFOLIO_SPEEDUP.get(n, PORTFOLIO_BEYOND if n > 15 else "—")
        cells = [str(n), paper, str(iterations_for(n, per_start))]
        cpu_s = _seconds(t, cpu, gpu.evals if gpu.ok else None)
        if ctx.has_gpu:
            cells += [fixed(gpu.seconds, 3) if gpu.ok else t.missing(gpu.reason), cpu_s,
                      times(*speedup(cpu, gpu)), f"{gpu.evals:,}" if gpu.ok else "n/a", rate(gpu.rate),
                      rate(cpu.rate)]
        else:
            cells += [cpu_s, f"{cpu.evals:,}" if cpu.ok else "n/a", rate(cpu.rate)]
        cells += baselines.cells(ctx, t, base[n], gpu, gpu.evals if gpu.ok else None,
                                 lambda x: fixed(x, 3))
        t.add(*cells)
    report.table(t)
    report.notes([ctx.gpu_note(ALGORITHM),
                  "CPU (and numba) times marked ≈ are the time that engine would need for the GPU "
                  "run's evaluations at its measured rate (its run was capped)."
                  if any(m.capped for n, c, _ in rows for m in (c, *base[n].values())) else ""])
    if ctx.has_gpu:
        series = [Series("paper (text)", [5, 10, 15], [30, 110, 155], {"linestyle": "--"}),
                  Series("ours", [n for n, _, _ in rows], [speedup(c, g)[0] for _, c, g in rows])]
        report.image(line_plot(report.plot_path("portfolio_speedup"), "Portfolio: speedup against n",
                               "variables n", "speedup (x)", series, logy=True), "portfolio speedup")
    else:
        series = [Series("our CPU rate", [n for n, _, _ in rows], [c.rate for _, c, _ in rows])]
        report.image(line_plot(report.plot_path("portfolio_rate"), "Portfolio: CPU evaluations per second",
                               "variables n", "evaluations / s", series, logy=True), "portfolio rate")
    return rows


# --- accuracy against w = 1/n --------------------------------------------------------------------
def accuracy(ctx: Context, report: Report, size: dict, rows) -> None:
    report.section("Accuracy of the portfolio solution against the exact w = 1/n",
                   f"Paper: Sec. 7, '{PAPER_ACCURACY}'. Ours: the largest relative deviation of "
                   "any weight of the best portfolio from 1/n, max_i |w_i - 1/n| / (1/n), and the relative "
                   "error of the variance, from the runs above.")
    t = Table(["n", "Paper", "Engine", "Time s", "Max weight deviation", "Variance rel. error",
               "Best variance", "Known minimum"])
    for n, cpu, gpu in rows:
        for m in (gpu, cpu):
            if not m.ok and m.engine == "gpu":
                continue
            paper = PAPER_ACCURACY if n == 15 else "—"
            if not m.ok:
                t.add(str(n), paper, m.engine, t.missing(m.reason), "n/a", "n/a", "n/a", "n/a")
                continue
            dev = weight_deviation(m)
            t.add(str(n), paper, m.engine + (" (capped)" if m.capped else ""), fixed(m.seconds, 3),
                  f"{dev * 100:.3g} %" if math.isfinite(dev) else "n/a",
                  f"{m.error(relative=True) * 100:.3g} %" if math.isfinite(m.error()) else "n/a",
                  num(m.best_f, 7), num(m.f_min, 7))
    report.table(t)
    report.notes(["A capped CPU run stopped early, so its accuracy is that of a shorter run."
                  if any(c.capped for _, c, _ in rows) else "",
                  f"`{PORTFOLIO}` searches x in [0, 1]^n and evaluates the portfolio w = x / sum(x) "
                  "(the budget sum w = 1 by normalisation, plus a small pull (sum x - 1)^2 that makes the "
                  "minimiser unique); the deviation is that of w. Its known minimum is the variance "
                  "(10 + 7.5 (n - 1)) / n at w = 1/n.",
                  "The paper's 'within 0.15 %' does not say of what: read as the largest deviation of "
                  "a weight from 1/n, compare the 'Max weight deviation' column; read as the error of "
                  "the variance (the objective), compare 'Variance rel. error', which is far smaller "
                  "because the variance is flat (quadratic) around its minimum. Both readings are "
                  "given; neither is the paper's stated one."])


def weight_deviation(m: Measurement) -> float:
    """max_i |w_i - 1/n| / (1/n) for the portfolio w = x / sum(x) that the problem evaluates."""
    if not m.ok or m.best_x is None or not np.sum(m.best_x) > 0:
        return math.nan
    n = len(m.best_x)
    w = m.best_x / np.sum(m.best_x)
    return float(np.max(np.abs(w - 1.0 / n)) * n)


# --- Schwefel, fast math on and off (Figure 5) -----------------------------------------------------
def schwefel(ctx: Context, report: Report, size: dict) -> None:
    starts, per_start = size["schwefel_starts"], size["evals_per_start"]
    ctx.log(f"  Schwefel: {starts} starts, fast math off and on")
    rows, base = [], {}
    for n in size["schwefel_dims"]:
        iters = iterations_for(n, per_start)
        params = {"walkers": starts}
        cpu, precise = both = compare(ctx, ALGORITHM, SCHWEFEL, n, params, dtype=report.dtype,
                                      max_iters=iters, cpu_cap_s=size["cpu_cap_s"],
                                      gpu_cap_s=size["gpu_cap_s"], label=f"n = {n}")
        base[n] = both.base
        fast = fast_math_run(ctx, precise, lambda: ctx.measure(
            "gpu", ALGORITHM, SCHWEFEL, n, params, dtype=report.dtype, max_iters=iters,
            cap_s=size["gpu_cap_s"], fast_math=True))
        ctx.log(f"    n = {n} fast math: {describe(fast)}")
        rows.append((n, cpu, precise, fast))

    report.section(f"Schwefel function, {starts:,} starts, fast math off and on",
                   f"Paper: Sec. 7 and Figure 5 (the figure is {LOST}): 'a peak of 417 times speedup "
                   "achieved at n = 15' with the __sinf intrinsic; 'the sinf version is much slower'. "
                   f"Function: `{SCHWEFEL}` (Hedar's Schwefel, 418.9829 n - sum x sin sqrt|x| on "
                   "[-500, 500]^n, minimum 0). Fast math is the cuda engine's switch (intrinsics such "
                   "as __sinf); it defaults to off.")
    cols = ["n", "Paper", "CPU s"]
    if ctx.has_gpu:
        cols += ["GPU s (precise)", "GPU s (fast math)", "Speedup precise", "Speedup fast math",
                 "Best f CPU / precise / fast"]
    else:
        cols += ["CPU rate", "Best f CPU"]
    cols += baselines.columns(ctx, "s", " (precise)" if ctx.has_gpu else "")
    t = Table(cols)
    for n, cpu, precise, fast in rows:
        cells = [str(n), SCHWEFEL_PAPER.get(n, "—"),
                 _seconds(t, cpu, precise.evals if precise.ok else None)]
        if ctx.has_gpu:
            cells += [fixed(precise.seconds, 3) if precise.ok else t.missing(precise.reason),
                      fixed(fast.seconds, 3) if fast.ok else t.missing(fast.reason),
                      times(*speedup(cpu, precise)), times(*speedup(cpu, fast)),
                      " / ".join(num(m.best_f, 4) if m.ok else "n/a" for m in (cpu, precise, fast))]
        else:
            cells += [rate(cpu.rate), num(cpu.best_f, 4) if cpu.ok else "n/a"]
        cells += baselines.cells(ctx, t, base[n], precise, precise.evals if precise.ok else None,
                                 lambda x: fixed(x, 3))
        t.add(*cells)
    report.table(t)
    report.notes([ctx.gpu_note(ALGORITHM),
                  "The CPU (and numba) columns are the time that engine needs for the evaluations of "
                  "the precise GPU run (≈: extrapolated from its measured rate); the numba speedups "
                  "are the precise GPU run's. The fast-math run stops at its own "
                  "evaluation count, so its speedup is a ratio of evaluation rates (CPU against fast "
                  "math), not of the two times shown."])
    ns = [n for n, *_ in rows]
    if ctx.has_gpu:
        series = [Series("paper, __sinf (n = 15)", [15], [417], {"linestyle": "none", "marker": "*",
                                                                "markersize": 10}),
                  Series("ours, precise", ns, [speedup(c, p)[0] for _, c, p, _ in rows]),
                  Series("ours, fast math", ns, [speedup(c, f)[0] for _, c, _, f in rows])]
        report.image(line_plot(report.plot_path("schwefel_speedup"), "Schwefel: speedup against n",
                               "variables n", "speedup (x)", series, logy=True), "Schwefel speedup")
    else:
        series = [Series("our CPU rate", ns, [c.rate for _, c, _, _ in rows])]
        report.image(line_plot(report.plot_path("schwefel_rate"), "Schwefel: CPU evaluations per second",
                               "variables n", "evaluations / s", series, logy=True), "Schwefel rate")


def fast_math_run(ctx: Context, precise: Measurement, measure) -> Measurement:
    """The fast-math GPU run (`measure()`), or why there is none: the reason of the precise run when
    it did not run (skipped for time, out of memory), the engine's want of a fast-math switch."""
    if not ctx.has_gpu:
        return Measurement(engine="gpu", reason="no GPU engine")
    if not precise.ok:
        if precise.reason == SKIPPED:
            return measure()  # skipped too, and counted among the skipped measurements
        return Measurement(engine=precise.engine, reason=f"not run: the precise GPU run failed "
                                                         f"({precise.reason})")
    if not get_engine(precise.engine).honours_fast_math:
        return Measurement(engine=precise.engine,
                           reason=f"the {precise.engine} engine has no fast-math switch")
    return measure()


def _seconds(t: Table, m: Measurement, evals: int | None) -> str:
    if not m.ok:
        return t.missing(m.reason)
    text = fixed(m.seconds_for(evals), 3)
    return f"≈ {text}" if m.capped and evals is not None else (text + " (capped)" if m.capped else text)
