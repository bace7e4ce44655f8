// Particle swarm optimisation (seed 003): the classic global-best PSO and SPSO-2011 with an adaptive
// random topology, many swarms at once. Mirrors solvers/algorithms/particle_swarm.py (the reference;
// its docstring gives the equations, defaults and the choices for the parallel version):
//   classic:  v <- omega v + phi_p r_p (p - x) + phi_g r_g (g - x),  x <- x + lr v;
//   spso2011: l = best informant (the particle itself and every particle whose K random links point
//             at it); G - x = c k (p + l - 2x), k = 1/3, or 1/4 when l is the particle itself;
//             x' - G uniform direction, radius U(0,1) |G - x| (Clerc's alea_sphere);
//             v <- w v + (G - x) + (x' - G); x <- x + v; a swarm redraws its links after an
//             iteration in which its best value did not improve;
//   both:     SPSO-2011 confinement (a coordinate leaving the box is set to the bound, that velocity
//             component becomes -0.5 v); synchronous update: every particle of a swarm moves, then
//             the swarm's best (and the informants' bests) are refreshed once per iteration.
// Exactly one evaluation per particle per iteration (the host counts them); max_evals as a hard
// cap: in a launch's last iteration only particles i < last_active (global index; in a tuning
// grid's run, its index within the run) evaluate, the others read +inf, uncounted (their personal
// bests stay).
//
// Tuning grids (classic; random.cuh's MwGroupKey): with gsize > 0 the particles form independent
// runs of gsize particles (whole swarms), each with its own Philox key and its own omega, phi_p,
// phi_g, lr (row of gvals), so each run draws and moves exactly as it does alone.
//
// Mapping. A thread per particle; a swarm is `bps` consecutive blocks (one block when it fits,
// several to spread a large swarm over the multiprocessors). Each launch runs a whole chunk of
// iterations: walker state stays on the GPU and a swarm's blocks meet at a barrier once per
// iteration (twice in SPSO: the informant scatter must be complete before anyone reads it). With
// bps = 1 the barrier is __syncthreads; otherwise a counter barrier in global memory among the
// swarm's blocks (classic PSO: no barrier but tagged slots that each block polls for the others'
// bests, pso_exchange_tagged, which wait the same way), which requires them to be resident together: the host never launches more blocks
// than the device holds at once (occupancy query) and batches swarms over launches. A swarm larger
// than that gives each thread several particles (`for p = lt; p < m; p += stride`).
// Lanes (pso_classic_lanes, the same code as pso_classic with LANED set, `lanes` = L = 2, 4 or 8;
// SPSO-2011: pso_spso_rows_lanes, below): where particles are few for the GPU (one swarm of 16,384: 124 threads per
// multiprocessor, a warp per scheduler, each waiting on its particle's long chain of Philox
// blocks, loads, velocity updates and objective terms), L consecutive lanes of a warp share a
// particle, and everything above is counted in particles, not threads (lt, stride, bps blocks of
// blockDim.x / L particles: pso_place_lanes; blocks of up to 512 threads, PSO_LANES_MAX_BLOCK). Lane r makes the coordinates of the move's Philox
// blocks b = r, r + L, ... (block b: coordinates C b .. C b + C - 1, C = PsoCoefficients: 4 in float, 1 in double; the same
// draws and arithmetic per coordinate), so each lane does 1/L of the draws, moves and objective
// terms (pso_move_lanes). The objective is the same value bit for bit: a fold's terms (problems.cuh:
// MwFold) are computed by the lanes owning their coordinates, and after each round of L blocks every
// lane accumulates the round's terms in coordinate order, fetched with __shfl_sync (PsoLaneEval);
// any other functor is evaluated whole by every lane once all have written the point (__syncwarp).
// Each lane copies its own coordinates into P on a new personal best; lane 0 writes f and Pf and
// alone enters the particle's best in the exchange; shared x, v, p rows are indexed by particle
// (at.width wide). Lanes = 1 is pso_classic itself. The host picks L from the particles per
// multiprocessor (solvers/cuda/particle_swarm.py: choose_lanes; tuning grids and packed blocks: 1).
// Packed blocks (classic only: pso_classic_packed, pso_classic_grid_packed, the same code as
// pso_classic and pso_classic_grid with PACKED set): many small swarms, a tuning grid's 2,048 runs
// of 40 say, would leave 24 of a block's 64 lanes idle (a swarm per block, whole warps); instead
// spb swarms share a block, swarm k on threads [k m, (k + 1) m), e.g. 4 x 40 = 160 threads, every
// lane busy. Nothing couples them: each swarm's best is a segmented argmin over its own threads
// (pso_exchange_packed) and its best point has its own row of shared memory; a particle's
// arithmetic and random numbers do not depend on the block it is in, so packed or not, the same
// run. The host picks spb (or 1: the unpacked kernels) from the launch's busiest multiprocessor.
// The swarm's best is exchanged through per-block partials (value, index, point), double-buffered
// by iteration parity so that a fast block never overwrites what a slow one is still reading
// (SPSO needs only the value and index: it moves towards informants, not the swarm's best); classic
// PSO's partial is a tagged 16-byte slot (pso_exchange_tagged), SPSO's sits behind the barrier.
// Data written by another block of the same launch is read with ld.global.cg (L2), never from a
// possibly stale L1 line.
//
// Layout: X, V, P are (d, n) coordinate-major (coalesced); SPSO's Z (d or 2d, n) holds a particle's
// normals (rows 0..d-1) and, in pso_spso_rows, G - x (rows d..2d-1) of the iteration between its two
// passes (written and read by its own thread; pso_spso_redraw has none: it draws the normals again). When a thread owns exactly one particle,
// its x, v and p stay in shared memory for the whole launch as far as they fit with every block of
// the swarm resident (the host picks: all three for a swarm spread thin, 16,384 or 1,024 over the
// multiprocessors, where an iteration is latency-bound; at 131,072, where 993 particles share a
// multiprocessor, x and the v of most warps: PSO_V_WARPS_SHIFT): x and v are private to the
// particle and read and written every
// iteration, x read again by the objective. The global P is kept current for other blocks (in SPSO
// a new personal best is written after the iteration's exchange barrier: other particles gather
// personal bests during the move, and the reference's update is synchronous); SPSO's swarms of
// more than 256 particles gather them from PR, P's particle-major copy (see pso_row).
//
// Informants (SPSO): each particle scatters a packed key (ordered value, index) with atomicMin to
// itself and its K targets; the smallest key is the best informant, ties to the smaller index, as in
// the reference's informant_best. float packs value and index into one 64-bit key; double needs
// two rounds (value, then index among equal values). Keys live in shared memory when the swarm is
// one block, else in global memory; each particle resets its own key after reading it.
// Links are never stored: particle i's K targets are Philox draws keyed by (i, the iteration at
// which its swarm last redrew), regenerated wherever they are needed.
//
// Split runs (solvers/shards.py): a shard holds whole swarms and every stream is keyed by the
// particle's global index walker0 + i (walker0 > 0 only in a shard), so it draws what its particles
// draw unsplit. Every index the kernels store or compare (link targets, informants, bests) is the
// shard's own: a link target is the swarm's first particle (own index) + a draw, the unsplit
// run's target minus walker0.
//
// Random numbers (Philox, draw index from the global iteration t):
//   MW_STREAM_INIT: initial point (draws 0..B-1, B = blocks per point) and velocity (B..2B-1);
//   MW_STREAM_STEP: classic r_p, r_g (float: 16-bit halves of a word, 4 coordinates a block; double: 1);
//                   spso normals (P per block, Box-Muller) and the radius uniform (one block);
//   PSO_STREAM_LINKS: the K targets, draw (epoch + 1) * ceil(K / 4) + b.
//
// MW_KERNELS: pso_init<F,T> pso_classic<F,T> pso_classic_grid<F,T> pso_spso<F,T> pso_spso_rows<F,T> pso_links<T>
// MW_KERNELS: pso_spso_local<F,T> pso_spso_rows_local<F,T> pso_spso_rows_lanes<F,T> pso_spso_redraw<F,T>
// MW_KERNELS: pso_spso_redraw_global<F,T> pso_spso_redraw_one<F,T>
// MW_KERNELS: pso_classic_packed<F,T> pso_classic_grid_packed<F,T> pso_classic_lanes<F,T> pso_classic_vwarps<F,T>
// MW_HEADERS: group_sync.cuh

#define PSO_STREAM_LINKS 16u
// Launch bounds of the packed classic kernels (solvers/cuda/particle_swarm.py: PACKED_MAX_BLOCK):
// blocks of at most 160 threads (4 swarms of 40), 4 resident per multiprocessor, which lets ptxas
// use 96 registers: the grid body spills 16/28 bytes (float, rastrigin) where the 64 registers of
// (256, 4) spill 188/460, and 4 x 4 swarms of 40 on each of 132 multiprocessors still hold a
// 2,048-run grid in one wave.
#define PSO_PACKED_MAX_BLOCK 160
#define PSO_PACKED_MIN_BLOCKS 4
// Launch bounds of pso_classic_lanes (solvers/cuda/particle_swarm.py: LANES_MAX_BLOCK): blocks of up
// to 512 threads, one a multiprocessor, so up to 128 registers a thread: ptxas (sm_90, rastrigin
// float) gives it 121-124 and no spill, where blocks of 1,024 (64 registers) spilled 44/188 bytes in
// the move. Measured on the H100 (docs/benchmarks/notes-gpu.md v10): one swarm of 16,384 with 4
// lanes 2.21 -> 2.45 G/s, 1,024 with 8 lanes 232 -> 247 M/s, the same numbers. The lanes are for
// swarms of at most 128 particles a multiprocessor (choose_lanes), 512 threads with 4 lanes, so the
// smaller block costs the automatic choice nothing; a swarm of 16,384 is 128 blocks either way.
#define PSO_LANES_MAX_BLOCK 512

// ---- helpers: the swarm-best exchange (L2 loads and the group barrier: group_sync.cuh) ------------

// Where this thread sits: swarm, block within the swarm, thread within the swarm.
struct PsoPlace {
    long long group;  // swarm within the launch (packed: block within the launch)
    long long swarm;  // global swarm index
    long long base;   // its first particle
    int block;        // block within the swarm, 0..bps-1 (packed: 0)
    int lt;           // particle of the swarm this thread has first (m or more: none, an idle thread)
    int stride;       // particles per swarm a pass of its threads covers (bps * per_block; packed: m)
    int slot;         // packed: the swarm's place in its block (0..spb-1); else 0
    unsigned int per_block;  // particles a block has (at most `width`): see pso_place
    unsigned int width;      // the width of a block's shared x, v, p rows: blockDim.x; lanes:
                             // blockDim.x / lanes (pso_place_lanes)
};

// A swarm's particles spread evenly over its bps blocks (EVEN: pso_classic_vwarps): block b has
// particles [b per, (b + 1) per), per = ceil(m / bps), on its first `per` columns (threads, or lane
// groups), the rest idle; where the blocks' columns do not cover the swarm (per > width), each column
// takes particles lt, lt + stride, ... . Otherwise (every other kernel) block after block in full:
// the same particles where m is a multiple of the block, as one swarm of 131,072 in 128 blocks of
// 1,024 is. A particle's numbers do not depend on where it runs. Why only the v warps' kernel: with
// the even spread ptxas keeps its exchange's values in registers (spills 64/24 -> 8/8 bytes, rastrigin
// float) and 131,072 ran 7.70-7.74 -> 7.91-7.94 G/s on the H100, where the same code in every kernel
// cost the others 3-8% (notes-gpu.md v21).
__device__ __forceinline__ void pso_spread(PsoPlace& s, int bps, int m, int column) {
    const int per = (int)min(s.width, ((unsigned int)m - 1u) / (unsigned int)bps + 1u);  // m >= 1
    s.per_block = (unsigned int)per;
    s.lt = column < per ? s.block * per + column : m;
    s.stride = bps * per;
}

template <bool EVEN = false>
__device__ __forceinline__ PsoPlace pso_place(long long first_swarm, int bps, int m) {
    PsoPlace s;
    s.group = blockIdx.x / bps;
    s.block = (int)(blockIdx.x - s.group * bps);
    s.swarm = first_swarm + s.group;
    s.base = s.swarm * (long long)m;
    s.slot = 0;
    s.width = blockDim.x;
    if (EVEN) {
        pso_spread(s, bps, m, (int)threadIdx.x);
    } else {
        s.lt = s.block * blockDim.x + threadIdx.x;
        s.stride = bps * blockDim.x;
        s.per_block = blockDim.x;
    }
    return s;
}

// Packed blocks (classic PSO, spb > 1: small swarms, several to a block): block b holds swarms
// first_swarm + b * spb + k, k < spb, swarm k on threads [k m, (k + 1) m), one particle per thread,
// so thread t owns particle (the block's first swarm) * m + t. Threads past the block's swarms
// (t >= spb m, or in the last block a swarm >= `swarms`) are idle: lt = m, so they own no particle
// and skip every per-particle loop, but they still reach every __syncthreads; their swarm is the
// block's first (a valid index for the grid's key and parameter row, never written).
__device__ __forceinline__ PsoPlace pso_place_packed(long long first_swarm, int spb, int m, long long swarms) {
    PsoPlace s;
    const long long first = first_swarm + (long long)blockIdx.x * spb;  // the block's first swarm
    const int k = (int)(threadIdx.x / (unsigned int)m);
    const bool active = k < spb && first + k < swarms;
    s.group = blockIdx.x;
    s.block = 0;
    s.slot = active ? k : 0;
    s.swarm = first + s.slot;
    s.base = s.swarm * (long long)m;
    s.lt = active ? (int)threadIdx.x - k * m : m;
    s.stride = m;
    s.per_block = blockDim.x;
    s.width = blockDim.x;
    return s;
}

// The best of a swarm's bps partials (value f[k], index i[k]) that this thread reads: k = t, t +
// threads, ... (t = threadIdx.x < threads). Loads come in groups of PSO_SCAN_LOADS before any is
// compared, so that their L2 round trips overlap (the loads keep mw_ldcg's order, the comparisons
// only need registers): with the partials read by one warp in a loop of one pair at a time, 512
// blocks (one swarm of 131,072) took 16 round trips an iteration. Any order gives the same best:
// mw_better is a total order on (value, index) pairs of distinct indices.
#define PSO_SCAN_LOADS 4
template <typename T>
__device__ __forceinline__ MwBest<T> pso_scan_partials(const T* f, const long long* i, int bps, int threads) {
    MwBest<T> v = mw_no_best<T>();
    for (int k0 = threadIdx.x; k0 < bps; k0 += PSO_SCAN_LOADS * threads) {
        T vf[PSO_SCAN_LOADS];
        long long vi[PSO_SCAN_LOADS];
#pragma unroll
        for (int u = 0; u < PSO_SCAN_LOADS; ++u) {
            const int k = k0 + u * threads;
            vf[u] = k < bps ? mw_ldcg(f + k) : mw_inf<T>();
            vi[u] = k < bps ? mw_ldcg(i + k) : 0x7FFFFFFFFFFFFFFFLL;
        }
#pragma unroll
        for (int u = 0; u < PSO_SCAN_LOADS; ++u) v = mw_better(v, mw_make_best(vf[u], vi[u]));
    }
    return v;
}

// What a block's exchanges already moved (shared memory, `memo`: three entries, set by threads 0-2
// at a launch's start (pso_memo_start), then written by thread 0 only, each time after a
// __syncthreads that follows every thread's read of it): the best (value, index) whose point each
// partial slot (parity 0, 1) holds, and the one g_x holds. A personal best
// changes only with its value, so an equal (value, index) is the same point: a block whose best
// did not change since it last wrote that slot, or a swarm best that did not change, skips the
// copy (an L2 round trip each at 131,072 particles, where P is not in shared memory; late in a run
// neither changes in most iterations). In shared memory, not registers: three more live values
// across the move made ptxas spill in the move's loop.
template <typename T> __device__ __forceinline__ void pso_memo_start(MwBest<T>* memo) {
    if (threadIdx.x < 3) memo[threadIdx.x] = mw_make_best(mw_inf<T>(), -1LL);  // no particle has index -1
}
template <typename T> __device__ __forceinline__ bool pso_same(const MwBest<T>& a, const MwBest<T>& b) {
    return a.i == b.i && a.f == b.f;
}

// SPSO-2011's exchange in a thread-per-particle kernel: the swarm's best particle (smallest personal
// best, ties to the smaller index) from every thread's own best `mine`, into *g (shared), valid in
// every thread of every block of the swarm on return. Its value and index only: SPSO moves towards
// informants, not towards the swarm's best point. Through per-block partials behind the group
// barrier (a release), which also publishes the key resets before the next scatter; `parity`
// selects the partial buffers. The lanes kernel: pso_exchange_counted; classic PSO:
// pso_exchange_tagged.
// After the group barrier: the swarm's best from its blocks' partials of exchange `parity` into *g,
// read by the whole block after the call.
template <typename T>
__device__ __forceinline__ void pso_partials_best(const PsoPlace& at, int parity, int bps, const T* gpart_f,
                                                  const long long* gpart_i, MwBest<T>* g) {
    const long long first = (long long)parity * gridDim.x + (blockIdx.x - at.block);
    if (bps <= 32 * PSO_SCAN_LOADS) {  // one warp reduces the swarm's partials: no block-wide reduction
        if (threadIdx.x < 32) {
            const MwBest<T> v = mw_warp_argmin(pso_scan_partials(gpart_f + first, gpart_i + first, bps, 32));
            if (threadIdx.x == 0) *g = v;
        }
    } else {  // many blocks (512 at 131,072 particles): every warp reads a share, one round trip
        const MwBest<T> v = mw_block_argmin(pso_scan_partials(gpart_f + first, gpart_i + first, bps, (int)blockDim.x));
        if (threadIdx.x == 0) *g = v;
    }
    __syncthreads();
}

