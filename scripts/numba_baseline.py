"""The numba engine's CPU baseline numbers (issue 13), one process, one machine:

1. per core: numba on 1 thread vs the numpy engine, rastrigin 30-D, 16,384 walkers (PSO/DE: 256
   groups of 64), float64, every algorithm variant (target >= 3x);
2. the pattern-search seed's Table 1 setting (ackley 20-D, 15,360 walkers, 20 iterations), end to
   end (build, initial walkers, iterations), on 1 thread and on every thread (targets on the 16-core
   GPU host: <= 2.4 s and <= 270 ms), and the numpy engine;
3. scaling at 131,072 walkers for pattern search and SA async: every thread vs 1 (target >= 12x
   on 16 threads).

    python scripts/numba_baseline.py [--out DIR] [--skip-scaling] [--per-core-only] [--only NAME ...]

Rates are the run's exact evaluation counts over the timed iterations (after one warm-up iteration;
compilation is never timed). Prints a table and writes numba-baseline.json into --out.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from solvers.algorithms import get_algorithm  # noqa: E402
from solvers.numba import cpu_model, numba_algorithm  # noqa: E402
from solvers.numba.base import default_threads  # noqa: E402
from solvers.problems import get_problem  # noqa: E402
from solvers.rng import ArrayRNG  # noqa: E402

GROUPS = {"walkers": 64}
CASES = [  # (algorithm, params, iterations timed)
    ("pattern_search", {"walkers": 16384}, 2),
    ("multidirectional_search", {"walkers": 16384}, 2),
    ("simulated_annealing", {"walkers": 16384, "variant": "async"}, 100),
    ("simulated_annealing", {"walkers": 16384, "variant": "sync"}, 100),
    ("simulated_annealing", {"walkers": 16384, "variant": "hybrid"}, 100),
    ("particle_swarm", {"variant": "classic", **GROUPS, "swarms": 256}, 20),
    ("particle_swarm", {"variant": "spso2011", **GROUPS, "swarms": 256}, 20),
    ("differential_evolution", {**GROUPS, "populations": 256}, 20),
]


def steady_rate(algo, iterations: int) -> tuple[float, float]:
    """(evaluations per second, seconds) of `iterations` after one warm-up iteration."""
    state = algo.init(ArrayRNG(np, 0))
    algo.step(state, 1)
    evals, t0 = state.evals, time.perf_counter()
    algo.step(state, iterations)
    seconds = time.perf_counter() - t0
    return (state.evals - evals) / seconds, seconds


def end_to_end(make, iterations: int, repeats: int = 3) -> list[float]:
    """Seconds of build + init + `iterations` iterations, `repeats` times (compiled beforehand)."""
    algo = make()
    algo.step(algo.init(ArrayRNG(np, 0)), 1)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        algo = make()
        algo.step(algo.init(ArrayRNG(np, 0)), iterations)
        times.append(time.perf_counter() - t0)
    return times


def table1(record: dict, every: int) -> None:
    """Part 2: the Table 1 setting end to end, numba on 1 and on every thread, and numpy."""
    problem = get_problem("ackley", 20)
    params = get_algorithm("pattern_search").Params(walkers=15360)
    cls = numba_algorithm("pattern_search")
    for threads in sorted({1, every}):
        times = end_to_end(lambda: cls(problem, params, dtype=np.float64, threads=threads), 20)
        record["table1"][f"numba_{threads}"] = times
        print(f"Table 1 numba {threads:3} thread(s): median {np.median(times):.3f} s {times}", flush=True)
    times = end_to_end(lambda: get_algorithm("pattern_search")(problem, params, dtype=np.float64), 20)
    record["table1"]["numpy"] = times
    print(f"Table 1 numpy:              median {np.median(times):.3f} s {times}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    parser.add_argument("--skip-scaling", action="store_true")
    parser.add_argument("--per-core-only", action="store_true",
                        help="only part 1 (numba on 1 thread vs numpy); the record keeps its keys")
    parser.add_argument("--only", nargs="+", metavar="ALGORITHM",
                        help="per-core cases of these algorithms only (e.g. particle_swarm)")
    args = parser.parse_args()
    every = default_threads()
    record = {"cpu": cpu_model(), "threads": every, "load_average": os.getloadavg(), "per_core": [],
              "table1": {}, "scaling": []}
    print(f"# {record['cpu']}, {every} threads, load average {record['load_average']}")
    problem = get_problem("rastrigin", 30)
    for name, params, iterations in CASES:
        if args.only and name not in args.only:
            continue
        ref = get_algorithm(name)
        p = ref.Params(**params)
        numba_rate, numba_s = steady_rate(numba_algorithm(name)(problem, p, dtype=np.float64, threads=1),
                                          iterations)
        numpy_rate, numpy_s = steady_rate(ref(problem, p, dtype=np.float64), iterations)
        row = {"algorithm": name, "variant": params.get("variant", ""), "numpy_rate": numpy_rate,
               "numba_1_thread_rate": numba_rate, "ratio": numba_rate / numpy_rate}
        record["per_core"].append(row)
        print(f"{name:24} {row['variant']:9} numpy {numpy_rate / 1e6:8.3f} M/s  numba 1 thread "
              f"{numba_rate / 1e6:8.3f} M/s  {row['ratio']:5.2f}x", flush=True)

    if not args.per_core_only:
        table1(record, every)
    if not args.skip_scaling and not args.per_core_only:
        for name, params, iterations in [("pattern_search", {"walkers": 131072}, 2),
                                         ("simulated_annealing", {"walkers": 131072, "variant": "async"}, 60)]:
            p = get_algorithm(name).Params(**params)
            rates = {}
            for threads in sorted({1, every}):
                algo = numba_algorithm(name)(get_problem("rastrigin", 30), p, dtype=np.float64, threads=threads)
                rates[threads] = steady_rate(algo, iterations)[0]
            speedup = rates[every] / rates[1]
            record["scaling"].append({"algorithm": name, "rates": rates, "speedup": speedup})
            print(f"scaling {name:20} 131,072 walkers: {every} threads / 1 thread = {speedup:.2f}x", flush=True)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "numba-baseline.json").write_text(json.dumps(record, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
