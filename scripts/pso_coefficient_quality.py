"""Experiment (GPU): classic PSO's quality with r_p and r_g from the 16-bit halves of one Philox word
(float32, this tree's kernels) against the stream before (two 24-bit words a coordinate: the kernel
file of another tree, scripts/exchange_cost.py's "pso start kernel" with EXCHANGE_BASE holding it),
issue 14's rule for a generator change. For each function, dimension and swarm: the final error
(best f - f*) of the same seeds under both streams, their medians and quartiles, how many seeds each
stream won, and a two-sided Mann-Whitney U test's p (normal approximation, ties averaged): a stream
that harmed the search would lose most seeds on some function, with a small p.

    EXCHANGE_BASE=baseline python3 scripts/pso_coefficient_quality.py [--seeds 20] [--out FILE.md]
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
from solvers.problems import get_problem  # noqa: E402

# (function, dimensions, particles a swarm, swarms, evaluations): the product's defaults and sizes
# that run each classic kernel (a thread per particle, lanes, packed swarms, the v warps)
SETTINGS = [
    ("sphere", 30, 40, 1, 200_000), ("rastrigin", 10, 40, 1, 200_000), ("rastrigin", 30, 1024, 1, 2_000_000),
    ("rosenbrock", 10, 40, 1, 200_000), ("ackley", 30, 40, 50, 2_000_000), ("griewank", 30, 1024, 1, 2_000_000),
    ("schwefel", 10, 64, 4, 400_000), ("rastrigin", 30, 131072, 1, 131072 * 300),
]


def errors(variant: str, function: str, dim: int, walkers: int, swarms: int, evals: int, seeds: int) -> np.ndarray:
    exchange_cost.use(variant)
    f_min = get_problem(function, dim).f_min
    out = []
    for seed in range(seeds):
        r = solvers.run("particle_swarm", function, engine="cuda", dim=dim, seed=seed, max_evals=evals,
                        dtype="float32", params={"walkers": walkers, "swarms": swarms, "variant": "classic"})
        out.append(float(r.best_f) - float(f_min))
    return np.array(out)


def _erfc_p(z: float) -> float:
    import math  # noqa: PLC0415

    return math.erfc(abs(z) / math.sqrt(2))


def setup(doc: str, newer_marker: str, before: str) -> tuple:
    """The command line (--seeds, --out) and the opening of the record's first line (the device and
    versions), after checking that $EXCHANGE_BASE's particle_swarm.cu is from before the change (it lacks
    `newer_marker`; otherwise the old stream would be this tree's, the new stream against itself)."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    base = exchange_cost._BASE_DIR / "particle_swarm.cu"
    if not base.exists() or newer_marker in base.read_text():
        sys.exit(f"{base} must hold a particle_swarm.cu from before {before} (e.g. `git archive COMMIT "
                 "kernels | tar -x -C baseline`, EXCHANGE_BASE=baseline)")
    import cupy  # noqa: PLC0415

    device = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    return args, (f"cuda engine, {device}; {args.seeds} seeds (0..{args.seeds - 1}) a row; python "
                  f"{platform.python_version()}, numpy {np.__version__}, cupy {cupy.__version__}.")


def main() -> None:
    args, opening = setup(__doc__, "PsoCoefficients", "the halves (d6aa615's parent)")
    lines = [f"Classic PSO, float32, {opening} "
             "Final error best f - f*; 24-bit: the stream before (two words a coordinate), 16-bit halves: this tree.",
             "", "| function | d | particles x swarms | evaluations | 24-bit median [q1, q3] | 16-bit halves median [q1, q3] "
             "| seeds won (24 / 16 / tie) | Mann-Whitney p | seconds |", "| --- " * 9 + "|"]
    print("\n".join(lines), flush=True)
    for function, dim, walkers, swarms, evals in SETTINGS:
        start = time.perf_counter()
        old = errors("pso start kernel", function, dim, walkers, swarms, evals, args.seeds)
        new = errors("pso", function, dim, walkers, swarms, evals, args.seeds)
        lines.append(row([function, dim, f"{walkers} x {swarms}", f"{evals:,}"], old, new, start))
        print(lines[-1], flush=True)
    if args.out:
        args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")


def row(cells: list, old: np.ndarray, new: np.ndarray, start: float) -> str:
    """A record's row: the setting's cells, then both streams' median [quartiles], the seeds each won,
    the Mann-Whitney p and the seconds since `start`."""
    q = lambda e: f"{np.median(e):.4g} [{np.quantile(e, 0.25):.3g}, {np.quantile(e, 0.75):.3g}]"  # noqa: E731
    won = f"{int((old < new).sum())} / {int((new < old).sum())} / {int((new == old).sum())}"
    return (f"| {' | '.join(str(c) for c in cells)} | {q(old)} | {q(new)} | {won} | "
            f"{_erfc_p(_z(old, new)):.3g} | {time.perf_counter() - start:.0f} |")


def _z(a: np.ndarray, b: np.ndarray) -> float:
    """The Mann-Whitney U statistic as a standard normal (ties averaged, tie-corrected variance)."""
    x = np.concatenate([a, b])
    order = np.argsort(x, kind="stable")
    ranks = np.empty(len(x))
    ranks[order] = np.arange(1, len(x) + 1)
    values, counts = np.unique(x, return_counts=True)
    for v in values[counts > 1]:
        same = x == v
        ranks[same] = ranks[same].mean()
    n1, n2 = len(a), len(b)
    n = n1 + n2
    u = ranks[:n1].sum() - n1 * (n1 + 1) / 2
    var = n1 * n2 / 12 * ((n + 1) - (counts ** 3 - counts).sum() / (n * (n - 1)))
    return 0.0 if var <= 0 else float((u - n1 * n2 / 2) / np.sqrt(var))


if __name__ == "__main__":
    main()