template <typename T>
__device__ void pso_exchange_fenced(MwBest<T> mine, const PsoPlace& at, int parity, T* gpart_f, long long* gpart_i,
                                    MwGroupSync& sync, MwBest<T>* g) {
    const int bps = sync.count;
    const MwBest<T> b = mw_block_argmin(mine);
    if (threadIdx.x == 0) *g = b;
    __syncthreads();
    if (bps == 1) return;
    const MwBest<T> blk = *g;
    const long long slot = (long long)parity * gridDim.x + blockIdx.x;
    if (threadIdx.x == 0) {
        gpart_f[slot] = blk.f;
        gpart_i[slot] = blk.i;
    }
    mw_group_sync(sync);
    pso_partials_best(at, parity, bps, gpart_f, gpart_i, g);
}


// Classic PSO's exchange among the blocks of a swarm (pso_exchange_tagged): no fence in most
// iterations. Each block publishes its best as one 16-byte slot (value, index within the swarm,
// tag), written by one thread in one access and read in one (a single transaction either way, as
// CUB's decoupled look-back relies on for its 16-byte tile descriptors); the tag numbers the
// exchange within the launch (1, 2, ...; the host zeroes the slots before each launch). The block
// then counts itself in with a relaxed add and waits for the count, like the group barrier but
// without its release fence: a slot carries its own proof of being current, so a reader that sees
// an older tag (the add overtook the store) polls that slot again. A block's best point goes to its
// point slot (gpart_x) only when it changed (memo). float: each coordinate word carries the tag too
// (pso_point_put), so neither side fences; double: a fence precedes the slot (release) and the
// reader fences (acquire) when it copies a point. H100, rastrigin 30-D (notes-gpu.md v11; before
// the point words were tagged): one swarm of 16,384 2.40 -> 2.55-2.60
// G/s, 1,024 245 -> 282-285 M/s, 131,072 6.74-6.82 -> 6.84-6.86 G/s, the same numbers. Polling the
// slots themselves instead of the count (one round trip less) was slower: 16,384 1.63 G/s, every
// waiting block's warp spinning on 128 slots at once.
// Slot: x, y the value's bits (float: x, and y the point's tag), z the best's index within the swarm
// (0xFFFFFFFF: none), w the tag. Two slots per block, by exchange parity (as the partials before
// them): a block can only rewrite a slot (or its point) of exchange k in exchange k + 2, after every
// block has counted in to exchange k + 1, so after every block has finished reading exchange k's
// slots and points: a point word never holds a tag newer than its slot names.
__device__ __forceinline__ void pso_slot_store(uint4* p, uint4 v) {
    asm volatile("st.relaxed.gpu.global.v4.u32 [%0], {%1, %2, %3, %4};"
                 : : "l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
}
__device__ __forceinline__ uint4 pso_slot_load(const uint4* p) {
    uint4 v;
    asm volatile("ld.relaxed.gpu.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p) : "memory");
    return v;
}
// `ptag` (float only, in y): the tag of the exchange in which the block last wrote its point slot
// (float's point words carry that tag: pso_point_put).
__device__ __forceinline__ uint4 pso_slot_pack(MwBest<float> b, long long base, int m, unsigned int tag,
                                               unsigned int ptag) {
    const bool in = b.i >= base && b.i < base + m;
    return make_uint4(__float_as_uint(b.f), ptag, in ? (unsigned int)(b.i - base) : 0xFFFFFFFFu, tag);
}
__device__ __forceinline__ uint4 pso_slot_pack(MwBest<double> b, long long base, int m, unsigned int tag,
                                               unsigned int) {
    const bool in = b.i >= base && b.i < base + m;
    const unsigned long long f = (unsigned long long)__double_as_longlong(b.f);
    return make_uint4((unsigned int)f, (unsigned int)(f >> 32), in ? (unsigned int)(b.i - base) : 0xFFFFFFFFu, tag);
}
template <typename T> __device__ __forceinline__ T pso_slot_value(uint4 s);
template <> __device__ __forceinline__ float pso_slot_value<float>(uint4 s) { return __uint_as_float(s.x); }
template <> __device__ __forceinline__ double pso_slot_value<double>(uint4 s) {
    return __longlong_as_double((long long)(((unsigned long long)s.y << 32) | s.x));
}
template <typename T> __device__ __forceinline__ MwBest<T> pso_slot_best(uint4 s, long long base) {
    return mw_make_best(pso_slot_value<T>(s), s.z == 0xFFFFFFFFu ? 0x7FFFFFFFFFFFFFFFLL : base + (long long)s.z);
}

// A block's best point in its point slot (gpart_x), one 8-byte word a coordinate. float: the
// coordinate's bits and the tag of the exchange that wrote it, stored relaxed in one access and
// read again until it holds the tag its slot names (the slot may be seen before the point): no
// fence on either side. double has no room for the tag: plain words, the writer fencing before
// its slot (release) and the reader after seeing it (acquire), as every point was before.
template <typename T> struct PsoPointTagged { static const bool value = sizeof(T) == 4; };
__device__ __forceinline__ void pso_point_put(unsigned long long* p, float v, unsigned int tag) {
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;"
                 : : "l"(p), "l"(((unsigned long long)tag << 32) | __float_as_uint(v)) : "memory");
}
__device__ __forceinline__ void pso_point_put(unsigned long long* p, double v, unsigned int) {
    *p = (unsigned long long)__double_as_longlong(v);
}
template <typename T> __device__ __forceinline__ T pso_point_get(const unsigned long long* p, unsigned int tag);
template <> __device__ __forceinline__ float pso_point_get<float>(const unsigned long long* p, unsigned int tag) {
    unsigned long long w;
    do {
        asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(w) : "l"(p) : "memory");
    } while ((unsigned int)(w >> 32) != tag);
    return __uint_as_float((unsigned int)w);
}
template <> __device__ __forceinline__ double pso_point_get<double>(const unsigned long long* p, unsigned int) {
    return __longlong_as_double((long long)mw_ldcg(p));
}

// The best of a swarm's bps slots that this thread reads (k = t, t + threads, ..., PSO_SCAN_LOADS at
// a time), each read again until it holds `tag` (rarely: every block has counted in); *ptag: that
// slot's point tag (float). Any order gives the same best: mw_better is a total order on (value,
// index) pairs of distinct indices.
template <typename T>
__device__ __forceinline__ MwBest<T> pso_poll_slots(const uint4* slots, int bps, int threads, unsigned int tag,
                                                    long long base, unsigned int* ptag) {
    MwBest<T> v = mw_no_best<T>();
    unsigned int y = 0u;
    for (int k0 = threadIdx.x; k0 < bps; k0 += PSO_SCAN_LOADS * threads) {
        uint4 w[PSO_SCAN_LOADS];
#pragma unroll
        for (int u = 0; u < PSO_SCAN_LOADS; ++u) {
            const int k = k0 + u * threads;
            w[u] = k < bps ? pso_slot_load(slots + k) : make_uint4(0u, 0u, 0xFFFFFFFFu, tag);
        }
#pragma unroll
        for (int u = 0; u < PSO_SCAN_LOADS; ++u) {
            const int k = k0 + u * threads;
            while (w[u].w != tag) w[u] = pso_slot_load(slots + k);  // a block not there yet
            const MwBest<T> c = pso_slot_best<T>(w[u], base);
            if (k < bps && (c.f < v.f || (c.f == v.f && c.i < v.i))) {  // mw_better, keeping the slot's y
                v = c;
                y = w[u].y;
            }
        }
    }
    *ptag = y;
    return v;
}

// The argmin of a warp's values in every lane, with the winner's `y` (a butterfly: mw_better picks
// the smaller (value, index) whatever the order, so every lane ends with the winner that
// mw_warp_argmin gives lane 0); float on sm_80 and later by reduce.cuh's warp-wide min instructions.
template <typename T> __device__ __forceinline__ MwBest<T> pso_warp_argmin_all(MwBest<T> v, unsigned int& y) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
        MwBest<T> o;
        o.f = __shfl_xor_sync(0xFFFFFFFFu, v.f, offset);
        o.i = __shfl_xor_sync(0xFFFFFFFFu, v.i, offset);
        const unsigned int oy = __shfl_xor_sync(0xFFFFFFFFu, y, offset);
        if (o.f < v.f || (o.f == v.f && o.i < v.i)) {
            v = o;
            y = oy;
        }
    }
    return v;
}
#if MW_WARP_REDUX
__device__ __forceinline__ MwBest<float> pso_warp_argmin_all(MwBest<float> v, unsigned int& y) {
    const int from = mw_warp_argmin_lane(v);
    y = __shfl_sync(0xFFFFFFFFu, y, from);
    return mw_make_best(__shfl_sync(0xFFFFFFFFu, v.f, from), __shfl_sync(0xFFFFFFFFu, v.i, from));
}
#endif

// Warp 0's part of pso_exchange_tagged (below), between its two __syncthreads: from the warps'
// bests wf/wi (shared), the swarm's best into *g and, with g_x, its point into g_x.
template <typename T>
__device__ __forceinline__ void pso_exchange_warp0(const T* wf, const long long* wi, const T* P, const T* ps,
                                                   long long n, int d, int m, const PsoPlace& at, int parity,
                                                   unsigned int tag, uint4* slots, unsigned long long* gpart_x,
                                                   MwGroupSync& sync, T* g_x, MwBest<T>* g, MwBest<T>* memo,
                                                   unsigned int* ptag) {
    const bool tagged = PsoPointTagged<T>::value;
    const int lane = threadIdx.x & 31;
    const int bps = sync.count;
    unsigned int y = 0u;
    const MwBest<T> blk = pso_warp_argmin_all(lane < (int)(blockDim.x >> 5) ? mw_make_best(wf[lane], wi[lane])
                                                                             : mw_no_best<T>(), y);
    const bool has = g_x && blk.i >= at.base && blk.i < at.base + m;
    // the block's best point: column (particle - first particle of the block) of the shared copy
    const T* src = ps ? ps + (blk.i - at.base - (long long)at.block * at.per_block) : P + blk.i;
    const long long stride = ps ? (long long)at.width : n;
    if (bps == 1) {
        if (has) {
            for (int j = lane; j < d; j += 32) g_x[j] = src[j * stride];
        }
        if (lane == 0) *g = blk;
        return;
    }
    if (tag == 1u && lane < 2) ptag[lane] = 0u;  // a launch's first exchange: no point written yet
    const long long slot = (long long)parity * gridDim.x + blockIdx.x;
    const bool send = has && !pso_same(blk, memo[parity]);
    if (send) {
        for (int j = lane; j < d; j += 32) pso_point_put(gpart_x + slot * d + j, src[j * stride], tag);
    }
    __syncwarp();  // the point written; every lane's read of memo[parity] done
    if (lane == 0) {
        if (send) {
            if (!tagged) __threadfence();  // release: the point before the slot that announces it
            memo[parity] = blk;
            ptag[parity] = tag;
        }
        pso_slot_store(slots + slot, pso_slot_pack(blk, at.base, m, tag, ptag[parity]));
        // counted in without a fence (the slot's tag, not the count, tells a reader it is there)
        asm volatile("red.relaxed.gpu.global.add.u64 [%0], %1;" : : "l"(sync.bar), "l"(1ull) : "memory");
        sync.passed += (unsigned long long)bps;
        for (unsigned long long c = 0; c < sync.passed;) {
            asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(c) : "l"(sync.bar) : "memory");
        }
    }
    __syncwarp();  // every block has counted in; a slot not yet visible is polled below
    const long long first = (long long)parity * gridDim.x + (blockIdx.x - at.block);
    const MwBest<T> w = pso_warp_argmin_all(pso_poll_slots<T>(slots + first, bps, 32, tag, at.base, &y), y);
    if (lane == 0) *g = w;
    if (g_x && w.i >= at.base && w.i < at.base + m && !pso_same(w, memo[2])) {  // uniform in the warp
        if (!tagged) {
            __threadfence();  // acquire: the owner's fence preceded its slot, which a lane of this warp saw
            __syncwarp();
        }
        const long long local = w.i - at.base;
        const long long owner = first + (local % at.stride) / at.per_block;
        for (int j = lane; j < d; j += 32) g_x[j] = pso_point_get<T>(gpart_x + owner * d + j, y);
        __syncwarp();  // every lane's read of memo[2] done
        if (lane == 0) memo[2] = w;
    }
}

// Classic PSO's exchange: the swarm's best particle (smallest personal best, ties to the smaller
// index) from every thread's own best `mine`, into *g (shared) and, when g_x is given, its point
// into g_x (shared, d values), valid in every thread of every block of the swarm on return; through
// the tagged slots above. `tag`: this exchange's number within the launch (1, 2, ...), `parity` its
// parity. ps: the block's personal bests in shared memory (or null), where the block's best point
// is read without a round trip to L2. memo: see pso_memo_start. sync: the swarm's arrival count.
// Two __syncthreads: (1) every warp's best is in wf/wi; (2) warp 0 has written *g and g_x. `idle`:
// what the other warps do meanwhile (nothing of the exchange's). Warp 0
// alone does everything between them (pso_exchange_warp0: the block's best, its point and slot,
// the count, the slots' argmin, the swarm best's point): memo and ptag are warp 0's, and wf/wi,
// *g and g_x are next written after (2) and the next move, when every read of them here is done.
// Before, every thread took part, with five __syncthreads between the steps. H100, rastrigin 30-D
// (notes-gpu.md v12, with float's tagged points and reduce.cuh's redux argmin): 16,384 2.55-2.59 ->
// 2.60-2.66 G/s, 131,072 6.71-6.79 -> 6.69-6.99, 1,024 280-283 -> 275-282 M/s, the same numbers.
struct PsoNoIdle {
    __device__ __forceinline__ void operator()() const {}
};
template <typename T, typename Idle = PsoNoIdle>
__device__ void pso_exchange_tagged(MwBest<T> mine, const T* P, const T* ps, long long n, int d, int m,
                                    const PsoPlace& at, int parity, unsigned int tag, uint4* slots,
                                    unsigned long long* gpart_x, MwGroupSync& sync, T* g_x, MwBest<T>* g,
                                    MwBest<T>* memo, const Idle& idle = Idle()) {
    __shared__ T wf[32];
    __shared__ long long wi[32];
    __shared__ unsigned int ptag[2];  // the tag each parity's point slot was last written with
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    unsigned int y = 0u;
    const MwBest<T> v = pso_warp_argmin_all(mine, y);
    if (lane == 0) {
        wf[warp] = v.f;
        wi[warp] = v.i;
    }
    __syncthreads();  // (1)
    if (warp == 0) {
        pso_exchange_warp0(wf, wi, P, ps, n, d, m, at, parity, tag, slots, gpart_x, sync, g_x, g, memo, ptag);
    } else {
        idle();  // the other warps' work while warp 0 exchanges (pso_classic_lanes: PsoDrawsAhead)
    }
    __syncthreads();  // (2)
}

// SPSO-2011's exchange in the lanes kernel (pso_spso_rows_lanes): pso_exchange_fenced's best, but
// through classic's tagged slots behind a relaxed count
// (pso_exchange_warp0 without the point): `tag` numbers the exchange within the launch (1, 2, ...;
// the host zeroes the slots before each launch), `parity` its slot. Past 32 x PSO_SCAN_LOADS blocks
// (512 at 131,072 particles) every warp reads a share of the slots, one round trip.
// No fence either way. What the exchange orders without one: every gather of this iteration
// before any block's new personal bests overwrite P and PR after it (a block counts in only after
// its threads have used every row they loaded); the key resets go to the other parity's keys
// (pso_spso_run), which the next scatter's barrier (a release) publishes before they are scattered
// to again. H100, rastrigin 30-D float32 (notes-gpu.md v24): 16,384 1.49-1.50 -> 1.56-1.57 G/s,
// 1,024 150 -> 160 M/s, the same numbers. In the 64-register kernels it cost 6-22% (512 swarms of
// 256, which never exchange, 3.13 -> 2.45 G/s: ptxas's register choices), so they keep the fenced one.
template <typename T>
__device__ void pso_exchange_counted(MwBest<T> mine, const PsoPlace& at, int m, int parity, unsigned int tag,
                                     uint4* slots, MwGroupSync& sync, MwBest<T>* g) {
    const int bps = sync.count;
    const MwBest<T> b = mw_block_argmin(mine);  // valid in thread 0
    if (threadIdx.x == 0) *g = b;
    if (bps == 1) {
        __syncthreads();
        return;
    }
    sync.passed += (unsigned long long)bps;
    if (threadIdx.x == 0) {
        pso_slot_store(slots + (long long)parity * gridDim.x + blockIdx.x, pso_slot_pack(b, at.base, m, tag, 0u));
        asm volatile("red.relaxed.gpu.global.add.u64 [%0], %1;" : : "l"(sync.bar), "l"(1ull) : "memory");
        for (unsigned long long c = 0; c < sync.passed;) {
            asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(c) : "l"(sync.bar) : "memory");
        }
    }
    __syncthreads();  // every block has counted in; a slot not yet visible is polled again
    const uint4* first = slots + (long long)parity * gridDim.x + (blockIdx.x - at.block);
    unsigned int y;
    if (bps <= 32 * PSO_SCAN_LOADS) {  // one warp reads the swarm's slots: no block-wide reduction
        if (threadIdx.x < 32) {
            const MwBest<T> v = mw_warp_argmin(pso_poll_slots<T>(first, bps, 32, tag, at.base, &y));
            if (threadIdx.x == 0) *g = v;
        }
    } else {
        const MwBest<T> v = mw_block_argmin(pso_poll_slots<T>(first, bps, (int)blockDim.x, tag, at.base, &y));
        if (threadIdx.x == 0) *g = v;
    }
    __syncthreads();
}

