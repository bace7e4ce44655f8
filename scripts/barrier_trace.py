"""Experiment (GPU): where a generation (DE) or an iteration (SPSO-2011) goes around its group barrier (issue 14).

Patches kernels/group_sync.cuh's barrier (mw_group_arrive, mw_group_wait; as scripts/exchange_cost.py patches sources; not a
valid benchmark run: the stamps cost a few stores) so that each block's thread 0 stamps %globaltimer
when it enters the barrier (after the block's __syncthreads: the whole block is done) and when it
sees the count complete. For barriers K0 .. K0 + WINDOW - 1 of the launch (TRACE_K0, default 100; the last launch that reaches them wins),
per block; medians over the window, nanoseconds:

- period: successive last arrivals (one iteration: SPSO-2011 has two barriers in it, each row one
  phase; its launch starts with an exchange, so even barriers are the exchange's (after them: the
  partials, the new bests' rows, the next scatter) and odd ones the scatter's (after them: the move));
- spread: the last block's arrival minus the first's (what the slowest block costs every other);
- detect: a block's `seen` minus the last arrival (the count's round trip and the poll);
- work: a block's next arrival minus its `seen` (everything between two barriers; DE's picks drawn
  between the barrier's halves fall before `seen`, outside it);
- work p10 / p90 over blocks (how unevenly the blocks take the same work);
- by blocks a multiprocessor: the blocks' work medians grouped by how many blocks of the launch share
  their multiprocessor (%smid), and the slowest multiprocessors' ids;
- the rank correlation of the blocks' work at successive barriers (whether the same blocks are
  slow every time: 1, or slow by chance: 0), and the work by the block's place among its
  multiprocessor's blocks in launch order (blockIdx).

Then the same cases without stamps, alternating with the stamped ones (what the stamps cost).

Independent groups of one block (e.g. "DE 512x256") have no group barrier: only their arrivals are
stamped, so their period is the same work without any barrier, for comparison.

    [TRACE_VARIANT=V] python3 scripts/barrier_trace.py [case ...]   (default: "DE 131k" "DE 512x256" "SPSO 131k" "SPSO 16k")
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import exchange_cost  # noqa: E402
from kernels import loader  # noqa: E402
from solvers.bench import measure  # noqa: E402

K0 = int(os.environ.get("TRACE_K0", "100"))
WINDOW, BLOCKS = 32, 1024
STAMPS = f"""
#define MW_TRACE_K0 {K0}ull
#define MW_TRACE_WINDOW {WINDOW}ull
#define MW_TRACE_BLOCKS {BLOCKS}u
__device__ unsigned long long mw_trace[MW_TRACE_WINDOW * MW_TRACE_BLOCKS * 2];
__device__ unsigned int mw_trace_sm[MW_TRACE_BLOCKS];
__device__ __forceinline__ unsigned long long mw_now() {{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}}
__device__ __forceinline__ void mw_stamp(unsigned long long k, int which) {{
    if (k >= MW_TRACE_K0 && k < MW_TRACE_K0 + MW_TRACE_WINDOW && blockIdx.x < MW_TRACE_BLOCKS)
        mw_trace[((k - MW_TRACE_K0) * MW_TRACE_BLOCKS + blockIdx.x) * 2 + which] = mw_now();
}}
__device__ __forceinline__ void mw_group_arrive(MwGroupSync& s) {{
    __syncthreads();
    // the barrier's index in this launch (s.passed counts for one-block groups too: unused there)
    const unsigned long long k = s.passed / (unsigned long long)(s.count > 0 ? s.count : 1);
    s.passed += (unsigned long long)s.count;
    if (threadIdx.x == 0) {{
        mw_stamp(k, 0);
        if (k == MW_TRACE_K0 && blockIdx.x < MW_TRACE_BLOCKS) {{
            unsigned int sm;
            asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
            mw_trace_sm[blockIdx.x] = sm;
        }}
    }}
    if (s.count <= 1) return;
    if (threadIdx.x == 0)
        asm volatile("red.release.gpu.global.add.u64 [%0], %1;" : : "l"(s.bar), "l"(1ull) : "memory");
}}
__device__ __forceinline__ void mw_group_wait(const MwGroupSync& s) {{
    if (s.count <= 1) return;
    if (threadIdx.x == 0) {{
        while (mw_acquire(s.bar) < s.passed) {{
        }}
        mw_stamp(s.passed / (unsigned long long)s.count - 1ull, 1);
    }}
    __syncthreads();
}}
__device__ void mw_group_sync(MwGroupSync& s) {{
    mw_group_arrive(s);
    mw_group_wait(s);
}}
"""
ORIGINAL_SYNC = loader.read_text("group_sync.cuh")
_START = ORIGINAL_SYNC.index("__device__ __forceinline__ void mw_group_arrive(MwGroupSync& s) {")
_END = ORIGINAL_SYNC.index("\n}", ORIGINAL_SYNC.index("__device__ void mw_group_sync(MwGroupSync& s) {")) + 2
EDITS = [(ORIGINAL_SYNC[_START:_END], STAMPS)]


def main() -> None:
    import cupy  # noqa: PLC0415
    import numpy as np  # noqa: PLC0415

    names = sys.argv[1:] or ["DE 131k", "DE 512x256", "SPSO 131k", "SPSO 16k"]
    # TRACE_VARIANT: the stamps on top of one of exchange_cost.py's variants (its edits and host settings)
    extra = os.environ.get("TRACE_VARIANT", "")
    exchange_cost.VARIANTS["trace"] = (exchange_cost.VARIANTS[extra] if extra else []) + EDITS
    exchange_cost.HOST["trace"] = exchange_cost.HOST.get(extra, []) if extra else []
    exchange_cost.use("trace")  # edits the whole translation unit, group_sync.cuh included
    if "mw_stamp(k, 0)" not in loader.source("differential_evolution.cu"):
        sys.exit("the stamps did not apply (group_sync.cuh changed?)")
    kept = exchange_cost.keep_loaded()
    print(f"barriers {K0}-{K0 + WINDOW - 1} of the timed launch")
    print("| case | blocks | rate G/s | period ns | spread ns | detect ns | work ns | work p10 / p90 ns |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    notes = []
    for name in names:
        kept.clear()
        case = exchange_cost.CASES[name]
        record = measure(case, "cuda", "float32", False, seed=1, repeats=1)
        # the last launch that reached the window wrote it (the run's launches of a chunk each)
        trace = cupy.ndarray((WINDOW, BLOCKS, 2), dtype=cupy.uint64, memptr=kept[-1].module.get_global("mw_trace"))
        raw = trace.get().astype(np.int64)
        trace.fill(0)  # the next case may load the same module
        sms = cupy.ndarray((BLOCKS,), dtype=cupy.uint32, memptr=kept[-1].module.get_global("mw_trace_sm")).get()
        used = raw[0, :, 0] != 0
        t = raw[:, used, :]
        if t.shape[1] == 0 or (t[:, :, 0] == 0).any():
            print(f"| {name} | no stamps (fewer than {K0 + WINDOW} barriers in the window's launch) |")
            continue
        per = 2 if case.algorithm == "particle_swarm" else 1  # SPSO: the scatter's barrier and the exchange's
        last = t[:, :, 0].max(axis=1)
        for phase in range(per):
            rows = np.arange(phase, WINDOW - per, per)  # barriers of this phase with a next iteration's
            period = np.median(last[rows + per] - last[rows])
            if (t[:, :, 1] != 0).all():
                spread = np.median(last[rows] - t[rows, :, 0].min(axis=1))
                detect = np.median(t[rows, :, 1] - last[rows, None])
                work = t[rows + 1, :, 0] - t[rows, :, 1]  # from this barrier's release to the next arrival
                cells = f"{spread:.0f} | {detect:.0f} |"
            else:  # groups of one block: no barrier, the work is arrival to arrival
                work = t[rows + 1, :, 0] - t[rows, :, 0]
                cells = "- | - |"
            p10, p90 = np.percentile(np.median(work, axis=0), [10, 90])
            label = name if per == 1 else f"{name}, after barrier {phase} of {per}"
            print(f"| {label} | {t.shape[1]} | {record['evals_per_second'] / 1e9:.3f} | {period:.0f} | {cells} "
                  f"{np.median(work):.0f} | {p10:.0f} / {p90:.0f} |", flush=True)
            block_work = np.median(work, axis=0)
            # whether the same blocks are slow barrier after barrier: the rank correlation of the
            # blocks' work at successive barriers (1: the same order every time, 0: drawn afresh)
            ranks = work.argsort(axis=1).argsort(axis=1).astype(float)
            ranks -= ranks.mean(axis=1, keepdims=True)
            persist = float(np.mean([np.dot(a, b) / np.sqrt(np.dot(a, a) * np.dot(b, b))
                                     for a, b in zip(ranks[:-1], ranks[1:])])) if len(ranks) > 1 else float("nan")
            sm = sms[used]
            per_sm = np.bincount(sm, minlength=int(sm.max()) + 1)
            groups = {int(c): block_work[per_sm[sm] == c] for c in np.unique(per_sm[sm])}
            sm_work = {int(s): float(np.median(block_work[sm == s])) for s in np.unique(sm)}
            slow = sorted(sm_work, key=lambda s: -sm_work[s])[:8]
            # by the block's place among its multiprocessor's blocks in launch order (blockIdx):
            # whether the slow ones are the late-launched (the schedulers' priorities) or not
            ids = np.flatnonzero(used)
            place = np.zeros(ids.size, dtype=int)
            for s_ in np.unique(sm):
                on = np.flatnonzero(sm == s_)
                place[on[np.argsort(ids[on])]] = np.arange(on.size)
            by_place = ", ".join(f"{q}: {np.median(block_work[place == q]):.0f} ns ({int((place == q).sum())})"
                                 for q in np.unique(place))
            notes.append(f"{label}: blocks a multiprocessor -> work median (blocks): " + ", ".join(
                f"{c}: {np.median(w):.0f} ns ({w.size})" for c, w in groups.items())
                + f"; slowest multiprocessors {slow} ({', '.join(f'{sm_work[s]:.0f}' for s in slow)} ns)"
                + f"; rank correlation of the blocks' work at successive barriers {persist:.2f}"
                + f"; by place on the multiprocessor in launch order -> work median (blocks): {by_place}")
    for line in notes:
        print(line)
    print("| round | case | stamped G/s | as committed G/s |")
    print("| --- | --- | ---: | ---: |")
    for rnd in range(2):
        for name in names:
            rates = []
            for variant in ("trace", "as committed"):
                exchange_cost.use(variant)
                rates.append(measure(exchange_cost.CASES[name], "cuda", "float32", False, seed=1, repeats=2)["evals_per_second"] / 1e9)
            print(f"| {rnd} | {name} | {rates[0]:.3f} | {rates[1]:.3f} |", flush=True)


if __name__ == "__main__":
    main()
