"""Experiment (GPU): where classic PSO's exchange spends its time, block by block (issue 14).

Compiles pso_exchange_warp0 with three %globaltimer stamps taken by each block's thread 0 (a
patched source, as scripts/exchange_cost.py does; not a valid benchmark run: the stamps cost a few
stores): when the block has its best and counts in (arrive), when it sees the count complete (seen),
and when its warp 0 is done (done, the swarm's best and point in shared memory), and whether it
copied a new swarm best's point. For exchanges TAG0 .. TAG0 + WINDOW - 1 of a launch (TRACE_TAG0,
default 100; the last launch that reaches them wins), per block. Then, in nanoseconds, medians over
the window:

- spread: the last block's arrival minus the first's (the wait the slowest block imposes);
- detect: a block's `seen` minus the last arrival (the count's round trip and the poll);
- read: `done` minus `seen` (the slots' round trip, the argmin, a point copy when g changed);
- move: the next `arrive` minus `done` (the move, the evaluation, the block's own argmin);
- iteration: successive last arrivals;
- g copied: the share of the window's exchanges in which the swarm's best point changed;
- slot read again: the share of (exchange, block) pairs in which warp 0 read a slot whose tag was
  older (the count overtook that block's slot store) and had to read it again.

    python3 scripts/exchange_trace.py [case ...]   (default: "PSO 16k" "PSO 131k" "PSO 1k")
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import exchange_cost  # noqa: E402
from kernels import loader  # noqa: E402
from solvers.bench import measure  # noqa: E402

TAG0 = int(__import__("os").environ.get("TRACE_TAG0", "100"))
WINDOW, BLOCKS = 64, 1024
STAMPS = f"""
#define PSO_TRACE_TAG0 {TAG0}u
#define PSO_TRACE_WINDOW {WINDOW}u
#define PSO_TRACE_BLOCKS {BLOCKS}u
__device__ unsigned long long pso_trace[PSO_TRACE_WINDOW * PSO_TRACE_BLOCKS * 5];
__device__ __forceinline__ unsigned long long pso_now() {{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}}
__device__ __forceinline__ void pso_stamp(unsigned int tag, int which, unsigned long long t) {{
    if (tag >= PSO_TRACE_TAG0 && tag < PSO_TRACE_TAG0 + PSO_TRACE_WINDOW && blockIdx.x < PSO_TRACE_BLOCKS)
        pso_trace[((tag - PSO_TRACE_TAG0) * PSO_TRACE_BLOCKS + blockIdx.x) * 5 + which] = t;
}}
// The best of a swarm's bps slots that this thread reads"""
EDITS = [
    ("// The best of a swarm's bps slots that this thread reads", STAMPS),
    # whether any lane of warp 0 had to read a slot again (its tag older: the count overtook it)
    ("    MwBest<T> v = mw_no_best<T>();\n    unsigned int y = 0u;\n",
     "    MwBest<T> v = mw_no_best<T>();\n    unsigned int y = 0u, again = 0u;\n"),
    ("            while (w[u].w != tag) w[u] = pso_slot_load(slots + k);  // a block not there yet\n",
     "            while (w[u].w != tag) {\n                w[u] = pso_slot_load(slots + k);\n                ++again;\n            }\n"),
    ("    *ptag = y;\n    return v;\n",
     "    *ptag = y;\n    if (__any_sync(0xFFFFFFFFu, again != 0u) && threadIdx.x == 0) pso_stamp(tag, 4, 1ull);\n    return v;\n"),
    ("    if (lane == 0) {\n        if (send) {\n            if (!tagged) __threadfence();",
     "    if (lane == 0) {\n        pso_stamp(tag, 0, pso_now());\n        pso_stamp(tag, 3, 0ull);\n        pso_stamp(tag, 4, 0ull);\n        if (send) {\n            if (!tagged) __threadfence();"),
    ("            asm volatile(\"ld.relaxed.gpu.global.u64 %0, [%1];\" : \"=l\"(c) : \"l\"(sync.bar) : \"memory\");\n        }\n    }\n",
     "            asm volatile(\"ld.relaxed.gpu.global.u64 %0, [%1];\" : \"=l\"(c) : \"l\"(sync.bar) : \"memory\");\n        }\n"
     "        pso_stamp(tag, 1, pso_now());\n    }\n"),
    ("        if (lane == 0) memo[2] = w;\n    }\n}\n",
     "        if (lane == 0) {\n            memo[2] = w;\n            pso_stamp(tag, 3, 1ull);\n        }\n    }\n"
     "    if (lane == 0) pso_stamp(tag, 2, pso_now());\n}\n"),
]


def main() -> None:
    import cupy  # noqa: PLC0415
    import numpy as np  # noqa: PLC0415

    names = sys.argv[1:] or ["PSO 16k", "PSO 131k", "PSO 1k"]
    exchange_cost.VARIANTS["trace"] = EDITS
    exchange_cost.use("trace")
    patched = loader.source("particle_swarm.cu")
    missing = [old[:40] for old, _ in EDITS if old not in exchange_cost.ORIGINAL_SOURCE("particle_swarm.cu")]
    if missing or "pso_stamp(tag, 2" not in patched:
        sys.exit(f"the stamps did not apply (kernel changed?): {missing}")
    kept = exchange_cost.keep_loaded("particle_swarm.cu")
    print(f"exchanges {TAG0}-{TAG0 + WINDOW - 1} of a launch")
    print("| case | blocks | rate G/s | iteration ns | spread ns | detect ns | read ns | move ns | g copied | slot read again | timer step ns |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name in names:
        kept.clear()
        case = exchange_cost.CASES[name]
        record = measure(case, "cuda", "float32", False, seed=1, repeats=1)
        ptr = kept[-1].module.get_global("pso_trace")
        raw = cupy.ndarray((WINDOW, BLOCKS, 5), dtype=cupy.uint64, memptr=ptr).get().astype(np.int64)
        used = raw[0, :, 0] != 0
        copied = (raw[:, used, 3] != 0).any(axis=1).mean()
        again = (raw[:, used, 4] != 0).mean()
        t = raw[:, used, :3]  # (window, blocks, 3)
        if t.shape[1] == 0 or (t == 0).any():
            print(f"| {name} | no stamps (one block, or fewer than {TAG0 + WINDOW} exchanges a launch) |")
            continue
        last = t[:, :, 0].max(axis=1)
        spread = last - t[:, :, 0].min(axis=1)
        detect = t[:, :, 1] - last[:, None]
        read = t[:, :, 2] - t[:, :, 1]
        move = t[1:, :, 0] - t[:-1, :, 2]
        steps = np.diff(np.unique(t.ravel()))
        step = int(steps[steps > 0].min()) if steps.size else 0
        print(f"| {name} | {t.shape[1]} | {record['evals_per_second'] / 1e9:.3f} | {np.median(np.diff(last)):.0f} | "
              f"{np.median(spread):.0f} | {np.median(detect):.0f} | {np.median(read):.0f} | {np.median(move):.0f} | "
              f"{copied:.0%} | {again:.0%} | {step} |", flush=True)


if __name__ == "__main__":
    main()
