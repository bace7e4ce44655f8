"""PSO's lanes per particle on the cuda engine, measured (GPU needed): evaluations per second of one
swarm (rastrigin 30-D, float32, the bench suite's iteration counts and timing rule) with 1, 2, 4 and
8 lanes forced and with the automatic choice, at several swarm sizes, for classic PSO or SPSO-2011.
Calibrates solvers/cuda/particle_swarm.py's choose_lanes (LANES_BY_PARTICLES_PER_SM,
LANES_THREADS_PER_SM) and LANES_MAX_BLOCK.

    python3 scripts/pso_lanes.py [repeats] [classic|spso2011]
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from solvers.bench import Case, measure, solver_class  # noqa: E402
from solvers.params import make_params  # noqa: E402
from solvers.problems import get_problem  # noqa: E402

# (particles, iterations): the suite's one-swarm sizes (solvers/bench.py PART2_SIZES) and 65,536
SIZES = ((1024, 20000), (16384, 5000), (65536, 2000), (131072, 2000))


def default_launch(n: int, variant: str):
    """The automatic launch shape of one swarm of n (lanes, blocks, shared-memory flags)."""
    import cupy  # noqa: PLC0415 - the GPU host only

    cls = solver_class("particle_swarm", "cuda")
    params = make_params(cls.Params, {"walkers": n, "variant": variant, "swarms": 1})
    return cls(get_problem("rastrigin", 30), params, xp=cupy, dtype="float32")._launch_shape()


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    variant = sys.argv[2] if len(sys.argv) > 2 else "classic"
    print(f"# PSO {variant}, one swarm, rastrigin 30-D float32: evaluations/s (default: the lanes chosen)")
    print("| particles | 1 lane | 2 lanes | 4 lanes | 8 lanes | default (lanes) |")
    print("|---:|---:|---:|---:|---:|---:|")
    for n, iterations in SIZES:
        cells = []
        for lanes in (1, 2, 4, 8, None):
            options = {} if lanes is None else {"lanes": lanes}
            case = Case("particle_swarm", "rastrigin", 30, n, iterations, {"variant": variant, "swarms": 1},
                        options=options)
            record = measure(case, "cuda", "float32", False, seed=1, repeats=repeats)
            cells.append(f"{record['evals_per_second'] / 1e9:.3f} G")
        launch = default_launch(n, variant)
        shape = f"{launch.lanes}, {launch.shape.per_group} x {launch.shape.block}, flags {launch.flags}"
        print(f"| {n:,} | " + " | ".join(cells[:4]) + f" | {cells[4]} ({shape}) |", flush=True)


if __name__ == "__main__":
    main()
