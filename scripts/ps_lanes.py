"""Pattern search's thread mapping on the cuda engine, measured (GPU needed): device time of one
launch of 20 iterations from fresh walkers (the Table 1 launch) for each forced lane count and the
default choice, at several walker counts, for a fold objective (ackley 20-D: ps_iterate pairs the
two trials) and one that is not (rosenbrock 20-D). Median of `runs` launches after a warm-up.
Calibrates PatternSearchCuda.FOLD_ONE_LANE_WALKERS_PER_SM / GROUP_* (solvers/cuda/pattern_search.py).

    python3 scripts/ps_lanes.py [runs]
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

ITERATIONS = 20
WALKERS = (1024, 4096, 8448, 15360, 33792, 67584)


def device_ms(problem, n: int, lanes, runs: int) -> tuple[float, int]:
    cls = solver_class("pattern_search", "cuda")
    algo = cls(problem, make_params(cls.Params, {"walkers": n}), xp=cp, dtype="float32")
    algo.lanes = lanes
    chosen = algo._lanes(n)
    times = []
    until = time.perf_counter() + 0.2
    for k in range(10_000):
        state = algo._allocate(ArrayRNG(cp, k))
        start, end = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        algo._iterate(state, ITERATIONS, fresh=STREAM_INIT)
        end.record()
        end.synchronize()
        if time.perf_counter() > until:
            times.append(cp.cuda.get_elapsed_time(start, end))
            if len(times) >= runs:
                break
    return statistics.median(times), chosen


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    print(f"# pattern search, {ITERATIONS} iterations from fresh walkers, device ms (median of {runs})")
    print("| function | walkers | 1 lane | 2 lanes | 4 lanes | 8 lanes | default (lanes) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name in ("ackley", "rosenbrock"):
        problem = get_problem(name, 20)
        for n in WALKERS:
            cells = [f"{device_ms(problem, n, lanes, runs)[0]:.3f}" for lanes in (1, 2, 4, 8)]
            ms, chosen = device_ms(problem, n, None, runs)
            print(f"| {name} | {n} | " + " | ".join(cells) + f" | {ms:.3f} ({chosen}) |", flush=True)


if __name__ == "__main__":
    main()
