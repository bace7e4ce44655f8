// Differential evolution DE/rand/1/bin (Storn & Price 1997; seed 004), many populations at once, a
// whole chunk of generations per launch. Mirrors solvers/algorithms/differential_evolution.py:
//   mutant  v = x_r1 + F (x_r2 - x_r3), r1, r2, r3, i distinct members of i's population (drawn
//           without rejection, shifted past the excluded indices in increasing order, exactly as
//           the reference's draw_distinct_indices);
//   bounds  a mutant component outside the box is redrawn uniformly between x_r1 and the bound it
//           crossed (bounce-back);
//   trial   u_j = v_j where U(0,1) <= Cr or j = j_rand, else x_j;
//   select  x_i <- u if f(u) <= f(x_i); every trial of a generation is built from the same
//           population (generational, double-buffered), one evaluation per individual.
// A generation is one fused pass: mutation, crossover, evaluation and selection.
//
// Mapping. A warp handles 32 consecutive individuals (a tile) of one population; a population is
// `bpp` consecutive blocks, which meet at a barrier after every generation (__syncthreads when
// bpp = 1; else a counter barrier in global memory, so the host launches no more blocks than are
// resident together and batches populations over launches). Per tile:
//   1. each lane draws its individual's r1, r2, r3, j_rand and the crossover mask of its d genes
//      (one Philox block for the indices, one per P genes for the mask: nothing is redundant);
//   2. for each of the 32 individuals in turn, the lanes build the trial gene by gene: lane j
//      reads gene j of x_r1, x_r2, x_r3 and x_i, so every read of a random member is one
//      coalesced row read rather than d scattered ones (the population is row-major (n, d) for
//      this reason: random members dominate DE's memory traffic);
//   3. each lane evaluates its individual's trial from shared memory (rows padded to an odd
//      stride: conflict-free), then the selected rows are written as coalesced rows.
// Reads of the population use ld.global.cg: another block wrote it in the last generation, and a
// stale L1 line from two generations ago must not be used. Bounce-back uniforms are drawn only
// where a mutant gene leaves the box (their own stream, keyed by individual, generation and gene).
//
// Random numbers (Philox, draw index from the global generation t):
//   MW_STREAM_INIT: initial individuals;
//   MW_STREAM_STEP: per generation (1 + ceil(d / P)) blocks: block 0 the indices (words x, y, z, w:
//                   r1 in [0, m-1), r2 in [0, m-2), r3 in [0, m-3), j_rand in [0, d)), then the
//                   crossover uniforms, P per block;
//   DE_STREAM_BOUNCE: the bounce-back uniform of gene j, draw t * ceil(d / P) + j / P, word j % P.
// Streams are keyed by the individual's global index walker0 + i (walker0 > 0 only in a shard of a
// run split over devices by whole populations, solvers/shards.py).
//
// MW_KERNELS: de_init<F,T> de_generations<F,T> de_generations_grid<F,T>
// MW_HEADERS: group_sync.cuh

#define DE_STREAM_BOUNCE 16u
#define DE_BATCH 4  // individuals whose rows are read together

// The launch's best individual folded into the run's best; its row copied through L2. X (n, d).
template <typename T>
__device__ void de_commit(MwBest<T> mine, const T* X, int d, T* part_f, long long* part_i,
                          unsigned int* ticket, T* best_f, T* best_x, long long* best_i) {
    __shared__ MwBest<T> winner;
    if (mw_grid_argmin(mine, part_f, part_i, ticket, &winner)) {
        if (winner.f < *best_f) {  // uniform across the block
            for (int j = threadIdx.x; j < d; j += blockDim.x) best_x[j] = mw_ldcg(X + winner.i * d + j);
            __syncthreads();
            if (threadIdx.x == 0) {
                *best_f = winner.f;
                *best_i = winner.i;
            }
        }
    }
}

