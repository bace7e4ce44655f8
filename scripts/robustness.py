"""The 10-D robustness table of issue 10: every algorithm variant at its default parameters (only the
budget given), uniform random search with the same budget, and scipy's differential_evolution and
dual_annealing where scipy is importable; median over seeds of the final error f_best - f*.

    python scripts/robustness.py [--evals 200000] [--seeds 10] [--dim 10] [--jobs N]
                                 [--only ours|random|scipy ...] [--out docs/robustness.md]

--jobs runs the (method, function, seed) cells in N processes (each cell is one serial run, so the
numbers do not depend on N); --only keeps some groups of rows (e.g. the scipy rows run where scipy is
installed, ours on a many-core host).

Writes a Markdown table (with the command, the machine and the versions) to --out, or prints it.
"""
from __future__ import annotations

import argparse
import concurrent.futures
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


GROUPS = ("ours", "random", "scipy")


def methods_of(groups) -> list[tuple[str, str]]:
    """(row title, method key) of the kept groups of rows, in table order."""
    out = []
    if "ours" in groups:
        out += [(label(a, p), f"ours:{i}") for i, (a, p) in enumerate(VARIANTS)]
    if "random" in groups:
        out.append(("uniform random search", "random"))
    if "scipy" in groups:
        out += [("scipy differential_evolution", "scipy_de"), ("scipy dual_annealing", "scipy_da")]
    return out


def cell(key: str, name: str, dim: int, evals: int, seed: int) -> tuple[float, int]:
    """One run of one method (a top-level function: worker processes receive it by name)."""
    if key.startswith("ours:"):
        algorithm, params = VARIANTS[int(key[5:])]
        return ours(algorithm, params, name, dim, evals, seed)
    return {"random": random_search, "scipy_de": scipy_de, "scipy_da": scipy_da}[key](name, dim, evals, seed)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--evals", type=int, default=200_000)
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--dim", type=int, default=10)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--only", nargs="+", choices=GROUPS, default=list(GROUPS))
    ap.add_argument("--out", default=None)
    ap.add_argument("--no-scipy", action="store_true")
    args = ap.parse_args(argv)
    groups = [g for g in args.only if not (g == "scipy" and args.no_scipy)]
    if "scipy" in groups:
        try:
            import scipy  # noqa: F401, PLC0415
        except ImportError:
            print("scipy not importable: its rows are left out", file=sys.stderr)
            groups.remove("scipy")
    methods = methods_of(groups)
    started = time.time()
    jobs = [(key, name, seed) for _, key in methods for name in FUNCTIONS for seed in range(args.seeds)]
    with concurrent.futures.ProcessPoolExecutor(max(1, args.jobs)) as pool:
        futures = {job: pool.submit(cell, job[0], job[1], args.dim, args.evals, job[2]) for job in jobs}
        rows: list[tuple[str, list[float], int]] = []
        for title, key in methods:
            medians, most = [], 0
            for name in FUNCTIONS:
                results = [futures[(key, name, seed)].result() for seed in range(args.seeds)]
                medians.append(float(np.median([e for e, _ in results])))
                most = max(most, max(n for _, n in results))
            rows.append((title, medians, most))
            print(f"{title:30s} " + " ".join(f"{m:10.3g}" for m in medians) + f"  max evals {most}",
                  file=sys.stderr, flush=True)
    command = (f"python scripts/robustness.py --evals {args.evals} --seeds {args.seeds} --dim {args.dim}"
               + (f" --jobs {args.jobs}" if args.jobs > 1 else "")
               + (f" --only {' '.join(args.only)}" if list(args.only) != list(GROUPS) else "")
               + (f" --out {args.out}" if args.out else ""))
    lines = [f"# Robustness at default parameters ({args.dim}-D, {args.evals:,} evaluations)", "",
             f"Median over {args.seeds} seeds (0..{args.seeds - 1}) of the final error f_best - f*; "
             "our algorithms with only the budget given (every other parameter at its default, "
             "numpy engine, float64).", "",
             f"Command: `{command}`  ",
             f"Machine: {platform.machine()}, {_cpu_model()}, {os.cpu_count()} logical CPUs, "
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


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "CPU model unknown"


def _scipy_version() -> str:
    try:
        import scipy  # noqa: PLC0415
        return f", scipy {scipy.__version__}"
    except ImportError:
        return ""


if __name__ == "__main__":
    sys.exit(main())
