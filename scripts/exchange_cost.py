"""Experiment (GPU): what the once-per-iteration exchange costs PSO, SPSO-2011 and DE (issue 14).

Ways of looking at one quantity, all rastrigin 30-D float32 on the cuda engine, one process:
- the benchmark's one swarm / population against the same particles as independent groups of one
  block each (no barrier among blocks, no partials: the exchange is a __syncthreads);
- the one swarm with the exchange left out of every iteration but the last (PSO, SPSO: the group
  barrier and the partial reads skipped; DE: the generation barrier skipped) - an upper bound of
  what any exchange could save, not a valid run (its numbers are not the algorithm's);
- kernels/group_sync.cuh's barrier as it is (a release add) against the former sequentially
  consistent fence before a plain atomicAdd;
- the partials of a swarm over more than 128 blocks read by every warp of a block
  (pso_scan_partials) against one warp reading them all;
- the exchange's point copies skipped where the block's or the swarm's best did not change
  (pso_exchange's memo) against copying every time.

    python3 scripts/exchange_cost.py [repeats]
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kernels import loader  # noqa: E402
from solvers.bench import Case, measure  # noqa: E402

ORIGINAL_SOURCE = loader.source
RELEASE = 'asm volatile("red.release.gpu.global.add.u64 [%0], %1;" : : "l"(s.bar), "l"(1ull) : "memory");'
# variant -> [(text, replacement)] applied to every kernel source that contains the text
VARIANTS = {
    "as committed": [],
    "one warp scans": [("if (bps <= 32 * PSO_SCAN_LOADS) {", "if (true) {")],
    "copy every time": [("const bool send = has && !pso_same(blk, memo[parity]);", "const bool send = has;"),
                        ("&& !pso_same(w, memo[2])) {  // uniform", ") {  // uniform")],
    "sc fence barrier": [(RELEASE, "__threadfence();\n        atomicAdd(s.bar, 1ull);")],
    "no exchange but the last": [
        ("        parity ^= 1;\n        if (packed) {", "        parity ^= 1;\n        if (it + 1 < iterations) continue;\n        if (packed) {"),
        ("        mw_group_sync(sync);\n        T* s = cur;", "        if (last) mw_group_sync(sync);\n        T* s = cur;"),
        ("        pso_exchange(mine, P, ps, n, d, m, at, parity, gpart_f, gpart_i, gpart_x, sync, (T*)0, &g, memo);\n        for",
         "        if (it + 1 == iterations) pso_exchange(mine, P, ps, n, d, m, at, parity, gpart_f, gpart_i, gpart_x, sync, (T*)0, &g, memo);\n        for"),
    ],
}


def use(variant: str) -> None:
    edits = VARIANTS[variant]

    def source(name, functor_source=""):
        text = ORIGINAL_SOURCE(name, functor_source)
        for old, new in edits:
            text = text.replace(old, new)
        return text

    loader.source = source
    loader.load.cache_clear()


def pso(n, groups, variant="classic", iterations=2000):
    return Case("particle_swarm", "rastrigin", 30, n // groups, iterations, {"variant": variant, "swarms": groups})


CASES = {
    "PSO 131k": pso(131072, 1),
    "PSO 512x256": pso(131072, 512),
    "PSO 16k": pso(16384, 1, iterations=5000),
    "PSO 64x256": pso(16384, 64, iterations=5000),
    "PSO 1k": pso(1024, 1, iterations=20000),
    "SPSO 131k": pso(131072, 1, "spso2011"),
    "SPSO 512x256": pso(131072, 512, "spso2011"),
    "DE 131k": Case("differential_evolution", "rastrigin", 30, 131072, 2000, {"populations": 1}),
    "DE 512x256": Case("differential_evolution", "rastrigin", 30, 256, 2000, {"populations": 512}),
}
# the grouped cases have no group barrier: only the one-swarm cases differ between the variants
PER_VARIANT = {"as committed": list(CASES), "one warp scans": ["PSO 131k", "SPSO 131k"],
               "copy every time": ["PSO 131k", "PSO 16k", "PSO 1k"],
               "sc fence barrier": ["PSO 131k", "PSO 16k", "SPSO 131k", "DE 131k"],
               "no exchange but the last": ["PSO 131k", "PSO 16k", "SPSO 131k", "DE 131k"]}


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    print("| round | variant | " + " | ".join(CASES) + " |  (G evaluations/s)")
    print("| --- " * (len(CASES) + 2) + "|")
    for rnd in range(2):  # twice, interleaved: drift shows as a difference between rounds
        for variant, names in PER_VARIANT.items():
            use(variant)
            cells = []
            for name, case in CASES.items():
                if name not in names:
                    cells.append("")
                    continue
                record = measure(case, "cuda", "float32", False, seed=1, repeats=repeats)
                cells.append(f"{record['evals_per_second'] / 1e9:.3f}")
            print(f"| {rnd} | {variant} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
