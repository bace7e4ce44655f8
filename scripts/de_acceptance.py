"""Experiment (GPU): DE's rate over a run's life, with the fraction of trials taken (issue 14).

A rejected trial's row is copied into the next buffer only where that buffer's row is stale (the
trial of the generation before was taken: kernels/differential_evolution.cu, de_select_batch), so a
generation costs less as fewer trials are taken. This prints, window by window of one run from its
initial draw (one population, rastrigin 30-D float32, precise math; one launch a window), the
window's G evaluations/s and the fraction of trials its last generation took, for this tree's
kernel and, where $EXCHANGE_BASE (default baseline/) holds another tree, for that tree's kernel in
the same process (scripts/exchange_cost.py's "DE main kernel"), each twice, in the order A B B A:

    python3 scripts/de_acceptance.py [N] [WINDOWS]   (default 131072 and 1,10,100,1000,1000,1000)
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent.parent), str(Path(__file__).resolve().parent)]

import exchange_cost  # noqa: E402

from solvers import shards  # noqa: E402
from solvers.engines import get_engine  # noqa: E402
from solvers.params import make_params  # noqa: E402
from solvers.bench import solver_class  # noqa: E402
from solvers.problems import get_problem  # noqa: E402
from solvers.rng import ArrayRNG  # noqa: E402


def run(n: int, windows: list[int]) -> list[tuple[int, float, float]]:
    """(generations so far, G evaluations/s of the window, fraction taken at its end) per window."""
    eng = get_engine("cuda")
    problem = get_problem("rastrigin", 30)
    cls = solver_class("differential_evolution", "cuda")
    params = make_params(cls.Params, {"walkers": n, "populations": 1})
    algo = shards.build(eng, "differential_evolution", problem, params, "float32", False)
    warm = algo.init(ArrayRNG(eng.xp, 7))  # compiles and loads, untimed
    algo.step(warm, 2)
    eng.xp.cuda.Device().synchronize()
    state = algo.init(ArrayRNG(eng.xp, 1))
    eng.xp.cuda.Device().synchronize()
    rows, done = [], 0
    for generations in windows:
        t0 = time.perf_counter()
        algo.step(state, generations)
        eng.xp.cuda.Device().synchronize()
        seconds = time.perf_counter() - t0
        done += generations
        taken = float(state.accepted.mean())
        rows.append((done, n * generations / seconds / 1e9, taken))
    return rows


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 131072
    windows = [int(w) for w in sys.argv[2].split(",")] if len(sys.argv) > 2 else [1, 10, 100, 1000, 1000, 1000]
    # each kernel twice, in the order A B B A, so that a drift over the process (clocks) shows
    order = (["DE main kernel", "DE", "DE", "DE main kernel"] if exchange_cost.VARIANTS.get("DE main kernel")
             else ["DE", "DE"])
    results = []
    for variant in order:
        exchange_cost.use(variant if variant != "DE" else "DE skip unchanged")
        results.append(run(n, windows))
    names = ["this tree" if v == "DE" else "main's kernel" for v in order]
    print(f"| generations (end of window) | {' | '.join(f'{k}: G/s, taken' for k in names)} |")
    print("| ---: " * (len(order) + 1) + "|")
    for i, _ in enumerate(windows):
        cells = [f"{r[i][1]:.3f}, {r[i][2]:.3f}" for r in results]
        print(f"| {results[0][i][0]} | {' | '.join(cells)} |")


if __name__ == "__main__":
    main()