// The packed block's exchange (pso_place_packed; bps = 1): every swarm's best particle (smallest
// personal best, ties to the smaller index: mw_better, so the same particle as pso_exchange finds)
// from every thread's own best `mine`, by a segmented argmin over the swarms' thread ranges, into
// sbest[slot] (shared); with g_x, each swarm's best point into g_x[slot * d ..] (shared). Called by
// every thread of the block (spb is a kernel argument: uniform), idle threads with mw_no_best.
// Three __syncthreads, none in divergent code: (1) every thread's `mine` is in red_f/red_i (and
// its personal best in P or ps) before any is read; (2) sbest is complete before any swarm copies
// its point; (3) g_x is complete before the next move reads it. The next call's writes to red_*,
// sbest and g_x come after (2) and (3) of this one, when every read of them here is done.
template <typename T>
__device__ void pso_exchange_packed(MwBest<T> mine, const T* P, const T* ps, long long n, int d, int m,
                                    int spb, const PsoPlace& at, long long swarms, T* red_f, long long* red_i,
                                    MwBest<T>* sbest, T* g_x) {
    const int t = threadIdx.x, lane = t & 31, warps = blockDim.x >> 5;
    const long long first = at.swarm - at.slot;  // the block's first swarm
    const long long left = swarms - first;
    const int here = left < spb ? (int)left : spb;  // swarms in this block
    red_f[t] = mine.f;
    red_i[t] = mine.i;
    __syncthreads();  // (1)
    // warp w reduces swarms w, w + warps, ...: the loop condition is the same in all of a warp's
    // lanes, so the shuffles see full warps
    for (int k = t >> 5; k < here; k += warps) {
        MwBest<T> v = mw_no_best<T>();
        for (int p = lane; p < m; p += 32) v = mw_better(v, mw_make_best(red_f[k * m + p], red_i[k * m + p]));
        v = mw_warp_argmin(v);
        if (lane == 0) sbest[k] = v;
    }
    __syncthreads();  // (2)
    const MwBest<T> w = sbest[at.slot];
    if (g_x && at.lt < m && w.i >= at.base && w.i < at.base + m) {
        // the swarm's threads copy its best point: from the shared p (column = the winner's thread:
        // particle first * m + t is thread t) or from P, written by this block before (1)
        const long long col = w.i - first * m;
        T* g = g_x + (long long)at.slot * d;
        for (int j = at.lt; j < d; j += m) g[j] = ps ? ps[(long long)j * blockDim.x + col] : P[(long long)j * n + w.i];
    }
    __syncthreads();  // (3)
}

// End of a launch: the launch's best particle (bests only improve, so every swarm's best is its
// best ever) folded into the run's best, its point copied from P through L2.
template <typename T>
__device__ void pso_commit(MwBest<T> mine, const T* P, long long n, int d, T* part_f, long long* part_i,
                           unsigned int* ticket, T* best_f, T* best_x, long long* best_i) {
    __shared__ MwBest<T> winner;
    if (mw_grid_argmin(mine, part_f, part_i, ticket, &winner)) {
        if (mw_replaces_best<false>(winner, *best_f, *best_i)) {  // uniform across the block
            for (int j = threadIdx.x; j < d; j += blockDim.x) best_x[j] = mw_ldcg(P + (long long)j * n + winner.i);
            __syncthreads();
            if (threadIdx.x == 0) {
                *best_f = winner.f;
                *best_i = winner.i;
            }
        }
    }
}

// ---- initialisation ----------------------------------------------------------------------------

// Particle i: uniform point, velocity (classic: U(-range, range); spso: U(lo - x, up - x)),
// evaluated; its personal best is that point. One thread per particle.
template <typename F, typename T>
__global__ void pso_init(T* X, T* V, T* P, T* f, T* Pf, const T* __restrict__ lower,
                         const T* __restrict__ upper, long long n, int d, unsigned long long seed,
                         long long walker0, int classic, const unsigned long long* gseeds, long long gsize) {
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int K = MwPerBlock<T>::value;
    const MwGroupKey gk = mw_group_key(seed, gseeds, gsize, i);  // a grid's run: its own key
    const MwRng rng(gk.seed, (unsigned long long)(walker0 + i - gk.first), MW_STREAM_INIT);
    const unsigned long long per_point = mw_blocks_per_point(d, K);
    mw_fill_uniform(rng, 0ull, lower, upper, X + i, n, d);
    for (int j0 = 0; j0 < d; j0 += K) {
        const MwWords r = rng(per_point + (unsigned long long)(j0 / K));
#pragma unroll
        for (int q = 0; q < K; ++q) {
            const int j = j0 + q;
            if (j < d) {
                const T x = X[(long long)j * n + i];
                const T lo = lower[j], hi = upper[j];
                const T a = classic ? -(hi - lo) : lo - x;
                const T b = classic ? (hi - lo) : hi - x;
                V[(long long)j * n + i] = a + (b - a) * mw_uniform<T>(r, q);
            }
        }
    }
    const StridedPoint<T> x = {X + i, n};
    const T fx = mw_sanitize(F::template eval<T>(x, d));
    f[i] = fx;
    Pf[i] = fx;
    for (int j = 0; j < d; ++j) P[(long long)j * n + i] = X[(long long)j * n + i];
}

// SPSO-2011 confinement of one coordinate: clamp to the box, reverse and halve the velocity.
// Selects, not branches (issue 14: the branches cost a BSSY/BSYNC pair and a reload of the bound
// per coordinate); a NaN x stays as it is, as with the branches.
template <typename T> __device__ __forceinline__ void pso_confine(T& x, T& v, T lo, T hi) {
    const bool below = x < lo, above = x > hi;
    v = below || above ? T(-0.5) * v : v;
    x = below ? lo : (above ? hi : x);
}

// Classic PSO's new velocity of one coordinate (every classic kernel: one expression, one rounding).
template <typename T>
__device__ __forceinline__ T pso_classic_velocity(T v, T x, T pb, T gb, T rp, T rg, T omega, T phi_p, T phi_g) {
    return omega * v + phi_p * rp * (pb - x) + phi_g * rg * (gb - x);
}

// The end of one coordinate's move (classic and SPSO): confine the new x and v, store them and
// advance the particle's running addresses to the next coordinate; returns the confined x (the
// caller feeds it to its running objective).
template <typename T, typename R>
__device__ __forceinline__ T pso_place(T x, T v, T lo, T hi, const R& r, T*& xq, T*& vq, const T*& pq) {
    pso_confine(x, v, lo, hi);
    *xq = x;
    *vq = v;
    xq += r.xs;
    vq += r.vs;
    pq += r.ps;
    return x;
}

// Classic PSO's r_p and r_g of coordinate q of a Philox block (PsoCoefficients<T>::value coordinates a
// block). float: the low and high 16-bit halves of word q (mw_u01h), four coordinates a block;
// double: the block's two 53-bit uniforms, one coordinate. Issue 14: float's two 24-bit words a
// coordinate made the Philox rounds ~15% of pso_classic's samples at 131,072 (Nsight Compute); with
// the halves a move draws half the blocks. H100, rastrigin 30-D float32, one swarm (notes-gpu.md
// v20): 16,384 2.56-2.57 -> 2.89-2.93 G/s, 131,072 7.06-7.07 -> 7.70-7.73 (pso_classic_vwarps one
// block at a time). A coefficient scales a difference (p - x, g - x) by a uniform factor; 2^16 levels
// instead of 2^24 change its distribution by less than 2^-16 anywhere (tests/test_pso_coefficients.py
// checks the halves' uniformity and independence, and the runs' quality was compared on the GPU).
template <typename T> struct PsoCoefficients { static const int value = sizeof(T) == 4 ? 4 : 1; };
__device__ __forceinline__ void pso_coefficients(const MwWords& w, int q, float& rp, float& rg) {
    const unsigned int u = mw_word(w, q);
    rp = mw_u01h(u & 0xFFFFu);
    rg = mw_u01h(u >> 16);
}
__device__ __forceinline__ void pso_coefficients(const MwWords& w, int, double& rp, double& rg) {
    rp = mw_uniform<double>(w, 0);
    rg = mw_uniform<double>(w, 1);
}

// Classic PSO's move of one coordinate j (coefficients q of its Philox block w; every classic kernel,
// a thread or several lanes per particle: one expression, one rounding): the new, confined x.
template <typename T, typename R>
__device__ __forceinline__ T pso_classic_step(const MwWords& w, int q, T gj, T lo, T hi, T omega, T phi_p,
                                              T phi_g, T lr, const R& r, T*& xq, T*& vq, const T*& pq) {
    T rp, rg;
    pso_coefficients(w, q, rp, rg);
    const T x = *xq;
    const T v = pso_classic_velocity(*vq, x, *pq, gj, rp, rg, omega, phi_p, phi_g);
    return pso_place(x + lr * v, v, lo, hi, r, xq, vq, pq);
}

// p, a generic pointer into the dynamic shared memory that starts at `base`, as a pointer the
// compiler knows is shared: its address-space inference follows arithmetic on `base`, so loads and
// stores through it are LDS/STS with 32-bit addresses, not generic LD/ST (which also keep the
// compiler from moving a load above a store it cannot prove apart).
template <typename T> __device__ __forceinline__ T* pso_in_shared(unsigned char* base, T* p) {
    return (T*)base + (p - (T*)base);
}

// Where a thread's own particle lives during a launch: x, v and p in shared memory (column
// threadIdx.x, stride blockDim.x) when the host found room (flags bit 0: x, 1: v, 2: p, only when
// a thread owns exactly one particle), else in the global (d, n) arrays. Shared memory holds, in
// order: [keys] [g: d] [x: B d] [v: B d] [p: B d] (absent arrays take no room). The global P is
// always kept current (other blocks read it: the swarm's best, SPSO's informants, the commit).
#define PSO_X_SHARED 1
#define PSO_V_SHARED 2
#define PSO_P_SHARED 4
// Bits 8 up (PSO_V_SHARED off; the host gives them to pso_classic: ParticleSwarmCuda.v_warps_kernels):
// the v of the block's first 32 k threads (k in these bits) in shared memory, rows of 32 k, the other
// threads' in the global V. One swarm of 131,072 in blocks of 1,024: x takes 120 KB of a block's 227,
// v's rows for 896 of the threads 105 KB more. A thread's v stays in one place for the whole launch,
// and a warp's threads are all in the same place (pso_classic_run's move has a copy for each).
#define PSO_V_WARPS_SHIFT 8
// pso_classic_lanes only (bit 3): the next iteration's Philox blocks of the move in shared memory,
// drawn by warps 1.. while warp 0 does the exchange (PsoDrawsAhead), 16 bytes per (block, particle)
// after the rows, 16-byte aligned
#define PSO_DRAWS_SHARED 8

template <typename T> struct PsoRows {
    T* x;
    T* v;
    T* p;
    int xs, vs, ps;  // strides (blockDim.x or n; n < 2^31 by the Params' limits)
};

// How many of a block's threads have their v in shared memory (the width of its rows): in
// pso_classic_vwarps (VWARPS) the warps the host packed into flags' bits 8 up; in every other kernel
// PSO_V_ALL, a constant: v is shared by all the block's threads (PSO_V_SHARED) or by none, and the
// rows' code is what it was before the warps (a width from flags cost SPSO 5-7% at 131,072 and
// classic PSO 3% at 32,768, H100: notes-gpu.md v19).
#define PSO_V_ALL (-1)
template <bool VWARPS> __device__ __forceinline__ int pso_v_width(int flags) {
    return VWARPS ? 32 * (flags >> PSO_V_WARPS_SHIFT) : PSO_V_ALL;
}

// vw: the width of v's shared rows (pso_v_width; threads from vw on keep v in the global V; PSO_V_ALL:
// every thread's v where it is shared).
template <typename T>
__device__ __forceinline__ PsoRows<T> pso_rows(T* X, T* V, T* P, long long n, long long i, T* xs, T* vs,
                                               T* ps, bool own_one, int vw) {
    PsoRows<T> r;
    const int B = blockDim.x;
    r.x = own_one && xs ? xs + threadIdx.x : X + i;
    r.xs = own_one && xs ? B : (int)n;
    r.v = own_one && vs ? vs + threadIdx.x : V + i;
    r.vs = own_one && vs ? B : (int)n;
    r.p = own_one && ps ? ps + threadIdx.x : P + i;
    r.ps = own_one && ps ? B : (int)n;
    if (vw != PSO_V_ALL) {  // pso_classic_vwarps (the other kernels' code is what it was)
        const bool v_shared = own_one && vs && (int)threadIdx.x < vw;
        r.v = v_shared ? vs + threadIdx.x : V + i;
        r.vs = v_shared ? vw : (int)n;
    }
    return r;
}

// Shared copies of the own particle at the start (to_shared) or end of a launch.
// vw: the width of v's shared rows (pso_rows).
template <typename T>
__device__ void pso_stage(T* X, T* V, T* P, long long n, int d, long long i, T* xs, T* vs, T* ps,
                          bool to_shared, int vw) {
    const int B = blockDim.x, t = threadIdx.x, W = vw == PSO_V_ALL ? B : vw;
    if (vw != PSO_V_ALL && t >= vw) vs = (T*)0;  // pso_classic_vwarps: this thread's v stays in V
    for (int j = 0; j < d; ++j) {
        const long long g = (long long)j * n + i;
        if (to_shared) {
            if (xs) xs[j * B + t] = X[g];
            if (vs) vs[j * W + t] = V[g];
            if (ps) ps[j * B + t] = P[g];
        } else {
            if (xs) X[g] = xs[j * B + t];
            if (vs) V[g] = vs[j * W + t];
        }
    }
}

// Split the dynamic shared memory after `used` bytes: g (g_count values: d, or spb d in a packed
// block), then the flagged arrays, rows of `width` particles (0: blockDim.x; lanes: fewer).
template <typename T>
__device__ __forceinline__ T* pso_split(unsigned char* smem, int used, int d, int g_count, int flags, T** xs,
                                        T** vs, T** ps, int width = 0, uint4** pw = 0) {
    T* g_x = (T*)(smem + used);
    T* next = g_x + g_count;
    const int Bd = (width ? width : (int)blockDim.x) * d;
    *xs = (flags & PSO_X_SHARED) ? next : (T*)0;
    next += (flags & PSO_X_SHARED) ? Bd : 0;
    *vs = (flags & PSO_V_SHARED) ? next : (T*)0;
    next += (flags & PSO_V_SHARED) ? Bd : 0;
    *ps = (flags & PSO_P_SHARED) ? next : (T*)0;
    next += (flags & PSO_P_SHARED) ? Bd : 0;
    if (pw) {
        const unsigned long long at = ((unsigned long long)next + 15ull) & ~15ull;
        *pw = (flags & PSO_DRAWS_SHARED) ? (uint4*)at : (uint4*)0;
    }
    return g_x;
}

// The particle's new value: its personal best (both copies) if it improved on `pf`. Returns the best.
template <typename T>
__device__ __forceinline__ T pso_remember(const PsoRows<T>& r, T* P, T* f, T* Pf, long long n, int d,
                                         long long i, T fx, T pf) {
    f[i] = fx;
    if (fx < pf) {
        pf = fx;
        Pf[i] = fx;
        const bool twice = r.p != P + i;  // p has its own (shared) copy
        const T* xq = r.x;
        T* gq = P + i;
        T* pq = r.p;
        for (int j = 0; j < d; ++j, xq += r.xs, gq += n, pq += r.ps) {  // running addresses: no
            const T x = *xq;                                             // 64-bit j * stride
            *gq = x;
            if (twice) *pq = x;
        }
    }
    return pf;
}

// ---- classic PSO with several lanes per particle (pso_classic_lanes) ------------------------------

// A particle's lanes: L = 2, 4 or 8 consecutive lanes of a warp (aligned: L divides 32 and the block
// size), this one r of them, and their mask for the shuffles and __syncwarp.
struct PsoLanes {
    int L;
    int r;
    unsigned int mask;
};

__device__ __forceinline__ PsoLanes pso_lanes(int lanes) {
    PsoLanes g;
    g.L = lanes;
    g.r = (int)(threadIdx.x & (unsigned int)(lanes - 1));
    g.mask = (lanes >= 32 ? 0xFFFFFFFFu : (1u << lanes) - 1u) << ((threadIdx.x & 31u) & ~(unsigned int)(lanes - 1));
    return g;
}

