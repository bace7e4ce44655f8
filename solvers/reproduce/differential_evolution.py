"""Seed 004, Kralj, "Differential Evolution with parallelised objective functions using CUDA".

Experiment: CPU against GPU time for population sizes 16, 32 and 64 (its Sec. IV and Figures 1-2,
which did not survive the extraction) and beyond. The seed evaluates the 28 CEC'13 functions, which
need shift and rotation data files we do not ship; we run the twelve functions of Yao, Liu & Lin
(1999) from our registry instead, at 30 dimensions (one of CEC'13's), and add up the times over
the suite as the seed adds up its 28 functions.
"""
from __future__ import annotations

import math

from . import baselines
from .context import Context, compare, speedup
from .plots import Series, line_plot
from .report import LOST, PaperInfo, Report, Table, fixed, num, times

PAPER = PaperInfo(
    id="004", name="differential_evolution",
    title="Differential Evolution with parallelised objective functions using CUDA",
    authors="Primož Kralj",
    seed_file="004_94195f82f713c441.txt",
    paper_gpu="NVIDIA GeForce GT 540M, 2 GB (Fermi, 2 SMs, 96 cores)",
    paper_cpu="Intel Core i7 2 GHz quad-core laptop, sequential",
    paper_software="CUDA (compute capability 2.1)",
    paper_precision="double (its listings use `double`)",
    default_dtype="float64",
    allowance_s=100.0,  # 60 s before the numba columns (the H100 run skipped 1)
)
ALGORITHM = "differential_evolution"
SUITE = ("ackley", "griewank", "penalized_1", "penalized_2", "quartic", "rastrigin", "rosenbrock",
         "schwefel_1_2", "schwefel_2_22", "schwefel_2_21", "sphere", "step")
DIM = 30

# Sec. IV (text; Figures 1 and 2 lost): population size -> what the paper says
PAPER_TEXT = {16: "GPU almost 4x faster (Fig. 1, values lost)",
              32: "GPU faster (Fig. 2, values lost)",
              64: "GPU still faster ('kept low, that is 64')",
              "beyond": "GPU and CPU the same, or GPU slower"}

FULL = dict(generations=500, populations=(16, 32, 64, 256, 1024, 4096), detail=(16, 64, 1024),
            cpu_cap_s=0.5)
QUICK = dict(generations=20, populations=(16, 32, 64, 128), detail=(16,), cpu_cap_s=0.3)


def run(ctx: Context, report: Report) -> None:
    """Run this paper's experiments (quick or full sizes) and fill `report`."""
    size = QUICK if ctx.quick else FULL
    gens = size["generations"]
    ctx.log(f"  population sizes {size['populations']}, {len(SUITE)} functions, {DIM}-D, {gens} generations")
    results = {}
    for pop in size["populations"]:
        for name in SUITE:
            results[(pop, name)] = compare(ctx, ALGORITHM, name, DIM, {"walkers": pop, "populations": 1},
                                           dtype=report.dtype, max_iters=gens, cpu_cap_s=size["cpu_cap_s"],
                                           label=f"NP {pop}, {name}")
    report.text(
        "**CEC'13 is not used:** its 28 functions need shift vectors and rotation matrices from data "
        "files that we do not ship. We use our problem suite instead: the twelve functions of Yao, "
        f"Liu & Lin (1999) at {DIM} dimensions (CEC'13 uses 10, 30 and 50), on their own boxes. "
        f"DE/rand/1/bin with F = 0.5 and Cr = 0.9, one population, {gens} generations (the seed "
        "gives neither its F and Cr nor its generation count).")
    summary(ctx, report, size, results)
    detail(ctx, report, size, results)
    report.difference(
        "Parallelisation: the seed keeps DE on the CPU and sends every generation's population to "
        "the GPU to evaluate its 28 functions (one block per individual, one thread per function, 32 "
        "individuals per launch, a copy back per generation), so its GPU gain vanishes past 64 "
        "individuals. Our GPU engines keep the whole population on the GPU and evaluate it at once "
        "(the cuda engine fuses a whole generation), so our trend with population size is expected "
        "to differ: the GPU gains more as the population grows.")
    report.difference(baselines.difference_text(ctx))
    report.difference(
        "Hardware: a 2011 laptop GPU (GT 540M, 96 cores) against a laptop i7; we compare our GPU "
        "engine with our numpy engine (vectorised over individuals, one core).")
    report.difference(
        "Fitness: the seed sums the 28 function values into one fitness per individual; we run DE on "
        "each function separately and add up the times.")


