#!/usr/bin/env python3
"""The tuning targets of issue 12, measured in one process (run on the GPU machine).

For each algorithm: the grid (16 x 16 settings x 8 seeds by default, rastrigin 30-D, float32,
2,000 iterations per run) as ``solvers.tune`` runs it on each engine given (cupy: one batched run
of the array code with per-group parameters; cuda: one run per (setting, seed), the kernels take
no per-group parameters yet), and the same runs one after another through ``solvers.run`` on
cuda (``--serial-sample K``: time K of them and scale to the whole grid, said in the output).
Rates are evaluations per second; ratios are taken within this run.

    python3 scripts/tune_bench.py --out tune-bench.md [--algorithms particle_swarm,...]
        [--points 16] [--seeds 8] [--iterations 2000] [--engines cupy,cuda] [--serial-sample 64]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import solvers  # noqa: E402
from solvers.tune import prepare  # noqa: E402

# algorithm -> (axes with {n} for the points per axis, fixed parameters)
GRIDS = {
    "particle_swarm": (["omega=0.2:1.0:{n}", "phi_g=0.5:2.5:{n}"], {"variant": "classic", "walkers": 40}),
    "differential_evolution": (["F=0.2:1.0:{n}", "Cr=0.1:1.0:{n}"], {"walkers": 40}),
    "simulated_annealing": (["alpha=0.8:0.99:{n}", "chain_length=10:200:{n}"],
                            {"variant": "sync", "walkers": 40}),
    "pattern_search": (["delta0=0.01:0.3:{n}:log", "tol_halvings=4:24:{n}"], {"walkers": 40}),
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--algorithms", default=",".join(GRIDS))
    ap.add_argument("--engines", default="cupy,cuda")
    ap.add_argument("--function", default="rastrigin")
    ap.add_argument("--dim", type=int, default=30)
    ap.add_argument("--points", type=int, default=16)
    ap.add_argument("--seeds", type=int, default=8)
    ap.add_argument("--iterations", type=int, default=2000)
    ap.add_argument("--dtype", default="float32")
    ap.add_argument("--serial-sample", type=int, default=64,
                    help="runs timed one after another through solvers.run on cuda (0: none)")
    ap.add_argument("--serial-engine", default="cuda", help="engine of the one-after-another runs")
    ap.add_argument("--out", default=None, help="also write the table (Markdown) here")
    args = ap.parse_args()
    lines = [f"# Tuning grids: {args.points} x {args.points} settings x {args.seeds} seeds, "
             f"{args.function} {args.dim}-D, {args.dtype}, {args.iterations} iterations per run", "",
             "| algorithm | engine | path | runs | seconds | evals/s | vs one after another |",
             "|---|---|---|---|---|---|---|"]
    for name in args.algorithms.split(","):
        axes, fixed = GRIDS[name]
        axes = [a.format(n=args.points) for a in axes]
        serial_rate = None
        if args.serial_sample > 0:
            tuning = prepare(name, args.function, axes, seeds=args.seeds, dim=args.dim, engine=args.serial_engine,
                             max_iters=args.iterations, params=fixed, dtype=args.dtype)
            pairs = tuning.table.grid.pairs()[:: max(1, tuning.table.grid.groups // args.serial_sample)]
            solvers.run(name, args.function, args.serial_engine, dim=args.dim, seed=0, max_iters=5,
                        params={**fixed, **pairs[0][1]}, dtype=args.dtype)  # compile outside the clock
            evals, t0 = 0, time.perf_counter()
            for _, setting, seed in pairs:
                result = solvers.run(name, args.function, args.serial_engine, dim=args.dim, seed=seed,
                                     max_iters=args.iterations, params={**fixed, **setting},
                                     dtype=args.dtype)
                evals += result.evals
            seconds = time.perf_counter() - t0
            serial_rate = evals / seconds
            scaled = seconds * tuning.table.grid.groups / len(pairs)
            lines.append(f"| {name} | {args.serial_engine}, solvers.run one after another | {len(pairs)} of "
                         f"{tuning.table.grid.groups} runs timed, scaled | {tuning.table.grid.groups} | "
                         f"{scaled:.2f} (scaled) | {serial_rate:.4g} | 1 |")
            print(lines[-1], flush=True)
        for engine in args.engines.split(","):
            tuning = prepare(name, args.function, axes, seeds=args.seeds, dim=args.dim, engine=engine,
                             max_iters=args.iterations, params=fixed, dtype=args.dtype)
            table = tuning.run()
            evals = sum(r.evals for r in table.rows)
            rate = evals / table.seconds
            ratio = f"{rate / serial_rate:.3g}" if serial_rate else "-"
            path = "batched" if table.batched else "one run per (setting, seed)"
            lines.append(f"| {name} | {engine} | {path} | {len(table.rows)} | {table.seconds:.2f} | "
                         f"{rate:.4g} | {ratio} |")
            print(lines[-1], flush=True)
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        Path(args.out).write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
