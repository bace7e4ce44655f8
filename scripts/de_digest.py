"""Digests of cuda-engine differential evolution runs, to show that a kernel change keeps every
number (GPU needed). Run it on the tree before and after the change and compare the lines: each
case hashes the final population, its values, the last generation's trials, the accept flags and
the best point, bit for bit.

    python3 scripts/de_digest.py            # one line per case: name, sha256 prefix, best value

The cases cover the kernel's paths: one chunk of genes (30-D float32) and several (70-D float64,
partial last chunk), a population that is not a whole number of warps, a population spread over
several blocks (32-thread blocks) with the trial scratch in global memory, runs cut in chunks of
generations, and a max_evals cut inside a generation.
"""
from __future__ import annotations

import hashlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cupy as cp  # noqa: E402
import numpy as np  # noqa: E402

from solvers.bench import solver_class  # noqa: E402
from solvers.params import make_params  # noqa: E402
from solvers.problems import get_problem  # noqa: E402
from solvers.rng import ArrayRNG  # noqa: E402

# name, problem, dim, dtype, params, chunks of generations, knobs (attributes set on the solver)
CASES = [
    ("r30-f32", "rastrigin", 30, "float32", {"walkers": 1024, "populations": 3}, [5, 7], {}),
    ("r30-f32-odd", "rastrigin", 30, "float32", {"walkers": 70, "populations": 4}, [1, 9, 3], {}),
    ("r70-f64", "rastrigin", 70, "float64", {"walkers": 70, "populations": 2}, [6], {}),
    ("s6-f32-spread-global", "sphere", 6, "float32", {"walkers": 200, "populations": 2}, [11],
     {"block": 32, "scratch_shared_max": 0}),
    ("a20-f32-spread", "ackley", 20, "float32", {"walkers": 4096, "populations": 1}, [4],
     {"block": 64}),
    ("r30-f32-cap", "rastrigin", 30, "float32", {"walkers": 96, "populations": 2}, [10],
     {"max_evals": 96 * 2 * 4 + 37}),
]


def digest(case) -> str:
    name, problem, dim, dtype, params, chunks, knobs = case
    cls = solver_class("differential_evolution", "cuda")
    algo = cls(get_problem(problem, dim), make_params(cls.Params, params), xp=cp, dtype=dtype)
    for attr, value in knobs.items():
        setattr(algo, attr, value)
    state = algo.init(ArrayRNG(cp, 11))
    for k in chunks:
        algo.step(state, k)
    h = hashlib.sha256()
    for arr in (state.X, state.f, state.trials, state.accepted, state.best_f, state.best_x):
        h.update(np.ascontiguousarray(cp.asnumpy(arr)).tobytes())
    h.update(str((state.evals, state.iteration)).encode())
    return f"{name:24s} {h.hexdigest()[:16]}  best {float(cp.asnumpy(state.best_f)):.9g}  evals {state.evals}"


if __name__ == "__main__":
    for c in CASES:
        print(digest(c), flush=True)
