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
# (algorithm, params, walkers: per swarm / population for PSO and DE); "lanes" is not a parameter
# but the cuda PSO's lanes per particle (a tree without lanes ignores it: a thread per particle;
# SPSO-2011 has lanes since 2026-11-26's twelfth session)
CASES = [
    ("evaluation_only", {}, 3000),
    ("pattern_search", {}, 1000),
    ("simulated_annealing", {"variant": "async"}, 1000),
    ("simulated_annealing", {"variant": "sync"}, 1000),
    ("simulated_annealing", {"variant": "hybrid"}, 1000),
    ("multidirectional_search", {}, 500),
    ("particle_swarm", {"variant": "classic", "swarms": 1}, 3000),
    ("particle_swarm", {"variant": "classic", "swarms": 1, "lanes": 1}, 3000),
    ("particle_swarm", {"variant": "classic", "swarms": 1, "lanes": 4}, 3000),
    ("particle_swarm", {"variant": "classic", "swarms": 50}, 40),
    ("particle_swarm", {"variant": "spso2011", "swarms": 1}, 3000),
    ("particle_swarm", {"variant": "spso2011", "swarms": 1, "lanes": 1}, 3000),
    ("particle_swarm", {"variant": "spso2011", "swarms": 1, "lanes": 8}, 3000),
    ("particle_swarm", {"variant": "spso2011", "swarms": 20}, 40),
    ("differential_evolution", {"populations": 1}, 3000),
    ("differential_evolution", {"populations": 25}, 40),
]


