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
  (pso_exchange's memo) against copying every time;
- SPSO-2011 without the scatter's barrier (float: one barrier an iteration would remain; an upper
  bound again, not a valid run), and DE with 2 or 8 trials built per batch and rows selected per
  batch instead of 4 and 4 (the same numbers: only the order of the loads changes).

    python3 scripts/exchange_cost.py [repeats] [variant,variant,...]   (default: every variant)

EXCHANGE_SEED=S sets every case's seed (default 1, the method's since v6; the benchmark's is 0).
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kernels import loader  # noqa: E402
from solvers.bench import Case, measure  # noqa: E402

ORIGINAL_SOURCE = loader.source
# every case's seed (the method's since v6: 1; EXCHANGE_SEED=0 is the benchmark's)
SEED = int(__import__("os").environ.get("EXCHANGE_SEED", "1"))
KERNEL_FILES = ("particle_swarm.cu", "differential_evolution.cu")  # the files the variants patch
RELEASE = 'asm volatile("red.release.gpu.global.add.u64 [%0], %1;" : : "l"(s.bar), "l"(1ull) : "memory");'
POLL = "while (mw_acquire(s.bar) < s.passed) {\n        }"
RELAXED_POLL = ("for (unsigned long long v = 0; v < s.passed;) {\n"
                "            asm volatile(\"ld.relaxed.gpu.global.u64 %0, [%1];\" : \"=l\"(v) : \"l\"(s.bar) : \"memory\");\n"
                "        }\n        asm volatile(\"fence.acq_rel.gpu;\" : : : \"memory\");")
SCATTER0 = ("            pso_scatter(keys, at.base + p, own_one ? pf_own : Pf[at.base + p], 0, seed, walker0, epoch, K, "
            "at.base,\n                        m, ln.r, ln.L, !SELF_LOCAL);\n        }\n")
# classic PSO at 131,072 (Nsight Compute): DRAM ~1 TB/s, V and P (31 MB) not kept in the 50 MB L2
# from one iteration to the next. The move's V and P accesses with an L2 evict_last policy
# (createpolicy.fractional: that fraction of the lines) - only for the one-swarm 131,072 case, whose
# v and p are global (x alone is in shared memory; ld.global on a shared address would fault).
KEEP = r"""
__device__ __forceinline__ unsigned long long mw_keep_policy() {
    unsigned long long pol;
    asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, FRACTION;" : "=l"(pol));
    return pol;
}
__device__ __forceinline__ float mw_ld_keep(const float* p) {
    float v;
    asm volatile("ld.global.L2::cache_hint.f32 %0, [%1], %2;" : "=f"(v) : "l"(p), "l"(mw_keep_policy()));
    return v;
}
__device__ __forceinline__ double mw_ld_keep(const double* p) {
    double v;
    asm volatile("ld.global.L2::cache_hint.f64 %0, [%1], %2;" : "=d"(v) : "l"(p), "l"(mw_keep_policy()));
    return v;
}
__device__ __forceinline__ void mw_st_keep(float* p, float v) {
    asm volatile("st.global.L2::cache_hint.f32 [%0], %1, %2;" : : "l"(p), "f"(v), "l"(mw_keep_policy()) : "memory");
}
__device__ __forceinline__ void mw_st_keep(double* p, double v) {
    asm volatile("st.global.L2::cache_hint.f64 [%0], %1, %2;" : : "l"(p), "d"(v), "l"(mw_keep_policy()) : "memory");
}
// Classic PSO's new velocity"""


def keep(fraction: str) -> list:
    return [("// Classic PSO's new velocity", KEEP.replace("FRACTION", fraction)),
            ("pso_classic_velocity(*vq, x, *pq, gj,", "pso_classic_velocity(mw_ld_keep(vq), x, mw_ld_keep(pq), gj,"),
            ("    *vq = v;\n    xq += r.xs;", "    mw_st_keep(vq, v);\n    xq += r.xs;")]


def set_aside() -> None:
    """The largest L2 set-aside for persisting accesses this process may have (cudaLimitPersistingL2CacheSize)."""
    import cupy  # noqa: PLC0415

    rt = cupy.cuda.runtime
    most = rt.getDeviceProperties(cupy.cuda.Device().id)["persistingL2CacheMaxSize"]
    rt.deviceSetLimit(0x06, int(most))
    print(f"persisting L2 set-aside: {rt.deviceGetLimit(0x06) / 2**20:.1f} MiB", flush=True)


# variant -> [(text, replacement)] applied to every kernel source that contains the text
VARIANTS = {
    "as committed": [],
    "spso": [],
    "de": [],
    "pso sizes": [],
    "one warp scans": [("if (bps <= 32 * PSO_SCAN_LOADS) {", "if (true) {")],
    "copy every time": [("const bool send = has && !pso_same(blk, memo[parity]);", "const bool send = has;"),
                        ("&& !pso_same(w, memo[2])) {  // uniform", ") {  // uniform")],
    "sc fence barrier": [(RELEASE, "__threadfence();\n        atomicAdd(s.bar, 1ull);")],
    # the barrier's poll: 128-512 blocks' thread 0 spin on one L2 address, slowing the arrivals'
    # adds on it; a short sleep between polls, or relaxed polls and one acquire fence after
    "poll sleeps 32 ns": [(POLL, "while (mw_acquire(s.bar) < s.passed) {\n            __nanosleep(32);\n        }")],
    "poll sleeps 128 ns": [(POLL, "while (mw_acquire(s.bar) < s.passed) {\n            __nanosleep(128);\n        }")],
    "relaxed poll + fence": [(POLL, RELAXED_POLL)],
    "VP evict_last 1.0": keep("1.0"),
    # SPSO's first pass one Philox block at a time (as committed since v8) or two (before): unrolled
    # by two, the pass held two blocks' gathers and normals and ptxas spilled in the scatter
    "spso pass 1 unroll 2": [("            T tc2 = T(0), dir2 = T(0);\n#pragma unroll(PR_ROWS ? 1 : 2)",
                              "            T tc2 = T(0), dir2 = T(0);\n#pragma unroll 2")],
    "spso passes unroll 1": [("            } else {\n#pragma unroll 2", "            } else {\n#pragma unroll 1")],
    "VP evict_last 0.6": keep("0.6"),
    # SPSO-2011 float: the scatter's barrier left out (keys read while other blocks still scatter:
    # an upper bound of what one barrier an iteration could save, not a valid run)
    "spso no scatter barrier": [(SCATTER0 + "        mw_group_sync(sync);\n", SCATTER0)],
    "no exchange but the last": [
        ("        parity ^= 1;\n        if (packed) {", "        parity ^= 1;\n        if (it + 1 < iterations) continue;\n        if (packed) {"),
        # DE: the generation's barrier (two halves) at the last generation alone, counted from zero
        ("MwGroupSync sync = {bars + group, (unsigned long long)gen * (unsigned long long)bpp, bpp};",
         "MwGroupSync sync = {bars + group, 0ull, bpp};"),
        ("        mw_group_arrive(sync);\n        if (AHEAD", "        if (gen + 1 == generations) mw_group_arrive(sync);\n        if (AHEAD"),
        ("        mw_group_wait(sync);\n    }\n", "        if (gen + 1 == generations) mw_group_wait(sync);\n    }\n"),
        ("        if (LANED) {\n            pso_exchange_counted(mine, at, m, parity, ++tag, gslots, sync, &g);",
         "        if (it + 1 < iterations) {\n        } else if (LANED) {\n"
         "            pso_exchange_counted(mine, at, m, parity, ++tag, gslots, sync, &g);"),
    ],
}


# host-side settings a variant needs beside its source edits: (module, attribute, value)
HOST = {"lanes block 512": [("solvers.cuda.particle_swarm", "LANES_MAX_BLOCK", 512)]}
_HOST_DEFAULTS: dict = {}


# Variants whose edits no longer find their text in the kernels (the code they patched has changed
# since they were measured): kept as the record of what was measured, refused by use()
# (tests/test_exchange_cost_variants.py: every other variant's edits apply, and these still do not)
RETIRED = {"spso pass 1 unroll 2", "spso bounds 1 pass 1 unroll 2", "lanes block 512", "PSO block 1024",
           "PSO block 512", "DE picks inline", "DE picks ahead unless last",
           # the twenty-eighth session's pass 1 (PR in tiles, 32-bit offsets, the own row's load first)
           "spso redraw indexed", "spso redraw rows l2", "spso self row", "spso bound own row only",
           "spso bound no rows", "spso own sector", "spso both sectors", "spso tiles self ca", "spso tiles self cg",
           "spso tiles pass 1 ahead",
           # the twenty-ninth session's scatter (ONE: its own branch; the redraw kernel has no scatter barrier)
           "spso no scatter barrier"}


def stale_edits(variant: str) -> list:
    """The first characters of each of a variant's edits whose text is in none of the kernel files."""
    return [old[:60] for old, _ in VARIANTS[variant]
            if not any(old in ORIGINAL_SOURCE(name) for name in KERNEL_FILES)]


def use(variant: str) -> None:
    import importlib  # noqa: PLC0415

    if variant in RETIRED:
        sys.exit(f"variant {variant!r} is retired: its edits no longer apply to the kernels")
    edits = VARIANTS[variant]
    def owner(module, name):  # "Class.attribute" names a class attribute of the module
        obj = importlib.import_module(module)
        for part in name.split(".")[:-1]:
            obj = getattr(obj, part)
        return obj, name.split(".")[-1]

    for (module, name), value in _HOST_DEFAULTS.items():  # undo the last variant's settings
        setattr(*owner(module, name), value)
    for module, name, value in HOST.get(variant, []):
        obj, attr = owner(module, name)
        _HOST_DEFAULTS.setdefault((module, name), getattr(obj, attr))
        setattr(obj, attr, value)

    stale = stale_edits(variant)
    if stale:  # the kernels changed since the variant was written: it would measure the committed code
        print(f"variant {variant!r}: edits no longer apply (kernels changed): {stale}", flush=True)

    def source(name, functor_source=""):
        text = ORIGINAL_SOURCE(name, functor_source)
        for old, new in edits:
            text = text.replace(old, new)
        return text

    loader.source = source
    loader.load.cache_clear()


def keep_loaded(kernel_file: str | None = None) -> list:
    """A list that every module loaded from now on (of `kernel_file`, or any) is appended to, for
    scripts that read a patched kernel's device globals after a run (scripts/exchange_trace.py,
    scripts/barrier_trace.py)."""
    kept: list = []
    original_load = loader.load

    def load(*args, **kwargs):
        ks = original_load(*args, **kwargs)
        if kernel_file is None or (args and args[0] == kernel_file):
            kept.append(ks)
        return ks

    load.cache_clear = original_load.cache_clear
    loader.load = load
    return kept


