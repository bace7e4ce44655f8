"""Simulated annealing on every built-in function at its default dimension: how many seeds find the
global minimum, by variant (it replaced scripts/sa_shekel_seeds.py, the Shekel functions' alone:
`--functions shekel_5,shekel_7,shekel_10 --variants default,sync,async` gives that script's table).

    python scripts/sa_default_seeds.py [--seeds 20] [--max-evals N | --max-iters N] [--jobs 2]
                                       [--functions all | name,name,...]
                                       [--variants default,sync,async,hybrid,hybrid/async]
                                       [--set name=value,...] [--tolerance 1e-2]

"default" runs with no parameter given (the function's own defaults, then the algorithm's: what
`python main.py run -a simulated_annealing -f NAME` and the window run); "sync", "async" and
"hybrid" give the variant, "hybrid/async" the hybrid with hybrid_base=async. --set adds parameters
to every run but "default" (an experiment). Without a budget each run gets the CLI's and the
window's default (100 iterations; 16,384 chains). A seed counts when best f - f* <= 1e-2 (the
global basin, as tests/test_budget_defaults.py); functions without a
known f* (quartic_noisy) are left out. Every run is a serial numpy run, so the counts do not depend
on --jobs. Prints a Markdown table, a row per function (docs/benchmarks/sa-default-seeds.md).
"""
from __future__ import annotations

import argparse
import concurrent.futures
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import solvers  # noqa: E402
from solvers.problems import problem_definitions  # noqa: E402

TOLERANCE = 1e-2


def variant_params(variant: str) -> dict:
    if variant == "default":
        return {}
    if "/" in variant:
        name, base = variant.split("/")
        return {"variant": name, "hybrid_base": base}
    return {"variant": variant}


def run(name: str, variant: str, seed: int, budget: dict, extra: dict) -> tuple[float, str]:
    params = variant_params(variant)
    if params:
        params = {**params, **extra}
    r = solvers.run("simulated_annealing", name, seed=seed, params=params, **budget)
    ran = r.params["variant"] + ("/" + r.params["hybrid_base"] if r.params["variant"] == "hybrid" else "")
    return r.best_f - r.f_min, ran


def parse_set(text: str) -> dict:
    out = {}
    for item in filter(None, text.split(",")):
        key, value = item.split("=")
        for cast in (int, float):
            try:
                value = cast(value)
                break
            except ValueError:
                pass
        out[key] = value
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument("--max-evals", type=float, default=None)
    budget.add_argument("--max-iters", type=float, default=None)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--functions", default="all")
    parser.add_argument("--variants", default="default,sync,async,hybrid,hybrid/async")
    parser.add_argument("--set", default="", help="extra parameters for every run but default")
    parser.add_argument("--tolerance", type=float, default=TOLERANCE, help="best f - f* that counts")
    args = parser.parse_args(argv)
    budget = {}
    if args.max_evals is not None:
        budget["max_evals"] = int(args.max_evals)
    if args.max_iters is not None:
        budget["max_iters"] = int(args.max_iters)
    extra = parse_set(args.set)
    if args.functions == "all":
        functions = [d.name for d in problem_definitions() if d.f_min(d.default_dim) is not None]
    else:
        functions = args.functions.split(",")
    variants = args.variants.split(",")
    cells = [(name, variant, seed) for variant in variants for name in functions for seed in range(args.seeds)]
    started = time.perf_counter()
    with concurrent.futures.ProcessPoolExecutor(args.jobs) as pool:
        out = list(pool.map(run, *zip(*cells), [budget] * len(cells), [extra] * len(cells), chunksize=4))
    results = dict(zip(cells, out))
    said = ", ".join(f"{k} {v:,}" for k, v in budget.items()) or "the default (100 iterations)"
    print(f"Seeds 0..{args.seeds - 1}, budget {said}{', ' + args.set if args.set else ''}: "
          f"runs within {args.tolerance:g} of f* ({time.perf_counter() - started:.0f} s)\n")
    print("| function | dim | " + " | ".join(variants) + " |")
    print("| --- | ---: |" + " ---: |" * len(variants))
    dims = {d.name: d.default_dim for d in problem_definitions()}
    for name in functions:
        row = []
        for variant in variants:
            errors = [results[(name, variant, s)][0] for s in range(args.seeds)]
            failed = [s for s, e in enumerate(errors) if not e <= args.tolerance]
            cell = f"{args.seeds - len(failed)}/{args.seeds}"
            if variant == "default":
                ran = sorted({results[(name, variant, s)][1] for s in range(args.seeds)})
                cell += f" ({'/'.join(ran)})" if ran != ["sync"] else ""
            if failed:
                cell += f" (median {np.median(errors):.2g})"
            row.append(cell)
        print(f"| {name} | {dims.get(name, '')} | " + " | ".join(row) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
