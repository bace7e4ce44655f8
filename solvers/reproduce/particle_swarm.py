"""Seed 003, "Implementation of Global Minimum Search using Particle Swarm Optimisation in CUDA" (MMI713).

Experiments: its three tables, which vary one setting at a time from the base (1 run, 32 particles,
10 dimensions) on Sphere and Schaffer F7: the number of runs (independent swarms), of particles and
of dimensions; best fitness and runtime on CPU and GPU. We add larger settings ("beyond") where the
GPU has room. The seed implements SPSO-2011 with an adaptive random topology, so we run the
``spso2011`` variant.
"""
from __future__ import annotations

import math

from . import baselines
from .context import Context, compare, speedup
from .plots import Series, line_plot
from .report import PaperInfo, Report, Table, fixed, num, times

PAPER = PaperInfo(
    id="003", name="particle_swarm",
    title="Global Minimum Search using Particle Swarm Optimisation in CUDA",
    authors="MMI713 Applied Parallel Programming on GPU course project, 2021",
    seed_file="003_1ab3e903c906b2c6.txt",
    paper_gpu="NVIDIA GeForce GTX 960M, 8 GB (compute capability 5.0)",
    paper_cpu="Intel Core i7-6700HQ 2.6 GHz (laptop), sequential",
    paper_software="CUDA 11.2",
    paper_precision="not stated",
    default_dtype="float32",
    allowance_s=70.0,  # 50 s before the numba columns
)
ALGORITHM = "particle_swarm"
FUNCTIONS = (("Sphere", "sphere"), ("SchafferF7", "schaffer_f7"))
BASE = dict(runs=1, particles=32, dims=10)

# The three tables: setting -> function -> (CPU best fitness, CPU ms, GPU best fitness, GPU ms)
RUNS = {1: {"Sphere": (3.21, 224, 0.90, 235), "SchafferF7": (2.87, 264, 2.80, 234)},
        50: {"Sphere": (0.53, 12690, 0.45, 518), "SchafferF7": (0.32, 12246, 0.52, 523)}}
PARTICLES = {32: {"Sphere": (3.21, 224, 0.90, 235), "SchafferF7": (2.87, 264, 2.80, 234)},
             64: {"Sphere": (0.92, 440, 0.27, 255), "SchafferF7": (1.55, 583, 2.04, 255)}}
DIMS = {10: {"Sphere": (3.21, 224, 0.90, 235), "SchafferF7": (2.87, 264, 2.80, 234)},
        20: {"Sphere": (8.08, 522, 7.76, 451), "SchafferF7": (9.76, 583, 7.32, 455)},
        50: {"Sphere": (16.49, 1322, 16.57, 1221), "SchafferF7": (16.37, 1339, 12.62, 1218)}}

FULL = dict(iterations=1000, runs=(1, 50, 1000), particles=(32, 64, 1024), dims=(10, 20, 50, 100),
            cpu_cap_s=2.0)
QUICK = dict(iterations=50, runs=(1, 50), particles=(32, 64), dims=(10, 20), cpu_cap_s=0.5)


def run(ctx: Context, report: Report) -> None:
    """Run this paper's experiments (quick or full sizes) and fill `report`."""
    size = QUICK if ctx.quick else FULL
    report.text(
        f"Our settings: SPSO-2011 (`variant=spso2011`, K = 3 informants, Clerc's w and c), "
        f"{size['iterations']} iterations per run (the paper does not give its iteration count), "
        f"each function on its own box from our registry. 'Runs' are independent swarms advanced "
        f"together (the paper's grid of runs); best fitness is the best over all of them.")
    sweep(ctx, report, size, "runs", "Table 1: number of runs (independent swarms)", "Runs", RUNS,
          size["runs"])
    sweep(ctx, report, size, "particles", "Table 2: number of particles", "Particles", PARTICLES,
          size["particles"])
    sweep(ctx, report, size, "dims", "Table 3: number of dimensions", "Dimensions", DIMS, size["dims"])
    report.difference(
        "Hardware: a 2015 laptop GPU (GTX 960M) against a sequential CPU code on its i7; we compare "
        "our GPU engine with our numpy engine, which is vectorised over particles (one core).")
    report.difference(baselines.difference_text(ctx))
    report.difference(
        "Iterations and boxes: the paper gives neither its iteration count nor its boxes; its best "
        "fitness values (3.21 on the 10-D sphere) suggest a short run or a wide box. We run "
        f"{size['iterations']} iterations on our registry's boxes, so our best values are not "
        "comparable with the paper's; the runtimes' trends are.")
    report.difference(
        "Algorithm: as the seed does on the GPU, all particles of a swarm move at once (synchronous "
        "update) and links are redrawn after an iteration in which the swarm's best did not improve; "
        "positions leaving the box are clamped and their velocity reversed and halved (SPSO-2011's "
        "confinement). See solvers/algorithms/particle_swarm.py.")