// PsoPlace in particles: lt the particle (of the swarm) whose lanes these are, stride particles per
// swarm, per_block particles per block (blockDim.x / lanes, the width of the shared rows).
// pso_exchange takes it as it is.
__device__ __forceinline__ PsoPlace pso_place_lanes(long long first_swarm, int bps, int m, int lanes) {
    PsoPlace s = pso_place(first_swarm, bps, m);
    s.per_block = blockDim.x / (unsigned int)lanes;
    s.width = s.per_block;
    s.lt = s.block * (int)s.per_block + (int)threadIdx.x / lanes;
    s.stride = bps * (int)s.per_block;
    return s;
}

// pso_rows for a particle of lanes: its shared rows are indexed by particle (column col of rows of
// `width` particles), not by thread.
template <typename T>
__device__ __forceinline__ PsoRows<T> pso_rows_lanes(T* X, T* V, T* P, long long n, long long i, T* xs, T* vs,
                                                     T* ps, bool own_one, int col, int width) {
    PsoRows<T> r;
    r.x = own_one && xs ? xs + col : X + i;
    r.xs = own_one && xs ? width : (int)n;
    r.v = own_one && vs ? vs + col : V + i;
    r.vs = own_one && vs ? width : (int)n;
    r.p = own_one && ps ? ps + col : P + i;
    r.ps = own_one && ps ? width : (int)n;
    return r;
}

// pso_stage for a particle of lanes, each lane coordinates r, r + L, ...: any split will do, as a
// __syncthreads (the exchange's) separates the staging from any other lane's use of the copies.
template <typename T>
__device__ void pso_stage_lanes(T* X, T* V, T* P, long long n, int d, long long i, T* xs, T* vs, T* ps,
                                bool to_shared, int col, int width, const PsoLanes& g) {
    for (int j = g.r; j < d; j += g.L) {
        const long long gi = (long long)j * n + i;
        const int si = j * width + col;
        if (to_shared) {
            if (xs) xs[si] = X[gi];
            if (vs) vs[si] = V[gi];
            if (ps) ps[si] = P[gi];
        } else {
            if (xs) X[gi] = xs[si];
            if (vs) V[gi] = vs[si];
        }
    }
}

// __shfl_sync of any value made of 32-bit words (a fold's term: T or a struct of T).
template <typename U> union PsoWords {
    U u;
    unsigned int w[sizeof(U) / 4];
};
template <typename U> __device__ __forceinline__ U pso_shfl(unsigned int mask, const U& v, int src, int width) {
    static_assert(sizeof(U) % 4 == 0, "a shuffled term is made of 32-bit words");
    PsoWords<U> a;
    a.u = v;
#pragma unroll
    for (int k = 0; k < (int)(sizeof(U) / 4); ++k) a.w[k] = __shfl_sync(mask, a.w[k], src, width);
    return a.u;
}

// The objective of a point whose coordinates a particle's lanes make (pso_move_lanes: Philox block b
// by lane b mod L, C coordinates per block). A fold (problems.cuh: MwFold): each lane computes the
// terms of its own coordinates (term: slot q of the current block), and after every round of L
// blocks each lane folds the round's terms in coordinate order, fetching each from the lane that
// computed it (gather): the same terms (problems.cuh: a term rounds alike wherever it is computed)
// accumulated in the same order as one thread folding them, so the same value, in every lane.
// Otherwise the lanes store the point (they do anyway) and every lane evaluates it whole once all
// have written it (sync: __syncwarp orders the lanes' writes before the reads).
template <typename F, typename T, int C, bool = mw_folds<F>::value> struct PsoLaneEval {
    __device__ __forceinline__ void term(int, T, int) {}
    __device__ __forceinline__ void gather(int, int, const PsoLanes&) {}
    __device__ __forceinline__ void sync(const PsoLanes& g) const { __syncwarp(g.mask); }
    template <typename X> __device__ __forceinline__ T value(const X& x, int d) const {
        return F::template eval<T>(x, d);
    }
};
template <typename F, typename T, int C> struct PsoLaneEval<F, T, C, true> {
    using Term = decltype(F::template term<T>(T(0), 0));
    typename F::template Acc<T> a;
    Term t[C];  // this lane's terms of the round's block
    __device__ __forceinline__ PsoLaneEval() : a(F::template start<T>()), t() {}
    __device__ __forceinline__ void term(int q, T v, int j) { t[q] = F::template term<T>(v, j); }
    // coordinates j0 .. j0 + L C - 1 (those below d): lane s holds j0 + s C + q in t[q]
    __device__ __forceinline__ void gather(int j0, int d, const PsoLanes& g) {
        for (int s = 0; s < g.L; ++s) {
#pragma unroll
            for (int q = 0; q < C; ++q) {
                const Term u = pso_shfl(g.mask, t[q], s, g.L);  // every lane: the shuffle needs them all
                if (j0 + s * C + q < d) F::template accumulate<T>(a, u);
            }
        }
    }
    __device__ __forceinline__ void sync(const PsoLanes& g) const { __syncwarp(g.mask); }
    template <typename X> __device__ __forceinline__ T value(const X&, int d) const { return F::finish(a, d); }
};

// The Philox blocks of the move of iteration t for the block's particles (columns 0 .. rows - 1,
// particle first + col), block b of particle col into pw[b * width + col]: by warps 1.. of the
// block while warp 0 does the exchange that precedes that move (pso_exchange_tagged's idle), so
// that the move reads 16 bytes of shared memory per block instead of drawing it (the same words:
// pso_move_lanes). pw null: nothing (the move draws).
struct PsoDrawsAhead {
    uint4* pw;
    int width, rows, blocks;  // columns of pw, particles of the block, Philox blocks per particle
    long long first, keyed;  // particle `first + col`'s stream is keyed first + col + keyed
    unsigned long long key, t;
    __device__ __forceinline__ void operator()() const {
        if (!pw) return;
        const int tasks = blocks * width;
        for (int k = (int)threadIdx.x - 32; k < tasks; k += (int)blockDim.x - 32) {
            const int b = k / width, col = k - b * width;
            if (col < rows) {
                const MwRng rng(key, (unsigned long long)(first + col + keyed), MW_STREAM_STEP);
                const MwWords w = rng(t * (unsigned long long)blocks + (unsigned long long)b);
                pw[k] = make_uint4(w.x, w.y, w.z, w.w);
            }
        }
    }
};

__device__ __forceinline__ PsoDrawsAhead pso_draws_ahead(uint4* pw, int width, int m, const PsoPlace& at,
                                                       long long keyed, unsigned long long key, int blocks,
                                                       long long t) {
    const long long first = (long long)at.block * (long long)at.per_block;  // within the swarm
    const int rows = (int)max(0LL, min((long long)width, (long long)m - first));
    return PsoDrawsAhead{pw, width, rows, blocks, at.base + first, keyed, key, (unsigned long long)t};
}

// Particle i's move, objective and personal best by its lanes (pso_classic_run's loop body when
// LANED). Lane r makes the coordinates of Philox blocks b = r, r + L, ... (block b: coordinates
// C b .. C b + C - 1 with their r_p, r_g, draw t per_iter + b), each by the one-thread move's
// arithmetic on the same numbers; the objective by PsoLaneEval; a new personal best is copied by
// each lane for its own coordinates, f and Pf written by lane 0. pf: the particle's best value so
// far, read before the move. Returns its best value now (in every lane).
template <typename F, typename T>
__device__ __forceinline__ T pso_move_lanes(const PsoRows<T>& r, T* P, T* f, T* Pf, long long n, int d,
                                           long long i, const MwRng& rng, unsigned long long draw0, int blocks,
                                           T omega, T phi_p, T phi_g, T lr, const T* __restrict__ lower,
                                           const T* __restrict__ upper, const T* g_own, bool evaluate, T pf,
                                           const PsoLanes& g, const uint4* pw, int width, int col) {
    const int C = PsoCoefficients<T>::value;  // coordinates per Philox block
    PsoLaneEval<F, T, C> fold;
    const long long first = (long long)g.r * C, round = (long long)g.L * C;
    T* xq = r.x + first * r.xs;  // running addresses of the lane's next block
    T* vq = r.v + first * r.vs;
    const T* pq = r.p + first * r.ps;
    // rounds of L blocks: the same trip count in every lane of the particle (the gather's shuffles).
    // One round at a time: with float's four coordinates a block (pso_coefficients) a lane has two
    // rounds at d = 30 and 4 lanes, and unrolled by two they ran 16,384 particles at 2.90-2.93 G/s
    // against 3.10-3.11 (1,024: 290 against 307-309 M/s; H100, notes-gpu.md v20). double (a
    // coordinate a block, not measured this way) keeps two
#pragma unroll(sizeof(T) == 4 ? 1 : 2)
    for (int b0 = 0; b0 < blocks; b0 += g.L) {
        const int b = b0 + g.r;
        if (b < blocks) {
            MwWords w;
            if (pw) {  // drawn during the exchange (PsoDrawsAhead): the same words
                const uint4 u = pw[b * width + col];
                w = MwWords{u.x, u.y, u.z, u.w};
            } else {
                w = rng(draw0 + (unsigned long long)b);
            }
            T* xb = xq;
            T* vb = vq;
            const T* pc = pq;
#pragma unroll
            for (int q = 0; q < C; ++q) {
                const int j = b * C + q;
                if (j < d) {
                    fold.term(q, pso_classic_step(w, q, g_own[j], lower[j], upper[j], omega, phi_p, phi_g, lr, r,
                                                  xb, vb, pc), j);
                }
            }
        }
        fold.gather(b0 * C, d, g);
        xq += round * r.xs;
        vq += round * r.vs;
        pq += round * r.ps;
    }
    fold.sync(g);  // the point complete for a non-fold; every lane's read of Pf[i] before lane 0 writes it
    const T fx = evaluate ? mw_sanitize(fold.value(StridedPoint<T>{r.x, r.xs}, d)) : mw_inf<T>();
    if (g.r == 0) f[i] = fx;
    if (fx < pf) {
        pf = fx;
        if (g.r == 0) Pf[i] = fx;
        const bool twice = r.p != P + i;  // p has its own (shared) copy
        for (int j0 = (int)first; j0 < d; j0 += (int)round) {
#pragma unroll
            for (int q = 0; q < C; ++q) {
                const int j = j0 + q;
                if (j < d) {
                    const T x = r.x[(long long)j * r.xs];
                    P[(long long)j * n + i] = x;
                    if (twice) r.p[(long long)j * r.ps] = x;
                }
            }
        }
    }
    return pf;
}

// ---- classic global-best PSO ----------------------------------------------------------------------

// `iterations` iterations of swarms first_swarm .. first_swarm + gridDim.x / bps - 1 (the kernel
// pso_classic below; GROUPED: a tuning grid's launch, gsize > 0); with spb > 1 (bps = 1), of
// swarms first_swarm .. first_swarm + gridDim.x * spb - 1 (< n / m), spb to a block
// (pso_place_packed). Either way each particle does the same arithmetic on the same numbers, and
// its swarm's best is the same particle: packed or not, the same run. LANED (pso_classic_lanes;
// neither grouped nor packed): `lanes` lanes per particle (pso_move_lanes), again the same run.
template <typename F, typename T, bool GROUPED, bool PACKED, bool LANED = false, bool VWARPS = false>
__device__ __forceinline__ void pso_classic_run(T* X, T* V, T* P, T* f, T* Pf, T* swarm_f, long long* swarm_i, const T* __restrict__ lower,
            const T* __restrict__ upper, long long n, int m, int d, long long first_swarm, int bps, int spb, int lanes,
            unsigned long long seed, long long walker0, long long first_iter, int iterations, long long last_active,
            T omega, T phi_p, T phi_g,
            T lr, int flags, uint4* gslots, unsigned long long* gpart_x, unsigned long long* bars,
            T* part_f, long long* part_i, unsigned int* ticket, T* best_f, T* best_x, long long* best_i,
            const unsigned long long* gseeds, const T* gvals, long long gsize) {
    extern __shared__ __align__(16) unsigned char pso_smem[];
    __shared__ MwBest<T> g;
    // shared memory: packed, [red_i: B][sbest: spb][red_f: B] first (the segmented argmin's
    // scratch; B a multiple of 32 keeps every part aligned), then g (spb d) and x, v, p as flagged
    const bool packed = PACKED;  // pso_classic_packed, pso_classic_grid_packed: the host passes spb > 1
    const int B = blockDim.x;
    long long* red_i = (long long*)pso_smem;
    MwBest<T>* sbest = (MwBest<T>*)(red_i + B);
    T* red_f = (T*)(sbest + spb);
    const int used = packed ? (int)((unsigned char*)(red_f + B) - pso_smem) : 0;
    T *xs, *vs, *ps;
    // lanes: shared rows of x, v, p one column per particle (blockDim.x / lanes wide)
    const PsoLanes ln = pso_lanes(LANED ? lanes : 1);
    const int width = LANED ? (int)blockDim.x / lanes : 0;
    uint4* pw = 0;  // lanes: the move's Philox blocks, drawn during the exchange (PSO_DRAWS_SHARED)
    T* g_x = pso_split<T>(pso_smem, used, d, packed ? spb * d : d, flags, &xs, &vs, &ps, width, LANED ? &pw : 0);
    // pso_classic_vwarps (flags: x alone shared, and the count of warps above PSO_V_WARPS_SHIFT): the
    // first warps' v rows right after x's
    if (VWARPS && xs && (flags >> PSO_V_WARPS_SHIFT)) vs = xs + (long long)blockDim.x * d;
    const long long swarms = n / m;
    const PsoPlace at = packed ? pso_place_packed(first_swarm, spb, m, swarms)
                               : (LANED ? pso_place_lanes(first_swarm, bps, m, lanes)
                                        : pso_place<VWARPS>(first_swarm, bps, m));
    const int col = LANED ? (int)threadIdx.x / lanes : 0;  // lanes: the particle's column in the block
    const T* g_own = g_x + (long long)at.slot * d;  // this thread's swarm's best point
    // a grid's run (gsize particles, whole swarms): its key and its row (omega, phi_p, phi_g, lr)
    // of the parameter table, read once here; an ordinary launch keeps the scalar arguments
    const MwGroupKey gk = mw_group_key_if<GROUPED>(seed, gseeds, gsize, at.base);
    // particle i's stream is keyed i + keyed (its global index walker0 + i in a split run, its
    // index within its run in a grid) and it evaluates in a cut last iteration while i < active_end
    // (last_active counts within the run): two live values instead of walker0, first, last_active
    const long long keyed = walker0 - gk.first;
    const long long active_end = gk.first + last_active;
    if (GROUPED) {
        omega = gvals[gk.index * 4 + 0];
        phi_p = gvals[gk.index * 4 + 1];
        phi_g = gvals[gk.index * 4 + 2];
        lr = gvals[gk.index * 4 + 3];
    }
    MwGroupSync sync = {bars + at.group, 0ull, bps};  // the exchange's arrival count
    const bool own_one = flags != 0 && at.lt < m;  // flags: the host checked one particle per thread
    const int C = PsoCoefficients<T>::value;  // coordinates per Philox block (r_p and r_g each)
    const unsigned long long per_iter = (unsigned long long)((d + C - 1) / C);
    // lanes: the block's particles' next move drawn during each exchange (the host sets the flag
    // only where every particle has its own lanes and the block has more than one warp); not where
    // there is no move, a thread has several particles (a column holds one) or the block one warp
    if (!LANED || iterations < 1 || at.stride < m || blockDim.x <= 32) pw = (uint4*)0;
    if (own_one && LANED) pso_stage_lanes(X, V, P, n, d, at.base + at.lt, xs, vs, ps, true, col, width, ln);
    if (own_one && !LANED) pso_stage(X, V, P, n, d, at.base + at.lt, xs, vs, ps, true, pso_v_width<VWARPS>(flags));
    MwBest<T> mine = mw_no_best<T>();
    for (int p = at.lt; p < m; p += at.stride) mine = mw_better(mine, mw_make_best(Pf[at.base + p], at.base + p));
    if (LANED && ln.r != 0) mine = mw_no_best<T>();  // a particle's best enters the exchange once
    T pf_own = own_one ? Pf[at.base + at.lt] : T(0);  // the own particle's best value, in a register
    int parity = 0;
    __shared__ MwBest<T> memo[3];
    pso_memo_start(memo);  // read after the exchange's first __syncthreads
    if (packed) {
        pso_exchange_packed(mine, P, ps, n, d, m, spb, at, swarms, red_f, red_i, sbest, g_x);
    } else {
        pso_exchange_tagged(mine, P, ps, n, d, m, at, parity, 1u, gslots, gpart_x, sync, g_x, &g, memo,
                            pso_draws_ahead(pw, width, m, at, keyed, gk.seed, (int)per_iter, first_iter));
    }

    for (int it = 0; it < iterations; ++it) {
        const unsigned long long t = (unsigned long long)(first_iter + it);
        mine = mw_no_best<T>();
        for (int p = at.lt; p < m; p += at.stride) {
            const long long i = at.base + p;
            const MwRng rng(gk.seed, (unsigned long long)(i + keyed), MW_STREAM_STEP);
            if (LANED) {  // the same move by the particle's lanes
                const PsoRows<T> r = pso_rows_lanes(X, V, P, n, i, xs, vs, ps, own_one, col, width);
                const T pf = pso_move_lanes<F, T>(r, P, f, Pf, n, d, i, rng, t * per_iter, (int)per_iter, omega,
                                                  phi_p, phi_g, lr, lower, upper, g_own,
                                                  it + 1 < iterations || i < active_end, own_one ? pf_own : Pf[i], ln,
                                                  pw, width, col);
                if (own_one) pf_own = pf;
                if (ln.r == 0) mine = mw_better(mine, mw_make_best(pf, i));
                continue;
            }
            const PsoRows<T> r = pso_rows(X, V, P, n, i, xs, vs, ps, own_one, pso_v_width<VWARPS>(flags));
            // the move and the objective: VWARPS in two copies, v in shared memory (rows pso_v_width
            // wide) or in the global V (n wide), a warp's threads all in one: each copy's v stride
            // comes from the kernel's arguments, not a register. With the stride in a register (one
            // copy) ptxas kept the block's best and pf_own in local memory across the move, and the
            // kernel ran 6-8% slower at 131,072 with v global (H100; notes-gpu.md v18). Other kernels:
            // one copy, the code as before the warps
            auto move = [&](const PsoRows<T>& rr) {
                // running addresses (x, v, p advance by their strides): no 64-bit j * stride per
                // access; a fold functor (problems.cuh: MwFold) takes each new coordinate as it is
                // made, so the objective does not read the point back (the same value)
                T* xq = rr.x;
                T* vq = rr.v;
                const T* pq = rr.p;
                MwRunningEval<F, T> fold;
                unsigned long long draw = t * per_iter;
                // unrolled: two Philox chains in flight; pso_classic_vwarps one in float (four coordinates;
                // by two, ptxas spilled 132/164 bytes there and 131,072 ran 7.13-7.24 G/s, not 7.70-7.73;
                // pso_classic by one spilled 172/348 and 512 swarms of 256 lost 30%: H100, v20)
#pragma unroll((VWARPS && sizeof(T) == 4) ? 1 : 2)
                for (int j0 = 0; j0 < d; j0 += C, ++draw) {
                    const MwWords w = rng(draw);
#pragma unroll
                    for (int q = 0; q < C; ++q) {
                        const int j = j0 + q;
                        if (j < d) {
                            fold.add(pso_classic_step(w, q, g_own[j], lower[j], upper[j], omega, phi_p, phi_g, lr,
                                                      rr, xq, vq, pq), j);
                        }
                    }
                }
                return it + 1 < iterations || i < active_end
                           ? mw_sanitize(fold.value(StridedPoint<T>{rr.x, rr.xs}, d)) : mw_inf<T>();
            };
            T fx;
            if (VWARPS && r.v != V + i) {
                PsoRows<T> rv = r;
                rv.vs = pso_v_width<VWARPS>(flags);
                fx = move(rv);
            } else if (VWARPS) {
                PsoRows<T> rv = r;
                rv.vs = (int)n;
                fx = move(rv);
            } else {
                fx = move(r);
            }
            const T pf = pso_remember(r, P, f, Pf, n, d, i, fx, own_one ? pf_own : Pf[i]);
            if (own_one) pf_own = pf;
            mine = mw_better(mine, mw_make_best(pf, i));
        }
        parity ^= 1;
        if (packed) {
            pso_exchange_packed(mine, P, ps, n, d, m, spb, at, swarms, red_f, red_i, sbest, g_x);
        } else {
            // the next iteration's blocks, if there is one in this launch
            pso_exchange_tagged(mine, P, ps, n, d, m, at, parity, (unsigned int)it + 2u, gslots, gpart_x, sync,
                                g_x, &g, memo,
                                pso_draws_ahead(it + 1 < iterations ? pw : (uint4*)0, width, m, at, keyed, gk.seed,
                                                (int)per_iter, first_iter + it + 1));
        }
    }

    if (own_one && LANED) pso_stage_lanes(X, V, P, n, d, at.base + at.lt, xs, vs, ps, false, col, width, ln);
    if (own_one && !LANED) pso_stage(X, V, P, n, d, at.base + at.lt, xs, vs, ps, false, pso_v_width<VWARPS>(flags));
    // the swarm's leader: block 0's thread 0, or in a packed block the swarm's first thread (lt 0;
    // idle threads have lt = m)
    const bool leader = PACKED ? at.lt == 0 : at.block == 0 && threadIdx.x == 0;
    const MwBest<T> best = packed ? sbest[at.slot] : g;  // read after the last exchange's barrier
    if (leader) {
        swarm_f[at.swarm] = best.f;
        swarm_i[at.swarm] = best.i;
    }
    pso_commit(leader ? best : mw_no_best<T>(), P, n, d, part_f, part_i, ticket, best_f, best_x, best_i);
}

