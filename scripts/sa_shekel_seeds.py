"""Simulated annealing on the Shekel functions: how many seeds find the global minimum, by variant.

    python scripts/sa_shekel_seeds.py [--seeds 20] [--max-evals N | --max-iters N] [--jobs 2]
                                      [--functions shekel_5,shekel_7,shekel_10]
                                      [--variants default,sync,async]

"default" runs with no parameter given (the function's own defaults, then the algorithm's: what
`python main.py run -a simulated_annealing -f shekel_5` runs); "sync" and "async" give the variant.
Without a budget each run gets the CLI's and the window's default (100 iterations; 16,384 chains).
A seed counts when best f - f* <= 1e-2 (the global basin, as tests/test_budget_defaults.py), and
every run is a serial numpy run, so the counts do not depend on --jobs.
Prints a Markdown table (docs/benchmarks/sa-sync-shekel.md).
"""
from __future__ import annotations

import argparse
import concurrent.futures
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import solvers  # noqa: E402

TOLERANCE = 1e-2


def run(name: str, variant: str, seed: int, budget: dict) -> tuple[float, str]:
    params = {} if variant == "default" else {"variant": variant}
    r = solvers.run("simulated_annealing", name, seed=seed, params=params, **budget)
    return r.best_f - r.f_min, r.params["variant"]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument("--max-evals", type=float, default=None)
    budget.add_argument("--max-iters", type=float, default=None)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--functions", default="shekel_5,shekel_7,shekel_10")
    parser.add_argument("--variants", default="default,sync,async")
    args = parser.parse_args(argv)
    budget = {}
    if args.max_evals is not None:
        budget["max_evals"] = int(args.max_evals)
    if args.max_iters is not None:
        budget["max_iters"] = int(args.max_iters)
    functions, variants = args.functions.split(","), args.variants.split(",")
    cells = [(name, variant, seed) for variant in variants for name in functions for seed in range(args.seeds)]
    with concurrent.futures.ProcessPoolExecutor(args.jobs) as pool:
        out = list(pool.map(run, *zip(*cells), [budget] * len(cells)))
    results = dict(zip(cells, out))
    said = ", ".join(f"{k} {v:,}" for k, v in budget.items()) or "the default (100 iterations)"
    print(f"Seeds 0..{args.seeds - 1}, budget {said}: runs within {TOLERANCE:g} of f*\n")
    print("| variant | " + " | ".join(functions) + " |")
    print("| --- |" + " ---: |" * len(functions))
    for variant in variants:
        row = []
        for name in functions:
            errors = [results[(name, variant, s)][0] for s in range(args.seeds)]
            ran = sorted({results[(name, variant, s)][1] for s in range(args.seeds)})
            failed = [s for s, e in enumerate(errors) if not e <= TOLERANCE]
            cell = f"{args.seeds - len(failed)}/{args.seeds}"
            if variant == "default":
                cell += f" ({'/'.join(ran)})"
            if 0 < len(failed) <= 5:
                cell += " (missed: " + ", ".join(map(str, failed)) + ")"
            row.append(cell)
        print(f"| {variant} | " + " | ".join(row) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
