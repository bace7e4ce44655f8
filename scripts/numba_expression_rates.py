"""Typed expression vs built-in function on the numba engine: evaluations per second, same run.

    python scripts/numba_expression_rates.py [--dim 30] [--walkers 16384] [--rounds 7] [--dtype float64]

Rastrigin typed as an expression and the built-in rastrigin, same parameters and seed, for pattern
search and particle swarm (classic and SPSO-2011, 64 swarms) on ``numba`` (every core) and
``numba1``. The two solvers step in alternation (one chunk of iterations each per round, after a
compiling warm-up), so a load change on a shared machine hits both alike; the table keeps each one's
best and median round, and the ratio typed / built-in of each.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from solvers.engines import get_engine  # noqa: E402
from solvers.numba import cpu_model  # noqa: E402
from solvers.params import make_params  # noqa: E402
from solvers.problems import get_problem  # noqa: E402
from solvers.rng import ArrayRNG  # noqa: E402

TYPED = "expr: 10*n + sum(x[i]**2 - 10*cos(2*pi*x[i]))"
CASES = (  # (label, algorithm, params, iterations per round)
    ("pattern_search", "pattern_search", {}, 4),
    ("particle_swarm classic", "particle_swarm", {"variant": "classic", "swarms": 64}, 40),
    ("particle_swarm spso2011", "particle_swarm", {"variant": "spso2011", "swarms": 64}, 40),
)


def _rates(engine, algorithm, params, problems, dtype, iterations, rounds):
    solvers = []
    for problem in problems:
        algo = engine.build(algorithm, problem, make_params(engine.algorithm_class(algorithm).Params, params),
                            dtype)
        state = algo.init(ArrayRNG(np, 0))
        algo.step(state, 1)  # compiles (or loads from the disk cache)
        solvers.append((algo, state))
    samples = [[] for _ in problems]
    for _ in range(rounds):
        for k, (algo, state) in enumerate(solvers):
            evals, t0 = state.evals, time.perf_counter()
            algo.step(state, iterations)
            samples[k].append((state.evals - evals) / (time.perf_counter() - t0))
    return [(max(s), statistics.median(s)) for s in samples]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dim", type=int, default=30)
    ap.add_argument("--walkers", type=int, default=16384, help="walkers in all (swarms x per swarm)")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--dtype", default="float64", choices=("float64", "float32"))
    ap.add_argument("--engines", default="numba,numba1")
    args = ap.parse_args()
    builtin = get_problem("rastrigin", args.dim)
    typed = get_problem(TYPED, args.dim, bounds=(-5.12, 5.12))
    print(f"{cpu_model()}; rastrigin {args.dim}-D, {args.walkers:,} walkers, {args.dtype}, "
          f"{args.rounds} alternating rounds (best / median evals/s)")
    print("| algorithm | engine | built-in best | typed best | typed/built-in (best) | "
          "built-in median | typed median | typed/built-in (median) |")
    print("|---|---|---|---|---|---|---|---|")
    for label, algorithm, params, iterations in CASES:
        swarms = params.get("swarms", 1)
        p = {**params, "walkers": args.walkers // swarms}
        for name in args.engines.split(","):
            engine = get_engine(name)
            (b_best, b_med), (t_best, t_med) = _rates(engine, algorithm, p, (builtin, typed), args.dtype,
                                                      iterations, args.rounds)
            print(f"| {label} | {engine.baseline_label()} | {b_best / 1e6:.2f} M | {t_best / 1e6:.2f} M | "
                  f"{t_best / b_best:.0%} | {b_med / 1e6:.2f} M | {t_med / 1e6:.2f} M | {t_med / b_med:.0%} |",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