# Shapes that take one kernel's other paths (differential evolution: several gene chunks, a
# population that is not whole warps, populations spread over blocks with the trial scratch in
# global memory, a max_evals cut inside a generation): (name, algorithm, function, dim, dtype,
# params, chunks, knobs set on the solver).
SHAPES = [
    ("de r30-f32", "differential_evolution", "rastrigin", 30, "float32",
     {"walkers": 1024, "populations": 3}, [5, 7], {}),
    ("de r30-f32-odd", "differential_evolution", "rastrigin", 30, "float32",
     {"walkers": 70, "populations": 4}, [1, 9, 3], {}),
    ("de r70-f64", "differential_evolution", "rastrigin", 70, "float64",
     {"walkers": 70, "populations": 2}, [6], {}),
    ("de s6-f32-spread-global", "differential_evolution", "sphere", 6, "float32",
     {"walkers": 200, "populations": 2}, [11], {"block": 32, "scratch_shared_max": 0}),
    ("de a20-f32-spread", "differential_evolution", "ackley", 20, "float32",
     {"walkers": 4096, "populations": 1}, [4], {"block": 64}),
    ("de r30-f32-cap", "differential_evolution", "rastrigin", 30, "float32",
     {"walkers": 96, "populations": 2}, [10], {"max_evals": 96 * 2 * 4 + 37}),
    # the same shapes on de_generations_wide (trials built and rows selected 4 at a time), which the
    # host takes where many warps share a multiprocessor: a tree without it runs de_generations, so
    # its lines must match these (the same numbers from either kernel)
    ("de r30-f32-wide", "differential_evolution", "rastrigin", 30, "float32",
     {"walkers": 1024, "populations": 3}, [5, 7], {"wide": True}),
    ("de r30-f32-odd-wide", "differential_evolution", "rastrigin", 30, "float32",
     {"walkers": 70, "populations": 4}, [1, 9, 3], {"wide": True}),
    ("de r70-f64-wide", "differential_evolution", "rastrigin", 70, "float64",
     {"walkers": 70, "populations": 2}, [6], {"wide": True}),
    ("de s6-f32-spread-global-wide", "differential_evolution", "sphere", 6, "float32",
     {"walkers": 200, "populations": 2}, [11], {"block": 32, "scratch_shared_max": 0, "wide": True}),
    ("de a20-f32-spread-wide", "differential_evolution", "ackley", 20, "float32",
     {"walkers": 4096, "populations": 1}, [4], {"block": 64, "wide": True}),
    ("de r30-f32-cap-wide", "differential_evolution", "rastrigin", 30, "float32",
     {"walkers": 96, "populations": 2}, [10], {"max_evals": 96 * 2 * 4 + 37, "wide": True}),
    # one population large enough for de_generations_wide's blocks of 1,024 threads (one a
    # multiprocessor; spread() halves the block while that leaves multiprocessors idle), and the
    # same on de_generations in blocks of 256
    ("de s6-f32-70k", "differential_evolution", "sphere", 6, "float32",
     {"walkers": 70_000, "populations": 1}, [2, 3], {"wide": False}),
    ("de s6-f32-70k-wide", "differential_evolution", "sphere", 6, "float32",
     {"walkers": 70_000, "populations": 1}, [2, 3], {"wide": True}),
    # one swarm over more blocks than one warp reads in one round trip (141 blocks of 64): the
    # exchange's partials read by every warp of a block (pso_scan_partials)
    ("pso r30-f32-141-blocks", "particle_swarm", "rastrigin", 30, "float32",
     {"variant": "classic", "walkers": 9000, "swarms": 1}, [3, 4], {"block": 64, "lanes": 1}),
    ("pso a7-f64-141-blocks", "particle_swarm", "ackley", 7, "float64",
     {"variant": "classic", "walkers": 9000, "swarms": 1}, [2, 5], {"block": 64, "lanes": 1}),
    ("spso r30-f32-141-blocks", "particle_swarm", "rastrigin", 30, "float32",
     {"variant": "spso2011", "walkers": 9000, "swarms": 1}, [3, 2], {"block": 64}),
    # SPSO-2011's pso_spso (G - x not stored: the host's choice where the swarm's rows pass half the
    # L2, 65,536 particles and more on an H100), which the sizes above never take
    ("spso r30-f32-no-tc", "particle_swarm", "rastrigin", 30, "float32",
     {"variant": "spso2011", "walkers": 3000, "swarms": 1}, [3, 2], {"tc_rows": False}),
    ("spso a7-f64-no-tc", "particle_swarm", "ackley", 7, "float64",
     {"variant": "spso2011", "walkers": 700, "swarms": 2}, [2, 3], {"tc_rows": False}),
    # pso_spso_redraw (the host's choice where p is not in shared memory: 98,304 particles and more on
    # an H100) forced at sizes that would take pso_spso; a tree without it runs pso_spso (the knob is
    # an attribute it never reads), so equal digests show the two kernels' runs equal; one with a
    # max_evals cut inside a launch
    ("spso r30-f32-redraw", "particle_swarm", "rastrigin", 30, "float32",
     {"variant": "spso2011", "walkers": 3000, "swarms": 1}, [3, 2], {"tc_rows": False, "redraw": True}),
    ("spso a7-f64-redraw-cap", "particle_swarm", "ackley", 7, "float64",
     {"variant": "spso2011", "walkers": 700, "swarms": 2}, [2, 3],
     {"tc_rows": False, "redraw": True, "max_evals": 700 * 2 * 4 + 37}),
    # an odd d in float: the last Philox block's cut pair (pso_spso_redraw's first pass makes its
    # z0 alone and must add its square as pso_normals does, rounded, not fused)
    ("spso a7-f32-redraw", "particle_swarm", "ackley", 7, "float32",
     {"variant": "spso2011", "walkers": 3000, "swarms": 1}, [3, 2], {"tc_rows": False, "redraw": True}),
    # one swarm of 131,072 as the host shapes it (an H100: pso_spso_redraw_one since notes-gpu.md v31,
    # pso_spso_redraw before, in blocks of 1,024 with the v of 19 warps beside x): what issue 14's
    # SPSO target runs
    ("spso r30-f32-131k", "particle_swarm", "rastrigin", 30, "float32",
     {"variant": "spso2011", "walkers": 131072, "swarms": 1}, [2, 1], {}),
    # 98,304 (an H100: the redraw kernel in blocks of 256, all of v beside x)
    ("spso r30-f32-98k", "particle_swarm", "rastrigin", 30, "float32",
     {"variant": "spso2011", "walkers": 98304, "swarms": 1}, [2, 1], {}),
]


