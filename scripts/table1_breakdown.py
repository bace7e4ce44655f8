"""Where the end-to-end time of the seed's Table 1 setting goes on the cuda engine (GPU needed).

Pattern search, ackley 20-D, 15,360 walkers, 20 iterations, float32, precise math, default thread
mapping: the phases of `main.py bench --end-to-end` timed one by one (host clock), and the device time
of the one launch (CUDA events around it alone). Prints the median of each phase over the runs.

    python3 scripts/table1_breakdown.py [runs] [--profile]

--profile: then the host's functions over the same runs (cProfile, by own time), to show which
Python and CuPy calls the host part is made of.
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cupy as cp  # noqa: E402

from solvers.bench import solver_class  # noqa: E402
from solvers.cuda.pattern_search import STREAM_INIT  # noqa: E402
from solvers.params import make_params  # noqa: E402
from solvers.problems import get_problem  # noqa: E402
from solvers.rng import ArrayRNG  # noqa: E402

WALKERS, ITERATIONS = 15360, 20
PHASES = ("build solver", "allocate state + best", "launch (host side)", "wait + read best",
          "end to end", "device: the launch alone")


def once(problem, cls, params) -> list[float]:
    t0 = time.perf_counter()
    algo = cls(problem, params, xp=cp, dtype="float32")
    t1 = time.perf_counter()
    state = algo._allocate(ArrayRNG(cp, 1))
    t2 = time.perf_counter()
    start, end = cp.cuda.Event(), cp.cuda.Event()
    start.record()
    state.evals += WALKERS
    algo._iterate(state, ITERATIONS, fresh=STREAM_INIT)
    end.record()
    t3 = time.perf_counter()
    float(state.best_f.get())
    t4 = time.perf_counter()
    return [t1 - t0, t2 - t1, t3 - t2, t4 - t3, t4 - t0, cp.cuda.get_elapsed_time(start, end) / 1e3]


def main() -> None:
    args = [a for a in sys.argv[1:] if a != "--profile"]
    runs = int(args[0]) if args else 50
    problem = get_problem("ackley", 20)
    cls = solver_class("pattern_search", "cuda")
    params = make_params(cls.Params, {"walkers": WALKERS})
    once(problem, cls, params)  # compile and load
    until = time.perf_counter() + 0.3  # working clocks, as the benchmark's warm-up
    while time.perf_counter() < until:
        once(problem, cls, params)
    samples = [once(problem, cls, params) for _ in range(runs)]
    print(f"Table 1 setting, cuda engine, lanes={cls(problem, params, xp=cp, dtype='float32')._lanes(WALKERS)}, "
          f"median of {runs} runs:")
    for k, name in enumerate(PHASES):
        print(f"  {name:28s} {statistics.median(s[k] for s in samples) * 1e3:7.3f} ms")
    if "--profile" in sys.argv:
        import cProfile  # noqa: PLC0415
        import pstats  # noqa: PLC0415

        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(runs):
            once(problem, cls, params)
        profiler.disable()
        print(f"host functions over {runs} runs (own time; divide by {runs} for one run):")
        pstats.Stats(profiler).sort_stats("tottime").print_stats(30)
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(30)


if __name__ == "__main__":
    main()
