"""Digests of what the cuda engine's kernels compute, to prove a kernel change keeps the numbers.

Runs every cuda algorithm variant (and the evaluation-only kernel) for a few chunks of iterations
on functions that are folds and functions that are not (kernels/problems.cuh), in float32 and
float64, sizes that take each mapping (one block, several blocks, packed swarms), and prints one
SHA-256 per case of everything the run leaves (every walker's point and value, the best, the
counts). Run it at two trees on the same GPU and diff the outputs (issue 14's rule: the same
numbers for the same seed before and after):

    python3 scripts/kernel_digests.py > after.txt
    (cd baseline && python3 scripts/kernel_digests.py) > before.txt && diff before.txt after.txt
"""
from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from solvers.arrays import to_numpy  # noqa: E402
from solvers.bench import solver_class  # noqa: E402
from solvers.params import make_params  # noqa: E402
from solvers.problems import get_problem  # noqa: E402
from solvers.rng import ArrayRNG  # noqa: E402

FUNCTIONS = [("rastrigin", 30), ("ackley", 7), ("schwefel_2_26", 5), ("griewank", 6), ("sphere", 3),
             ("quartic", 5), ("step", 4),  # the folds of kernels/problems.cuh, then two that are not
             ("rosenbrock", 6), ("schwefel", 9)]
CASES = [  # (algorithm, params, walkers: per swarm / population for PSO and DE)
    ("evaluation_only", {}, 3000),
    ("pattern_search", {}, 1000),
    ("simulated_annealing", {"variant": "async"}, 1000),
    ("simulated_annealing", {"variant": "sync"}, 1000),
    ("simulated_annealing", {"variant": "hybrid"}, 1000),
    ("multidirectional_search", {}, 500),
    ("particle_swarm", {"variant": "classic", "swarms": 1}, 3000),
    ("particle_swarm", {"variant": "classic", "swarms": 50}, 40),
    ("particle_swarm", {"variant": "spso2011", "swarms": 1}, 3000),
    ("particle_swarm", {"variant": "spso2011", "swarms": 20}, 40),
    ("differential_evolution", {"populations": 1}, 3000),
    ("differential_evolution", {"populations": 25}, 40),
]


def digest(algorithm: str, params: dict, walkers: int, function: str, dim: int, dtype: str) -> str:
    import cupy  # noqa: PLC0415 - the GPU host only

    problem = get_problem(function, dim)
    cls = solver_class(algorithm, "cuda")
    algo = cls(problem, make_params(cls.Params, {"walkers": walkers, **params}), xp=cupy, dtype=dtype)
    state = algo.init(ArrayRNG(cupy, 11))
    for k in (3, 1, 4):
        algo.step(state, k)
    snap = algo.snapshot(state, np.arange(algo.total_walkers()))
    h = hashlib.sha256()
    for part in (snap.positions, snap.fitness, to_numpy(state.best_x)):
        h.update(np.ascontiguousarray(part).tobytes())
    h.update(repr((float(state.best_f), int(state.evals), int(state.iteration))).encode())
    return h.hexdigest()[:16]


def main() -> int:
    import argparse  # noqa: PLC0415

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--algorithms", default="", help="comma-separated: only these (one process each, in parallel)")
    wanted = {a for a in parser.parse_args().algorithms.split(",") if a}
    for algorithm, params, walkers in CASES:
        if wanted and algorithm not in wanted:
            continue
        for function, dim in FUNCTIONS:
            for dtype in ("float32", "float64"):
                label = f"{algorithm} {params} n={walkers} {function}-{dim} {dtype}"
                try:
                    print(label, digest(algorithm, params, walkers, function, dim, dtype), flush=True)
                except Exception as exc:  # a case the tree cannot run is a line, not the end
                    print(label, f"ERROR {type(exc).__name__}: {str(exc).splitlines()[0][:120]}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