def digest(algorithm: str, params: dict, walkers: int | None, function: str, dim: int, dtype: str,
           chunks=(3, 1, 4), knobs=None) -> str:
    import cupy  # noqa: PLC0415 - the GPU host only

    problem = get_problem(function, dim)
    cls = solver_class(algorithm, "cuda")
    given = dict(params) if walkers is None else {"walkers": walkers, **params}
    lanes = given.pop("lanes", None)  # PSO classic: lanes per particle, a solver knob
    algo = cls(problem, make_params(cls.Params, given), xp=cupy, dtype=dtype)
    for attr, value in {**(knobs or {}), **({"lanes": lanes} if lanes is not None else {})}.items():
        setattr(algo, attr, value)
    state = algo.init(ArrayRNG(cupy, 11))
    for k in chunks:
        algo.step(state, k)
    snap = algo.snapshot(state, np.arange(algo.total_walkers()))
    h = hashlib.sha256()
    extra = [getattr(state, name) for name in ("trials", "accepted") if getattr(state, name, None) is not None]
    for part in (snap.positions, snap.fitness, to_numpy(state.best_x), *map(to_numpy, extra)):
        h.update(np.ascontiguousarray(part).tobytes())
    h.update(repr((float(state.best_f), int(state.evals), int(state.iteration))).encode())
    return h.hexdigest()[:16]


def main() -> int:
    import argparse  # noqa: PLC0415

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--algorithms", default="", help="comma-separated: only these")
    parser.add_argument("--shapes", default="", help="comma-separated: only these shapes (SHAPES' names), no "
                                                    "other case: a quick check of one kernel's paths")
    parser.add_argument("--jobs", type=int, default=1,
                        help="processes computing digests side by side (each compiles its own kernels: "
                             "a cold tree's PSO cases take ~150 s in one on an H100's host)")
    args = parser.parse_args()
    wanted = {a for a in args.algorithms.split(",") if a}
    only = {name for name in args.shapes.split(",") if name}
    unknown = only - {shape[0] for shape in SHAPES}
    if unknown:
        parser.error(f"unknown shape(s): {', '.join(sorted(unknown))}")
    cases = []  # (label, digest's arguments), in the order printed
    for algorithm, params, walkers in ([] if only else CASES):
        if wanted and algorithm not in wanted:
            continue
        for function, dim in FUNCTIONS:
            for dtype in ("float32", "float64"):
                cases.append((f"{algorithm} {params} n={walkers} {function}-{dim} {dtype}",
                              (algorithm, params, walkers, function, dim, dtype)))
    shapes = []
    for name, algorithm, function, dim, dtype, params, chunks, knobs in SHAPES:
        if (not wanted or algorithm in wanted) and (not only or name in only):
            shapes.append(name)
            cases.append((name, (algorithm, params, None, function, dim, dtype, chunks, knobs)))
    seen = dict(zip([label for label, _ in cases], _run_all(cases, max(1, args.jobs))))
    # a shape run again on another kernel of the same algorithm ("-wide") must give its base's digest
    pairs = [(name, name[:-len("-wide")]) for name in shapes if name.endswith("-wide") and name[:-len("-wide")] in shapes]
    if pairs:
        differing = [name for name, base in pairs if seen[name] != seen[base] or seen[name] is None]
        print(f"-wide shapes equal to their base: {len(pairs) - len(differing)} of {len(pairs)}"
              + (f"; differing: {', '.join(differing)}" if differing else ""), flush=True)
    return 0


def _run_all(cases: list, jobs: int) -> list:
    """Each case's digest (None after an error), its line printed in the cases' order."""
    if jobs == 1:
        return _printed(map(_line, cases))
    import multiprocessing  # noqa: PLC0415
    from concurrent.futures import ProcessPoolExecutor  # noqa: PLC0415

    # spawned, not forked (a CUDA context does not survive a fork); each worker compiles the kernels
    # of the cases it is given (CuPy's on-disk cache is shared among them)
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
        return _printed(pool.map(_line, cases))


def _printed(lines) -> list:
    """Print each (line, digest) as it comes, in order; the digests."""
    results = []
    for line, value in lines:
        print(line, flush=True)
        results.append(value)
    return results


def _line(case) -> tuple[str, str | None]:
    """One case's line (its label and digest, or the error: a case the tree cannot run is a line)
    and its digest, None after an error."""
    label, args = case
    try:
        value = digest(*args)
    except Exception as exc:  # noqa: BLE001
        return f"{label} ERROR {type(exc).__name__}: {str(exc).splitlines()[0][:120]}", None
    return f"{label} {value}", value


if __name__ == "__main__":
    raise SystemExit(main())
