"""Experiment (GPU): SPSO-2011's quality with this tree's normals and sums (the angle by sin(pi x), cos(pi x)
of x = 2 u2; |G - x|^2 and |direction|^2 summed a Philox block at a time, the latter from the pairs'
radii) against the stream before (cos and sin of the rounded angle 2 pi u2, sums coordinate by
coordinate: the kernel file of another tree with the normals before, scripts/exchange_cost.py's "spso
start"), issue 14's rule for a generator change. For each function, dimension and swarm: the final
error (best f - f*) of the same seeds under both, their medians and quartiles, the seeds each won,
and a two-sided Mann-Whitney U test's p (scripts/pso_coefficient_quality.py's).

    EXCHANGE_BASE=baseline python3 scripts/spso_normals_quality.py [--seeds 20] [--out FILE.md]
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path[:0] = [str(Path(__file__).resolve().parent.parent), str(Path(__file__).resolve().parent)]

import exchange_cost  # noqa: E402
import solvers  # noqa: E402
from pso_coefficient_quality import row, setup  # noqa: E402
from solvers.problems import get_problem  # noqa: E402

# (function, dimensions, particles a swarm, swarms, evaluations, dtype): the product's defaults and
# sizes that run each SPSO kernel (small swarms from P's columns, lanes, a thread per particle with
# and without G - x stored, the redraw kernel), and double
SETTINGS = [
    ("sphere", 30, 40, 1, 200_000, "float32"), ("rastrigin", 10, 40, 1, 200_000, "float32"),
    ("rosenbrock", 10, 40, 1, 200_000, "float32"), ("ackley", 30, 40, 50, 2_000_000, "float32"),
    ("griewank", 30, 1024, 1, 2_000_000, "float32"), ("schwefel", 10, 64, 4, 400_000, "float32"),
    ("rastrigin", 30, 16384, 1, 16384 * 300, "float32"), ("rastrigin", 30, 131072, 1, 131072 * 200, "float32"),
    ("rastrigin", 10, 40, 1, 200_000, "float64"),
]


def errors(variant: str, function: str, dim: int, walkers: int, swarms: int, evals: int, dtype: str,
           seeds: int) -> np.ndarray:
    exchange_cost.use(variant)
    f_min = get_problem(function, dim).f_min
    out = []
    for seed in range(seeds):
        r = solvers.run("particle_swarm", function, engine="cuda", dim=dim, seed=seed, max_evals=evals,
                        dtype=dtype, params={"walkers": walkers, "swarms": swarms, "variant": "spso2011"})
        out.append(float(r.best_f) - float(f_min))
    return np.array(out)


def main() -> None:
    args, opening = setup(__doc__, "T pso_normals(", "the blocked sums (97dd3d9)")
    lines = [f"SPSO-2011, {opening} "
             "Final error best f - f*; before: cos and sin of the rounded angle, sums by coordinate; "
             "now: sincospi of 2 u2, sums by Philox block.",
             "", "| function | d | particles x swarms | evaluations | dtype | before median [q1, q3] | now median [q1, q3] "
             "| seeds won (before / now / tie) | Mann-Whitney p | seconds |", "| --- " * 10 + "|"]
    print("\n".join(lines), flush=True)
    for function, dim, walkers, swarms, evals, dtype in SETTINGS:
        start = time.perf_counter()
        old = errors("spso start", function, dim, walkers, swarms, evals, dtype, args.seeds)
        new = errors("spso tree", function, dim, walkers, swarms, evals, dtype, args.seeds)
        lines.append(row([function, dim, f"{walkers} x {swarms}", f"{evals:,}", dtype], old, new, start))
        print(lines[-1], flush=True)
    if args.out:
        args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