def summary(ctx: Context, report: Report, size: dict, results) -> None:
    gens = size["generations"]
    report.section(f"CPU against GPU time by population size (suite of {len(SUITE)}, {DIM}-D, {gens} "
                   "generations)",
                   f"Paper: Sec. IV and Figures 1-2 (the figures' values are {LOST}); the text's "
                   "statements are the paper column. Times are totals over the suite.")
    cols = ["Population", "Paper", "CPU s (suite)"]
    cols += ["GPU s (suite)", "Speedup", "Evaluations per function"] if ctx.has_gpu else \
        ["Evaluations per function"]
    cols += baselines.columns(ctx, "s (suite)")
    t = Table(cols)
    rows = []
    for pop in size["populations"]:
        pairs = [results[(pop, name)] for name in SUITE]
        ok = [(c, g) for c, g in pairs if c.ok and (g.ok or not ctx.has_gpu)]
        evals = pop * (gens + 1)
        cpu_total = sum(c.seconds_for(evals) for c, _ in ok) if ok else math.nan
        gpu_total = sum(g.seconds for _, g in ok) if ok and ctx.has_gpu else math.nan
        capped = any(c.capped for c, _ in ok)
        paper = PAPER_TEXT.get(pop, PAPER_TEXT["beyond"] if pop > 64 else "—")
        missing = len(pairs) - len(ok)
        label = f"{pop:,}" + (f" ({missing} function(s) not run)" if missing else "")
        if not ok:
            reason = next((m.reason for pair in pairs for m in pair if not m.ok), "not measured")
            t.add(label, paper, t.missing(reason), *(["n/a"] * (len(cols) - 3)))
            rows.append((pop, math.nan, math.nan))
            continue
        cpu_text = ("≈ " if capped else "") + fixed(cpu_total, 3)
        more = suite_baseline_cells(ctx, t, [results[(pop, name)] for name in SUITE], evals)
        if ctx.has_gpu:
            ratio = cpu_total / gpu_total if gpu_total > 0 else math.nan
            t.add(label, paper, cpu_text, fixed(gpu_total, 3), times(ratio, capped), f"{evals:,}", *more)
        else:
            t.add(label, paper, cpu_text, f"{evals:,}", *more)
        rows.append((pop, cpu_total, gpu_total))
    report.table(t)
    report.notes([ctx.gpu_note(ALGORITHM),
                  "CPU times marked ≈ add up runs capped by time, extrapolated to the full generation "
                  "count from their measured rate; the speedup is then a ratio of rates (†)."
                  if any(c.capped for c, _ in results.values()) else ""])
    pops = [p for p, _, _ in rows]
    series = [Series("our CPU (numpy)", pops, [c for _, c, _ in rows])]
    if ctx.has_gpu:
        series.append(Series("our GPU", pops, [g for _, _, g in rows]))
    report.image(line_plot(report.plot_path("population_time"), "Suite time against population size",
                           "population size", "time over the suite (s)", series, logx=True, logy=True),
                 "time against population size")
    if ctx.has_gpu:
        series = [Series("ours", pops, [c / g if g > 0 else math.nan for _, c, g in rows]),
                  Series("paper at 16 (text: almost 4x)", [16], [4.0], {"linestyle": "none",
                                                                         "marker": "*", "markersize": 10})]
        report.image(line_plot(report.plot_path("population_speedup"), "Speedup against population size",
                               "population size", "speedup (x)", series, logx=True, logy=True,
                               hline=1.0), "speedup against population size")


def detail(ctx: Context, report: Report, size: dict, results) -> None:
    gens = size["generations"]
    for pop in size["detail"]:
        if pop not in size["populations"]:
            continue
        report.section(f"Per function, population {pop}",
                       "Best value found is shown to check that both engines solve the same problem "
                       "equally well (their random streams differ).")
        cols = ["Function", "CPU ms", "CPU best"]
        cols += ["GPU ms", "GPU best", "Speedup"] if ctx.has_gpu else []
        cols += baselines.columns(ctx, "ms")
        t = Table(cols)
        for name in SUITE:
            cpu, gpu = both = results[(pop, name)]
            cells = [f"`{name}`"]
            if cpu.ok:
                cells += [("≈ " if cpu.capped else "") + num(cpu.seconds_for(pop * (gens + 1)) * 1e3, 4),
                          num(cpu.best_f, 4) + (" (capped)" if cpu.capped else "")]
            else:
                cells += [t.missing(cpu.reason), "n/a"]
            if ctx.has_gpu:
                cells += ([num(gpu.seconds * 1e3, 4), num(gpu.best_f, 4)] if gpu.ok else
                          [t.missing(gpu.reason), "n/a"])
                cells.append(times(*speedup(cpu, gpu)))
            cells += baselines.cells(ctx, t, both.base, gpu, pop * (gens + 1), lambda x: num(x * 1e3, 4))
            t.add(*cells)
        report.table(t)


def suite_baseline_cells(ctx, t: Table, compared, evals: int) -> list[str]:
    """The summary's numba cells for one population: each baseline's time over the suite (its runs
    that ran, beside a GPU run that ran too), then the GPU's speedup over the same functions."""
    times_, ratios = [], []
    for engine in ctx.baselines:
        ok = [(c.base[engine], c.gpu) for c in compared
              if c.base[engine].ok and (c.gpu.ok or not ctx.has_gpu)]
        if not ok:
            reason = next((c.base[engine].reason for c in compared if not c.base[engine].ok), "not measured")
            times_.append(t.missing(reason))
            ratios.append("n/a")
            continue
        total = sum(b.seconds_for(evals) for b, _ in ok)
        capped = any(b.capped for b, _ in ok)
        fewer = f" ({len(ok)} of {len(compared)} functions)" if len(ok) < len(compared) else ""
        times_.append(("≈ " if capped else "") + fixed(total, 3) + fewer)
        gpu_total = sum(g.seconds for _, g in ok) if ctx.has_gpu else math.nan
        ratios.append(times(total / gpu_total if gpu_total > 0 else math.nan, capped))
    return times_ + (ratios if ctx.has_gpu else [])
