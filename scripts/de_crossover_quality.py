"""Experiment (GPU): DE's quality with its crossover decided on 16-bit halves (8 genes a Philox block,
float32 and float64: scripts/exchange_cost.py's variant "DE crossover halves", measured and not
kept, notes-gpu.md v33) against this tree's stream (24-bit uniforms in float32, 53-bit in float64, 4
and 2 genes a block), issue 14's rule for a generator change. For each setting: the final error (best f - f*) of the same seeds under both
streams, their medians and quartiles, the seeds each won, and a two-sided Mann-Whitney U test's p
(scripts/pso_coefficient_quality.py's): a stream that harmed the search would lose most seeds on
some setting, with a small p.

    python3 scripts/de_crossover_quality.py [--seeds 20] [--out FILE.md]
"""
from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path[:0] = [str(Path(__file__).resolve().parent.parent), str(Path(__file__).resolve().parent)]

import exchange_cost  # noqa: E402
import solvers  # noqa: E402
from pso_coefficient_quality import row  # noqa: E402
from solvers.problems import get_problem  # noqa: E402

# (function, dimensions, individuals a population, populations, evaluations, dtype, Cr): the product's
# defaults (Cr 0.9) and sizes that run each DE kernel (de_generations: one population of 64 or
# 1,024; de_generations_wide: 512 populations of 256 and one of 131,072), a dimension under 25
# (a chunk's blocks under a branch each), one of two chunks (40), a small Cr (where a decision's
# resolution weighs most), and float64 (whose crossover took 53-bit uniforms before)
SETTINGS = [
    ("sphere", 30, 64, 1, 200_000, "float32", 0.9), ("rastrigin", 10, 64, 1, 200_000, "float32", 0.9),
    ("rosenbrock", 10, 64, 1, 400_000, "float32", 0.9), ("ackley", 30, 1024, 1, 2_000_000, "float32", 0.9),
    ("griewank", 40, 1024, 1, 2_000_000, "float32", 0.9), ("schwefel", 7, 64, 4, 400_000, "float32", 0.1),
    ("rastrigin", 30, 1024, 1, 2_000_000, "float32", 0.2), ("rastrigin", 30, 256, 512, 256 * 512 * 200, "float32", 0.9),
    ("rastrigin", 30, 131072, 1, 131072 * 200, "float32", 0.9), ("rastrigin", 10, 64, 1, 200_000, "float64", 0.9),
    ("rosenbrock", 40, 256, 1, 1_000_000, "float64", 0.5),
]


def errors(variant: str, function: str, dim: int, walkers: int, populations: int, evals: int, dtype: str,
           Cr: float, seeds: int) -> np.ndarray:
    exchange_cost.use(variant)
    f_min = get_problem(function, dim).f_min
    out = []
    for seed in range(seeds):
        r = solvers.run("differential_evolution", function, engine="cuda", dim=dim, seed=seed, max_evals=evals,
                        dtype=dtype, params={"walkers": walkers, "populations": populations, "Cr": Cr})
        out.append(float(r.best_f) - float(f_min))
    return np.array(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    import cupy  # noqa: PLC0415

    device = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    opening = (f"cuda engine, {device}; {args.seeds} seeds (0..{args.seeds - 1}) a row; python "
               f"{platform.python_version()}, numpy {np.__version__}, cupy {cupy.__version__}.")
    lines = [f"DE/rand/1/bin, F 0.5, {opening} "
             "Final error best f - f*; before: the crossover on 24-bit (float32) or 53-bit (float64) "
             "uniforms; halves: on 16-bit halves, 8 genes a Philox block.",
             "", "| function | d | individuals x populations | evaluations | dtype | Cr | before median [q1, q3] "
             "| halves median [q1, q3] | seeds won (before / halves / tie) | Mann-Whitney p | seconds |",
             "| --- " * 11 + "|"]
    print("\n".join(lines), flush=True)
    for function, dim, walkers, populations, evals, dtype, Cr in SETTINGS:
        start = time.perf_counter()
        old = errors("DE", function, dim, walkers, populations, evals, dtype, Cr, args.seeds)
        new = errors("DE crossover halves", function, dim, walkers, populations, evals, dtype, Cr, args.seeds)
        lines.append(row([function, dim, f"{walkers} x {populations}", f"{evals:,}", dtype, Cr], old, new, start))
        print(lines[-1], flush=True)
    if args.out:
        args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