def pso(n, groups, variant="classic", iterations=2000):
    return Case("particle_swarm", "rastrigin", 30, n // groups, iterations, {"variant": variant, "swarms": groups})


CASES = {
    "PSO 131k": pso(131072, 1),
    "PSO 512x256": pso(131072, 512),
    "PSO 64k": pso(65536, 1),
    "PSO 32k": pso(32768, 1, iterations=4000),
    "PSO 16k": pso(16384, 1, iterations=5000),
    "PSO 64x256": pso(16384, 64, iterations=5000),
    "PSO 1k": pso(1024, 1, iterations=20000),
    "SPSO 131k": pso(131072, 1, "spso2011"),
    "SPSO 512x256": pso(131072, 512, "spso2011"),
    "SPSO 64k": pso(65536, 1, "spso2011"),
    "SPSO 96k": pso(98304, 1, "spso2011"),
    "SPSO 112k": pso(114688, 1, "spso2011"),
    "SPSO 131k d40": Case("particle_swarm", "rastrigin", 40, 131072, 2000, {"variant": "spso2011", "swarms": 1}),
    "SPSO 131k d45": Case("particle_swarm", "rastrigin", 45, 131072, 2000, {"variant": "spso2011", "swarms": 1}),
    "SPSO 16k": pso(16384, 1, "spso2011", iterations=4000),
    "SPSO 64x256": pso(16384, 64, "spso2011", iterations=4000),
    "SPSO 1k": pso(1024, 1, "spso2011", iterations=10000),
    "DE 131k": Case("differential_evolution", "rastrigin", 30, 131072, 2000, {"populations": 1}),
    "DE 512x256": Case("differential_evolution", "rastrigin", 30, 256, 2000, {"populations": 512}),
    "DE 64k": Case("differential_evolution", "rastrigin", 30, 65536, 2000, {"populations": 1}),
    "DE 32k": Case("differential_evolution", "rastrigin", 30, 32768, 4000, {"populations": 1}),
    "DE 16k": Case("differential_evolution", "rastrigin", 30, 16384, 5000, {"populations": 1}),
    "DE 1k": Case("differential_evolution", "rastrigin", 30, 1024, 20000, {"populations": 1}),
}
# the grouped cases have no group barrier: only the one-swarm cases differ between the variants
PER_VARIANT = {"as committed": list(CASES), "pso sizes": ["PSO 131k", "PSO 64k", "PSO 32k"], "one warp scans": ["PSO 131k", "SPSO 131k"],
               "copy every time": ["PSO 131k", "PSO 16k", "PSO 1k"],
               "sc fence barrier": ["PSO 131k", "PSO 16k", "SPSO 131k", "DE 131k"],
               "no exchange but the last": ["PSO 131k", "PSO 16k", "SPSO 131k", "DE 131k"]}
PER_VARIANT["spso pass 1 unroll 2"] = PER_VARIANT["spso passes unroll 1"] = ["SPSO 131k", "SPSO 16k", "SPSO 1k"]
PER_VARIANT["VP evict_last 1.0"] = PER_VARIANT["VP evict_last 0.6"] = ["PSO 131k"]
PER_VARIANT["spso no scatter barrier"] = ["SPSO 131k", "SPSO 16k"]
# classic PSO's lanes kernel in blocks of at most 512 threads: __launch_bounds__(512, 1) lets it use
# 124 registers without spilling (at 1,024 threads it has 64 and spills 44/188 bytes); one block of
# 512 per multiprocessor still holds 16,384 particles x 4 lanes
VARIANTS["lanes block 512"] = [("#define PSO_LANES_MAX_BLOCK 1024", "#define PSO_LANES_MAX_BLOCK 512")]
PER_VARIANT["lanes block 512"] = ["PSO 16k", "PSO 1k"]
# SPSO-2011 with __launch_bounds__(256, 1): registers unconstrained (at 16,384 a swarm has 128 blocks
# of 128 threads, 4 warps a multiprocessor, so occupancy is not what 64 registers buy). Only the
# sizes whose blocks stay resident with that many registers (not 131,072: 4 blocks a multiprocessor)
SPSO_BOUNDS = ("    __global__ void __launch_bounds__(256, 4) NAME(PSO_SPSO_PARAMS) {",
               "    __global__ void __launch_bounds__(256, 1) NAME(PSO_SPSO_PARAMS) {")
VARIANTS["spso bounds 1"] = [SPSO_BOUNDS]
VARIANTS["spso bounds 1 pass 1 unroll 2"] = [SPSO_BOUNDS] + VARIANTS["spso pass 1 unroll 2"]
PER_VARIANT["spso bounds 1"] = PER_VARIANT["spso bounds 1 pass 1 unroll 2"] = ["SPSO 16k", "SPSO 1k"]
# The one swarm / population of 131,072 in fewer, larger blocks: 1,024 threads (128 blocks, one a
# multiprocessor) or 512 (256 blocks), against 512 blocks of 256. The same threads a multiprocessor
# and registers, but a quarter (a half) of the arrivals at every group barrier and of the partials
# each block reads. The shared-memory caps are raised so x stays in shared memory (122 KB a block).
_PSO = "solvers.cuda.particle_swarm"
_DE = "solvers.cuda.differential_evolution"
# (committed since: pso_classic's blocks of up to 1,024; this variant is the tree before, blocks of
# 256 and __launch_bounds__(256, 4), for the sizes between)
VARIANTS["PSO blocks of 256"] = [("__launch_bounds__(PSO_CLASSIC_MAX_BLOCK, 1) pso_classic(",
                                  "__launch_bounds__(256, 4) pso_classic(")]
HOST["PSO blocks of 256"] = [(_PSO, "CLASSIC_MAX_BLOCK", 256)]
PER_VARIANT["PSO blocks of 256"] = ["PSO 131k", "PSO 64k", "PSO 32k"]
for _block, _per_sm in ((1024, 1), (512, 2)):
    _host = [(_PSO, "MAX_BLOCK", _block), (_PSO, "ParticleSwarmCuda.block", _block), (_PSO, "SHARED_MAX", 200 * 1024)]
    VARIANTS[f"PSO block {_block}"] = [("__launch_bounds__(256, 4) pso_classic(",
                                        f"__launch_bounds__({_block}, {_per_sm}) pso_classic(")]
    HOST[f"PSO block {_block}"] = _host
    PER_VARIANT[f"PSO block {_block}"] = ["PSO 131k"]
    VARIANTS[f"SPSO block {_block}"] = [(SPSO_BOUNDS[0], SPSO_BOUNDS[0].replace("(256, 4)", f"({_block}, {_per_sm})"))]
    HOST[f"SPSO block {_block}"] = _host
    PER_VARIANT[f"SPSO block {_block}"] = ["SPSO 131k"]
    VARIANTS[f"DE block {_block}"] = [("__launch_bounds__(256, 4) de_generations(",
                                       f"__launch_bounds__({_block}, {_per_sm}) de_generations(")]
    HOST[f"DE block {_block}"] = [(_DE, "MAX_BLOCK", _block), (_DE, "DifferentialEvolutionCuda.block", _block),
                                  (_DE, "DifferentialEvolutionCuda.scratch_shared_max", 200 * 1024),
                                  (_DE, "DifferentialEvolutionCuda.wide", False)]  # the kernel patched
    PER_VARIANT[f"DE block {_block}"] = ["DE 131k"]
# the committed kernels on fewer cases, for comparing two trees (e.g. a branch's kernel in another
# folder) one process after the other
PER_VARIANT["spso"] = ["SPSO 131k", "SPSO 16k", "SPSO 1k"]
PER_VARIANT["de"] = ["DE 131k", "DE 512x256", "DE 16k", "DE 1k"]
# DE: how many trials a batch builds, and how many rows the selection reads together (8 and 8 as
# committed, 4 and 4 before; ptxas spills are not monotone in either: docs/benchmarks/notes-gpu.md v10)
for _b, _s in ((4, 4), (2, 2), (2, 8), (8, 2), (4, 8), (8, 4), (2, 4), (4, 2), (16, 16), (16, 8), (8, 16)):
    VARIANTS[f"DE build {_b} select {_s}"] = [("#define DE_BUILD_BATCH 8", f"#define DE_BUILD_BATCH {_b}"),
                                              ("#define DE_SELECT_BATCH 8", f"#define DE_SELECT_BATCH {_s}")]
    PER_VARIANT[f"DE build {_b} select {_s}"] = ["DE 131k", "DE 512x256", "DE 16k", "DE 1k"]
    HOST[f"DE build {_b} select {_s}"] = [(_DE, "DifferentialEvolutionCuda.wide", False)]  # the batches patched
for _v in ("poll sleeps 32 ns", "poll sleeps 128 ns", "relaxed poll + fence"):
    PER_VARIANT[_v] = ["PSO 131k", "PSO 16k", "PSO 1k", "SPSO 131k", "DE 131k"]


# Where classic PSO's exchange went at 16,384 and 1,024 (the lanes kernel; 131,072 beside), each an
# upper bound of one part's cost, not a valid run (notes-gpu.md v11; measured on the barrier exchange
# that classic PSO had before its tagged slots, which SPSO keeps: these now patch SPSO's alone,
# but "no f stores"): the group barrier left out (the arrivals' release
# add and the poll; the __syncthreads stay), the arrival without its release fence (a relaxed add),
# the partials not read (each block takes its own best as the swarm's), and the particles' current
# values f never stored (the kernels only write f; only the launch's last write is ever read)
# ("no partial scan", each block taking its own best as the swarm's, measured SPSO's barrier exchange
# before it took the tagged slots, notes-gpu.md v24; removed with it)
VARIANTS["no group barrier"] = [(RELEASE, ""), (POLL, "")]
VARIANTS["relaxed arrive"] = [(RELEASE, RELEASE.replace("red.release.gpu", "red.relaxed.gpu"))]
VARIANTS["no f stores"] = [(" f[i] = fx;", " if (fx != fx) f[i] = fx;")]
for _v in ("no group barrier", "relaxed arrive", "no f stores"):
    PER_VARIANT[_v] = ["PSO 131k", "PSO 16k", "PSO 1k"]
PER_VARIANT["no f stores"] = ["PSO 131k", "PSO 16k", "PSO 1k", "SPSO 131k", "SPSO 16k"]
# classic PSO at 131,072 in 256 blocks of 512 (two a multiprocessor) with the tagged exchange
# (v11): a multiprocessor's other block moves while one exchanges; v10 measured it on the barrier
# exchange (6.2 G/s against 6.8), when arrivals cost a release fence each
VARIANTS["PSO blocks of 512 tagged"] = [("#define PSO_CLASSIC_MAX_BLOCK 1024", "#define PSO_CLASSIC_MAX_BLOCK 512"),
                                         ("__launch_bounds__(PSO_CLASSIC_MAX_BLOCK, 1) pso_classic(",
                                          "__launch_bounds__(PSO_CLASSIC_MAX_BLOCK, 2) pso_classic(")]
HOST["PSO blocks of 512 tagged"] = [(_PSO, "CLASSIC_MAX_BLOCK", 512)]
PER_VARIANT["PSO blocks of 512 tagged"] = ["PSO 131k", "PSO 64k"]
VARIANTS["pso"] = []
PER_VARIANT["pso"] = ["PSO 131k", "PSO 64k", "PSO 16k", "PSO 1k"]
# Classic PSO's exchange done by warp 0 alone between two __syncthreads (v12), against: the kernel
# file of another tree ("pso start kernel": $EXCHANGE_BASE/kernels/particle_swarm.cu, e.g. the
# session's start; its host side is this tree's, whose buffers are a superset of what it reads),
# float's points fenced as double's are (the tags still checked), and float's warp argmins by
# shuffles instead of warp-wide min instructions (reduce.cuh's MW_WARP_REDUX: every kernel's)
_BASE_DIR = Path(__import__("os").environ.get("EXCHANGE_BASE", "baseline")) / "kernels"
# A kernel this tree declares (MW_KERNELS: the loader compiles every name) that the other tree's file
# lacks gets an empty body there; the host asks for it only where this tree's kernel would run (here
# pso_classic_vwarps, which "pso start kernel" turns off with ParticleSwarmCuda.v_warps = 0, and
# pso_spso_redraw, which "spso base unstored" turns off with ParticleSwarmCuda.redraw = False, and
# pso_spso_redraw_one, which "spso redraw base" and "spso base kernel" turn off with
# ParticleSwarmCuda.one_barrier = False)
_STUBS = {"pso_classic_vwarps": "template <typename F, typename T>\n"
                                "__global__ void pso_classic_vwarps(PSO_CLASSIC_PARAMS) {}\n",
          "pso_spso_redraw": "template <typename F, typename T>\n"
                             "__global__ void pso_spso_redraw(PSO_SPSO_PARAMS) {}\n",
          "pso_spso_redraw_one": "template <typename F, typename T>\n"
                                 "__global__ void pso_spso_redraw_one(PSO_SPSO_PARAMS) {}\n"}


def _with_stubs(text: str) -> str:
    return text + "".join(f"\n// exchange_cost.py: declared by this tree only\n{body}"
                          for name, body in _STUBS.items() if name not in text)


VARIANTS["pso start kernel"] = [(loader.read_text(name), _with_stubs((_BASE_DIR / name).read_text())
                                 if name.endswith(".cu") else (_BASE_DIR / name).read_text())
                                for name in ("particle_swarm.cu", "reduce.cuh") if (_BASE_DIR / name).exists()]
VARIANTS["pso fenced points"] = [("struct PsoPointTagged { static const bool value = sizeof(T) == 4; };",
                                  "struct PsoPointTagged { static const bool value = false; };")]
VARIANTS["pso no redux"] = [("#define MW_WARP_REDUX 1", "#define MW_WARP_REDUX 0")]
for _v in ("pso start kernel", "pso fenced points", "pso no redux"):
    PER_VARIANT[_v] = PER_VARIANT["pso"]
# the same kernel files of another tree, measured on the SPSO cases
VARIANTS["spso base kernel"] = VARIANTS["pso start kernel"]
PER_VARIANT["spso base kernel"] = PER_VARIANT["spso"]
HOST["spso base kernel"] = [(_PSO, "ParticleSwarmCuda.one_barrier", False)]  # (a tree before pso_spso_redraw_one)
PER_VARIANT["pso no redux"] = PER_VARIANT["pso"] + ["SPSO 131k", "SPSO 16k", "SPSO 1k", "DE 131k"]
# the slots read by weak L2 loads (ld.global.cg) instead of gpu-scope relaxed ones: whether the strong
# loads are what makes one batch of slot reads take ~0.8 us (exchange_trace.py); the polls still
# reread until the tag is there, but a weak load gives no such guarantee: an experiment, not a fix
VARIANTS["pso cg slots"] = [('asm volatile("ld.relaxed.gpu.global.v4.u32 {%0, %1, %2, %3}, [%4];"',
                             'asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];"')]
PER_VARIANT["pso cg slots"] = PER_VARIANT["pso"]
# SPSO-2011 with lanes (pso_spso_rows_lanes, the automatic choice at 16,384 and 1,024) against a
# thread per particle (pso_spso_rows) and with fewer rounds of G - x and normals kept in registers
# between the passes (PSO_LANE_KEPT; 0: all through Z)
VARIANTS["spso lanes"] = []
VARIANTS["spso one lane"] = []
HOST["spso one lane"] = [(_PSO, "ParticleSwarmCuda.lanes", 1)]
for _kept in (0, 1):
    VARIANTS[f"spso lanes kept {_kept}"] = [("#define PSO_LANE_KEPT 2", f"#define PSO_LANE_KEPT {_kept}")]
for _v in ("spso lanes", "spso one lane", "spso lanes kept 0", "spso lanes kept 1"):
    PER_VARIANT[_v] = ["SPSO 16k", "SPSO 1k"]
# DE with every individual's r1, r2, r3 moved into its own block's 256 rows (bits 8 up taken from
# the individual's index; not distinct from it any more, nor the algorithm: a bound, not a valid
# run): what the population's rows being read across the whole L2 (written by other multiprocessors
# in the last generation) costs against reading rows the same block wrote, as "DE 512x256" does,
# with the generation barrier among 512 blocks still in place
_PICKS = "                de_distinct(r, m, il, r1, r2, r3);\n"
VARIANTS["DE local picks"] = [(_PICKS, _PICKS + "                r1 = (r1 & 255) | (il & ~255);\n"
                                       "                r2 = (r2 & 255) | (il & ~255);\n"
                                       "                r3 = (r3 & 255) | (il & ~255);\n")]
PER_VARIANT["DE local picks"] = ["DE 131k", "DE 16k"]
# DE's two kernels forced (the host picks de_generations_wide from WIDE_WARPS_PER_SM warps a
# multiprocessor on): trials built and rows selected 4 at a time against 8 (notes-gpu.md v14)
VARIANTS["DE wide"] = []
VARIANTS["DE narrow"] = []
HOST["DE wide"] = [(_DE, "DifferentialEvolutionCuda.wide", True)]
HOST["DE narrow"] = [(_DE, "DifferentialEvolutionCuda.wide", False)]
# and the differential_evolution.cu of another tree ($EXCHANGE_BASE, e.g. the session's start), run
# as its de_generations (this tree's host side, the narrow kernel's name)
# (a de_generations_wide appended that runs the old body, since this tree's loader names it)
_OLD_WIDE = """
template <typename F, typename T>
__global__ void __launch_bounds__(256, 4) de_generations_wide(DE_GENERATIONS_PARAMS) {
    de_generations_run<F, T, false>(DE_GENERATIONS_ARGS);
}
"""
VARIANTS["DE start kernel"] = [(loader.read_text("differential_evolution.cu"),
                                (_BASE_DIR / "differential_evolution.cu").read_text() + _OLD_WIDE)] \
    if (_BASE_DIR / "differential_evolution.cu").exists() else []
HOST["DE start kernel"] = HOST["DE narrow"]
# the locality bound again (each individual's r1, r2, r3 within its own block's rows), on the wide kernel
VARIANTS["DE wide local picks"] = VARIANTS["DE local picks"]
HOST["DE wide local picks"] = HOST["DE wide"]
PER_VARIANT["DE wide local picks"] = ["DE 131k"]
for _v in ("DE wide", "DE narrow", "DE start kernel"):
    PER_VARIANT[_v] = ["DE 131k", "DE 512x256", "DE 64k", "DE 32k", "DE 16k", "DE 1k"]
# DE drawing the next generation's picks between the halves of the barrier (v15), against: the
# differential_evolution.cu of another tree as it is ($EXCHANGE_BASE, e.g. the session's start; the
# host picks the kernel as in this tree), the same code with the picks drawn at the tile's start
# ("inline": what the restructuring alone does to the registers), and the picks drawn ahead only by
# blocks that did not arrive last (thread 0's add returns the count: the last block opens the
# barrier, so its drawing ahead would delay its own next generation by as much)
VARIANTS["DE"] = []
VARIANTS["DE base kernel"] = [(loader.read_text("differential_evolution.cu"),
                               (_BASE_DIR / "differential_evolution.cu").read_text())] \
    if (_BASE_DIR / "differential_evolution.cu").exists() else []
HOST["DE base kernel"] = [(_DE, "DifferentialEvolutionCuda.wide_block", 256)]  # its wide kernel's bounds, (256, 4)
_AHEAD = "        if (gen + 1 < generations && wg < tiles) {  // warp-uniform\n"
_TAKE = "            if (tile == wg && gen > 0) {  // warp-uniform\n"
VARIANTS["DE picks inline"] = [(_AHEAD, _AHEAD.replace("if (gen", "if (false && gen")),
                               (_TAKE, _TAKE.replace("if (tile", "if (false && tile"))]
_EARLY = """
// (variant) the first half of the barrier, telling the block whether it arrived before the last
__device__ __forceinline__ bool de_arrive_early(MwGroupSync& s, int* early) {
    __syncthreads();
    if (s.count <= 1) return true;
    s.passed += (unsigned long long)s.count;
    if (threadIdx.x == 0) {
        unsigned long long old;
        asm volatile("atom.release.gpu.global.add.u64 %0, [%1], %2;" : "=l"(old) : "l"(s.bar), "l"(1ull) : "memory");
        *early = old + 1ull < s.passed;
    }
    __syncthreads();
    return *early != 0;
}
"""
VARIANTS["DE picks ahead unless last"] = [
    ("// `generations` generations of populations", _EARLY + "// `generations` generations of populations"),
    ("    const unsigned int rbytes = (unsigned int)d * sizeof(T);\n",
     "    const unsigned int rbytes = (unsigned int)d * sizeof(T);\n    __shared__ int de_early;\n"),
    (_TAKE, _TAKE.replace("gen > 0)", "gen > 0 && de_early)")),
    ("        mw_group_arrive(sync);\n" + _AHEAD,
     "        const bool early = de_arrive_early(sync, &de_early);\n" + _AHEAD.replace("if (gen", "if (early && gen")),
]
for _v in ("DE", "DE base kernel", "DE picks inline", "DE picks ahead unless last"):
    PER_VARIANT[_v] = ["DE 131k", "DE 512x256", "DE 64k", "DE 32k", "DE 16k", "DE 1k"]

# DE's next picks drawn by each warp as soon as its tile is done, before the block's __syncthreads
# (while the block's other warps still work), instead of by the whole block after it arrived
# (v15: measured under barrier_trace.py only, slower: the block's last warp draws on the critical path;
# v32, without the trace, H100: 131,072 6.02 -> 5.68-5.71 G/s, 65,536 4.78-4.80 -> 4.37, 16,384 1.90 ->
# 1.79-1.80, 1,024 124 -> 118-119 M/s, 512 x 256 level; the same numbers, 51 DE digests identical)
VARIANTS["DE picks before arrive"] = [
    ("        mw_group_arrive(sync);\n        if (AHEAD && gen + 1", "        if (AHEAD && gen + 1"),
    ("        }\n        mw_group_wait(sync);\n    }\n    // the launch's best",
     "        }\n        mw_group_arrive(sync);\n        mw_group_wait(sync);\n    }\n    // the launch's best")]
PER_VARIANT["DE picks before arrive"] = ["DE 131k", "DE 512x256", "DE 64k", "DE 32k", "DE 16k", "DE 1k"]
# DE's crossover decided on 16-bit halves (a generator change, measured and dropped in the thirty-second
# session, notes-gpu.md v33): gene j's U is half j & 1 of word (j >> 1) & 3 of crossover block j >> 3,
# 8 genes a Philox block in float and double (1 + ceil(d / 8) blocks a generation: 5 instead of 9 at
# d = 30 in float) where 24- and 53-bit uniforms took 4 and 2; the bounce stream unchanged. H100,
# seed 1: 131,072 6.28-6.32 -> 6.35-6.39 G/s, 512 x 256 7.17-7.22 -> 7.46-7.51, 64k 4.82-4.85 ->
# 4.79-4.81, 32k 3.40-3.42 -> 3.38-3.39, 16k 1.89-1.90 -> 1.87-1.88, 1k level; the bench's 131,072
# 6.29-6.31 -> 6.38-6.39 and 16,384 1.90 -> 1.86; quality: scripts/de_crossover_quality.py. The numba
# engine was not changed with it (the variant is the cuda engine's only).
_DE_SOURCE = loader.read_text("differential_evolution.cu")
_CROSS = _DE_SOURCE[_DE_SOURCE.find("// The crossover test U(0, 1) <= Cr decided"):
                    _DE_SOURCE.find("// One individual's draws for the tile")]
VARIANTS["DE crossover halves"] = [
    (_CROSS, "// The crossover test U(0, 1) <= Cr on 16-bit uniforms (issue 14): gene j's U is half j & 1 (low,\n// high) of word (j >> 1) & 3 of its chunk's crossover block j >> 3, U = h 2^-16, so one Philox block\n// decides 8 genes (4 blocks a chunk of 32) in float and double alike, where 24- and 53-bit uniforms\n// took 8 and 16. A Bernoulli(Cr) decision needs no more bits: Cr is rounded down to a multiple of\n// 2^-16 (the passing probability is off by less than 2^-16; the halves' statistics: the parked\n// tests of notes-gpu.md v33). Decided on the integer itself, exactly as the float compare would: h 2^-16\n// <= Cr exactly when h <= floor(Cr 2^16) (a scaling by a power of two), one compare a gene.\n#define DE_CROSS_PER_BLOCK 8\ntemplate <typename T> struct DeCross {\n    unsigned int most;  // a word w's high half passes when w <= most (and `any`): (floor(Cr 2^16) << 16) | 0xFFFF\n    bool any;           // false: no uniform passes (Cr < 0 or NaN)\n    __device__ explicit DeCross(T Cr) {\n        const T c = Cr * T(65536);\n        any = c >= T(0);\n        const T cc = any ? c : T(0);  // no conversion of a NaN or a negative\n        const unsigned int h = cc >= T(65535) ? 65535u : (unsigned int)cc;  // halves 0 .. h pass\n        most = (h << 16) | 0xFFFFu;\n    }\n    __device__ __forceinline__ bool low(unsigned int w) const { return (w << 16) <= most; }\n    __device__ __forceinline__ bool high(unsigned int w) const { return w <= most; }\n};\n\n// The 8 genes one crossover block decides, as bits 0-7 (gene 2q: word q's low half, 2q + 1: its high)\ntemplate <typename T>\n__device__ __forceinline__ unsigned int de_cross_bits(const MwWords& r, const DeCross<T>& cross) {\n    unsigned int bits = 0u;\n#pragma unroll\n    for (int q = 0; q < 4; ++q) {\n        const unsigned int w = mw_word(r, q);\n        bits |= (cross.low(w) ? 1u : 0u) << (2 * q);\n        bits |= (cross.high(w) ? 1u : 0u) << (2 * q + 1);\n    }\n    return bits;\n}\n\n// The genes j_lo .. j_lo + n - 1 (n <= 32, j_lo a multiple of 32) of one individual taken from the\n// mutant, as bits j - j_lo: U(0, 1) <= Cr, or j = j_rand (`jr_bit`: its bit, 0 outside the chunk).\n// `draw`: the chunk's first crossover block. Blocks unrolled, so every bit position is a constant.\ntemplate <typename T>\n__device__ __forceinline__ unsigned int de_cross_mask(const MwRng& rng, unsigned long long draw, int n,\n                                                      unsigned int jr_bit, const DeCross<T>& cross) {\n    const int G = DE_CROSS_PER_BLOCK;\n    unsigned int mask = 0u;\n    if (n > 32 - G) {  // all four blocks (d >= 25): no branch per block\n#pragma unroll\n        for (int b = 0; b < 32 / G; ++b) mask |= de_cross_bits(rng(draw + (unsigned long long)b), cross) << (b * G);\n    } else {\n#pragma unroll\n        for (int b = 0; b < 32 / G; ++b)\n            if (b * G < n) mask |= de_cross_bits(rng(draw + (unsigned long long)b), cross) << (b * G);\n    }\n    mask = (cross.any ? mask : 0u) | jr_bit;\n    return n < 32 ? mask & ((1u << n) - 1u) : mask;\n}\n\n"),
    ("""    const unsigned long long cross_blocks = (unsigned long long)((d + P - 1) / P);
    const unsigned long long per_gen = 1 + cross_blocks;""",
     """    const unsigned long long per_gen = 1 + (unsigned long long)((d + DE_CROSS_PER_BLOCK - 1) / DE_CROSS_PER_BLOCK);
    const unsigned long long cross_blocks = (unsigned long long)((d + P - 1) / P);  // the bounce stream's"""),
    ("t * per_gen + 1 + (unsigned long long)(j_lo / P)", "t * per_gen + 1 + (unsigned long long)(j_lo / DE_CROSS_PER_BLOCK)"),
] if _CROSS else []
PER_VARIANT["DE crossover halves"] = ["DE 131k", "DE 512x256", "DE 64k", "DE 32k", "DE 16k", "DE 1k"]
# DE's wide kernel in blocks of 256, four a multiprocessor (before v15), against one block of 1,024
# threads a multiprocessor (WIDE_MAX_BLOCK): barrier_trace.py found the four blocks of a
# multiprocessor finishing in launch order every generation (the schedulers favour the older
# warps), the youngest ~5 us after the oldest; one block is one age
VARIANTS["DE blocks of 256"] = []
HOST["DE blocks of 256"] = [(_DE, "DifferentialEvolutionCuda.wide_block", 256)]
PER_VARIANT["DE blocks of 256"] = ["DE 131k"]

# classic PSO's lanes kernel drawing each move's Philox blocks during the exchange before it (warps
# 1.. while warp 0 exchanges; PSO_DRAWS_SHARED, committed as 33422df) against
# the move drawing them (draws_ahead False)
VARIANTS["pso draws ahead"] = []
VARIANTS["pso draws in the move"] = []
HOST["pso draws in the move"] = [(_PSO, "ParticleSwarmCuda.draws_ahead", False)]
for _v in ("pso draws ahead", "pso draws in the move"):
    PER_VARIANT[_v] = ["PSO 16k", "PSO 1k", "PSO 32k", "PSO 64x256"]

# DE copying a rejected trial's target row into the next buffer only where that buffer's row is
# stale (the trial two generations back was taken), against main's kernel ($EXCHANGE_BASE, the host
# as in this tree) and the same kernel copying every rejected row (as before)
VARIANTS["DE skip unchanged"] = []
VARIANTS["DE main kernel"] = [(loader.read_text("differential_evolution.cu"),
                               (_BASE_DIR / "differential_evolution.cu").read_text())] \
    if (_BASE_DIR / "differential_evolution.cu").exists() else []
VARIANTS["DE copy every row"] = [("            if (one_tile) stale = taken;\n", "")]
VARIANTS["DE skip trial read if taken"] = [("if (live) trial[u] = in[u];", "if (live && (tk || LAST)) trial[u] = in[u];")]
for _v in ("DE skip unchanged", "DE main kernel", "DE copy every row", "DE skip trial read if taken"):
    PER_VARIANT[_v] = ["DE 131k", "DE 512x256", "DE 64k", "DE 32k", "DE 16k", "DE 1k"]

# the barrier's poll by relaxed loads (no L1 invalidation per poll: an acquire load invalidates the
# multiprocessor's whole L1, local memory included, so every poll of an early block wipes the spilled
# values of the blocks still working on that multiprocessor), then one acquire load
_ACQ_POLL = "        while (mw_acquire(s.bar) < s.passed) {\n        }\n"
VARIANTS["relaxed poll + acquire"] = [(_ACQ_POLL,
    "        for (unsigned long long v = 0; v < s.passed;) {\n"
    "            asm volatile(\"ld.relaxed.gpu.global.u64 %0, [%1];\" : \"=l\"(v) : \"l\"(s.bar) : \"memory\");\n"
    "        }\n        (void)mw_acquire(s.bar);\n")]
PER_VARIANT["relaxed poll + acquire"] = ["PSO 131k", "PSO 16k", "SPSO 131k", "SPSO 16k", "DE 131k", "DE 512x256", "DE 16k", "DE 1k"]

# the barrier's poll spaced by __nanosleep: 512 blocks polling one counter, each poll an L2 round
# trip to the one slice that holds it (and the rows homed there); does the traffic slow the blocks
# still working?
for _ns in (200, 1000):
    VARIANTS[f"poll nanosleep {_ns}"] = [(_ACQ_POLL, _ACQ_POLL.replace(
        "{\n        }\n", "{\n            __nanosleep(%d);\n        }\n" % _ns))]
    PER_VARIANT[f"poll nanosleep {_ns}"] = ["PSO 131k", "PSO 16k", "SPSO 131k", "SPSO 16k", "DE 131k", "DE 64k", "DE 16k"]
VARIANTS["barrier cases"] = []
PER_VARIANT["barrier cases"] = PER_VARIANT["poll nanosleep 200"]

# SPSO-2011 where G - x is not stored (pso_spso: swarms whose rows pass half the L2, 65,536 and
# 131,072 on an H100): the normals drawn again in pass 2 (Philox and Box-Muller twice, as before
# issue 14's v-series stored them) instead of written to Z in pass 1 and read back: ~31 MB less
# traffic an iteration at 131,072 (of ~140 MB, past the L2), for one more Box-Muller a coordinate pair
VARIANTS["spso normals again"] = [
    ("                        Z[(long long)j * n + i] = z[q];  // for pass 2: no second Philox + Box-Muller\n",
     "                        if (TC_ROWS) Z[(long long)j * n + i] = z[q];  // for pass 2: no second Philox + Box-Muller\n"),
    ("                    T pl[4];\n                    pso_gather<PR_ROWS>(li, j0, n, d, pl);\n#pragma unroll\n"
     "                    for (int q = 0; q < NP; ++q) {\n                        const int j = j0 + q;\n"
     "                        if (j < d) {\n                            T x = *xq;\n"
     "                            const T tc = coef * (*pq + pl[q] - T(2) * x);\n"
     "                            const T zj = *zq;\n                            zq += n;\n",
     "                    T pl[4], zz[4];\n                    pso_gather<PR_ROWS>(li, j0, n, d, pl);\n"
     "                    pso_normals(rng(t * per_iter + (unsigned long long)(j0 / NP)), zz);\n#pragma unroll\n"
     "                    for (int q = 0; q < NP; ++q) {\n                        const int j = j0 + q;\n"
     "                        if (j < d) {\n                            T x = *xq;\n"
     "                            const T tc = coef * (*pq + pl[q] - T(2) * x);\n"
     "                            const T zj = zz[q];\n"),
]
# the same with pass 2 one Philox block at a time (unrolled by two it holds two blocks' normals)
_P2 = ("            } else {\n#pragma unroll 2\n                for (int j0 = 0; j0 < d; j0 += NP) {\n"
       "                    T pl[4];\n                    pso_gather<PR_ROWS>(li, j0, n, d, pl);\n")
VARIANTS["spso normals again unroll 1"] = [(_P2, _P2.replace("#pragma unroll 2", "#pragma unroll 1"))] \
    + VARIANTS["spso normals again"]
VARIANTS["spso large"] = []  # the committed kernels on the sizes that run pso_spso
for _v in ("spso large", "spso normals again", "spso normals again unroll 1"):
    PER_VARIANT[_v] = ["SPSO 131k", "SPSO 64k"]


# pso_classic with the v of a block's first warps in shared memory beside x (V_WARPS_SHIFT; the host's
# ParticleSwarmCuda.v_warps: at most that many, 0 none), on the sizes whose blocks hold x alone
VARIANTS["pso v warps"] = []
PER_VARIANT["pso v warps"] = ["PSO 131k", "PSO 512x256", "PSO 64k", "PSO 32k", "PSO 16k", "PSO 1k"]
for _warps in (0, 16, 24):
    VARIANTS[f"pso v warps {_warps}"] = []
    HOST[f"pso v warps {_warps}"] = [(_PSO, "ParticleSwarmCuda.v_warps", _warps)]
    PER_VARIANT[f"pso v warps {_warps}"] = PER_VARIANT["pso v warps"]
HOST["pso start kernel"] = [(_PSO, "ParticleSwarmCuda.v_warps", 0)]  # a kernel that has no v part


def _old_coefficients(text: str) -> list:
    """The host setting another tree's particle_swarm.cu needs: one from before v20 (no
    PsoCoefficients) draws two coordinates' r_p, r_g a Philox block in float, and the lanes'
    draws made during the exchange need that much shared memory (sized by this tree's host for
    four, the old kernel overran it: cudaErrorIllegalAddress)."""
    return [] if "PsoCoefficients" in text else [(_PSO, "CLASSIC_PER_BLOCK", {4: 2, 8: 1})]


if (_BASE_DIR / "particle_swarm.cu").exists():
    HOST["pso start kernel"] += _old_coefficients((_BASE_DIR / "particle_swarm.cu").read_text())
PER_VARIANT["pso start kernel"] = PER_VARIANT["pso v warps"]
# (SPSO-2011's pso_spso with the v of 6 of its 8 warps shared, "spso v warps", measured level with
# main's kernel: 1.94-1.97 against 1.94 G/s at 131,072, notes-gpu.md v19; the variant is gone with
# the host's ParticleSwarmCuda.v_warps_kernels, the warps now a kernel of their own)
# whether a kernel's opt-in dynamic shared memory attribute, once raised (resident.allow_shared only
# raises it), slows a later launch that needs less: the start kernel with the attribute at the
# device's opt-in limit before every launch shape (pso v warps 0 had run 7% slower than the start
# kernel after pso v warps had raised it in the same process)


def _allow_most(kernel, shared_bytes):
    from solvers.cuda.resident import allow_shared, shared_optin  # noqa: PLC0415

    allow_shared(kernel, shared_optin() - max(1024, int(getattr(kernel, "shared_size_bytes", 0))))


VARIANTS["pso start kernel most shared"] = VARIANTS["pso start kernel"]
HOST["pso start kernel most shared"] = HOST["pso start kernel"] + [(_PSO, "allow_shared", _allow_most)]
PER_VARIANT["pso start kernel most shared"] = ["PSO 131k", "PSO 512x256", "PSO 32k"]
# other versions of particle_swarm.cu beside this tree's, one folder each under $EXCHANGE_ALT (default
# alt/): variant "pso alt NAME" (the automatic v warps) and "pso alt NAME 0" (none), same cases
_ALT = Path(__import__("os").environ.get("EXCHANGE_ALT", "alt"))
for _dir in sorted(_ALT.glob("*/particle_swarm.cu")) if _ALT.is_dir() else []:
    _edit = [(loader.read_text("particle_swarm.cu"), _dir.read_text())]
    VARIANTS[f"pso alt {_dir.parent.name}"] = _edit
    VARIANTS[f"pso alt {_dir.parent.name} 0"] = _edit
    HOST[f"pso alt {_dir.parent.name}"] = _old_coefficients(_dir.read_text())
    HOST[f"pso alt {_dir.parent.name} 0"] = [(_PSO, "ParticleSwarmCuda.v_warps", 0)] + _old_coefficients(_dir.read_text())
    PER_VARIANT[f"pso alt {_dir.parent.name}"] = PER_VARIANT[f"pso alt {_dir.parent.name} 0"] = PER_VARIANT["pso v warps"]
    # "spso one alt NAME": that file's one-barrier kernel forced at SPSO-2011's sizes (notes-gpu.md v31)
    VARIANTS[f"spso one alt {_dir.parent.name}"] = _edit
    HOST[f"spso one alt {_dir.parent.name}"] = [(_PSO, "ParticleSwarmCuda.one_barrier", True)]
    PER_VARIANT[f"spso one alt {_dir.parent.name}"] = ["SPSO 131k", "SPSO 112k", "SPSO 96k"]
# Thirty-first session (notes-gpu.md v32), four files under alt/ (not kept; rebuilt from the notes'
# descriptions): start (dfab090), mine (the block's reduction fed the thread's best made again from
# its particle's), early (mine + each thread's scatter right after its move: committed), word (early +
# the block's best by warp minima into a shared word, no mw_block_argmin). H100, 131,072 / 114,688 /
# 98,304, seed 1: 3.86-3.87 / 3.59 / 3.69-3.71, 4.00 / 3.66-3.67 / 3.73, 3.99-4.01 / 3.73-3.77 /
# 3.72-3.74, 3.98-3.99 / 3.74-3.75 / 3.76; seed 0 (EXCHANGE_SEED=0): 3.97-3.98, 4.06-4.12, 4.12-4.14,
# 4.13 at 131,072



# (Classic PSO's r_p and r_g from the two 16-bit halves of a Philox word, measured here as variants
# "pso halves" and "pso halves unroll 1" before they went into the kernel: notes-gpu.md v20. The
# stream before them is "pso start kernel" with EXCHANGE_BASE holding the older tree.)
PER_VARIANT["pso"] = PER_VARIANT["pso"] + ["PSO 512x256"]

# Classic PSO's lanes with the halves (v20: 8 Philox blocks a move at d = 30, 2 a lane with 4 lanes):
# whether the lane count measured before the halves (LANES_BY_PARTICLES_PER_SM: 4 at 16,384, 8 at
# 1,024) and the lanes' rounds unrolled by two still fit
for _lanes in (2, 8):
    VARIANTS[f"pso lanes {_lanes}"] = []
    HOST[f"pso lanes {_lanes}"] = [(_PSO, "ParticleSwarmCuda.lanes", _lanes)]
VARIANTS["pso lanes 4"] = []
HOST["pso lanes 4"] = [(_PSO, "ParticleSwarmCuda.lanes", 4)]
# ("pso lane rounds unroll 1", the lanes' rounds one at a time, measured 16,384 2.90-2.93 -> 3.10-3.11
# G/s in call 7 of the nineteenth session: now the kernel's form for float, notes-gpu.md v20)
for _v in ("pso lanes 2", "pso lanes 4", "pso lanes 8"):
    PER_VARIANT[_v] = ["PSO 16k", "PSO 1k", "PSO 64x256"]

# pso_classic_vwarps (131,072, 2% under 8 G/s after v20) with the next Philox block drawn while the
# current block's four coordinates move: a second chain in flight as the unrolled loop had, with one
# block's words (4 registers) live instead of a second body (unrolled by two it spilled 132/164 bytes).
# Measured in v21: 131,072 7.71-7.78 -> 7.26-7.28 G/s (ptxas 80/140 bytes of spills against 64/24)
_MOVE_LOOP = """#pragma unroll((VWARPS && sizeof(T) == 4) ? 1 : 2)
                for (int j0 = 0; j0 < d; j0 += C, ++draw) {
                    const MwWords w = rng(draw);
#pragma unroll
                    for (int q = 0; q < C; ++q) {"""
VARIANTS["pso vwarps next draw"] = [(_MOVE_LOOP, """                MwWords w = rng(draw);  // (unused but in the v warps' float kernel: Philox is pure)
#pragma unroll((VWARPS && sizeof(T) == 4) ? 1 : 2)
                for (int j0 = 0; j0 < d; j0 += C, ++draw) {
                    const MwWords now = (VWARPS && sizeof(T) == 4) ? w : rng(draw);
                    if (VWARPS && sizeof(T) == 4 && j0 + C < d) w = rng(draw + 1);  // in flight during this block's moves
#pragma unroll
                    for (int q = 0; q < C; ++q) {"""), ("pso_classic_step(w, q, g_own[j], lower[j], upper[j], omega, phi_p, phi_g, lr,\n"
                                                        "                                                      rr, xq, vq, pq)",
                                                        "pso_classic_step(now, q, g_own[j], lower[j], upper[j], omega, phi_p, phi_g, lr,\n"
                                                        "                                                      rr, xq, vq, pq)")]
PER_VARIANT["pso vwarps next draw"] = ["PSO 131k", "PSO 512x256", "PSO 64k"]

# SPSO-2011's pso_spso (G - x not stored: 65,536 and up on an H100): pass 1 also folds w v + (G - x)
# into v, so pass 2 reads v and the normal and adds the sphere's step, instead of gathering the
# informant's row and p again (the profile: 23% of pso_spso's samples waiting on pass 2's
# `tc = coef * (p + l - 2 x)` loads). The same arithmetic (w v + tc, then + scale z): the same numbers
# if the compiler contracts both forms alike (variant_digests.py checks)
VARIANTS["spso v folds"] = [
    ("                        if (TC_ROWS) Z[(long long)(d + j) * n + i] = tc;  // nor a second gather of l's point\n",
     "                        if (TC_ROWS) Z[(long long)(d + j) * n + i] = tc;  // nor a second gather of l's point\n"
     "                        else {\n"
     "                            T* vj = r.v + (long long)j * r.vs;\n"
     "                            *vj = w * *vj + tc;\n"
     "                        }\n"),
    ("                    T pl[4];\n                    pso_gather<PR_ROWS>(li, j0, n, d, pl);\n#pragma unroll\n"
     "                    for (int q = 0; q < NP; ++q) {\n                        const int j = j0 + q;\n"
     "                        if (j < d) {\n                            T x = *xq;\n"
     "                            const T tc = coef * (*pq + pl[q] - T(2) * x);\n"
     "                            const T zj = *zq;\n                            zq += n;\n"
     "                            T v = w * *vq + tc + scale * zj;\n",
     "#pragma unroll\n"
     "                    for (int q = 0; q < NP; ++q) {\n                        const int j = j0 + q;\n"
     "                        if (j < d) {\n                            T x = *xq;\n"
     "                            const T zj = *zq;\n                            zq += n;\n"
     "                            T v = *vq + scale * zj;\n"),
]
PER_VARIANT["spso v folds"] = ["SPSO 131k", "SPSO 512x256", "SPSO 64k"]
PER_VARIANT["spso large"] = PER_VARIANT["spso v folds"]


# (SPSO-2011's normals made between the halves of the scatter's barrier and drawn again in pass 2:
# variants "spso v21", "spso ahead 0", "spso again 0" on branch spso-normals-ahead; measured slower at
# 16,384, 1,024, 65,536 and 512 x 256, +4% at 131,072 alone, notes-gpu.md v21.)
# (A swarm spread over more blocks than it needs full ones, evening out the multiprocessors' work:
# variants "pso fill", "pso fill 0", "pso fill align 8/32", "pso fill scan 5", "pso fill base" on
# branch pso-fill-multiprocessors; measured slower at every size, notes-gpu.md v21.)


# particle_swarm.cu with the library's cospif (MW_COSPI_LIBRARY=1, its setting until v21) instead of
# the lean one (common.cuh mw_cospif_precise, bit for bit the library's; boxed where the problem's box
# allows): measured as "pso lean cospi" in v21, +5% at 131,072 and 65,536, now the kernels' form
VARIANTS["pso library cospi"] = [("// ---- common.cuh ----", "#define MW_COSPI_LIBRARY 1\n// ---- common.cuh ----")]
PER_VARIANT["pso library cospi"] = ["PSO 131k", "PSO 512x256", "PSO 64k", "PSO 16k", "PSO 1k", "SPSO 131k", "SPSO 16k",
                                    "SPSO 1k"]

# SPSO-2011 where p is not in shared memory: pso_spso_redraw (the tree's choice: p from the own PR
# row, w v + (G - x) in v's place, the normals drawn again, no Z) against pso_spso ("spso no redraw",
# "spso base unstored": the kernel file of $EXCHANGE_BASE), its first pass's addresses indexed instead
# of running, its second pass unrolled by two, and G - x stored (pso_spso_rows, "spso rows")
_SPSO_UNSTORED = ["SPSO 131k", "SPSO 96k", "SPSO 64k"]
_PASS1_RUNNING = [("                            const T x = *x1;",
                   "                            const T x = r.x[(long long)(j0 + q) * r.xs];"),
                  ("                            *v1 = w * *v1 + tc;",
                   "                            r.v[(long long)(j0 + q) * r.vs] = w * r.v[(long long)(j0 + q) * r.vs] + tc;")]
VARIANTS["spso redraw"] = []
VARIANTS["spso no redraw"] = []
HOST["spso no redraw"] = [(_PSO, "ParticleSwarmCuda.redraw", False)]
VARIANTS["spso redraw indexed"] = _PASS1_RUNNING
VARIANTS["spso redraw pass 2 unroll 2"] = [("#pragma unroll 1\n                    for (int j0 = 0; j0 < d; j0 += NP) {\n                        T z[4];",
                                            "#pragma unroll 2\n                    for (int j0 = 0; j0 < d; j0 += NP) {\n                        T z[4];")]
VARIANTS["spso rows"] = []
HOST["spso rows"] = [(_PSO, "ParticleSwarmCuda.tc_rows", True)]
VARIANTS["spso base unstored"] = VARIANTS["spso base kernel"]
HOST["spso base unstored"] = HOST["spso no redraw"]
for _v in ("spso redraw", "spso no redraw", "spso redraw indexed", "spso redraw pass 2 unroll 2", "spso rows",
           "spso base unstored"):
    PER_VARIANT[_v] = _SPSO_UNSTORED

# (Measured in call 1 of the twenty-second session, notes-gpu.md v23, on forms since removed: the
# library's sincospif for the angle "spso sincospi", the lean one "spso sincospi lean" (kept), the
# redraw kernel's first pass with the radii alone "spso radii lean", and the v of a redraw block's first
# warps beside x "spso vwarps" (host flag ParticleSwarmCuda.spso_v_warps): no gain at 131,072.)

# SPSO-2011's normals and sums (notes-gpu.md v23): the angle's cosine and sine by the lean sincospi of
# 2 u2 and |G - x|^2, |direction|^2 summed a Philox block at a time (this tree: a generator change)
# against the kernel file of $EXCHANGE_BASE with this tree's normals ("spso start redraw") and with
# the normals before (cos and sin of the rounded angle 2 pi u2: "spso start"); the small swarms' kernels
# (P's columns) with their first pass one block at a time ("spso local unroll 1")
_NORMAL_NOW = """    T s, c;
    mw_sincospi_boxed(u2 + u2, &s, &c);
    z0 = r * c;
    z1 = r * s;"""
_NORMAL_BEFORE = """    const T a = T(2 * MW_PI) * u2;
    z0 = r * mw_cos(a);
    z1 = r * mw_sin(a);"""
_ALL_SPSO = ["SPSO 131k", "SPSO 512x256", "SPSO 96k", "SPSO 64k", "SPSO 16k", "SPSO 64x256", "SPSO 1k"]
VARIANTS["spso tree"] = []
VARIANTS["spso start redraw"] = VARIANTS["spso base kernel"]
VARIANTS["spso start"] = VARIANTS["spso base kernel"] + [(_NORMAL_NOW, _NORMAL_BEFORE)]
# Box-Muller's radius by the library's logf instead of the lean mw_log_unit (the same values). (A lean
# sqrt for the radius, "spso lean sqrt" in call 7 of the twenty-second session, measured slower.)
VARIANTS["spso library log"] = [("T(-2) * mw_log_unit(T(1) - u1)", "T(-2) * mw_log(T(1) - u1)")]
PER_VARIANT["spso library log"] = _ALL_SPSO
VARIANTS["spso local unroll 1"] = [("#pragma unroll(PR_ROWS ? 1 : 2)", "#pragma unroll 1")]
for _v in ("spso tree", "spso start redraw", "spso start"):
    PER_VARIANT[_v] = _ALL_SPSO
PER_VARIANT["spso local unroll 1"] = ["SPSO 512x256", "SPSO 64x256"]

# SPSO-2011's lanes kernel with classic's tagged slots behind a relaxed count and the keys in two
# sets by iteration parity (this tree, notes-gpu.md v24: "spso tree" here against "spso tree" in the
# base tree's own script, in the same call; a kernel file from before takes other parameters, so
# "spso base kernel", "spso start redraw" and "spso start" no longer run against this tree's host).
# pso_spso_redraw (131,072) in blocks of 256 (its launch bounds (256, 4), before notes-gpu.md v24) or
# 512 instead of this tree's 1,024 (classic_block_cap's, as pso_classic: 4x fewer arrivals at each
# barrier, the same threads a multiprocessor): measured 2.41-2.43 / 2.49 / 2.66-2.68 G/s (v24)
_WIDE = "__launch_bounds__(PSO_CLASSIC_MAX_BLOCK, 1) pso_spso_redraw("
VARIANTS["SPSO redraw block 256"] = [(_WIDE, "__launch_bounds__(256, 4) pso_spso_redraw(")]
HOST["SPSO redraw block 256"] = [(_PSO, "classic_block_cap", lambda optin: 256)]
VARIANTS["SPSO redraw block 512"] = []
HOST["SPSO redraw block 512"] = [(_PSO, "classic_block_cap", lambda optin: 512)]
VARIANTS["spso redraw wide"] = []
for _v in ("SPSO redraw block 256", "SPSO redraw block 512", "spso redraw wide"):
    PER_VARIANT[_v] = ["SPSO 131k", "SPSO 96k"]
# the tree's SPSO kernels against the kernel file of $EXCHANGE_BASE (the same host parameters since
# the counted exchange) on every SPSO case
# (The base kernel file must declare the kernels this tree's host launches: since the twenty-fifth
# session's pso_spso_redraw_global, a file from before it fails to compile here; compare such trees
# with the benchmark's rows of both, device_check.sh compare.)
VARIANTS["spso base kernel all"] = VARIANTS["spso base kernel"]
PER_VARIANT["spso base kernel all"] = _ALL_SPSO
# (Measured in calls 1-2 of the twenty-third session, since removed: pso_spso_redraw's normals kept
# in shared memory between its passes for its first k Philox blocks, "spso kept k" (host
# ParticleSwarmCuda.redraw_kept): 131,072 2.44 -> 2.29-2.31 G/s with 4 kept, 2.08 with 6; 98,304 +5%
# with all 8 kept, -7% with 6.)

# pso_spso_redraw (131,072; 98,304), twenty-fourth session (notes-gpu.md v25). Measured and kept:
# pass 1's PR rows through L1 (pso_gather's L1: 131,072 +3%, 98,304 +5%), its |direction|^2 from the
# radii alone (pso_radii: +1%), and the v of a block's first warps beside x (the host's
# REDRAW_L1_KEPT rule). Measured and dropped (variants since removed): the rows' next sector and the
# next block's v prefetched into L1 ("prefetch.L1": 2.90 -> 2.45-2.51 G/s), v's loads past L1
# (ld.cg on the generic address: level), the carveout preferred for L1 (level), and a bound: pass
# 1 without its normals at all (2.80 -> 2.86: the normals made once would gain at most 2%).
# "spso redraw warps W": the v of W warps (the host's rule: 19 of 32 on an H100); "spso redraw rows
# l2": pass 1's rows through L2 as before
for _w in (0, 12, 16, 19, 24):
    _v = f"spso redraw warps {_w}"
    VARIANTS[_v] = []
    HOST[_v] = [(_PSO, "ParticleSwarmCuda.v_warps", _w)]
    PER_VARIANT[_v] = ["SPSO 131k"]
PER_VARIANT["spso redraw warps 0"] = ["SPSO 131k", "SPSO 96k"]  # no v beside x at either size
VARIANTS["spso redraw rows l2"] = [("    if (PR_ROWS && L1) {\n        mw_ld16(li + j0, pl);",
                                    "    if (PR_ROWS && L1) {\n        mw_ldcg16(li + j0, pl);")]
PER_VARIANT["spso redraw rows l2"] = ["SPSO 131k", "SPSO 96k"]
# (Measured in call 8 of the twenty-fourth session, the same numbers, since removed: the first 16
# coordinates of every thread's v beside x instead of the whole v of 19 warps, "spso redraw
# vcoords" (every warp the same share of v's traffic): 3.01 against 3.03-3.06 G/s; the new bests'
# PR rows by 16-byte stores, "spso redraw row16": 3.01-3.02, 98,304 +1.5%; both 3.04-3.07. The
# passes unrolled by two, "spso redraw pass 1/2 unroll 2" (call 7): 2.79-2.82 and 2.98-2.99.)
# (pso_spso_redraw's blocks of 256 with v beside x, "spso redraw small blocks warps" in call 14 of the
# twenty-fourth session: 98,304 2.54 -> 2.67-2.68 G/s, now the host's rule; "spso redraw warps 0" is
# the form before at 131,072)
# the kernel file of $EXCHANGE_BASE without v warps (a kernel from before them reads every v from V,
# and the host would give it the warps' shared memory for nothing)
HOST["spso base kernel all"] = [(_PSO, "ParticleSwarmCuda.v_warps", 0)]

# Twenty-fifth session (notes-gpu.md v26), pso_spso_redraw at 131,072, measured as edits of the kernels
# of 0c04c24 and since committed or removed: x through shared addresses (LDS/STS, the pointer rebased
# on the dynamic shared memory; the generic LD/ST before): 3.04-3.06 -> 3.14-3.16 G/s; the scatter's
# global atomicMin as red.global.min (no reply): 3.17-3.18, 98,304 +3%, 16,384 +4%; both 3.28; the
# new bests' rows stored by the warp: +2.5% alone, 3.30 with both; all three committed (3.30-3.32).
# Dropped (variants removed): v through shared addresses too (two copies of a pass, by warp): pass 2
# level, both passes 2.97 (ptxas spilled 132/204 bytes); a Philox block's x and v read before its v
# is stored (pass 1: 3.03-3.04, pass 2: 3.21-3.22, both 2.91-2.94 against 3.31-3.32: spills); the
# bounds of pass 2 from shared memory: +0.3%; the exchange without the block barrier before its
# partial's store: 3.28 against 3.30-3.31; the warps whose v is global prefetching into L1 the v of
# the next Philox block (pass 1, pass 2, or both; one or two blocks ahead): 3.21-3.23 in one pass,
# 3.05-3.07 in both, against 3.30-3.32; v warps 12 / 16 against the host's 19: 3.26-3.27 / 3.31.
# Bounds (not valid runs) on the committed kernel: no scatter barrier 3.29 (nothing), no exchange but
# the last 3.55-3.58 (+7.5%).

# Twenty-sixth session (notes-gpu.md v27), pso_spso_redraw at 131,072 and 98,304, measured as edits
# of the kernels of d5f81d0 and dropped (the same numbers where valid: 154 digests identical; the code
# of the first two is on the branch spso-ahead): pass 1's radii made while the block waits at a
# barrier - at the exchange, a named barrier letting each warp do them instead of waiting for the
# block's slowest: 3.30-3.32 -> 3.01 G/s (98,304 2.88 -> 2.60); at the scatter's barrier 2.95-3.07;
# a Philox block's v loaded before any is stored (ptxas had kept each load behind the last store: v's
# pointer is generic): pass 1 3.31-3.33, pass 2 3.29-3.30 (98,304 -4%), both 3.27-3.30; the scatter's
# Philox block drawn once for its three links: 3.15 (ptxas spilled 48/76 bytes against 16/16); the
# normals drawn once, in pass 1, and kept in Z for pass 2 (15.7 MB): 2.65 (98,304 +2.6%).
# Bounds (not valid runs: other numbers): the Philox blocks of pass 2's normals, of pass 1's radii, or
# both, replaced by a few integer products of the particle, coordinate and iteration (about 8
# instructions a block instead of ~45), and pass 2 without its normals at all (four constants a
# block: no Philox, logarithm, root or sincospi).
def _cheap_words() -> str:
    return ("MwWords{(unsigned int)i * 0x9E3779B9u + (unsigned int)j0 * 0x85EBCA6Bu + (unsigned int)t, "
            "(unsigned int)t * 0xC2B2AE35u ^ (unsigned int)i, (unsigned int)i * 0x27D4EB2Fu + (unsigned int)j0, "
            "((unsigned int)i + (unsigned int)t) * 0x165667B1u}")


_PASS2_DRAW = "pso_normals(rng(t * per_iter + (unsigned long long)(j0 / NP)), z, j0, d);"
_PASS1_DRAW = "dir2 += pso_radii<T>(rng(t * per_iter + (unsigned long long)(j0 / NP)), j0, d);"
_DRAW = "rng(t * per_iter + (unsigned long long)(j0 / NP))"
VARIANTS["spso bound pass 2 cheap words"] = [("                        " + _PASS2_DRAW,
                                             "                        " + _PASS2_DRAW.replace(_DRAW, _cheap_words()))]
VARIANTS["spso bound pass 1 cheap words"] = [(_PASS1_DRAW, _PASS1_DRAW.replace(_DRAW, _cheap_words()))]
VARIANTS["spso bound both cheap words"] = (VARIANTS["spso bound pass 2 cheap words"]
                                          + VARIANTS["spso bound pass 1 cheap words"])
VARIANTS["spso bound pass 2 no normals"] = [("                        " + _PASS2_DRAW,
                                            "                        z[0] = T(0.5); z[1] = T(-0.25); z[2] = T(1.25); "
                                            "z[3] = T(-0.75);")]
VARIANTS["spso redraw sizes"] = []  # the committed kernels at these two sizes, for the bounds' rounds
# Twenty-seventh session (notes-gpu.md v28): pass 1's rows. Where a particle is its own best informant
# (l == i) its two rows are one: the informant's load skipped (the same values, so the same numbers:
# 131,072 3.22 against 3.28-3.30 G/s); and two bounds (not valid runs: other numbers): pass 1 with the
# own row alone (every l taken as i: 3.61, +9.5%), and pass 1 with no row loads at all (p and l
# constants of the coordinate: 3.98-4.00, +21%; 98,304 +8%)
_GATHERS = ("                        pso_gather<true, T, true>(li, j0, n, d, pl);\n"
            "                        pso_gather<true, T, true>(own, j0, n, d, po);\n")
VARIANTS["spso self row"] = [(_GATHERS, "                        pso_gather<true, T, true>(own, j0, n, d, po);\n"
                              "                        if (l != i) {\n"
                              "                            pso_gather<true, T, true>(li, j0, n, d, pl);\n"
                              "                        } else {\n"
                              "                            for (int q = 0; q < 4; ++q) pl[q] = po[q];\n"
                              "                        }\n")]
VARIANTS["spso bound own row only"] = [(_GATHERS, "                        pso_gather<true, T, true>(own, j0, n, d, po);\n"
                                        "                        for (int q = 0; q < 4; ++q) pl[q] = po[q];\n")]
VARIANTS["spso bound no rows"] = [(_GATHERS, "                        for (int q = 0; q < 4; ++q) "
                                   "pl[q] = po[q] = T(0.125) * T(j0 + q);\n")]

# (pso_spso_redraw_pair, two particles a thread in blocks of 512, b's pass 1 inside a's pass 2, a's
# rows PSO_PAIR_AHEAD blocks at once: variants "spso pair", "spso pair ahead K" on the branch
# spso-pair; the same numbers, 131,072 2.96-3.10 against 3.27 G/s, notes-gpu.md v28.)
# A whole 32-byte sector of a row loaded at once (the two Philox blocks' 16-byte halves back to back,
# the second block's kept for the next step, 4 registers a row) instead of a half a step, whose other
# half L1 rarely still holds a step later (2,048 rows' lines in flight a multiprocessor against L1's
# ~256): the own row's, or both rows' (the same values). 131,072 3.19-3.21 / 3.10-3.11 against
# 3.30-3.32 G/s (ptxas 40/72 and 88/228 bytes of spills against 16/16); 98,304 +2.4% / -1%
_P1_HEAD = "                    T* v1 = r.v;\n#pragma unroll 1\n"
_OWN_LOAD = "                        pso_gather<true, T, true>(own, j0, n, d, po);\n"
_LI_LOAD = "                        pso_gather<true, T, true>(li, j0, n, d, pl);\n"


def _sector(row: str, vals: str) -> str:
    return (f"                        if (((j0 / NP) & 1) == 0) {{\n"
            f"                            pso_gather<true, T, true>({row}, j0, n, d, {vals});\n"
            f"                            if (j0 + NP < d) pso_gather<true, T, true>({row}, j0 + NP, n, d, {vals}_next);\n"
            f"                        }} else {{\n"
            f"                            for (int q = 0; q < 4; ++q) {vals}[q] = {vals}_next[q];\n"
            f"                        }}\n")


VARIANTS["spso own sector"] = [(_P1_HEAD, "                    T* v1 = r.v;\n                    T po_next[4];\n#pragma unroll 1\n"),
                               (_OWN_LOAD, _sector("own", "po"))]
VARIANTS["spso both sectors"] = [(_P1_HEAD, "                    T* v1 = r.v;\n                    T po_next[4], pl_next[4];\n"
                                  "#pragma unroll 1\n"), (_OWN_LOAD, _sector("own", "po")), (_LI_LOAD, _sector("li", "pl"))]
for _v in ("spso redraw sizes", "spso self row", "spso bound own row only", "spso bound no rows", "spso own sector", "spso both sectors",
           "spso bound pass 2 cheap words", "spso bound pass 1 cheap words",
           "spso bound both cheap words", "spso bound pass 2 no normals"):
    PER_VARIANT[_v] = ["SPSO 131k", "SPSO 96k"]

# Twenty-eighth session (notes-gpu.md v29): pso_spso_redraw's PR in tiles of a warp's 32 particles
# (pso_pr: a warp's own rows' Philox block one 512-byte load, 16 whole sectors), v and PR addressed by
# 32-bit offsets, the informant's row through L2 only, and no particle scattering its key to itself
# (PSO_SELF_LOCAL). Against the session's start (this tree's host; $EXCHANGE_BASE/kernels/
# particle_swarm.cu, "spso redraw base"), H100, 131,072 / 98,304 G evaluations/s:
#   start 3.28-3.32 / 2.86-2.89; tiles, own row through L2 ("spso tiles own l1": own through L1, level)
#   and informant through L1 3.54-3.59 / 3.17-3.19 (call 1); informant through L2 3.63-3.68 / 3.17-3.20
#   ("spso tiles li ca": informant through L1 again, 3.56-3.57); v's 32-bit offsets 3.72-3.77 / 3.17
#   ("spso tiles pointers": 64-bit pointers again, 3.63-3.68 / 3.19-3.20, call 3); no self-scatter
#   3.82 / 3.24 ("spso self scatter": 3.70-3.78 / 3.08-3.09, call 9). "spso untiled": the row layout
#   with the 32-bit chunk counts, 3.21-3.22 (call 1, against the start's 3.30-3.32).
_OWN_CG = "                            mw_ldcg16(PR + (unsigned long long)oq * NP, po);\n"
_LI_CG = "                        mw_ldcg16(PR + (unsigned long long)lq * NP, pl);  // through L2 only (notes-gpu.md v29)\n"
VARIANTS["spso tiles"] = []
VARIANTS["spso redraw base"] = VARIANTS["pso start kernel"]
HOST["spso redraw base"] = HOST["spso base kernel"]  # the start's kernels have no pso_spso_redraw_one
VARIANTS["spso untiled"] = [("#define PSO_PR_TILES 1", "#define PSO_PR_TILES 0")]
VARIANTS["spso tiles own l1"] = [(_OWN_CG, _OWN_CG.replace("mw_ldcg16", "mw_ld16"))]
VARIANTS["spso tiles li ca"] = [(_LI_CG, _LI_CG.replace("mw_ldcg16", "mw_ld16"))]
VARIANTS["spso self scatter"] = [("#define PSO_SELF_LOCAL 1", "#define PSO_SELF_LOCAL 0")]
# where a particle is its own best informant (l == i: 31.5% of the particles in every phase of a
# 2,000-iteration run, numpy engine, 16,384, rastrigin 30-D) its two rows are one: the informant's
# load skipped (the same values). Calls 7-9: 131,072 +2% / level against the same tree, 98,304 -1.5 to
# -3%; not kept. (Its earlier forms, "spso tiles self ca" / "self cg", before the own row's load moved
# first, and "spso tiles self row", a branch each side: 3.58-3.60 against 3.63-3.66.)
VARIANTS["spso tiles self row"] = [(_LI_CG, "                        if (l == i) {\n"
                                            "                            for (int q = 0; q < 4; ++q) pl[q] = po[q];\n"
                                            "                        } else {\n    " + _LI_CG + "                        }\n")]
_LOADS_BEFORE = _LI_CG + ("                        if (TILES) {  // a warp's whole sectors (pso_pr): nothing to keep in L1\n"
                          + _OWN_CG)  # the informant's load first, as in calls 1-7
VARIANTS["spso tiles self ca"] = [(_LOADS_BEFORE, "                        if (TILES) {\n"
                                   "                            mw_ld16(PR + (unsigned long long)oq * NP, po);\n"
                                   "                            if (l == i) {\n"
                                   "                                mw_ld16(PR + (unsigned long long)oq * NP, pl);\n"
                                   "                            } else {\n"
                                   "                                mw_ldcg16(PR + (unsigned long long)lq * NP, pl);\n"
                                   "                            }\n")]
VARIANTS["spso tiles self cg"] = [(_LOADS_BEFORE, "                        if (TILES) {\n"
                                   + _OWN_CG + "                            if (l == i) {\n"
                                   "                                mw_ldcg16(PR + (unsigned long long)oq * NP, pl);\n"
                                   "                            } else {\n"
                                   "                                mw_ldcg16(PR + (unsigned long long)lq * NP, pl);\n"
                                   "                            }\n")]
# pass 1's rows a Philox block ahead (the next block's two loads before this block's work; ptxas
# 132/204 bytes of spills): 3.21-3.22 / 3.05 against 3.72-3.77 / 3.17 (call 3)
_P1_LOOP = ("#pragma unroll 1\n                    for (int j0 = 0; j0 < d; j0 += NP) {\n                        T pl[4], po[4];\n"
            + _LOADS_BEFORE + "                        } else {\n"
            "                            mw_ld16(PR + (unsigned long long)oq * NP, po);\n                        }\n"
            "                        lq += TILES ? 32u : 1u;  // the Philox block's next chunk\n"
            "                        oq += TILES ? 32u : 1u;\n")
VARIANTS["spso tiles pass 1 ahead"] = [(_P1_LOOP, """                    T pl[4], po[4];
                    mw_ldcg16(PR + (unsigned long long)lq * NP, pl);
                    mw_ldcg16(PR + (unsigned long long)oq * NP, po);
#pragma unroll 1
                    for (int j0 = 0; j0 < d; j0 += NP) {
                        T pln[4], pon[4];
                        lq += 32u;
                        oq += 32u;
                        if (j0 + NP < d) {
                            mw_ldcg16(PR + (unsigned long long)lq * NP, pln);
                            mw_ldcg16(PR + (unsigned long long)oq * NP, pon);
                        }
"""), ("""                        tc2 += part;
                    }
                };
                if (x_shared) {
                    pass1(""", """                        tc2 += part;
#pragma unroll
                        for (int q = 0; q < 4; ++q) {
                            pl[q] = pln[q];
                            po[q] = pon[q];
                        }
                    }
                };
                if (x_shared) {
                    pass1(""")]
# (v addressed by 64-bit pointers again in both passes, the start's form, "spso tiles pointers" in
# call 3: 3.63-3.68 / 3.19-3.20 against the 32-bit offsets' 3.72-3.77 / 3.17; since removed, its edits
# being a copy of the passes' text.)
# bounds (not valid runs: other numbers; call 6, before PSO_SELF_LOCAL): pass 1 with the own row alone
# (every informant the particle itself) 4.00-4.01 / 3.22-3.24, with no row loads at all 4.07 / 3.21,
# against 3.73-3.74 / 3.15-3.17
_OWN_LOAD_TILED = _OWN_CG
VARIANTS["spso tiles bound own only"] = [(_LI_CG, "                        for (int q = 0; q < 4; ++q) pl[q] = po[q];\n")]
VARIANTS["spso tiles bound no rows"] = [(_OWN_LOAD_TILED, ""),
                                        (_LI_CG, "                        for (int q = 0; q < 4; ++q) pl[q] = po[q] = T(0.125) * T(j0 + q);\n")]
# the v of more warps beside x (x and 20-28 warps' v take the 228 KB step of shared memory, leaving L1
# 28 KB, where the rows read through L1 lost at 20: notes-gpu.md v25): 24 warps 3.36-3.47, 28 warps
# 3.48-3.51 against 3.63-3.66 (call 2); "spso redraw warps 16" / "12" 3.65-3.66 / 3.51 against 3.74-3.77
# (call 4)
for _w in (24, 28):
    VARIANTS[f"spso tiles warps {_w}"] = []
    HOST[f"spso tiles warps {_w}"] = [(_PSO, "REDRAW_L1_KEPT", 0), (_PSO, "ParticleSwarmCuda.v_warps", _w)]
# (Measured and dropped, code removed: a Philox block's coordinates without a test each where all four
# are below d, a second copy of each pass's coordinates for the cut block, "spso whole blocks": 131,072
# 3.62-3.64 against 3.74-3.77 G/s, 98,304 +1% (call 4); the scatter's Philox block drawn once for every
# four targets, not once a target (K = 3 drew one block three times): 131,072 level (3.74 against
# 3.72-3.81), 512 x 256 -1.6%, 65,536 -5%, 1,024 -2% (call 5); pass 1's first block's radii made while
# the key's load is in flight, each next block's at the end of the block before, "spso radii first":
# 3.65-3.66 against 3.72-3.77 (call 5); ptxas spilled more in each: 44/84, 48/76 bytes against 32/60.
# The warps whose v is shared the block's last instead of its first, so that the slowest, whose v is
# global, are the oldest, which the schedulers favour (notes-gpu.md v15): 3.738 against 3.727-3.740,
# 98,304 level, classic 131,072 7.93-7.94 against 7.89-7.92 (call 6).)
# (Measured in call 11 and dropped, code removed, the same numbers (154 digests identical): pass 2's
# radii by sqrtf's fast path alone, rsqrt and one correction without its range test and slow-path
# branch (+-0 returned as is; 3 instructions and a branch fewer a pair; ptxas 48/76 bytes of spills
# against 32/60), "spso fast radius": 3.79-3.82 against 3.80-3.81 G/s; the partials' read after the
# exchange's barrier overlapping the other warps' new-best rows, one __syncthreads after both, "spso
# exchange split": 3.81-3.82; both 3.83-3.85; 98,304 level in each. Within the rounds' spread.)
# Twenty-ninth session (notes-gpu.md v30): pso_spso_redraw_one, one grid barrier an iteration (float;
# pso_spso_run's ONE: keys scattered before the barrier with the links the last redraw decision
# predicts, again behind a barrier of their own where it was the other; new bests' rows into PR's
# other buffer, copied back into buffer 0 the next iteration; the swarm's best from one word a
# swarm). The host runs it where the rows fit the L2 (98,304 on an H100) and pso_spso_redraw past it
# (131,072). "spso one barrier": the tree's choice; "spso one barrier forced" / "spso two barriers":
# either kernel at both sizes; "spso predict redraw": always predicting a redraw instead of the last
# decision; "spso f each": f written every iteration again (PSO_F_LAST 0). H100, 131,072 / 98,304 G
# evaluations/s, against the start's kernel ("spso redraw base"), calls 1-3 (the one-barrier kernel
# then chosen by a macro at both sizes): call 1 (partials scanned by warp 0, buffer 1 in tiles)
# 3.78-3.79 / 3.57 against 3.77-3.85 / 3.29-3.30, predict redraw 3.70-3.72 / 3.57; call 2 (buffer 1
# with each row whole, "spso one rows", code removed) 3.64-3.69 / 3.49-3.50 against 3.84-3.86 /
# 3.28-3.29; call 3 (tiles, the swarm's word, f last) 3.56 / 3.63-3.64 against 3.82-3.84 / 3.22-3.25,
# the two-barrier kernel with f last 3.82-3.84 / 3.28, with f each 3.75-3.82 / 3.25-3.27.
VARIANTS["spso one barrier"] = []
VARIANTS["spso two barriers"] = []
HOST["spso two barriers"] = [(_PSO, "ParticleSwarmCuda.one_barrier", False)]
VARIANTS["spso one barrier forced"] = []
HOST["spso one barrier forced"] = [(_PSO, "ParticleSwarmCuda.one_barrier", True)]
VARIANTS["spso predict redraw"] = [("#define PSO_PREDICT_LAST 1", "#define PSO_PREDICT_LAST 0")]
VARIANTS["spso f each"] = [("#define PSO_F_LAST 1", "#define PSO_F_LAST 0")]
# Thirtieth session (notes-gpu.md v31): the one-barrier kernel with a __syncwarp after the redraw
# decision's branch, so ptxas keeps the passes' counters in uniform registers (289 / 351 instructions
# a Philox block, 4 / 4 BSSY/BSYNC, as pso_spso_redraw; 299 / 361 and 8 / 14 without), and (call 2 on)
# the decision's state and the swarm's word pointer in shared memory (ptxas 52/116 bytes of spills
# against 96/208). "spso one no warpsync": without the __syncwarp, forced at every size as "spso one
# barrier forced" is; "spso one alt regs" (EXCHANGE_ALT=alt, alt/regs/ a copy of call 1's kernel file):
# the __syncwarp with the state in registers. H100, 131,072 / 114,688 / 98,304 G evaluations/s, against
# the two-barrier kernel of this tree and of the start ("spso two barriers", "spso redraw base"
# 3.86-3.88 / 3.52-3.54 / 3.27-3.28): call 1, the __syncwarp 3.70-3.71 / 3.50 / 3.71-3.73, without it
# 3.69-3.72 / 3.47-3.48 / 3.63-3.65; call 2, the state shared 3.87-3.88 / 3.60 / 3.68-3.69, in
# registers 3.68-3.70 / 3.49-3.51 / 3.69-3.75. "spso wider two" / "spso wider one" (call 3): 131,072
# at d = 30 / 40 / 45 (1.22 / 1.6 / 1.83 L2s of rows) 3.87-3.89 / 2.37-2.39 / 1.85-1.86 against
# 3.85-3.87 / 2.37-2.39 / 1.79: ONE_BARRIER_L2 = 1.25.
VARIANTS["spso one no warpsync"] = [("        if (ONE) __syncwarp();\n", "")]
HOST["spso one no warpsync"] = [(_PSO, "ParticleSwarmCuda.one_barrier", True)]
VARIANTS["spso all sizes"] = []
PER_VARIANT["spso all sizes"] = ["SPSO 131k", "SPSO 512x256", "SPSO 96k", "SPSO 64k", "SPSO 16k", "SPSO 1k"]
for _v in ("spso tiles", "spso redraw base", "spso untiled", "spso tiles own l1", "spso tiles li ca", "spso self scatter",
           "spso tiles self row", "spso tiles self ca", "spso tiles self cg", "spso tiles pass 1 ahead",
           "spso tiles bound own only", "spso tiles bound no rows", "spso tiles warps 24",
           "spso tiles warps 28", "spso one barrier", "spso two barriers", "spso one barrier forced",
           "spso predict redraw", "spso f each"):
    PER_VARIANT[_v] = ["SPSO 131k", "SPSO 96k"]
for _v in ("spso redraw base", "spso one barrier", "spso two barriers", "spso one barrier forced", "spso one no warpsync"):
    PER_VARIANT[_v] = ["SPSO 131k", "SPSO 112k", "SPSO 96k"]
# the rule's place (ONE_BARRIER_L2): 131,072 particles of 40 and 45 coordinates (1.6 and 1.83 L2s of rows;
# at 50 x is not in shared memory: pso_spso_redraw_global, either way)
VARIANTS["spso wider two"] = []
HOST["spso wider two"] = [(_PSO, "ParticleSwarmCuda.one_barrier", False)]
VARIANTS["spso wider one"] = []
HOST["spso wider one"] = [(_PSO, "ParticleSwarmCuda.one_barrier", True)]
PER_VARIANT["spso wider two"] = PER_VARIANT["spso wider one"] = ["SPSO 131k", "SPSO 131k d40", "SPSO 131k d45"]

def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    print(f"seed {SEED}")
    chosen = sys.argv[2].split(",") if len(sys.argv) > 2 else list(PER_VARIANT)
    # "set-aside" is not a variant: from there on, every row runs with the persisting L2 set-aside
    unknown = [v for v in chosen if v not in PER_VARIANT and v != "set-aside"]
    if unknown:
        sys.exit(f"unknown variant(s): {', '.join(unknown)}; known: {', '.join(PER_VARIANT)}")
    print("| round | variant | " + " | ".join(CASES) + " |  (G evaluations/s)")
    print("| --- " * (len(CASES) + 2) + "|")
    aside = ""
    for rnd in range(2):  # twice, interleaved: drift shows as a difference between rounds
        for variant in chosen:
            if variant == "set-aside":
                if not aside:
                    set_aside()
                aside = " (set-aside)"
                continue
            names = PER_VARIANT[variant]
            use(variant)
            cells = []
            for name, case in CASES.items():
                if name not in names:
                    cells.append("")
                    continue
                record = measure(case, "cuda", "float32", False, seed=SEED, repeats=repeats)
                cells.append(f"{record['evals_per_second'] / 1e9:.3f}")
            print(f"| {rnd} | {variant}{aside} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
