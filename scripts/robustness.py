"""The 10-D robustness table of issue 10: every algorithm variant at its default parameters (only the
budget given), uniform random search with the same budget, and scipy's differential_evolution and
dual_annealing where scipy is importable; median over seeds of the final error f_best - f*.

    python scripts/robustness.py [--evals 200000] [--seeds 10] [--dim 10] [--out docs/robustness.md]

Writes a Markdown table (with the command, the machine and the versions) to --out, or prints it.
"""
from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import solvers  # noqa: E402
from solvers.problems import get_problem  # noqa: E402

FUNCTIONS = ("rastrigin", "ackley", "rosenbrock", "griewank")
VARIANTS = (("pattern_search", {}), ("multidirectional_search", {}),
            ("simulated_annealing", {"variant": "async"}), ("simulated_annealing", {"variant": "sync"}),
            ("simulated_annealing", {"variant": "hybrid"}), ("particle_swarm", {"variant": "classic"}),
            ("particle_swarm", {"variant": "spso2011"}), ("differential_evolution", {}))
RANDOM_CHUNK = 10_000


def label(algorithm: str, params: dict) -> str:
    return algorithm + (f" {params['variant']}" if "variant" in params else "")


def ours(algorithm, params, name, dim, evals, seed) -> tuple[float, int]:
    r = solvers.run(algorithm, name, dim=dim, seed=seed, max_evals=evals, params=params)
    return r.best_f - r.f_min, r.evals


def random_search(name, dim, evals, seed) -> tuple[float, int]:
    problem = get_problem(name, dim)
    rng = np.random.default_rng(seed)
    best, done = np.inf, 0
    while done < evals:
        k = min(RANDOM_CHUNK, evals - done)
        best = min(best, float(problem.evaluate(rng.uniform(problem.lower, problem.upper, (k, dim))).min()))
        done += k
    return best - problem.f_min, done


def scipy_de(name, dim, evals, seed) -> tuple[float, int]:
    from scipy.optimize import differential_evolution  # noqa: PLC0415

    problem = get_problem(name, dim)
    popsize = 15  # scipy's default: 15 d individuals
    maxiter = max(1, evals // (popsize * dim) - 1)  # (maxiter + 1) generations of popsize * d
    r = differential_evolution(lambda x: float(problem.evaluate(x[None, :])[0]),
                               list(zip(problem.lower, problem.upper)), popsize=popsize,
                               maxiter=maxiter, tol=0, polish=False, seed=seed)
    return float(r.fun) - problem.f_min, int(r.nfev)


def scipy_da(name, dim, evals, seed) -> tuple[float, int]:
    from scipy.optimize import dual_annealing  # noqa: PLC0415

    problem = get_problem(name, dim)
    r = dual_annealing(lambda x: float(problem.evaluate(x[None, :])[0]),
                       list(zip(problem.lower, problem.upper)), maxfun=evals, maxiter=10**9, seed=seed)
    return float(r.fun) - problem.f_min, int(r.nfev)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--evals", type=int, default=200_000)
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--dim", type=int, default=10)
    ap.add_argument("--out", default=None)
    ap.add_argument("--no-scipy", action="store_true")
    args = ap.parse_args(argv)
    rows: list[tuple[str, list[float], int]] = []
    methods = [(label(a, p), lambda n, d, e, s, a=a, p=p: ours(a, p, n, d, e, s)) for a, p in VARIANTS]
    methods.append(("uniform random search", random_search))
    if not args.no_scipy:
        try:
            import scipy  # noqa: F401, PLC0415
            methods += [("scipy differential_evolution", scipy_de), ("scipy dual_annealing", scipy_da)]
        except ImportError:
            print("scipy not importable: its rows are left out", file=sys.stderr)
    started = time.time()
    for title, method in methods:
        medians, most = [], 0
        for name in FUNCTIONS:
            results = [method(name, args.dim, args.evals, seed) for seed in range(args.seeds)]
            medians.append(float(np.median([e for e, _ in results])))
            most = max(most, max(n for _, n in results))
        rows.append((title, medians, most))
        print(f"{title:30s} " + " ".join(f"{m:10.3g}" for m in medians) + f"  max evals {most}",
              file=sys.stderr, flush=True)
    lines = [f"# Robustness at default parameters ({args.dim}-D, {args.evals:,} evaluations)", "",
             f"Median over {args.seeds} seeds (0..{args.seeds - 1}) of the final error f_best - f*; "
             "our algorithms with only the budget given (every other parameter at its default, "
             "numpy engine, float64).", "",
             f"Command: `python scripts/robustness.py --evals {args.evals} --seeds {args.seeds} "
             f"--dim {args.dim}" + (f" --out {args.out}" if args.out else "") + "`  ",
             f"Machine: {platform.machine()}, {os.cpu_count()} logical CPUs (shared), "
             f"{platform.system()} {platform.release()}; Python {platform.python_version()}, "
             f"numpy {np.__version__}" + _scipy_version() + f"; {time.time() - started:.0f} s in all.",
             "", "| method | " + " | ".join(FUNCTIONS) + " | max evals used |",
             "| --- | " + " | ".join("---:" for _ in FUNCTIONS) + " | ---: |"]
    for title, medians, most in rows:
        lines.append(f"| {title} | " + " | ".join(f"{m:.3g}" for m in medians) + f" | {most:,} |")
    lines += ["", "scipy's differential_evolution: popsize 15 (x d), maxiter fitted to the budget, "
              "polish off (so that its L-BFGS-B does not pass the budget), tol 0. dual_annealing: "
              "maxfun = the budget (its local searches may pass it slightly: see 'max evals used')."]
    text = "\n".join(lines) + "\n"
    if args.out:
        Path(args.out).write_text(text)
    else:
        print(text)
    return 0


def _scipy_version() -> str:
    try:
        import scipy  # noqa: PLC0415
        return f", scipy {scipy.__version__}"
    except ImportError:
        return ""


if __name__ == "__main__":
    sys.exit(main())