// Individual i: a uniform point of the box (row i of X), evaluated; then the best of all.
template <typename F, typename T>
__global__ void de_init(T* X, T* f, const T* __restrict__ lower, const T* __restrict__ upper, long long n,
                        int d, unsigned long long seed, long long walker0, T* part_f, long long* part_i,
                        unsigned int* ticket, T* best_f, T* best_x, long long* best_i,
                        const unsigned long long* gseeds, long long gsize) {
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    MwBest<T> mine = mw_no_best<T>();
    if (i < n) {
        const MwGroupKey gk = mw_group_key(seed, gseeds, gsize, i);  // a grid's run: its own key
        const MwRng rng(gk.seed, (unsigned long long)(walker0 + i - gk.first), MW_STREAM_INIT);
        mw_fill_uniform(rng, 0ull, lower, upper, X + i * d, 1, d);
        const DensePoint<T> x = {X + i * d};
        const T fx = mw_sanitize(F::template eval<T>(x, d));
        f[i] = fx;
        mine = mw_make_best(fx, i);
        __threadfence();
    }
    de_commit(mine, X, d, part_f, part_i, ticket, best_f, best_x, best_i);
}

// r1, r2, r3 (local indices) distinct from each other and from `self`, from three words (the
// reference's draw_distinct_indices: r_k uniform over the m - k values left, shifted past each
// excluded index in increasing order).
__device__ __forceinline__ void de_distinct(const MwWords& r, int m, int self, int& r1, int& r2, int& r3) {
    r1 = (int)mw_below(r.x, (unsigned int)(m - 1));
    r1 += r1 >= self;
    int a = self < r1 ? self : r1, b = self < r1 ? r1 : self;  // sorted {self, r1}
    r2 = (int)mw_below(r.y, (unsigned int)(m - 2));
    r2 += r2 >= a;
    r2 += r2 >= b;
    // sorted {a, b, r2}
    int e0 = a, e1 = b, e2 = r2;
    if (e2 < e1) { const int s = e1; e1 = e2; e2 = s; }
    if (e1 < e0) { const int s = e0; e0 = e1; e1 = s; }
    r3 = (int)mw_below(r.z, (unsigned int)(m - 3));
    r3 += r3 >= e0;
    r3 += r3 >= e1;
    r3 += r3 >= e2;
}

// `generations` generations of populations first_pop .. first_pop + gridDim.x / bpp - 1; in the
// last one only individuals i < last_active (global index; in a tuning grid's run, its index within
// the run) evaluate their trial (max_evals as a hard cap: the others keep their target, uncounted).
// Tuning grids (random.cuh's MwGroupKey): with gsize > 0 the individuals form independent runs of
// gsize (whole populations), each with its own Philox key and its own F and Cr (row of gvals), so
// each run draws and moves exactly as it does alone.
// X0 holds the current population on entry; after an odd number of generations the result is in
// X1 (the host swaps). `stride` is the scratch row stride (odd), scratch in shared memory when
// `scratch_shared`, else scratch_g + (block * warps + warp) * 32 * stride.
#define DE_GENERATIONS_PARAMS                                                                          \
    T *X0, T *X1, T *f, T *trials, unsigned char *accepted, const T *__restrict__ lower,                \
        const T *__restrict__ upper, long long n, int m, int d, long long first_pop, int bpp,          \
        unsigned long long seed, long long walker0, long long first_gen, int generations,              \
        long long last_active, T Fw, T Cr, int scratch_shared, T *scratch_g, int stride,               \
        unsigned long long *bars, T *part_f, long long *part_i, unsigned int *ticket, T *best_f,       \
        T *best_x, long long *best_i, const unsigned long long *gseeds, const T *gvals, long long gsize
#define DE_GENERATIONS_ARGS                                                                            \
    X0, X1, f, trials, accepted, lower, upper, n, m, d, first_pop, bpp, seed, walker0, first_gen,      \
        generations, last_active, Fw, Cr, scratch_shared, scratch_g, stride, bars, part_f, part_i,     \
        ticket, best_f, best_x, best_i, gseeds, gvals, gsize