// The kernels: an ordinary launch (its code as before grids existed: the parameters stay kernel
// arguments) and a tuning grid's launch (gsize > 0), instantiated apart so that the grid's extra
// live values (its key, first particle and parameter row) cost the ordinary kernel nothing
// (ptxas: the grid's body spills where the ordinary one does not).
#define PSO_CLASSIC_PARAMS                                                                             \
    T *X, T *V, T *P, T *f, T *Pf, T *swarm_f, long long *swarm_i, const T *__restrict__ lower,         \
        const T *__restrict__ upper, long long n, int m, int d, long long first_swarm, int bps,        \
        int spb, int lanes, unsigned long long seed, long long walker0, long long first_iter,          \
        int iterations, long long last_active, T omega, T phi_p, T phi_g, T lr, int flags,             \
        uint4 *gslots, unsigned long long *gpart_x, unsigned long long *bars, T *part_f,               \
        long long *part_i,                                                                             \
        unsigned int *ticket, T *best_f, T *best_x, long long *best_i,                                 \
        const unsigned long long *gseeds, const T *gvals, long long gsize
#define PSO_CLASSIC_ARGS                                                                               \
    X, V, P, f, Pf, swarm_f, swarm_i, lower, upper, n, m, d, first_swarm, bps, spb, lanes, seed, walker0, \
        first_iter, iterations, last_active, omega, phi_p, phi_g, lr, flags, gslots, gpart_x, bars,    \
        part_f, part_i, ticket, best_f, best_x, best_i, gseeds, gvals, gsize

// Launch bounds of pso_classic (solvers/cuda/particle_swarm.py: CLASSIC_MAX_BLOCK): blocks of up to
// 1,024 threads, with the same 64 registers as (256, 4). One swarm of 131,072 is then 128 blocks, one
// a multiprocessor, instead of 512 of 256: the same threads a multiprocessor, but a quarter of the
// arrivals at each iteration's group barrier and of the partials every block reads after it
// (pso_exchange). Measured on the H100 (docs/benchmarks/notes-gpu.md v10): 5.66-5.80 -> 6.83-6.87 G/s,
// the same numbers.
#define PSO_CLASSIC_MAX_BLOCK 1024
template <typename F, typename T>
__global__ void __launch_bounds__(PSO_CLASSIC_MAX_BLOCK, 1) pso_classic(PSO_CLASSIC_PARAMS) {
    pso_classic_run<F, T, false, false>(PSO_CLASSIC_ARGS);
}

// pso_classic with the v of the block's first warps in shared memory beside x (the host: a swarm
// spread over blocks of 512 or more where x alone is shared and v's rows fit for some warps but not
// all; flags' bits 8 up): the same run.
template <typename F, typename T>
__global__ void __launch_bounds__(PSO_CLASSIC_MAX_BLOCK, 1) pso_classic_vwarps(PSO_CLASSIC_PARAMS) {
    pso_classic_run<F, T, false, false, false, true>(PSO_CLASSIC_ARGS);
}

// Lanes per particle (lanes = 2, 4 or 8; the host's choice where particles per multiprocessor are
// few): the same run as pso_classic.
template <typename F, typename T>
__global__ void __launch_bounds__(PSO_LANES_MAX_BLOCK, 1) pso_classic_lanes(PSO_CLASSIC_PARAMS) {
    pso_classic_run<F, T, false, false, true>(PSO_CLASSIC_ARGS);
}

template <typename F, typename T>
__global__ void __launch_bounds__(256, 4) pso_classic_grid(PSO_CLASSIC_PARAMS) {
    pso_classic_run<F, T, true, false>(PSO_CLASSIC_ARGS);
}

template <typename F, typename T>
__global__ void __launch_bounds__(PSO_PACKED_MAX_BLOCK, PSO_PACKED_MIN_BLOCKS) pso_classic_packed(PSO_CLASSIC_PARAMS) {
    pso_classic_run<F, T, false, true>(PSO_CLASSIC_ARGS);
}

template <typename F, typename T>
__global__ void __launch_bounds__(PSO_PACKED_MAX_BLOCK, PSO_PACKED_MIN_BLOCKS) pso_classic_grid_packed(PSO_CLASSIC_PARAMS) {
    pso_classic_run<F, T, true, true>(PSO_CLASSIC_ARGS);
}

// ---- SPSO-2011 ------------------------------------------------------------------------------------

// Order-preserving unsigned images of float/double (no NaN: values are sanitised).
__device__ __forceinline__ unsigned int pso_ordered(float v) {
    const unsigned int b = __float_as_uint(v);
    return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
}
__device__ __forceinline__ unsigned long long pso_ordered(double v) {
    const unsigned long long b = (unsigned long long)__double_as_longlong(v);
    return (b & 0x8000000000000000ull) ? ~b : (b | 0x8000000000000000ull);
}

// Particle i's k-th link target (a global particle index of its swarm), for the links drawn after
// iteration `epoch` (-1: at initialisation).
__device__ __forceinline__ long long pso_link(const MwWords& r, int k, long long base, int m) {
    return base + (long long)mw_below(mw_word(r, k), (unsigned int)m);
}

// Key storage: shared (one block per swarm) or global; index of particle i's key.
struct PsoKeys {
    unsigned long long* k0;  // float: packed key; double: ordered value
    unsigned long long* k1;  // double: index
    long long offset;        // subtracted from the particle index (the swarm base when shared)
    bool shared;
    __device__ __forceinline__ long long at(long long i) const { return i - offset; }
    __device__ __forceinline__ unsigned long long read0(long long i) const {
        return shared ? k0[at(i)] : mw_ldcg(k0 + at(i));
    }
    __device__ __forceinline__ unsigned long long read1(long long i) const {
        return shared ? k1[at(i)] : mw_ldcg(k1 + at(i));
    }
};

// Scatter particle i's key to itself and its K targets. Round 0: float packed / double value;
// round 1 (double only): the index, where i's value is its target's smallest. With lanes, each lane
// a share of the targets (atomicMin: the same keys in any order).
// float's packed key of particle i with personal best value pf (pso_scatter; pso_spso_run's own key);
// its low word i, or with ONE (pso_spso_run) i << 1 | the buffer of i's PR row: the same order
__device__ __forceinline__ unsigned long long pso_packed_key(float pf, long long i) {
    return ((unsigned long long)pso_ordered(pf) << 32) | (unsigned long long)(unsigned int)i;
}

// pso_spso_run's ONE: the block's best after its moves, before the barrier that follows them (the
// partials are read after it, pso_partials_best): its partial of exchange `parity`, or, for a swarm
// of one block, the swarm's best itself (*g, read after the barrier's __syncthreads).
// `word` (float): instead, the block's best reduced into the swarm's word for this iteration (value
// and index packed as an informant's key, -0 as +0, so the smallest key is mw_better's best), which
// every thread reads with one load after the barrier (pso_spso_run's ONE): no loop over the
// partials there.
__device__ __forceinline__ unsigned long long pso_best_key(MwBest<float> b) {
    return pso_packed_key(b.f == 0.0f ? 0.0f : b.f, b.i);
}
__device__ __forceinline__ float pso_best_value(unsigned long long key) {
    const unsigned int o = (unsigned int)(key >> 32);
    return __uint_as_float((o & 0x80000000u) ? (o & 0x7FFFFFFFu) : ~o);
}
template <typename T>
__device__ __forceinline__ void pso_partial_put(MwBest<T> mine, int parity, int bps, T* gpart_f, long long* gpart_i,
                                                MwBest<T>* g, unsigned long long* word = nullptr) {
    const MwBest<T> b = mw_block_argmin(mine);
    if (threadIdx.x != 0) return;
    if (bps == 1) {
        *g = b;
        return;
    }
    if (word) {
        mw_red_min(word, pso_best_key(mw_make_best((float)b.f, b.i)));
        return;
    }
    const long long slot = (long long)parity * gridDim.x + blockIdx.x;
    gpart_f[slot] = b.f;
    gpart_i[slot] = b.i;
}

// pso_spso_run's ONE: the redraw decision's state an iteration starts from (shared memory)
template <typename T>
struct PsoDecision {
    long long epoch;       // the topology's epoch (the iteration of the last redraw)
    T previous;            // the swarm's best at the last decision
    unsigned int r3;       // t mod 3: the swarm's word this iteration reduces into
    bool predicted;        // the decision this iteration's scatter assumes
};

// self: the particle's own key among its targets (false: the reader takes the smaller of the key it
// reads and its own, pso_spso_run's SELF_LOCAL, float only)
#ifndef PSO_PREDICT_LAST
#define PSO_PREDICT_LAST 1  // ONE's prediction: the last decision again (0: always a redraw)
#endif
#ifndef PSO_F_LAST
#define PSO_F_LAST 1  // pso_spso_redraw: f written at a launch's last iteration only (pso_spso_run)
#endif
#ifndef PSO_SELF_LOCAL
#define PSO_SELF_LOCAL 1  // pso_spso_redraw (float): no particle scatters its key to itself (pso_spso_run)
#endif
template <typename T>
__device__ void pso_scatter(const PsoKeys& keys, long long i, T pf, int round, unsigned long long seed,
                            long long walker0, long long epoch, int K, long long base, int m,
                            int lane = 0, int lanes = 1, bool self = true, long long low = -1) {
    const MwRng rng(seed, (unsigned long long)(walker0 + i), PSO_STREAM_LINKS);
    const unsigned long long per_draw = (unsigned long long)((K + 3) / 4);
    unsigned long long key;
    if (sizeof(T) == 4) {
        key = pso_packed_key((float)pf, low < 0 ? i : low);  // low: pso_spso_run's ONE (index << 1 | buffer)
    } else {
        key = round == 0 ? pso_ordered((double)pf) : (unsigned long long)i;
    }
    const unsigned long long mine_value = pso_ordered((double)pf);
    for (int k = lane - (self ? 1 : 0); k < K; k += lanes) {  // lanes: lane r scatters to targets r - 1, r - 1 + L, ...
        long long target = i;
        if (k >= 0) {
            const MwWords r = rng((unsigned long long)(epoch + 1) * per_draw + (unsigned long long)(k / 4));
            target = pso_link(r, k % 4, base, m);
        }
        // global keys: a reduction with no reply (mw_red_min; the generic atomicMin waited for each
        // of a particle's K + 1 round trips to L2: H100, rastrigin 30-D float32, 131,072 3.04 -> 3.17
        // G/s, 16,384 1.55 -> 1.61, notes-gpu.md v26); shared keys (one block a swarm) as before
        if (round == 0) {
            if (keys.shared) {
                atomicMin(keys.k0 + keys.at(target), key);
            } else {
                mw_red_min(keys.k0 + keys.at(target), key);
            }
        } else if (keys.read0(target) == mine_value) {
            if (keys.shared) {
                atomicMin(keys.k1 + keys.at(target), key);
            } else {
                mw_red_min(keys.k1 + keys.at(target), key);
            }
        }
    }
}

// NP normals of one Philox block (Box-Muller on pairs of uniforms) for coordinates j0 .. j0 + NP - 1
// of d. Returns the block's share of |direction|^2: r^2 of each pair whose two coordinates are used
// (z0^2 + z1^2 without rounding the squares), z0^2 of a pair cut by d.
template <typename T> __device__ __forceinline__ T pso_normals(const MwWords& w, T* z, int j0, int d) {
    const T a = mw_normal2(mw_uniform<T>(w, 0), mw_uniform<T>(w, 1), z[0], z[1]);
    T part = j0 + 1 < d ? a : z[0] * z[0];
    if (MwPerBlock<T>::value == 4 && j0 + 2 < d) {
        const T b = mw_normal2(mw_uniform<T>(w, 2), mw_uniform<T>(w, 3), z[2], z[3]);
        part += j0 + 3 < d ? b : z[2] * z[2];
    }
    return part;
}

// pso_normals' share of |direction|^2 alone, for a pass that uses no normal (pso_spso_redraw's
// first): a whole pair's r^2 is its radius's square (mw_normal2's r2: no square root, no angle); a
// pair cut by d still makes its z0. The same values as pso_normals', whose cut pair's square is
// rounded before it is added (a select between it and r^2): here too, not one fused multiply-add.
__device__ __forceinline__ float pso_square_rn(float z) { return __fmul_rn(z, z); }
__device__ __forceinline__ double pso_square_rn(double z) { return __dmul_rn(z, z); }
template <typename T> __device__ __forceinline__ T pso_radii(const MwWords& w, int j0, int d) {
    T z0, z1, part;
    if (j0 + 1 < d) {
        part = T(-2) * mw_log_unit(T(1) - mw_uniform<T>(w, 0));
    } else {
        mw_normal2(mw_uniform<T>(w, 0), mw_uniform<T>(w, 1), z0, z1);
        part = pso_square_rn(z0);
    }
    if (MwPerBlock<T>::value == 4 && j0 + 2 < d) {
        if (j0 + 3 < d) {
            part += T(-2) * mw_log_unit(T(1) - mw_uniform<T>(w, 2));
        } else {
            mw_normal2(mw_uniform<T>(w, 2), mw_uniform<T>(w, 3), z0, z1);
            part += pso_square_rn(z0);
        }
    }
    return part;
}

