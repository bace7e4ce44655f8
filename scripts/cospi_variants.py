"""Experiment (GPU): kernels/common.cuh's lean cospi against the library's cospif (issue 14), in
every kernel file or some: evaluation-only, pattern search and SA async at 131,072, classic PSO (one
swarm) at 131,072 / 16,384 / 1,024 particles, and the Table 1 setting (pattern search, ackley 20-D,
15,360 walkers, 20 iterations, end to end, 7 times), rastrigin 30-D float32 unless named; each
variant's kernel source compiled in this process, same GPU, two interleaved rounds.

    python3 scripts/cospi_variants.py [repeats]
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kernels import loader  # noqa: E402
from solvers.bench import Case, measure  # noqa: E402

ORIGINAL_SOURCE = loader.source
VARIANTS = {  # name -> (kernel files it applies to, or None for all; text prepended)
    "library cospif": (None, "#define MW_COSPI_LIBRARY 1\n"),
    "lean cospi": (None, ""),
}


def use(variant: str) -> None:
    files, head = VARIANTS[variant]

    def source(name, functor_source=""):
        text = ORIGINAL_SOURCE(name, functor_source)
        return head + text if files is None or name in files else text

    loader.source = source
    loader.load.cache_clear()


def rate(case: Case, repeats: int) -> str:
    record = measure(case, "cuda", "float32", False, seed=1, repeats=repeats)
    if case.mode == "end_to_end":
        return f"{record['seconds'] * 1e3:.3f} ms"
    return f"{record['evals_per_second'] / 1e9:.3f} G/s"


CASES = [
    Case("evaluation_only", "rastrigin", 30, 131072, 2000),
    Case("evaluation_only", "ackley", 20, 131072, 2000),
    Case("pattern_search", "rastrigin", 30, 131072, 40),
    Case("simulated_annealing", "rastrigin", 30, 131072, 2000, {"variant": "async"}),
    *[Case("particle_swarm", "rastrigin", 30, n, it, {"variant": "classic", "swarms": 1})
      for n, it in ((131072, 2000), (16384, 5000), (1024, 20000))],
    *[Case("pattern_search", "ackley", 20, 15360, 20, mode="end_to_end")] * 7,
]
LABELS = ["eo rastrigin", "eo ackley", "PS 131k", "SA async", "PSO 131k", "PSO 16k", "PSO 1k"] + ["T1"] * 7


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    print("| round | variant | " + " | ".join(LABELS) + " |")
    for rnd in range(2):  # twice, interleaved: drift shows as a difference between rounds
        for variant in VARIANTS:
            use(variant)
            cells = [rate(c, repeats) for c in CASES]
            print(f"| {rnd} | {variant} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
