// A group of blocks that meet inside one launch: the counter barrier among them and the loads that
// read what another block of the launch wrote. Used by the kernels whose swarm or population is
// spread over several consecutive blocks (particle_swarm.cu, differential_evolution.cu); a kernel
// file asks for it with the line `// MW_HEADERS: group_sync.cuh` (kernels/loader.py).
//
// The blocks of a group must be resident together, or the barrier never opens: the host never
// launches more blocks than the device holds at once (solvers/cuda/resident.py).

// Loads through L2 (ld.global.cg): data written by another block of the same launch, never a
// possibly stale L1 line.
__device__ __forceinline__ float mw_ldcg(const float* p) {
    float v;
    asm volatile("ld.global.cg.f32 %0, [%1];" : "=f"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ double mw_ldcg(const double* p) {
    double v;
    asm volatile("ld.global.cg.f64 %0, [%1];" : "=d"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ long long mw_ldcg(const long long* p) {
    long long v;
    asm volatile("ld.global.cg.s64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ unsigned long long mw_ldcg(const unsigned long long* p) {
    unsigned long long v;
    asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
// The same for data that nothing writes while it is read (differential_evolution.cu: the population
// within one generation; the next goes to the other buffer), without the "memory" clobber, so the
// compiler keeps pointers and bounds in registers across the loads; and predicated: where `load` is
// false v keeps its value (nothing to initialise for the lanes that skip the load).
__device__ __forceinline__ void mw_ldcg_if(bool load, const float* p, float& v) {
    asm volatile("{\n\t.reg .pred q;\n\tsetp.ne.b32 q, %2, 0;\n\t@q ld.global.cg.f32 %0, [%1];\n\t}"
                 : "+f"(v) : "l"(p), "r"((int)load));
}
__device__ __forceinline__ void mw_ldcg_if(bool load, const double* p, double& v) {
    asm volatile("{\n\t.reg .pred q;\n\tsetp.ne.b32 q, %2, 0;\n\t@q ld.global.cg.f64 %0, [%1];\n\t}"
                 : "+d"(v) : "l"(p), "r"((int)load));
}

// atomicMin on a global address with no reply (red.global.min): the writer goes on at once. A
// generic atomicMin (a pointer that may be shared or global) compiles to ATOM with a predicate the
// code branches on, so the thread waited for each round trip to L2. Ordered like a plain store: a
// later release (the group barrier's) publishes it.
__device__ __forceinline__ void mw_red_min(unsigned long long* p, unsigned long long v) {
    asm volatile("red.relaxed.gpu.global.min.u64 [%0], %1;" : : "l"(__cvta_generic_to_global(p)), "l"(v) : "memory");
}

// 16 bytes (4 float or 2 double, 16-byte aligned) through L2 into out[0..], for data that nothing
// writes while it is read (particle_swarm.cu: SPSO's PR rows during the move), so without the
// "memory" clobber, like mw_ldcg_if.
__device__ __forceinline__ void mw_ldcg16(const float* p, float* out) {
    asm volatile("ld.global.cg.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(out[0]), "=f"(out[1]), "=f"(out[2]), "=f"(out[3]) : "l"(p));
}
__device__ __forceinline__ void mw_ldcg16(const double* p, double* out) {
    asm volatile("ld.global.cg.v2.f64 {%0, %1}, [%2];" : "=d"(out[0]), "=d"(out[1]) : "l"(p));
}

// 16 bytes (4 float or 2 double, 16-byte aligned) through L1 into out[0..]: for data that nothing
// writes between the last acquire of the reader's multiprocessor (which invalidates its L1) and the
// read (particle_swarm.cu: pso_spso_redraw's first pass over PR rows)
__device__ __forceinline__ void mw_ld16(const float* p, float* out) {
    const float4 v = __ldca((const float4*)p);
    out[0] = v.x;
    out[1] = v.y;
    out[2] = v.z;
    out[3] = v.w;
}
__device__ __forceinline__ void mw_ld16(const double* p, double* out) {
    const double2 v = __ldca((const double2*)p);
    out[0] = v.x;
    out[1] = v.y;
}

// Barrier among the `count` blocks of one group. *bar counts arrivals and only grows (the host zeroes
// it before each launch): the k-th barrier of a launch is passed once it reaches k * count. One
// fire-and-forget release add and acquire-loads: about two L2 round trips, half those of a counter
// that the last block must reset. The add's release (after __syncthreads, which orders the block's
// writes before thread 0's) publishes the block's writes as cooperative groups' grid sync does; a
// __threadfence before a plain atomicAdd did the same with a sequentially consistent fence
// (MEMBAR.SC.GPU, where the release is MEMBAR.ALL.GPU) and an L1 invalidation.
__device__ __forceinline__ unsigned long long mw_acquire(const unsigned long long* p) {
    unsigned long long v;
    asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
struct MwGroupSync {
    unsigned long long* bar;    // the group's arrival counter
    unsigned long long passed;  // arrivals this block has waited for so far in this launch
    int count;                  // blocks in the group
};

// The barrier in two halves, for work that needs nothing from the other blocks between them (DE
// draws the next generation's picks there): mw_group_arrive publishes this block's writes and
// counts it in; mw_group_wait returns once every block of the group has arrived. A block that
// arrives early spends its wait on that work, when its multiprocessor has issue slots to spare
// (the blocks still working there wait on memory), and the last block to arrive opens the barrier
// for the others before doing its share.
__device__ __forceinline__ void mw_group_arrive(MwGroupSync& s) {
    __syncthreads();
    if (s.count <= 1) return;
    s.passed += (unsigned long long)s.count;
    if (threadIdx.x == 0)
        asm volatile("red.release.gpu.global.add.u64 [%0], %1;" : : "l"(s.bar), "l"(1ull) : "memory");
}
__device__ __forceinline__ void mw_group_wait(const MwGroupSync& s) {
    if (s.count <= 1) return;
    if (threadIdx.x == 0) {
        while (mw_acquire(s.bar) < s.passed) {
        }
    }
    __syncthreads();
}

__device__ void mw_group_sync(MwGroupSync& s) {
    mw_group_arrive(s);
    mw_group_wait(s);
}