#define PSO_SPSO_PARAMS                                                                                \
    T *X, T *V, T *P, T *f, T *Pf, T *swarm_f, long long *swarm_i, long long *epochs,                  \
        unsigned char *redrawn, unsigned long long *gkeys, unsigned char *pending, T *Z, T *PR,        \
        const T *__restrict__ lower, const T *__restrict__ upper, long long n, int m, int d,           \
        long long first_swarm, int bps, int lanes, unsigned long long seed, long long walker0,         \
        long long first_iter, int iterations, long long last_active, int K, int flags,                 \
        int keys_shared, T *gpart_f, long long *gpart_i, uint4 *gslots, unsigned long long *bars,     \
        T *part_f, long long *part_i, unsigned int *ticket, T *best_f, T *best_x, long long *best_i
#define PSO_SPSO_ARGS                                                                                  \
    X, V, P, f, Pf, swarm_f, swarm_i, epochs, redrawn, gkeys, pending, Z, PR, lower, upper, n, m, d,   \
        first_swarm, bps, lanes, seed, walker0, first_iter, iterations, last_active, K, flags,         \
        keys_shared,                                                                                   \
        gpart_f, gpart_i, gslots, bars, part_f, part_i, ticket, best_f, best_x, best_i

// SPSO's informants are read from PR, a particle-major copy of the personal bests: row i (pso_row
// elements, d rounded up to 4, so that every row and every Philox block of it is 16-byte aligned)
// holds P's column i. In P's (d, n) layout an informant's point is d scattered L2 sectors, a load
// each (at 131,072 particles the gathers of both passes kept L2 77% busy); a row is one 16-byte
// load per Philox block of coordinates, 8 loads within 4 sectors for d = 30 float. P stays the record (host, commit, snapshots): each launch
// rebuilds PR from it, and the iteration's new personal bests go to both.
__host__ __device__ __forceinline__ long long pso_row(int d) { return (long long)((d + 3) & ~3); }

// pso_spso_redraw's PR in tiles (TILED, where PSO_PR_TILES): the rows of a warp's 32 particles
// (i >> 5; the host pads PR to whole tiles) cut into chunks of a Philox block's coordinates (16 bytes:
// float 4, double 2), a tile's chunk c of its 32 particles side by side. A warp's load of its own
// rows' Philox block is then 512 contiguous bytes, 16 sectors each used whole, where 32 rows' sectors
// were each half used and their other half had to stay in L1 until the next block (a
// multiprocessor keeps ~2,048 rows' lines in flight against ~256 lines of L1). An informant's block is
// one 16-byte load either way. H100, rastrigin 30-D float32, 131,072 (notes-gpu.md v29): 3.30-3.32 ->
// 3.54-3.58 G/s alone, 3.81-3.83 with the informant's rows through L2, the 32-bit offsets and
// PSO_SELF_LOCAL; the row layout with those three, 3.33. PSO_PR_TILES 0: the row layout (measuring).
// Element (i, j) of PR, and its offset from (i, 0):
#ifndef PSO_PR_TILES
#define PSO_PR_TILES 1
#endif
template <typename T, bool TILED>
__device__ __forceinline__ long long pso_pr_off(int j) {
    constexpr unsigned int C = 16 / sizeof(T);
    return TILED ? (long long)((unsigned int)j / C * C * 32u + (unsigned int)j % C) : (long long)j;
}
template <typename T, bool TILED>
__device__ __forceinline__ long long pso_pr(long long i, int j, int d) {
    constexpr long long C = 16 / sizeof(T);
    return (TILED ? (i >> 5) * pso_row(d) * 32 + (i & 31) * C : i * pso_row(d)) + pso_pr_off<T, TILED>(j);
}

// Particle i's point src[0], src[stride], ... (d values) into its PR row (a launch's start). A store
// per coordinate: 16-byte stores (8 instead of 30, here and for the new personal bests) measured
// slower on the H100 at every size (131,072: 1.78 against 1.94 G/s; 16,384: 1.07 against 1.17 G/s).
template <typename T, bool TILED = false>
__device__ __forceinline__ void pso_row_put(T* PR, long long i, const T* src, long long stride, int d,
                                            int lane = 0, int lanes = 1) {
    T* row = PR + pso_pr<T, TILED>(i, 0, d);
    for (int j = lane; j < d; j += lanes) row[pso_pr_off<T, TILED>(j)] = src[(long long)j * stride];  // lanes: a share each
}

// pso_spso_redraw's new personal bests into their PR rows where every thread's x is in shared
// memory (xw: x's rows, blockDim.x wide; p not shared): by the warp, a row at a time, lane j storing
// coordinate j, one store a row (in tiles, TILED: its 16-byte chunks, a sector each). A new best's own thread stored its d coordinates one at a
// time while the rest of its warp waited (in a run's steady state about one particle of a warp
// improves an iteration). H100, rastrigin 30-D float32, 131,072: +2.5% alone, +0.5-1% after the x's
// shared addresses (notes-gpu.md v26). The lanes read down one column of x's rows, a bank conflict of
// up to d ways, as d separate loads of one lane each did before. pending 1 -> 2 (P behind PR) as the
// thread loop does.
// pso_spso_run's ONE: where particle i's row in PR's buffer `bit` starts (elements from PR; buffer 1
// from chunk `buffer1`, in the same layout). (Buffer 1 with each row whole, one 128-byte line
// instead of 8 shared with 7 other rows each, measured slower: notes-gpu.md v30.)
template <typename T, bool TILED>
__device__ __forceinline__ long long pso_pr_in(long long i, int d, unsigned int bit, unsigned int buffer1) {
    return (bit ? (long long)buffer1 * (long long)(16 / sizeof(T)) : 0ll) + pso_pr<T, TILED>(i, 0, d);
}

// The rows of the warp's lanes where `send` (lane k: particle i, x in column k of xw) into PR's
// buffer `bit` (pso_pr_in; 0 but for pso_spso_run's ONE), by the warp.
template <typename T, bool TILED>
__device__ __forceinline__ void pso_warp_rows(const T* xw, T* PR, long long i, unsigned int bit, unsigned int buffer1,
                                              bool send, int d) {
    const int lane = (int)(threadIdx.x & 31u), B = (int)blockDim.x;
    unsigned int left = __ballot_sync(0xFFFFFFFFu, send);
    const long long at = pso_pr_in<T, TILED>(i, d, bit, buffer1);
    xw += threadIdx.x - lane;  // the warp's first column
    while (left) {
        const int k = __ffs(left) - 1;
        left &= left - 1;
        T* row = PR + __shfl_sync(0xFFFFFFFFu, at, k);
        for (int j = lane; j < d; j += 32) row[pso_pr_off<T, TILED>(j)] = xw[j * B + k];
    }
}
template <typename T, bool TILED>
__device__ __forceinline__ void pso_rows_by_warp(const T* xw, T* PR, unsigned char* pending, long long i, bool mine,
                                                 int d) {
    const bool improved = mine && (pending[i] & 1);
    if (improved) pending[i] = 2;
    pso_warp_rows<T, TILED>(xw, PR, i, 0u, 0u, improved, d);
}

// Coordinates j0 .. j0 + NP - 1 of an informant's point: from its PR row (li = its row) in one load
// (coordinates past d are the row's padding, never used), or from P's column (li = P + l:
// coordinate j at li[j n], a load each, none past d).
template <bool PR_ROWS, typename T>
__device__ __forceinline__ void pso_gather(const T* li, int j0, long long n, int d, T* pl) {
    if (PR_ROWS) {  // j0 is a multiple of NP and the row padded: aligned, inside the row
        mw_ldcg16(li + j0, pl);
    } else {
        const int NP = MwPerBlock<T>::value;
#pragma unroll
        for (int q = 0; q < NP; ++q) pl[q] = j0 + q < d ? mw_ldcg(li + (long long)(j0 + q) * n) : T(0);
    }
}

// SPSO's move of particle i by its lanes (pso_spso_run's loop body with LANED): lane r makes the
// coordinates of the normals' Philox blocks b = r, r + L, ... (block b: coordinates NP b .. NP b +
// NP - 1, the same draws, gathers and arithmetic per coordinate as one thread's move), in rounds of
// L blocks. |G - x|^2 and |direction|^2 are sums of the blocks' shares (pso_spso_run's first pass);
// each lane makes its block's, and every lane adds them in block order, each fetched from the lane
// that made it, so |G - x|, |direction| and the radius are one thread's values bit for bit; the
// objective's terms are added in coordinate order likewise (PsoLaneEval). Between the passes a lane keeps
// its first PSO_LANE_KEPT rounds' G - x and normals in registers (d = 30 float: every round up to 4
// lanes) and the rest in Z (rows 0..d-1 the normals, d..2d-1 G - x), read back by the lane itself.
#ifndef PSO_LANE_KEPT
#define PSO_LANE_KEPT 2
#endif

// Pass 1, one round: the lane's block b0 + r (if any) into tc and z (and into Z when `to_z`), then
// the round's blocks' shares added to tc2 and dir2 in block order.
template <typename T, bool PR_ROWS>
__device__ __forceinline__ void pso_spso_lane_round1(const PsoRows<T>& r, T* Z, const T* li, T coef, long long n,
                                                     int d, long long i, const MwRng& rng,
                                                     unsigned long long draw0, int blocks, int b0, bool to_z,
                                                     T* tc, T* z, T& tc2, T& dir2, const PsoLanes& g) {
    const int NP = MwPerBlock<T>::value;
    const int b = b0 + g.r;
#pragma unroll
    for (int q = 0; q < 4; ++q) tc[q] = z[q] = T(0);
    T part = T(0), zpart = T(0);  // the block's shares of |G - x|^2 and |direction|^2
    if (b < blocks) {
        const int j0 = b * NP;
        T pl[4];
        pso_gather<PR_ROWS>(li, j0, n, d, pl);
        zpart = pso_normals(rng(draw0 + (unsigned long long)b), z, j0, d);
#pragma unroll
        for (int q = 0; q < NP; ++q) {
            const int j = j0 + q;
            if (j < d) {
                const T x = r.x[(long long)j * r.xs];
                tc[q] = coef * (r.p[(long long)j * r.ps] + pl[q] - T(2) * x);
                part += tc[q] * tc[q];
                if (to_z) {
                    Z[(long long)j * n + i] = z[q];
                    Z[(long long)(d + j) * n + i] = tc[q];
                }
            }
        }
    }
    for (int s = 0; s < g.L; ++s) {  // the blocks' shares in block order, as one thread adds them
        const T u = pso_shfl(g.mask, part, s, g.L);
        const T y = pso_shfl(g.mask, zpart, s, g.L);
        if (b0 + s < blocks) {
            tc2 += u;
            dir2 += y;
        }
    }
}

// Pass 2, one round: the move of the lane's block b0 + r (G - x and the normals from tc and z, or
// from Z when `from_z`) and the round's objective terms.
template <typename F, typename T, typename E>
__device__ __forceinline__ void pso_spso_lane_round2(const PsoRows<T>& r, const T* Z, long long n, int d,
                                                     long long i, int blocks, int b0, bool from_z,
                                                     const T* tc, const T* z, T scale,
                                                     const T* __restrict__ lower, const T* __restrict__ upper,
                                                     E& fold, const PsoLanes& g) {
    const int NP = MwPerBlock<T>::value;
    const T w = T(0.72134752044448170368);  // 1 / (2 ln 2), as pso_spso_run
    const int b = b0 + g.r;
    if (b < blocks) {
        const long long j0 = (long long)b * NP;
        T* xb = r.x + j0 * r.xs;
        T* vb = r.v + j0 * r.vs;
        const T* pc = r.p + j0 * r.ps;
#pragma unroll
        for (int q = 0; q < NP; ++q) {
            const int j = (int)j0 + q;
            if (j < d) {
                const T x = *xb;
                const T tq = from_z ? Z[(long long)(d + j) * n + i] : tc[q];
                const T zq = from_z ? Z[(long long)j * n + i] : z[q];
                T v = w * *vb + tq + scale * zq;
                fold.term(q, pso_place(x + v, v, lower[j], upper[j], r, xb, vb, pc), j);
            }
        }
    }
    fold.gather(b0 * NP, d, g);
}

// Returns f(x') in every lane.
template <typename F, typename T, bool PR_ROWS>
__device__ __forceinline__ T pso_spso_move_lanes(const PsoRows<T>& r, T* Z, const T* li, T coef, long long n, int d,
                                                 long long i, const MwRng& rng, unsigned long long draw0,
                                                 int blocks, const T* __restrict__ lower,
                                                 const T* __restrict__ upper, bool evaluate, const PsoLanes& g) {
    const int NP = MwPerBlock<T>::value;  // normals (coordinates) per Philox block
    const T tiny = sizeof(T) == 4 ? T(1.17549435082228750797e-38) : T(2.22507385850720138309e-308);
    T tc2 = T(0), dir2 = T(0);
    T kept_tc[PSO_LANE_KEPT > 0 ? PSO_LANE_KEPT : 1][4], kept_z[PSO_LANE_KEPT > 0 ? PSO_LANE_KEPT : 1][4];
    // the same rounds in every lane of the particle (the shuffles); a kept round past the last block
    // is skipped by all of them (8 lanes, d = 30 float: one round; its idle twin cost 1,024 particles
    // 139 -> 112-114 M/s on the H100)
#pragma unroll
    for (int k = 0; k < PSO_LANE_KEPT; ++k) {
        if (k * g.L >= blocks) break;
        pso_spso_lane_round1<T, PR_ROWS>(r, Z, li, coef, n, d, i, rng, draw0, blocks, k * g.L, false, kept_tc[k],
                                         kept_z[k], tc2, dir2, g);
    }
    for (int b0 = PSO_LANE_KEPT * g.L; b0 < blocks; b0 += g.L) {
        T tc[4], z[4];
        pso_spso_lane_round1<T, PR_ROWS>(r, Z, li, coef, n, d, i, rng, draw0, blocks, b0, true, tc, z, tc2, dir2, g);
    }
    const MwWords ru = rng(draw0 + (unsigned long long)blocks);
    const T scale = mw_sqrt(tc2) * mw_uniform<T>(ru, 0) / mw_fmax(mw_sqrt(dir2), tiny);
    PsoLaneEval<F, T, NP> fold;
#pragma unroll
    for (int k = 0; k < PSO_LANE_KEPT; ++k) {
        if (k * g.L >= blocks) break;
        pso_spso_lane_round2<F, T>(r, Z, n, d, i, blocks, k * g.L, false, kept_tc[k], kept_z[k], scale, lower,
                                   upper, fold, g);
    }
    for (int b0 = PSO_LANE_KEPT * g.L; b0 < blocks; b0 += g.L) {
        pso_spso_lane_round2<F, T>(r, Z, n, d, i, blocks, b0, true, kept_tc[0], kept_z[0], scale, lower, upper,
                                   fold, g);
    }
    fold.sync(g);  // the point complete for a non-fold objective
    return evaluate ? mw_sanitize(fold.value(StridedPoint<T>{r.x, r.xs}, d)) : mw_inf<T>();
}

// TC_ROWS: the move's first pass stores G - x in Z's rows d..2d-1 for the second (pso_spso_rows),
// or the second gathers the informant's point again (pso_spso). PR_ROWS: informants gathered from
// PR (swarms of more than 256 particles), or from P's columns (*_local: in a small swarm a warp's
// informants are among few particles, so its column loads share sectors; PR's row copies and
// stores cost that case 15-27% on the H100, 512 swarms of 256: 2.93 -> 2.13-2.50 G/s).
// REDRAW (pso_spso_redraw; PR_ROWS, not TC_ROWS): neither pass reads Z or P. Pass 1 takes p from the
// particle's own PR row and leaves w v + (G - x) in v's place; pass 2 draws the normals again and
// reads only v's place and x: v = (w v + (G - x)) + scale z, the two fused multiply-adds the one
// expression is (the same numbers: digests). For a swarm whose p is not in shared memory and whose
// rows pass the L2 (131,072 particles, x alone in shared memory), where Z's and P's traffic and pass
// 2's second gather went to HBM: H100, rastrigin 30-D float32 (notes-gpu.md v22), 1.94-1.96 ->
// 2.28-2.29 G/s; where the rows stay in the L2 (65,536) the Philox blocks and Box-Muller transforms
// made twice cost 6%.
// Template parameters, not runtime flags: both TC paths in one kernel made ptxas spill more in
// float (76/148 bytes against 28/112), which cost 2.5% at every size on the H100.
template <typename F, typename T, bool TC_ROWS, bool PR_ROWS, bool LANED = false, bool REDRAW = false, bool XSH = false,
          bool ONE_BARRIER = false>