// The body of de_generations and de_generations_grid below (GROUPED: a tuning grid's launch).
template <typename F, typename T, bool GROUPED>
__device__ __forceinline__ void de_generations_run(DE_GENERATIONS_PARAMS) {
    extern __shared__ __align__(16) unsigned char de_smem[];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, W = blockDim.x >> 5;
    const long long group = blockIdx.x / bpp;
    const int block = (int)(blockIdx.x - group * bpp);
    const long long base = (first_pop + group) * (long long)m;
    // a grid's run (gsize individuals, whole populations): its key and its row (F, Cr) of the
    // parameter table, read once here; an ordinary launch keeps the scalar arguments
    const MwGroupKey gk = mw_group_key_if<GROUPED>(seed, gseeds, gsize, base);
    const unsigned long long key = gk.seed;
    const long long first = gk.first;  // the budget counts individuals within the run
    const long long keyed = walker0 - first;  // an individual's stream: keyed + i (global in a split run)
    if (GROUPED) {
        Fw = gvals[gk.index * 2 + 0];
        Cr = gvals[gk.index * 2 + 1];
    }
    MwGroupSync sync = {bars + group, 0ull, bpp};  // the population's barrier (group_sync.cuh)
    const int tiles = (m + 31) >> 5;
    const int wg = block * W + warp, wstride = bpp * W;
    T* scratch = scratch_shared ? (T*)de_smem + warp * 32 * stride
                                : scratch_g + ((long long)blockIdx.x * W + warp) * 32 * stride;
    const int P = MwPerBlock<T>::value;
    const unsigned long long cross_blocks = (unsigned long long)((d + P - 1) / P);
    const unsigned long long per_gen = 1 + cross_blocks;
    const int chunks = (d + 31) >> 5;
    T* cur = X0;
    T* nxt = X1;
    MwBest<T> mine = mw_no_best<T>();

    for (int gen = 0; gen < generations; ++gen) {
        const unsigned long long t = (unsigned long long)(first_gen + gen);
        const bool last = gen == generations - 1;
        for (int tile = wg; tile < tiles; tile += wstride) {
            const int il = tile * 32 + lane;
            const bool valid = il < m;
            const long long i = base + il;
            const int count = min(32, m - tile * 32);
            const MwRng rng(key, (unsigned long long)(keyed + (valid ? i : base)), MW_STREAM_STEP);
            int r1 = 0, r2 = 0, r3 = 0, jr = 0;
            T fi = mw_inf<T>();
            if (valid) {
                const MwWords r = rng(t * per_gen);
                de_distinct(r, m, il, r1, r2, r3);
                jr = (int)mw_below(r.w, (unsigned int)d);
                fi = f[i];
            }
            for (int c = 0; c < chunks; ++c) {
                const int j_lo = c * 32, j_hi = min(d, j_lo + 32);
                unsigned int mask = 0u;  // genes j_lo .. j_hi - 1 of this lane's individual taken from the mutant
                if (valid) {
#pragma unroll 2
                    for (int jb = j_lo; jb < j_hi; jb += P) {  // 32 is a multiple of P: blocks align
                        const MwWords r = rng(t * per_gen + 1 + (unsigned long long)(jb / P));
#pragma unroll
                        for (int q = 0; q < P; ++q) {
                            const int j = jb + q;
                            if (j < j_hi && (mw_uniform<T>(r, q) <= Cr || j == jr)) mask |= 1u << (j - j_lo);
                        }
                    }
                }
                const int j = j_lo + lane;
                const bool jv = j < j_hi;
                // DE_BATCH individuals at a time: all their row reads are issued before the first
                // is used, so the L2 round trips overlap (a population of 1,024 has a warp per tile
                // and nothing else to hide them behind)
                for (int k0 = 0; k0 < count; k0 += DE_BATCH) {
                    T aa[DE_BATCH], ba[DE_BATCH], ca[DE_BATCH];  // aa: x_r1's gene, or x's if not taken
                    unsigned int takes = 0u;
#pragma unroll
                    for (int u = 0; u < DE_BATCH; ++u) {
                        const int k = k0 + u;
                        const unsigned int mk = __shfl_sync(0xFFFFFFFFu, mask, k & 31);
                        const long long a1 = base + __shfl_sync(0xFFFFFFFFu, r1, k & 31);
                        const long long a2 = base + __shfl_sync(0xFFFFFFFFu, r2, k & 31);
                        const long long a3 = base + __shfl_sync(0xFFFFFFFFu, r3, k & 31);
                        const long long ik = base + tile * 32 + k;
                        const bool live = k < count && jv;
                        const bool tk = live && ((mk >> lane) & 1u);
                        takes |= (tk ? 1u : 0u) << u;
                        aa[u] = live ? mw_ldcg(cur + (tk ? a1 : ik) * d + j) : T(0);
                        ba[u] = tk ? mw_ldcg(cur + a2 * d + j) : T(0);
                        ca[u] = tk ? mw_ldcg(cur + a3 * d + j) : T(0);
                    }
#pragma unroll
                    for (int u = 0; u < DE_BATCH; ++u) {
                        const int k = k0 + u;
                        if (k < count && jv) {
                            T value = aa[u];
                            if ((takes >> u) & 1u) {
                                const T a = aa[u];
                                const T v = a + Fw * (ba[u] - ca[u]);
                                const T lo = lower[j], hi = upper[j];
                                value = v;
                                if (v < lo || v > hi) {
                                    const T bound = v < lo ? lo : hi;
                                    const MwRng bounce(key, (unsigned long long)(keyed + base + tile * 32 + k),
                                                       DE_STREAM_BOUNCE);
                                    const MwWords rb = bounce(t * cross_blocks + (unsigned long long)(j / P));
                                    value = bound + mw_uniform<T>(rb, j % P) * (a - bound);
                                }
                            }
                            scratch[k * stride + j] = value;
                        }
                    }
                }
            }
            __syncwarp();
            bool take = false;
            T fu = mw_inf<T>();
            if (valid && (!last || i - first < last_active)) {  // max_evals: only the allowed trials
                const DensePoint<T> up = {scratch + lane * stride};
                fu = mw_sanitize(F::template eval<T>(up, d));
                take = fu <= fi;
            }
            const unsigned int taken = __ballot_sync(0xFFFFFFFFu, take);
            for (int c = 0; c < chunks; ++c) {
                const int j = c * 32 + lane;
                const bool jv = j < d;
                for (int k0 = 0; k0 < count; k0 += DE_BATCH) {
                    T kept[DE_BATCH];  // rejected trials: the target's genes, read in one batch
#pragma unroll
                    for (int u = 0; u < DE_BATCH; ++u) {
                        const int k = k0 + u;
                        const bool reread = k < count && jv && !((taken >> (k & 31)) & 1u);
                        kept[u] = reread ? mw_ldcg(cur + (base + tile * 32 + k) * d + j) : T(0);
                    }
#pragma unroll
                    for (int u = 0; u < DE_BATCH; ++u) {
                        const int k = k0 + u;
                        if (k < count && jv) {
                            const long long ik = base + tile * 32 + k;
                            const T trial = scratch[k * stride + j];
                            nxt[ik * d + j] = ((taken >> k) & 1u) ? trial : kept[u];
                            if (last) trials[ik * d + j] = trial;
                        }
                    }
                }
            }
            if (valid) {
                if (take) f[i] = fu;
                if (last) {
                    accepted[i] = take ? 1 : 0;
                    mine = mw_better(mine, mw_make_best(take ? fu : fi, i));
                }
            }
            __syncwarp();  // the scratch rows are rewritten by the next tile
        }
        mw_group_sync(sync);
        T* s = cur;
        cur = nxt;
        nxt = s;
    }
    de_commit(mine, cur, d, part_f, part_i, ticket, best_f, best_x, best_i);
}

// The kernels: an ordinary launch (its code as before grids existed) and a tuning grid's launch
// (gsize > 0), instantiated apart so that the grid's extra live values cost the ordinary kernel
// nothing (ptxas: the grid's body spills where the ordinary one does not).
template <typename F, typename T>
__global__ void __launch_bounds__(256, 4) de_generations(DE_GENERATIONS_PARAMS) {
    de_generations_run<F, T, false>(DE_GENERATIONS_ARGS);
}

template <typename F, typename T>
__global__ void __launch_bounds__(256, 4) de_generations_grid(DE_GENERATIONS_PARAMS) {
    de_generations_run<F, T, true>(DE_GENERATIONS_ARGS);
}
