"""SPSO-2011's redraw decisions and personal-best improvements per iteration, on the GPU: how often
the swarm's best fails to improve (the links are redrawn), how often that decision differs from the
last one (pso_spso_redraw_one's mispredictions, kernels/particle_swarm.cu), and the share of particles
whose personal best improves (the rows it moves through PR's second buffer). One swarm, rastrigin,
float32, every iteration a launch of its own (the same numbers as longer launches):

    python3 scripts/spso_decisions.py [WALKERS] [ITERATIONS] [DIM] [SEED]     (default 131072 2000 30 1)

notes-gpu.md v30 has its output for the defaults on an H100, v31 for seeds 0-2 (the bench's is 0).
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> None:
    import cupy  # noqa: PLC0415 - the GPU host only

    from solvers.rng import ArrayRNG  # noqa: PLC0415
    from tests.gpu_run import build  # noqa: PLC0415

    given = [int(a) for a in sys.argv[1:5]]
    walkers, iterations, dim, seed = given + [131072, 2000, 30, 1][len(given):]
    algo = build(cupy, "particle_swarm", {"variant": "spso2011", "swarms": 1}, problem="rastrigin",
                 dim=dim, walkers=walkers, dtype="float32")
    state = algo.init(ArrayRNG(cupy, seed))
    decisions, improved = [], []
    for _ in range(iterations):
        before = state.Pf.copy()
        algo.step(state, 1)
        decisions.append(int(state.redrawn[0]))
        improved.append(int((state.Pf < before).sum()))
    d, share = np.array(decisions), np.array(improved) / walkers
    print("kernel", algo._launch.kernel, "seed", seed)
    edges = [e for e in (0, 100, 500, 1000, 2000, iterations) if e <= iterations]
    for a, b in zip(edges, edges[1:]):
        if b - a < 2:
            continue
        seg = d[a:b]
        changes = int((seg[1:] != seg[:-1]).sum())
        print(f"iterations {a}-{b}: redraw {seg.mean():.3f}, decision changes (mispredictions of 'the last') "
              f"{changes / (b - a - 1):.3f}, 'always redraw' wrong {1 - seg.mean():.3f}, "
              f"particles improved {share[a:b].mean():.4f}")


if __name__ == "__main__":
    main()
