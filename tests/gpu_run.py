"""Helpers of the GPU tests: build an algorithm on an engine, run it in chunks, copy everything back,
compare two runs. (The ``cupy`` fixture they take is in tests/conftest.py.)"""
from __future__ import annotations

import numpy as np

from solvers.arrays import to_numpy
from solvers.bench import solver_class
from solvers.engines import get_engine, list_engines
from solvers.params import make_params
from solvers.problems import get_problem
from solvers.rng import ArrayRNG

# the registered engines that run on a CUDA device: a new one enters every test parametrised by it
GPU_ENGINES = [name for name in list_engines() if get_engine(name).is_gpu]


def build(cupy, algorithm, params, problem="rastrigin", dim=5, walkers=300, dtype="float64",
          fast_math=False, engine="cuda"):
    """`algorithm` on `engine` (the cuda engine unless named) with `walkers` and `params`."""
    prob = get_problem(problem, dim)
    cls = solver_class(algorithm, engine)
    p = make_params(cls.Params, {"walkers": walkers, **params})
    if get_engine(engine).honours_fast_math:
        return cls(prob, p, xp=cupy, dtype=dtype, fast_math=fast_math)
    return cls(prob, p, xp=cupy, dtype=dtype)


def run(cupy, algorithm, params, chunks, seed=3, **kw):
    """Build, init with `seed` and step by each of `chunks` iterations."""
    algo = build(cupy, algorithm, params, **kw)
    state = algo.init(ArrayRNG(cupy, seed))
    for k in chunks:
        algo.step(state, k)
    return algo, state


def everything(algo, state):
    """Host copies of all walkers and the best, for exact comparisons."""
    snap = algo.snapshot(state, np.arange(algo.total_walkers()))
    return (snap.positions, snap.fitness, float(state.best_f), np.asarray(to_numpy(state.best_x)),
            state.evals, state.iteration)


def same(a, b) -> bool:
    """Two ``everything`` results are identical."""
    return (np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]) and a[2] == b[2]
            and np.array_equal(a[3], b[3]) and a[4:] == b[4:])