__device__ __forceinline__ void pso_spso_run(PSO_SPSO_PARAMS) {
    extern __shared__ __align__(16) unsigned char pso_smem[];
    __shared__ MwBest<T> g;
    const bool twice = sizeof(T) == 8;  // double: value round, then index round
    // ONE (pso_spso_redraw_one, float): one grid barrier an iteration instead of two. The second only
    // took the swarm's best (the topology's redraw decision) and kept the new bests' rows from the
    // moves still reading the old ones; here
    // - the keys of iteration t are scattered before its barrier into set t & 1 (of three global
    //   sets) with the links the last decision predicts (the same decision again), by each thread
    //   as soon as its move of t - 1 is done (while its block's other warps still move; notes-gpu.md
    //   v32), and the decision
    //   is taken after the barrier from the swarm's best, each block's reduced into one word beside
    //   the keys (pso_partial_put); where it differs
    //   from the prediction (uniform in a swarm) the keys go again, with the links decided, into set
    //   2, behind a barrier of their own (the two-barrier iteration's cost);
    // - a new best's row goes into the PR buffer its particle's row is not in (buffer 1 past buffer
    //   0), which no move of the iteration reads, and the key carries the buffer in its low word's
    //   lowest bit (index << 1 | buffer: the same order). A row in buffer 1 is copied back into
    //   buffer 0 in the next iteration (readers then use buffer 1), so buffer 1 holds only the rows
    //   improved last iteration: the L2 keeps one buffer, and a warp's own rows stay one span (v26
    //   moved rows between buffers for good: both buffers in the L2, -21% at 131,072).
    // The same numbers (digests). notes-gpu.md v30.
    constexpr bool ONE = REDRAW && XSH && sizeof(T) == 4 && ONE_BARRIER;
    // LANED (pso_spso_rows_lanes): `lanes` lanes per particle, everything counted in particles as in
    // pso_classic_lanes; shared x, v, p rows one column per particle (blockDim.x / lanes wide)
    const PsoLanes ln = pso_lanes(LANED ? lanes : 1);
    const int width = LANED ? (int)blockDim.x / lanes : 0;
    const int col = LANED ? (int)threadIdx.x / lanes : 0;
    const bool lead = !LANED || ln.r == 0;  // the lane that writes a particle's f, Pf, flags and key
    const PsoPlace at = LANED ? pso_place_lanes(first_swarm, bps, m, lanes) : pso_place(first_swarm, bps, m);
    const int B = blockDim.x;
    PsoKeys keys;
    keys.shared = keys_shared != 0 && !ONE;  // ONE: three global sets, whatever the swarm's blocks
    int used = 0;
    if (keys.shared) {  // one block holds the whole swarm: keys of its m particles
        keys.k0 = (unsigned long long*)pso_smem;
        keys.k1 = keys.k0 + m;
        keys.offset = at.base;
        used = (twice ? 2 * m : m) * 8;
        for (int k = threadIdx.x; k < (twice ? 2 * m : m); k += B) keys.k0[k] = ~0ull;
    } else {  // LANED: two sets by iteration parity (below); the others the first set only
        keys.k0 = gkeys;
        keys.k1 = gkeys + n;
        keys.offset = 0;
    }
    T *xs, *vs, *ps;
    pso_split<T>(pso_smem, used, d, d, flags, &xs, &vs, &ps, width);  // SPSO needs no swarm-best point
    // pso_spso_redraw: the v of the block's first warps beside x where the host packed their count
    // into flags (as pso_classic_vwarps; x alone shared), else every thread's v or none (PSO_V_ALL).
    // One copy of the move, the v stride in a register
    const int vw = REDRAW && !(flags & PSO_V_SHARED) ? 32 * (flags >> PSO_V_WARPS_SHIFT) : PSO_V_ALL;
    if (REDRAW && xs && (flags >> PSO_V_WARPS_SHIFT)) vs = xs + (long long)blockDim.x * d;
    // XSH (pso_spso_redraw; the host launches it only where flags has PSO_X_SHARED, every thread's x in
    // shared memory, and pso_spso_redraw_global otherwise): x read and written through shared
    // addresses (pso_in_shared: LDS/STS instead of generic LD/ST). H100, rastrigin 30-D float32,
    // 131,072 (notes-gpu.md v26): 3.04-3.06 -> 3.14-3.15 G/s alone. A template parameter, not the
    // launch's flags: with both copies of the passes in one kernel, chosen by the flags, the kernel
    // with this, the scatter's reductions and the rows by warp ran 2.95-2.97 G/s, with one copy 3.30
    const bool x_shared = REDRAW && XSH;
    constexpr bool TILES = REDRAW && PSO_PR_TILES;  // PR in tiles (pso_pr)
    // pso_spso_redraw, float: no particle scatters its key to itself (a quarter of the scatter's
    // reductions into the L2, K = 3); it reads the smallest of its informants' keys and takes the
    // smaller of that and its own (the same key: a minimum in any order)
    constexpr bool SELF_LOCAL = REDRAW && sizeof(T) == 4 && PSO_SELF_LOCAL;  // H100 131,072: +1-2% (v29)
    const bool rows_by_warp = x_shared && !(flags & PSO_P_SHARED);  // the new bests' rows (pso_rows_by_warp)
    MwGroupSync sync = {bars + at.group, 0ull, bps};
    const bool own_one = flags != 0 && at.lt < m;
    if (own_one && LANED) pso_stage_lanes(X, V, P, n, d, at.base + at.lt, xs, vs, ps, true, col, width, ln);
    if (own_one && !LANED) pso_stage(X, V, P, n, d, at.base + at.lt, xs, vs, ps, true, vw);
    MwBest<T> mine = mw_no_best<T>();
    for (int p = at.lt; p < m; p += at.stride) mine = mw_better(mine, mw_make_best(Pf[at.base + p], at.base + p));
    if (!lead) mine = mw_no_best<T>();  // a particle's best enters the exchange once
    T pf_own = own_one ? Pf[at.base + at.lt] : T(0);  // the own particle's best value, in a register
    // PR from P (the host or the last launch may have changed P); the exchange's barrier below
    // publishes the rows before any gather
    if (PR_ROWS) {
        for (int p = at.lt; p < m; p += at.stride) {
            pso_row_put<T, TILES>(PR, at.base + p, P + at.base + p, n, d, ln.r, ln.L);
        }
    }
    int parity = 0;
    unsigned int tag = 1u;  // the exchange's number within the launch (pso_exchange_counted)
    if (LANED) {
        pso_exchange_counted(mine, at, m, parity, tag, gslots, sync, &g);
    } else {
        pso_exchange_fenced(mine, at, parity, gpart_f, gpart_i, sync, &g);
    }
    T previous = g.f;
    long long epoch = epochs[at.swarm];
    bool redrew = redrawn[at.swarm] != 0;

    const T w = T(0.72134752044448170368);   // 1 / (2 ln 2)
    const T c = T(1.19314718055994530942);   // 1/2 + ln 2
    const T k_own = T(0.25), k_other = T(1.0 / 3.0);
    const int NP = MwPerBlock<T>::value;  // normals per Philox block
    const unsigned long long normal_blocks = (unsigned long long)((d + NP - 1) / NP);
    const unsigned long long per_iter = normal_blocks + 1;  // + the radius uniform
    const T tiny = sizeof(T) == 4 ? T(1.17549435082228750797e-38) : T(2.22507385850720138309e-308);
    // ONE: the own particle's row buffer (every row in buffer 0 at a launch's start), whether it
    // improved in this iteration, the decision the scatter assumes, and buffer 1's first chunk
    unsigned int own_bit = 0;
    bool own_improved = false;
    bool predicted = PSO_PREDICT_LAST ? redrew : true;
    const unsigned int buffer1 = ONE ? (unsigned int)(((n + 31) & ~31ll) * pso_row(d) / NP) : 0u;
    // ONE: the swarm's three words (after the key sets) of its best after iterations t = 0, 1, 2 mod 3
    // (a pointer kept through the iteration made ptxas spill more; t mod 3 counted, not divided)
#define PSO_WORD(r) (words + (r))
    unsigned int r3 = (unsigned int)((unsigned long long)first_iter % 3ull);  // t mod 3
    // ONE: the decision's state (epoch, the swarm's last best, t mod 3, the prediction) lives in shared
    // memory by iteration parity, not in registers through the moves: thread 0 writes the next
    // iteration's after each decision, every thread reads it at its iteration's start (a block
    // barrier between: the block reduction before the next grid barrier). In registers ptxas spilled
    // 96/208 bytes, reloaded in every iteration (notes-gpu.md v31)
    __shared__ PsoDecision<T> dec[2];
    __shared__ unsigned long long* words;  // ONE: the swarm's first word (in a register it spilled too)
    // ONE: the links of the next iteration's scatter, one copy a warp (written by its lane 0 after the
    // decision, read by the warp after its moves: no block barrier between)
    __shared__ long long next_links[PSO_CLASSIC_MAX_BLOCK / 32];
    if (ONE) {
        if (threadIdx.x == 0) dec[0] = PsoDecision<T>{epoch, previous, r3, predicted};
        if (threadIdx.x == 0) words = gkeys + 3 * n + 3 * at.swarm;
        __syncthreads();
        // the first iteration's keys (the others' go right after the moves of the iteration before)
        keys.k0 = gkeys + (long long)((unsigned long long)first_iter & 1ull) * n;
        for (int p = at.lt; p < m && iterations > 0; p += at.stride) {
            const long long i = at.base + p;
            pso_scatter(keys, i, own_one ? pf_own : Pf[i], 0, seed, walker0, epoch, K, at.base, m, ln.r, ln.L,
                        false, (i << 1) | own_bit);
        }
    }

    for (int it = 0; it < iterations; ++it) {
        const unsigned long long t = (unsigned long long)(first_iter + it);
        // LANED, global keys: iteration t scatters to, reads and resets set t mod 2. A key's reset
        // (after its read, below) and the next scatter to it are then two iterations apart, with
        // the next iteration's scatter barrier (a release) between them: the exchange has no fence
        // (pso_exchange_counted). Both sets are whole again at the end of every iteration.
        if (LANED && !keys.shared) {
            keys.k0 = gkeys + (long long)(t & 1ull) * (twice ? 2 * n : n);
            keys.k1 = keys.k0 + n;
        }
        // informants of this iteration: links and personal bests as the last iteration left them
        if (ONE) {  // the keys went with the links the last decision predicts (after the last moves)
            const PsoDecision<T> state = dec[it & 1];
            epoch = state.epoch;
            previous = state.previous;
            r3 = state.r3;
            predicted = state.predicted;
            keys.k0 = gkeys + (long long)(t & 1ull) * n;
        } else {
            for (int p = at.lt; p < m; p += at.stride) {
                pso_scatter(keys, at.base + p, own_one ? pf_own : Pf[at.base + p], 0, seed, walker0, epoch, K,
                            at.base, m, ln.r, ln.L, !SELF_LOCAL);
            }
        }
        mw_group_sync(sync);
        unsigned long long read = 0;  // ONE: the own key, its load in flight with the swarm's word's
        if (ONE && own_one) read = keys.read0(at.base + at.lt);
        if (ONE && it > 0) {  // the last iteration's exchange: the swarm's best and its redraw decision
            // from the swarm's word of iteration t - 1 (pso_partial_put); block 0 resets the word of
            // t - 2, which every block read before this barrier (the next reduction into it, at the
            // end of t + 1, follows the next barrier)
            const T best = bps > 1 ? (T)pso_best_value(mw_ldcg(PSO_WORD(r3 == 0 ? 2 : r3 - 1))) : g.f;
            if (at.block == 0 && threadIdx.x == 0 && it > 1) *PSO_WORD(r3 == 2 ? 0 : r3 + 1) = ~0ull;  // t - 2
            redrew = !(best < previous);
            if (redrew) epoch = (long long)t - 1;
            previous = best;
            if (redrew != predicted) {  // the other links: scattered again into set 2, behind a barrier
                if (own_one) keys.k0[at.base + at.lt] = ~0ull;  // the set read next at t + 2: reset now
                keys.k0 = gkeys + 2 * n;
                for (int p = at.lt; p < m; p += at.stride) {
                    const long long i = at.base + p;
                    pso_scatter(keys, i, own_one ? pf_own : Pf[i], 0, seed, walker0, epoch, K, at.base, m, ln.r,
                                ln.L, false, (i << 1) | own_bit);
                }
                mw_group_sync(sync);
                if (own_one) read = keys.read0(at.base + at.lt);
            }
            predicted = PSO_PREDICT_LAST ? redrew : true;
        }
        if (ONE && threadIdx.x == 0) dec[(it + 1) & 1] = PsoDecision<T>{epoch, previous, r3 == 2 ? 0u : r3 + 1, predicted};
        if (ONE && (threadIdx.x & 31u) == 0) next_links[threadIdx.x >> 5] = predicted ? (long long)t : epoch;
        // ONE: the warp is whole again after the decision's branch (a loop and a barrier inside it),
        // and ptxas is told so. Without it ptxas could not prove the warp converged in the moves that
        // follow, so it kept d and the passes' counters in regular registers instead of uniform ones
        // and wrapped the coordinates' j < d tests in convergence barriers: 299 / 361 instructions a
        // Philox block and 8 / 14 BSSY/BSYNC in the two passes, against 289 / 351 and 4 / 4 with it
        // (scripts/kernel_sass.py; notes-gpu.md v31). Every thread is here: the grid barriers need them all.
        if (ONE) __syncwarp();
        if (ONE) {  // a row in buffer 1 (improved last iteration from buffer 0) copied back into buffer 0
            pso_warp_rows<T, TILES>(pso_in_shared(pso_smem, xs), PR, at.base + at.lt, 0u, buffer1, own_one && own_bit,
                                    d);
            own_improved = false;
        }
        if (twice) {
            for (int p = at.lt; p < m; p += at.stride) {
                pso_scatter(keys, at.base + p, own_one ? pf_own : Pf[at.base + p], 1, seed, walker0, epoch, K,
                            at.base, m, ln.r, ln.L);
            }
            mw_group_sync(sync);
        }
        mine = mw_no_best<T>();
        for (int p = at.lt; p < m; p += at.stride) {
            const long long i = at.base + p;
            unsigned long long key = 0;
            if (ONE) {  // read above; the own key as SELF_LOCAL's, with its buffer
                key = min(read, pso_packed_key((float)(own_one ? pf_own : Pf[i]), (i << 1) | own_bit)) & 0xFFFFFFFFull;
                keys.k0[i] = ~0ull;
            } else if (lead) {
                if (SELF_LOCAL) {  // the own key was not scattered: the smaller of it and the others'
                    key = min(keys.read0(i), pso_packed_key((float)(own_one ? pf_own : Pf[i]), i)) & 0xFFFFFFFFull;
                } else {
                    key = twice ? keys.read1(i) : keys.read0(i) & 0xFFFFFFFFull;
                }
                // reset for the next iteration: every key is read by its own particle only, and the
                // exchange barrier separates this from the next scatter
                keys.k0[keys.at(i)] = ~0ull;
                if (twice) keys.k1[keys.at(i)] = ~0ull;
            }
            if (LANED) key = __shfl_sync(ln.mask, key, 0, ln.L);  // the lead lane's read, in every lane
            const long long l = ONE ? (long long)(key >> 1) : (long long)key;
            const T coef = c * (l == i ? k_own : k_other);
            const MwRng rng(seed, (unsigned long long)(walker0 + i), MW_STREAM_STEP);
            const T* li = PR_ROWS ? PR + pso_pr<T, TILES>(l, 0, d) : P + l;  // the informant's best, through L2
            if (LANED) {  // the same move by the particle's lanes
                const PsoRows<T> r = pso_rows_lanes(X, V, P, n, i, xs, vs, ps, own_one, col, width);
                T pf = own_one ? pf_own : Pf[i];  // read by every lane before the lead writes Pf[i]
                const T fx = pso_spso_move_lanes<F, T, PR_ROWS>(r, Z, li, coef, n, d, i, rng, t * per_iter,
                                                                (int)normal_blocks, lower, upper,
                                                                it + 1 < iterations || i < last_active, ln);
                if (lead) f[i] = fx;
                if (fx < pf) {  // the point goes to P after the barrier, as below
                    pf = fx;
                    if (lead) {
                        Pf[i] = fx;
                        pending[i] = 1;
                    }
                }
                if (own_one) pf_own = pf;
                if (lead) mine = mw_better(mine, mw_make_best(pf, i));
                continue;
            }
            const PsoRows<T> r = pso_rows(X, V, P, n, i, xs, vs, ps, own_one, vw);
            // pass 1: |G - x| and |direction|. The informant's coordinates of one Philox block come
            // in one load (pso_gather). From PR one block at a time: unrolled by two, the pass held
            // two blocks' loads and normals and ptxas spilled in the scatter (116/192 bytes against
            // 24/84); H100: +2.5% at 131,072, +10% at 16,384 and 1,024.
            // |G - x|^2 and |direction|^2 a Philox block at a time: the block's share (its coordinates'
            // squares in order; its pairs' r^2, pso_normals), then the blocks in order, in every kernel,
            // so the lanes add one share a block instead of a square a coordinate (issue 14, a change
            // of the numbers with the normals' angle, notes-gpu.md v23: 16,384 1.38 -> 1.48 G/s)
            T tc2 = T(0), dir2 = T(0);
            if (REDRAW) {  // p from the own PR row; v = (w v + tc) + scale z: the rounding of pass 2's expression
                // 32-bit offsets (the host keeps them below 2^32: _redraw_offsets_fit): v's from r.v,
                // one IMAD.WIDE an access where a 64-bit pointer's bump took four instructions (H100,
                // 131,072: 3.63-3.68 -> 3.72-3.77 G/s), and the rows' 16-byte chunks from PR, a kernel
                // parameter, one register a row instead of a pointer's two (ptxas spilled more with
                // pointers). notes-gpu.md v29
                auto pass1 = [&](const T* x1) {
                    unsigned int vo = 0;  // v's offset from r.v
                    // ONE: each row from the buffer its key names (pso_pr_in)
                    const unsigned int lbit = ONE ? (unsigned int)key & 1u : 0u;
                    unsigned int lq = (unsigned int)(pso_pr_in<T, TILES>(l, d, lbit, buffer1) / NP);
                    unsigned int oq = (unsigned int)(pso_pr_in<T, TILES>(i, d, own_bit, buffer1) / NP);
#pragma unroll 1
                    for (int j0 = 0; j0 < d; j0 += NP) {
                        T pl[4], po[4];
                        if (TILES) {  // a warp's whole sectors (pso_pr): nothing to keep in L1
                            mw_ldcg16(PR + (unsigned long long)oq * NP, po);
                        } else {
                            mw_ld16(PR + (unsigned long long)oq * NP, po);
                        }
                        mw_ldcg16(PR + (unsigned long long)lq * NP, pl);  // through L2 only (notes-gpu.md v29)
                        lq += TILES ? 32u : 1u;  // the Philox block's next chunk
                        oq += TILES ? 32u : 1u;
                        dir2 += pso_radii<T>(rng(t * per_iter + (unsigned long long)(j0 / NP)), j0, d);
                        T part = T(0);
#pragma unroll
                        for (int q = 0; q < NP; ++q) {
                            if (j0 + q < d) {
                                const T x = *x1;
                                const T tc = coef * (po[q] + pl[q] - T(2) * x);
                                part += tc * tc;
                                r.v[vo] = w * r.v[vo] + tc;
                                x1 += r.xs;
                                vo += (unsigned int)r.vs;
                            }
                        }
                        tc2 += part;
                    }
                };
                if (x_shared) {
                    pass1(pso_in_shared(pso_smem, r.x));
                } else {
                    pass1(r.x);
                }
            } else {
#pragma unroll(PR_ROWS ? 1 : 2)
                for (int j0 = 0; j0 < d; j0 += NP) {
                    T pl[4], z[4];
                    pso_gather<PR_ROWS>(li, j0, n, d, pl);
                    dir2 += pso_normals(rng(t * per_iter + (unsigned long long)(j0 / NP)), z, j0, d);
                    T part = T(0);
#pragma unroll
                    for (int q = 0; q < NP; ++q) {
                        const int j = j0 + q;
                        if (j < d) {
                            const T x = r.x[(long long)j * r.xs];
                            const T tc = coef * (r.p[(long long)j * r.ps] + pl[q] - T(2) * x);
                            part += tc * tc;
                            Z[(long long)j * n + i] = z[q];  // for pass 2: no second Philox + Box-Muller
                            if (TC_ROWS) Z[(long long)(d + j) * n + i] = tc;  // nor a second gather of l's point
                        }
                    }
                    tc2 += part;
                }
            }
            const MwWords ru = rng(t * per_iter + normal_blocks);
            const T scale = mw_sqrt(tc2) * mw_uniform<T>(ru, 0) / mw_fmax(mw_sqrt(dir2), tiny);
            // pass 2: the same numbers again, the normals as pass 1 stored them in Z (issue 14: the
            // Philox blocks and Box-Muller transforms were computed twice), and the move (running
            // addresses and a folded objective, as in the classic move). G - x: read from Z where
            // pass 1 stored it (TC_ROWS: the host's choice where the swarm's rows stay in L2; Z's
            // rows are read coalesced, the informant's point is d / NP row loads or d column loads
            // a particle), else computed again from the informant's point (where the extra rows
            // would spill L2 to HBM)
            T* xq = r.x;
            T* vq = r.v;
            const T* pq = r.p;
            const T* zq = Z + i;
            MwRunningEval<F, T> fold;
            if (REDRAW) {  // v's place holds w v + (G - x); the normals drawn again
                auto pass2 = [&](T* xq) {
                    unsigned int vo = 0;  // v's offset from r.v, as in pass 1; pso_place's steps written out
#pragma unroll 1
                    for (int j0 = 0; j0 < d; j0 += NP) {
                        T z[4];
                        pso_normals(rng(t * per_iter + (unsigned long long)(j0 / NP)), z, j0, d);
#pragma unroll
                        for (int q = 0; q < NP; ++q) {
                            const int j = j0 + q;
                            if (j < d) {
                                T x = *xq;
                                T v = r.v[vo] + scale * z[q];
                                x += v;
                                pso_confine(x, v, lower[j], upper[j]);
                                *xq = x;
                                r.v[vo] = v;
                                xq += r.xs;
                                vo += (unsigned int)r.vs;
                                fold.add(x, j);
                            }
                        }
                    }
                };
                if (x_shared) {
                    pass2(pso_in_shared(pso_smem, r.x));
                } else {
                    pass2(r.x);
                }
            } else if (TC_ROWS) {
                const T* tq = Z + (long long)d * n + i;
#pragma unroll 4
                for (int j = 0; j < d; ++j) {
                    const T x = *xq;
                    const T tc = *tq;
                    const T zj = *zq;
                    zq += n;
                    tq += n;
                    T v = w * *vq + tc + scale * zj;
                    fold.add(pso_place(x + v, v, lower[j], upper[j], r, xq, vq, pq), j);
                }
            } else {
#pragma unroll 2
                for (int j0 = 0; j0 < d; j0 += NP) {
                    T pl[4];
                    pso_gather<PR_ROWS>(li, j0, n, d, pl);
#pragma unroll
                    for (int q = 0; q < NP; ++q) {
                        const int j = j0 + q;
                        if (j < d) {
                            T x = *xq;
                            const T tc = coef * (*pq + pl[q] - T(2) * x);
                            const T zj = *zq;
                            zq += n;
                            T v = w * *vq + tc + scale * zj;
                            fold.add(pso_place(x + v, v, lower[j], upper[j], r, xq, vq, pq), j);
                        }
                    }
                }
            }
            const T fx = it + 1 < iterations || i < last_active
                             ? mw_sanitize(fold.value(StridedPoint<T>{r.x, r.xs}, d)) : mw_inf<T>();
            // REDRAW: f only at the launch's last iteration (nothing reads it before): 0.5 MB less
            // written into the L2 an iteration at 131,072 (notes-gpu.md v30)
            if (!REDRAW || !PSO_F_LAST || it + 1 == iterations) f[i] = fx;
            T pf = own_one ? pf_own : Pf[i];
            if (fx < pf) {  // the point goes to P after the barrier: others are gathering P now
                pf = fx;
                Pf[i] = fx;
                pending[i] = ONE ? 2 : 1;  // ONE: its row goes into PR below, before the barrier
                own_improved = true;
            }
            if (own_one) pf_own = pf;
            mine = mw_better(mine, mw_make_best(pf, i));
        }
        parity ^= 1;
        if (ONE) {  // the new bests' rows into the buffers no move reads now; the block's best beside the keys
            const bool improved = own_one && own_improved;
            const unsigned int into = improved && !own_bit;  // from buffer 1: back into 0, as its copy was
            pso_warp_rows<T, TILES>(pso_in_shared(pso_smem, xs), PR, at.base + at.lt, into, buffer1, improved, d);
            own_bit = into;
            // the next iteration's keys into set t + 1 (its keys were read and reset before this
            // iteration's barrier), at once: a warp done with its moves scatters while the block's
            // others still move, where after the block's reduction below every warp waited for the
            // slowest first
            if (own_one && it + 1 < iterations) {  // (XSH: a thread has one particle or none)
                keys.k0 = gkeys + (long long)((t + 1ull) & 1ull) * n;
                const long long i = at.base + at.lt;
                pso_scatter(keys, i, pf_own, 0, seed, walker0, next_links[threadIdx.x >> 5], K, at.base, m, ln.r, ln.L,
                            false, (i << 1) | own_bit);
            }
            // the swarm's word of iteration t (read after the next barrier), the partials at the last
            // (the thread's best made again from its particle's: `mine` kept through the scatter spilled)
            pso_partial_put(own_one ? mw_make_best(pf_own, at.base + at.lt) : mw_no_best<T>(), parity, bps, gpart_f,
                            gpart_i, &g, it + 1 < iterations ? PSO_WORD(dec[it & 1].r3) : nullptr);
            continue;
        }
        // every particle has moved (reading last iteration's P) and read its key before the
        // exchange; then the new personal bests are written, before the next scatter's barrier and
        // so before anyone gathers them
        if (LANED) {
            pso_exchange_counted(mine, at, m, parity, ++tag, gslots, sync, &g);
        } else {
            pso_exchange_fenced(mine, at, parity, gpart_f, gpart_i, sync, &g);
        }
        // REDRAW reads no P in a launch (own p and informants from PR): P's column of a new best is
        // written once, at the launch's end (pending 2: P behind PR), not at every new best
        if (rows_by_warp) {
            pso_rows_by_warp<T, TILES>(pso_in_shared(pso_smem, xs), PR, pending, at.base + at.lt, own_one, d);
        } else {
            for (int p = at.lt; p < m; p += at.stride) {
                const long long i = at.base + p;
                int new_best = lead ? (REDRAW ? pending[i] & 1 : pending[i]) : 0;
                if (LANED) new_best = __shfl_sync(ln.mask, new_best, 0, ln.L);  // the lead's read, in every lane
                if (new_best) {
                    if (lead) pending[i] = REDRAW ? 2 : 0;
                    const PsoRows<T> r = LANED ? pso_rows_lanes(X, V, P, n, i, xs, vs, ps, own_one, col, width)
                                               : pso_rows(X, V, P, n, i, xs, vs, ps, own_one, vw);
                    // PR's row in the same loop: a second loop reading x again cost 8% at 16,384 (H100).
                    // Lanes: a share of the coordinates each (the barrier above made every lane's x visible)
                    T* row = PR + pso_pr<T, TILES>(i, 0, d);
                    // REDRAW: p's copy only where it has its own (shared) one, never P twice. The other
                    // kernels store it either way: the same test made ptxas allocate pso_spso_local
                    // otherwise, which lost 19% at 512 swarms of 256 (H100, notes-gpu.md v24)
                    const bool p_copy = !REDRAW || r.p != P + i;
                    for (int j = ln.r; j < d; j += ln.L) {
                        const T x = r.x[(long long)j * r.xs];
                        if (!REDRAW) P[(long long)j * n + i] = x;
                        if (p_copy) r.p[(long long)j * r.ps] = x;
                        if (PR_ROWS) row[pso_pr_off<T, TILES>(j)] = x;
                    }
                }
            }
        }
        redrew = !(g.f < previous);
        if (redrew) epoch = (long long)t;
        previous = g.f;
    }

    if (ONE && iterations > 0) {  // the last iteration's exchange: the swarm's best and its redraw decision
        mw_group_sync(sync);
        if (bps > 1) pso_partials_best(at, parity, bps, gpart_f, gpart_i, &g);
        if (at.block == 0 && threadIdx.x < 3) *PSO_WORD(threadIdx.x) = ~0ull;  // read by no one since the barrier
        epoch = dec[iterations & 1].epoch;  // the last iteration's decision's
        previous = dec[iterations & 1].previous;
        redrew = !(g.f < previous);
        if (redrew) epoch = first_iter + iterations - 1;
        previous = g.f;
    }
#undef PSO_WORD
    if (own_one && LANED) pso_stage_lanes(X, V, P, n, d, at.base + at.lt, xs, vs, ps, false, col, width, ln);
    if (own_one && !LANED) pso_stage(X, V, P, n, d, at.base + at.lt, xs, vs, ps, false, vw);
    if (REDRAW) {  // the launch's new bests from PR into P (the record; pso_commit reads it next)
        for (int p = at.lt; p < m; p += at.stride) {
            const long long i = at.base + p;
            if (pending[i] == 2) {
                pending[i] = 0;
                const T* row = PR + pso_pr_in<T, TILES>(i, d, own_bit, buffer1);  // ONE: its buffer (own_bit)
                for (int j = 0; j < d; ++j) P[(long long)j * n + i] = row[pso_pr_off<T, TILES>(j)];
            }
        }
    }
    const bool leader = at.block == 0 && threadIdx.x == 0;
    if (leader) {
        swarm_f[at.swarm] = g.f;
        swarm_i[at.swarm] = g.i;
        epochs[at.swarm] = epoch;
        redrawn[at.swarm] = redrew ? 1 : 0;
    }
    pso_commit(leader ? g : mw_no_best<T>(), P, n, d, part_f, part_i, ticket, best_f, best_x, best_i);
}