def sweep(ctx: Context, report: Report, size: dict, key: str, title: str, first: str, paper: dict,
          values) -> None:
    iters = size["iterations"]
    ctx.log(f"  {title}")
    results, base = [], {}
    for value in values:
        setting = dict(BASE, **{key: value})
        for paper_name, name in FUNCTIONS:
            params = {"variant": "spso2011", "walkers": setting["particles"], "swarms": setting["runs"]}
            cpu, gpu = both = compare(ctx, ALGORITHM, name, setting["dims"], params, dtype=report.dtype,
                                      max_iters=iters, cpu_cap_s=size["cpu_cap_s"],
                                      label=f"{first.lower()} {value}, {name}")
            evals = setting["particles"] * setting["runs"] * (iters + 1)
            results.append((value, paper_name, name, cpu, gpu, evals))
            base[(value, name)] = both.base

    report.section(title, "Paper: its table of the same name; best fitness and runtime in ms. "
                          "Rows marked — in the paper columns go beyond the paper's settings.")
    cols = [first, "Function", "Paper CPU best", "Paper CPU ms", "Paper GPU best", "Paper GPU ms",
            "CPU best", "CPU ms"]
    cols += ["GPU best", "GPU ms", "Speedup"] if ctx.has_gpu else []
    cols += baselines.columns(ctx, "ms")
    t = Table(cols)
    for value, paper_name, name, cpu, gpu, evals in results:
        p = paper.get(value, {}).get(paper_name)
        cells = [f"{value:,}", f"{paper_name} (`{name}`)"]
        cells += [fixed(p[0], 2), f"{p[1]:,}", fixed(p[2], 2), f"{p[3]:,}"] if p else ["—"] * 4
        if cpu.ok:
            cpu_ms = ("≈ " if cpu.capped else "") + num(cpu.seconds_for(evals) * 1e3, 4)
            cells += [num(cpu.best_f, 3) + (" (capped)" if cpu.capped else ""), cpu_ms]
        else:
            cells += [t.missing(cpu.reason), "n/a"]
        if ctx.has_gpu:
            cells += ([num(gpu.best_f, 3), num(gpu.seconds * 1e3, 4)] if gpu.ok
                      else [t.missing(gpu.reason), "n/a"])
            cells.append(times(*speedup(cpu, gpu)))
        cells += baselines.cells(ctx, t, base[(value, name)], gpu, evals, lambda x: num(x * 1e3, 4))
        t.add(*cells)
    report.table(t)
    report.notes([ctx.gpu_note(ALGORITHM)])

    series = []
    for paper_name, _ in FUNCTIONS:
        xs = [v for v in values if paper_name in paper.get(v, {})]
        series.append(Series(f"paper CPU, {paper_name}", xs, [paper[v][paper_name][1] for v in xs],
                             {"linestyle": "--"}))
        if ctx.has_gpu:
            series.append(Series(f"paper GPU, {paper_name}", xs, [paper[v][paper_name][3] for v in xs],
                                 {"linestyle": "--"}))
        mine = [(v, c, g, e) for v, pn, _, c, g, e in results if pn == paper_name]
        series.append(Series(f"our CPU, {paper_name}", [m[0] for m in mine],
                             [c.seconds_for(e) * 1e3 if c.ok else math.nan for _, c, _, e in mine]))
        if ctx.has_gpu:
            series.append(Series(f"our GPU, {paper_name}", [m[0] for m in mine],
                                 [g.seconds * 1e3 if g.ok else math.nan for _, _, g, _ in mine]))
    report.image(line_plot(report.plot_path(f"{key}_runtime"), f"{title}: runtime", first.lower(),
                           "runtime (ms)", series, logx=True, logy=True), f"{title} runtime")
