"""Experiment (GPU): SPSO-2011's two move kernels at each size (issue 14; ParticleSwarmCuda._tc_rows).

pso_spso_rows stores G - x for the move's second pass, pso_spso gathers the informant's point again;
the host picks by size. This times both, forced, in one process (rastrigin 30-D float32, one swarm,
two interleaved rounds), to place the size where the choice changes. G evaluations/s.

    python3 scripts/spso_tc_rows.py [repeats]
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from solvers.bench import Case, measure  # noqa: E402

SIZES = ((1024, 20000), (16384, 4000), (65536, 2000), (131072, 1000))


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    print("| round | kernel | " + " | ".join(f"{n:,}" for n, _ in SIZES) + " |  (G evaluations/s)")
    print("| --- " * (len(SIZES) + 2) + "|")
    for rnd in range(2):
        for rows in (False, True):
            cells = []
            for n, iterations in SIZES:
                case = Case("particle_swarm", "rastrigin", 30, n, iterations, {"variant": "spso2011", "swarms": 1},
                            options={"tc_rows": rows})
                record = measure(case, "cuda", "float32", False, seed=1, repeats=repeats)
                cells.append(f"{record['evals_per_second'] / 1e9:.3f}")
            kernel = "pso_spso_rows" if rows else "pso_spso"
            print(f"| {rnd} | {kernel} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