// Four SPSO kernels, one per (TC_ROWS, PR_ROWS): each a named __global__ (the loader takes one
// instantiation per kernel name, MW_KERNELS above), written once.
#define PSO_SPSO_KERNEL(NAME, TC_ROWS, PR_ROWS)                                                        \
    template <typename F, typename T>                                                                   \
    __global__ void __launch_bounds__(256, 4) NAME(PSO_SPSO_PARAMS) {                                   \
        pso_spso_run<F, T, TC_ROWS, PR_ROWS>(PSO_SPSO_ARGS);                                            \
    }
PSO_SPSO_KERNEL(pso_spso, false, true)
PSO_SPSO_KERNEL(pso_spso_rows, true, true)
PSO_SPSO_KERNEL(pso_spso_local, false, false)
PSO_SPSO_KERNEL(pso_spso_rows_local, true, false)
#undef PSO_SPSO_KERNEL
// Blocks of up to 1,024 (PSO_CLASSIC_MAX_BLOCK; 64 registers either way), as pso_classic: the host
// gives a swarm of several such blocks (131,072 particles) 128 blocks instead of 512.
template <typename F, typename T>
__global__ void __launch_bounds__(PSO_CLASSIC_MAX_BLOCK, 1) pso_spso_redraw(PSO_SPSO_PARAMS) {
    pso_spso_run<F, T, false, true, false, true, true>(PSO_SPSO_ARGS);
}
// With one grid barrier an iteration (pso_spso_run's ONE; float only, the host's choice where the
// swarm's rows take at most ONE_BARRIER_L2 L2 caches): H100, rastrigin 30-D float32, against
// pso_spso_redraw (notes-gpu.md v31): 98,304 particles 3.27-3.28 -> 3.68-3.69 G/s, 114,688 3.52-3.54
// -> 3.60, 131,072 3.86-3.87 -> 3.87-3.88. Since v32 (each thread's scatter right after its move, the
// thread's best made again from its particle's for the block's reduction) 131,072 3.86 -> 3.99-4.01
// with seed 1 (114,688 3.59 -> 3.73-3.77); the bench with seeds 0 / 1 / 2: 4.02 / 3.85 / 3.91 -> 4.10 /
// 4.03 / 4.06 G/s. The same numbers.
template <typename F, typename T>
__global__ void __launch_bounds__(PSO_CLASSIC_MAX_BLOCK, 1) pso_spso_redraw_one(PSO_SPSO_PARAMS) {
    pso_spso_run<F, T, false, true, false, true, true, true>(PSO_SPSO_ARGS);
}
// The same where x is not in shared memory (threads own several particles, or x does not fit): x
// through generic pointers
template <typename F, typename T>
__global__ void __launch_bounds__(PSO_CLASSIC_MAX_BLOCK, 1) pso_spso_redraw_global(PSO_SPSO_PARAMS) {
    pso_spso_run<F, T, false, true, false, true, false>(PSO_SPSO_ARGS);
}

// Lanes per particle (lanes = 2, 4 or 8, the host's choice where particles per multiprocessor are
// few, for the kernel whose rows stay in L2: G - x kept, informants from PR): the same run as
// pso_spso_rows. Blocks of up to 512 threads, one a multiprocessor, as pso_classic_lanes.
template <typename F, typename T>
__global__ void __launch_bounds__(PSO_LANES_MAX_BLOCK, 1) pso_spso_rows_lanes(PSO_SPSO_PARAMS) {
    pso_spso_run<F, T, true, true, true>(PSO_SPSO_ARGS);
}

// The current link targets of particles idx[0..k) (snapshots): out is (k, K) indices, like idx
// this launch's own (a shard's: its particle i is walker0 + i of the split run).
template <typename T>
__global__ void pso_links(const long long* idx, int k, int K, int m, unsigned long long seed,
                          long long walker0, const long long* epochs, long long* out) {
    const int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= k) return;
    const long long i = idx[s];
    const long long swarm = i / m;
    const MwRng rng(seed, (unsigned long long)(walker0 + i), PSO_STREAM_LINKS);
    const unsigned long long per_draw = (unsigned long long)((K + 3) / 4);
    const long long epoch = epochs[swarm];
    for (int q = 0; q < K; ++q) {
        const MwWords r = rng((unsigned long long)(epoch + 1) * per_draw + (unsigned long long)(q / 4));
        out[(long long)s * K + q] = pso_link(r, q % 4, swarm * (long long)m, m);
    }
}
