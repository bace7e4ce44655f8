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
//   1. each lane draws its individual's r1, r2, r3, j_rand and, 32 genes (a chunk) at a time, the
//      crossover mask (one Philox block for the indices, one per P genes for the mask: nothing is
//      redundant; U(0,1) <= Cr decided on the integer draw, DeCross) and publishes them as its
//      pick in shared memory: the three rows' byte offsets and the chunk's mask, one 16-byte
//      broadcast load per trial for the whole warp;
//   2. for each of the 32 individuals in turn (BUILD at a time), the lanes build the trial gene
//      by gene: lane j reads gene j of x_r1, x_r2, x_r3 or x_i, so every read of a random member
//      is one coalesced row read rather than d scattered ones (the population is row-major (n, d)
//      for this reason: random members dominate DE's memory traffic). No branch per trial
//      (predicated loads and selects); the trial goes to the warp's scratch, gene-major: gene j of
//      trial k at j * DE_COLUMN + k (odd stride: conflict-free both ways; a batch's stores at
//      immediate offsets). A gene that left the box is flagged (a ballot per trial) and redrawn
//      after the chunk by its trial's owner lane, the warp's trials in parallel;
//   3. each lane evaluates its individual's trial from the scratch (its column), then the selected
//      rows are written as coalesced rows (the target's row re-read where the trial lost, and only
//      where the next buffer does not hold it already: see de_select_batch).
// Issue 14: built this way, a trial costs about a third of the instructions it did (SASS counts
// in docs/benchmarks/notes-gpu.md), with the same numbers bit for bit.
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
// MW_KERNELS: de_init<F,T> de_generations<F,T> de_generations_wide<F,T> de_generations_grid<F,T>
// MW_HEADERS: group_sync.cuh

#define DE_STREAM_BOUNCE 16u
// Individuals whose rows are read together to build their trials (BUILD), and in the selection
// (SELECT): template parameters of de_generations_run, one pair per kernel. With few warps a
// multiprocessor (one population of 16,384 or 1,024 on an H100: 4 warps or fewer) the loads a lane
// has in flight decide, and 8 and 8 are the fastest pair (de_generations); with many (131,072: 31
// warps a multiprocessor) the registers do, and 4 and 4 spill least (de_generations_wide; ptxas,
// rastrigin float: 36/60 bytes of spill stores/loads against 8 and 8's 112/196). The same numbers
// either way; docs/benchmarks/notes-gpu.md v10 and v14.
#define DE_BUILD_BATCH 8
#define DE_SELECT_BATCH 8
#define DE_WIDE_BATCH 4
#define DE_COLUMN 33  // scratch: a gene's 32 trial values, padded to an odd stride (conflict-free)

// A trial in the warp's scratch as the objective reads it: gene j at j * DE_COLUMN (its own column k
// of the gene-major scratch; a compile-time stride, so an unrolled objective loop reads at
// immediate offsets, as from a dense row).
template <typename T> struct DeColumn {
    const T* p;
    __device__ __forceinline__ T operator[](int j) const { return p[j * DE_COLUMN]; }
};

// Loads of the population through L2: group_sync.cuh's mw_ldcg_if (no "memory" clobber: the rows
// are not written during the generation), predicated where `load` is false (v unset: unused).
template <typename T> __device__ __forceinline__ void de_ldcg_if(bool load, const T* p, T& v) {
    mw_ldcg_if(load, p, v);
}
template <typename T> __device__ __forceinline__ T de_ldcg(const T* p) {
    T v;
    mw_ldcg_if(true, p, v);
    return v;
}

// The address `bytes` bytes past p (bytes < 2^32: the host keeps a population below 4 GiB): an
// unsigned 32-bit offset added to a 64-bit pointer, two instructions (IADD3, IADD3.X), where
// (long long)row * d * sizeof(T) took a 64-bit multiply and shifts (seven).
template <typename T>
__device__ __forceinline__ T* de_at(T* p, unsigned int bytes) {
    return (T*)((char*)p + bytes);
}

// The crossover test U(0, 1) <= Cr decided on the Philox word itself, with the same outcome for
// every word and every Cr (NaN included): U = (w >> 8) 2^-24 in float, bits 2^-53 in double
// (random.cuh's mw_u01f / mw_u01d), both exact, so U <= Cr exactly when the integer draw is at most
// Cr 2^24 (2^53), a scaling by a power of two that is exact too. One unsigned compare per gene
// instead of a conversion, a multiply and a float compare.
template <typename T> struct DeCross;
template <> struct DeCross<float> {
    unsigned int most;  // a word w passes when w <= most (and `any`)
    bool any;           // false: no uniform passes (Cr < 0 or NaN)
    __device__ explicit DeCross(float Cr) {
        const float c = Cr * 16777216.0f;
        any = c >= 0.0f;
        // values of w >> 8 that pass: 0 .. floor(c), all 2^24 from c >= 2^24 - 1 on
        const float cc = any ? c : 0.0f;  // no conversion of a NaN or a negative
        const unsigned long long passing =
            cc >= 16777215.0f ? 16777216ull : (unsigned long long)(unsigned int)cc + 1ull;
        most = any ? (unsigned int)(passing * 256ull - 1ull) : 0u;  // w >> 8 < passing <=> w < passing * 2^8
    }
    __device__ __forceinline__ bool take(const MwWords& r, int q) const { return mw_word(r, q) <= most; }
};
template <> struct DeCross<double> {
    unsigned long long most;
    bool any;
    __device__ explicit DeCross(double Cr) {
        const double c = Cr * 9007199254740992.0;
        any = c >= 0.0;
        const double cc = any ? c : 0.0;  // no conversion of a NaN or a negative
        most = cc >= 9007199254740991.0 ? 9007199254740991ull : (unsigned long long)cc;  // bits <= floor(c)
    }
    __device__ __forceinline__ bool take(const MwWords& r, int q) const {
        // mw_u01d's 53 bits: hi << 21 fills bits 21..52 and lo >> 11 bits 0..20 (its mask is a no-op)
        const unsigned int hi = q == 0 ? r.x : r.z, lo = q == 0 ? r.y : r.w;
        return (((unsigned long long)hi << 21) | (unsigned long long)(lo >> 11)) <= most;
    }
};

// The genes j_lo .. j_lo + n - 1 (n <= 32, j_lo a multiple of 32) of one individual taken from the
// mutant, as bits j - j_lo: U(0, 1) <= Cr, or j = j_rand (`jr_bit`: its bit, 0 outside the chunk).
// `draw`: the chunk's first crossover block. Blocks unrolled, so every bit position is a constant.
template <typename T>
__device__ __forceinline__ unsigned int de_cross_mask(const MwRng& rng, unsigned long long draw, int n,
                                                      unsigned int jr_bit, const DeCross<T>& cross) {
    const int P = MwPerBlock<T>::value;
    unsigned int mask = 0u;
    if (n > 32 - P) {  // all 32 / P blocks (d >= 32, or d = 30 for float): no branch per block
#pragma unroll
        for (int b = 0; b < 32 / P; ++b) {
            const MwWords r = rng(draw + (unsigned long long)b);
#pragma unroll
            for (int q = 0; q < P; ++q) mask |= cross.take(r, q) ? 1u << (b * P + q) : 0u;
        }
    } else {
#pragma unroll
        for (int b = 0; b < 32 / P; ++b) {
            if (b * P < n) {
                const MwWords r = rng(draw + (unsigned long long)b);
#pragma unroll
                for (int q = 0; q < P; ++q) mask |= cross.take(r, q) ? 1u << (b * P + q) : 0u;
            }
        }
    }
    mask = (cross.any ? mask : 0u) | jr_bit;
    return n < 32 ? mask & ((1u << n) - 1u) : mask;
}

// One individual's draws for the tile, as the warp's lanes read them while building its trial.
struct __align__(16) DePick {
    unsigned int o1, o2, o3;  // x_r1, x_r2, x_r3: their rows' byte offsets r * d * sizeof(T) in the population
    unsigned int mask;        // genes of the current chunk taken from the mutant (0 past the population);
                              // after its batch, those that left the box
};

// Bounce-back, after the warp has built a chunk of its 32 trials: picks[k].mask holds the genes
// j_lo + g of trial k that left the box (bit g, the ballot of the building lanes), whose mutant gene
// v sits in the scratch (gene j of trial k at j * DE_COLUMN + k). Each is redrawn between x_r1's
// gene (re-read: the population does not change within a generation) and the bound crossed, with
// word j % P of block draw0 + (j - j_lo) / P of trial k's bounce stream (individual ind0 + k): the
// numbers of drawing them where the gene is built. The work is one Philox block per (trial, block
// of P genes) with a gene to redraw; the warp lists those pairs in shared memory (`list`, 32 * 32 /
// P entries) and its lanes take them 32 at a time, so a lane whose trial has many does not keep the
// others waiting (bounces are frequent while a population is spread over the box: from a uniform
// start with F = 0.5, about one taken gene in six, nearly every trial of 30 genes has some).
template <typename T>
__device__ __forceinline__ void de_bounce(const DePick* picks, bool valid, int lane, unsigned long long key,
                                          long long ind0, unsigned long long draw0, const T* pop,
                                          const T* __restrict__ lower, const T* __restrict__ upper, int j_lo,
                                          T* scratch, unsigned short* list) {
    const int P = MwPerBlock<T>::value, NB = 32 / P;  // blocks of a chunk
    const unsigned int bm = valid ? picks[lane].mask : 0u;  // this lane's trial's genes to redraw
    unsigned int lead = bm;  // bit b * P: block b of this trial has a gene to redraw
#pragma unroll
    for (int sh = 1; sh < P; ++sh) lead |= bm >> sh;
    lead &= P == 4 ? 0x11111111u : 0x55555555u;
    const int n = __popc(lead);
    int end = n;  // inclusive prefix sum of the lanes' counts
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const int x = __shfl_up_sync(0xFFFFFFFFu, end, o);
        if (lane >= o) end += x;
    }
    const int total = __shfl_sync(0xFFFFFFFFu, end, 31);
    if (total == 0) return;  // uniform
    for (int at = end - n; lead; lead &= lead - 1u) list[at++] = (unsigned short)(lane * NB + (__ffs(lead) - 1) / P);
    __syncwarp();
    for (int first = 0; first < total; first += 32) {  // uniform
        const int item = first + lane;
        if (item < total) {
            const int entry = list[item], k = entry / NB, b = entry % NB;
            const DePick e = picks[k];
            const unsigned int bits = (e.mask >> (b * P)) & ((1u << P) - 1u);
            const MwRng bounce(key, (unsigned long long)(ind0 + k), DE_STREAM_BOUNCE);
            const MwWords rb = bounce(draw0 + (unsigned long long)b);
            const T* row_r1 = de_at(pop, e.o1);
#pragma unroll
            for (int q = 0; q < P; ++q) {
                if ((bits >> q) & 1u) {
                    const int j = j_lo + b * P + q;
                    T* v_at = scratch + j * DE_COLUMN + k;
                    const T v = *v_at, lo = lower[j], hi = upper[j];
                    const T a = de_ldcg(row_r1 + j);
                    const T bound = v < lo ? lo : hi;
                    *v_at = bound + mw_uniform<T>(rb, q) * (a - bound);
                }
            }
        }
    }
}

// Gene j (this lane's) of the trials of BUILD consecutive individuals k0 + u of a tile (FULL:
// all of them in the population, else only u < nk), into out[u] (the scratch column of gene j from
// trial k0 on). `pick`: their picks; `col`: gene j of the population's row 0; `own`: the byte offset
// of row k0 of the tile (rows of rbytes bytes). All the batch's row reads are issued before the
// first is used, so the L2 round trips overlap (a population of 1,024 has a warp per tile and
// nothing else to hide them behind). Per trial: one broadcast shared load, a mask test, three
// 64-bit address adds and predicated loads, the mutant, the box test, a select and the store; no
// branch. A mutant gene outside the box is stored as it is and flagged: pick[u].mask becomes the
// genes of trial k0 + u that left the box (a ballot), for de_bounce.
template <typename T, int BUILD, bool FULL>
__device__ __forceinline__ void de_build_batch(DePick* pick, int nk, const T* col, unsigned int own,
                                               unsigned int rbytes, bool jv, unsigned int lanebit, T lo, T hi,
                                               T Fw, T* out) {
    T aa[BUILD], ba[BUILD], ca[BUILD];  // aa: x_r1's gene, or x's if not taken (unset: unused)
    bool live[BUILD], tk[BUILD];
#pragma unroll
    for (int u = 0; u < BUILD; ++u) {
        const DePick e = pick[u];  // one broadcast 16-byte shared load
        live[u] = jv && (FULL || u < nk);
        tk[u] = (e.mask & lanebit) != 0u;  // lanebit 0 past the genes, mask 0 past the population
        de_ldcg_if(live[u], de_at(col, tk[u] ? e.o1 : own + u * rbytes), aa[u]);
        de_ldcg_if(tk[u], de_at(col, e.o2), ba[u]);  // tk implies live
        de_ldcg_if(tk[u], de_at(col, e.o3), ca[u]);
    }
    // branch-free: mutant or target gene by a select; the genes that left the box are flagged
    unsigned int leave[BUILD];
#pragma unroll
    for (int u = 0; u < BUILD; ++u) {
        const T v = aa[u] + Fw * (ba[u] - ca[u]);
        leave[u] = __ballot_sync(0xFFFFFFFFu, tk[u] & ((v < lo) | (v > hi)));
        if (live[u]) out[u] = tk[u] ? v : aa[u];
    }
    // the masks are spent (each pick is read by its own batch only, before the ballots, which every
    // lane reaches after its loads): they now hold the ballots, for the trials' owners
#pragma unroll
    for (int u = 0; u < BUILD; ++u) pick[u].mask = leave[u];
}

// Gene j of the next population's rows k0 + u of a tile (bit u of `taken`: the trial replaced its
// target) and, in the last generation (LAST), of the trial rows. `col`, `col_next`, `col_trials`:
// gene j of row 0 of the population in the current and next buffer and in the trials; `own`: the
// offset of row k0 of the tile; `in`: the batch's first scratch row. A rejected trial's target row
// is re-read (all in one batch before the stores) and copied only where the next buffer's row is
// stale (bit u of `stale`); where it is not, that buffer already holds the target's row (it held
// the population of the generation before, and the target has not changed since), and nothing is
// read or written.
template <typename T, int SELECT, bool FULL, bool LAST>
__device__ __forceinline__ void de_select_batch(int nk, unsigned int taken, unsigned int stale, const T* col,
                                                T* col_next, T* col_trials, unsigned int own, unsigned int rbytes,
                                                bool jv, const T* in) {
    T kept[SELECT], trial[SELECT];  // unset where not live or not needed: never used
#pragma unroll
    for (int u = 0; u < SELECT; ++u) {
        const bool live = jv && (FULL || u < nk);
        const bool tk = (taken >> u) & 1u, copy = !tk && ((stale >> u) & 1u);
        de_ldcg_if(live && copy, de_at(col, own + u * rbytes), kept[u]);  // unset: unused
        // read even where not taken: predicated on the taken bit, the wide kernel in blocks of 256 ran
        // 5% slower (512 populations of 256 on an H100; docs/benchmarks/notes-gpu.md v17)
        if (live) trial[u] = in[u];  // unset: unused
    }
#pragma unroll
    for (int u = 0; u < SELECT; ++u) {
        if (jv && (FULL || u < nk)) {
            const bool tk = (taken >> u) & 1u;
            if (tk || ((stale >> u) & 1u)) *de_at(col_next, own + u * rbytes) = tk ? trial[u] : kept[u];
            if (LAST) *de_at(col_trials, own + u * rbytes) = trial[u];
        }
    }
}

// The launch's best individual folded into the run's best; its row copied through L2. X (n, d).
template <typename T>
__device__ void de_commit(MwBest<T> mine, const T* X, int d, T* part_f, long long* part_i,
                          unsigned int* ticket, T* best_f, T* best_x, long long* best_i) {
    __shared__ MwBest<T> winner;
    if (mw_grid_argmin(mine, part_f, part_i, ticket, &winner)) {
        if (mw_replaces_best<true>(winner, *best_f, *best_i)) {  // uniform across the block
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

// Individual il's (local index; `valid`: il < m) draws of generation t that do not depend on the
// population: r1, r2, r3 (as row byte offsets) and the crossover mask of its first chunk of genes
// (j_rand's bit included), and j_rand itself. Zero past the population.
template <typename T>
__device__ __forceinline__ DePick de_draw(const MwRng& rng, unsigned long long t, unsigned long long per_gen,
                                         bool valid, int il, int m, int d, unsigned int rbytes,
                                         const DeCross<T>& cross, int& jr) {
    jr = 0;
    if (!valid) return DePick{0u, 0u, 0u, 0u};
    int r1, r2, r3;
    const MwWords r = rng(t * per_gen);
    de_distinct(r, m, il, r1, r2, r3);
    jr = (int)mw_below(r.w, (unsigned int)d);
    const int n = min(d, 32);
    const unsigned int mask = de_cross_mask<T>(rng, t * per_gen + 1, n, jr < n ? 1u << jr : 0u, cross);
    return DePick{(unsigned int)r1 * rbytes, (unsigned int)r2 * rbytes, (unsigned int)r3 * rbytes, mask};
}

// `generations` generations of populations first_pop .. first_pop + gridDim.x / bpp - 1; in the
// last one only individuals i < last_active (global index; in a tuning grid's run, its index within
// the run) evaluate their trial (max_evals as a hard cap: the others keep their target, uncounted).
// Tuning grids (random.cuh's MwGroupKey): with gsize > 0 the individuals form independent runs of
// gsize (whole populations), each with its own Philox key and its own F and Cr (row of gvals), so
// each run draws and moves exactly as it does alone.
// X0 holds the current population on entry; after an odd number of generations the result is in
// X1 (the host swaps). Dynamic shared memory: the picks (16 bytes a thread), the bounce lists
// (4 sizeof(T) bytes a thread: 32 * 32 / P two-byte entries a warp), then, when
// `scratch_shared`, each warp's scratch (DE_COLUMN * d values); else the scratch is
// scratch_g + (block * warps + warp) * DE_COLUMN * d. A population holds fewer than 2^32 bytes (the
// host checks): row offsets are 32-bit.
#define DE_GENERATIONS_PARAMS                                                                          \
    T *X0, T *X1, T *f, T *trials, unsigned char *accepted, const T *__restrict__ lower,                \
        const T *__restrict__ upper, long long n, int m, int d, long long first_pop, int bpp,          \
        unsigned long long seed, long long walker0, long long first_gen, int generations,              \
        long long last_active, T Fw, T Cr, int scratch_shared, T *scratch_g,                          \
        unsigned long long *bars, T *part_f, long long *part_i, unsigned int *ticket, T *best_f,       \
        T *best_x, long long *best_i, const unsigned long long *gseeds, const T *gvals, long long gsize
#define DE_GENERATIONS_ARGS                                                                            \
    X0, X1, f, trials, accepted, lower, upper, n, m, d, first_pop, bpp, seed, walker0, first_gen,      \
        generations, last_active, Fw, Cr, scratch_shared, scratch_g, bars, part_f, part_i,             \
        ticket, best_f, best_x, best_i, gseeds, gvals, gsize

// The body of the de_generations kernels below (GROUPED: a tuning grid's launch; BUILD, SELECT: the
// batches, see DE_BUILD_BATCH; AHEAD: each warp draws its first tile's picks of the next generation
// between the halves of the generation barrier, where its multiprocessor has issue slots to spare,
// and reads them back at the tile's start. One population of 131,072 on an H100 in blocks of 1,024:
// 4.83-4.88 G/s drawn at the tile's start, 5.73 drawn ahead, the same numbers;
// docs/benchmarks/notes-gpu.md v15. The tuning grid's kernel, whose runs are one block each (the
// barrier a __syncthreads, nothing to overlap), draws them at the tile's start.)
//
// Registers (64 a thread: four blocks of 256 or one of 1,024 a multiprocessor, so that one
// population of 131,072 is resident for its barrier) are what this kernel runs short of: nothing is carried from one
// generation to the next that the arguments or the generation number give back. The buffers come
// from the generation's parity, the barrier's count from the generation, and the launch's best is
// read from f after the last generation rather than kept as it goes. Carried in registers, ptxas put
// them on the stack and moved them after every barrier, each store waiting on a reload; 131,072
// individuals on an H100: 4.02 -> 4.63 G/s, the same numbers (docs/benchmarks/notes-gpu.md v14).
template <typename F, typename T, bool GROUPED, int BUILD, int SELECT, bool AHEAD>
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
    const DeCross<T> cross(Cr);
    const int tiles = (m + 31) >> 5;
    const int wg = block * W + warp, wstride = bpp * W;
    // dynamic shared memory: the picks (16 bytes a thread), the bounce lists (4 sizeof(T)), then the
    // scratch if it fits
    DePick* picks = (DePick*)de_smem + warp * 32;
    unsigned short* list =
        (unsigned short*)(de_smem + blockDim.x * sizeof(DePick)) + warp * (1024 / MwPerBlock<T>::value);
    const int span = DE_COLUMN * d;  // a warp's scratch: gene j of its 32 trials at j * DE_COLUMN + k
    T* scratch = scratch_shared ? (T*)(de_smem + blockDim.x * (sizeof(DePick) + 4 * sizeof(T))) + warp * span
                                : scratch_g + ((long long)blockIdx.x * W + warp) * span;
    const int P = MwPerBlock<T>::value;
    const unsigned long long cross_blocks = (unsigned long long)((d + P - 1) / P);
    const unsigned long long per_gen = 1 + cross_blocks;
    const int chunks = (d + 31) >> 5;
    const unsigned int rbytes = (unsigned int)d * sizeof(T);

    // The next buffer's rows that differ from the population (bit k: row k of the warp's tile): every
    // row at a launch's start (what that buffer holds is not known here), then the rows whose trials
    // were taken in the generation before, where the warp has one tile (else every row, always).
    // A rejected trial's row is copied only where stale: late in a run most trials are rejected two
    // generations running, and their rows are neither read again nor written.
    const bool one_tile = wg + wstride >= tiles;
    unsigned int stale = 0xFFFFFFFFu;
    for (int gen = 0; gen < generations; ++gen) {
        const unsigned long long t = (unsigned long long)(first_gen + gen);
        const bool last = gen == generations - 1;
        const T* pop = ((gen & 1) ? X1 : X0) + base * d;  // row 0 of the population in either buffer
        T* pop_next = ((gen & 1) ? X0 : X1) + base * d;
        for (int tile = wg; tile < tiles; tile += wstride) {
            const int row0 = tile * 32;  // the tile's first row in the population
            const int il = row0 + lane;
            const bool valid = il < m;
            const long long i = base + il;
            const int count = min(32, m - row0);
            const MwRng rng(key, (unsigned long long)(keyed + (valid ? i : base)), MW_STREAM_STEP);
            // the picks of the warp's first tile were drawn while the last generation's barrier was
            // waited for (below: this lane's pick in picks[lane], j_rand in the bounce list's slot)
            int jr = 0;
            DePick mine = {0u, 0u, 0u, 0u};
            if (AHEAD && tile == wg && gen > 0) {  // warp-uniform
                mine = picks[lane];
                jr = ((const int*)list)[lane];
            } else if (AHEAD) {
                mine = de_draw<T>(rng, t, per_gen, valid, il, m, d, rbytes, cross, jr);
            } else if (valid) {  // the first chunk's mask too is drawn in the chunk loop below
                int r1, r2, r3;
                const MwWords r = rng(t * per_gen);
                de_distinct(r, m, il, r1, r2, r3);
                jr = (int)mw_below(r.w, (unsigned int)d);
                mine = DePick{(unsigned int)r1 * rbytes, (unsigned int)r2 * rbytes, (unsigned int)r3 * rbytes, 0u};
            }
            const T fi = valid ? f[i] : mw_inf<T>();
            for (int c = 0; c < chunks; ++c) {
                const int j_lo = c * 32, j_hi = min(d, j_lo + 32);
                unsigned int mask = mine.mask;  // genes j_lo .. j_hi - 1 of this lane's individual taken from the mutant
                if (c > 0 || !AHEAD) {
                    mask = 0u;
                    if (valid) {
                        const unsigned int jr_bit = jr >= j_lo && jr < j_hi ? 1u << (jr - j_lo) : 0u;
                        mask = de_cross_mask<T>(rng, t * per_gen + 1 + (unsigned long long)(j_lo / P), j_hi - j_lo,
                                                jr_bit, cross);
                    }
                }
                __syncwarp();  // the last chunk's picks are read
                picks[lane] = DePick{mine.o1, mine.o2, mine.o3, mask};
                __syncwarp();
                const int j = j_lo + lane;
                const bool jv = j < j_hi;
                const unsigned int lanebit = jv ? 1u << lane : 0u;
                const T lo = jv ? lower[j] : T(0), hi = jv ? upper[j] : T(0);
                // the batches step through the picks, the rows (bytes) and the scratch rows
                DePick* pick = picks;
                unsigned int own = (unsigned int)row0 * rbytes;
                T* out = scratch + j * DE_COLUMN;
                int k0 = 0;
                for (; k0 + BUILD <= count; k0 += BUILD) {
                    de_build_batch<T, BUILD, true>(pick, BUILD, pop + j, own, rbytes, jv, lanebit, lo, hi, Fw, out);
                    pick += BUILD;
                    own += BUILD * rbytes;
                    out += BUILD;
                }
                if (k0 < count)
                    de_build_batch<T, BUILD, false>(pick, count - k0, pop + j, own, rbytes, jv, lanebit, lo, hi, Fw, out);
                __syncwarp();
                de_bounce<T>(picks, valid, lane, key, keyed + base + row0,
                             t * cross_blocks + (unsigned long long)(j_lo / P), pop, lower, upper, j_lo, scratch,
                             list);
            }
            __syncwarp();
            bool take = false;
            T fu = mw_inf<T>();
            if (valid && (!last || i - first < last_active)) {  // max_evals: only the allowed trials
                const DeColumn<T> up = {scratch + lane};
                fu = mw_sanitize(F::template eval<T>(up, d));
                take = fu <= fi;
            }
            const unsigned int taken = __ballot_sync(0xFFFFFFFFu, take);
            for (int c = 0; c < chunks; ++c) {
                const int j = c * 32 + lane;
                const bool jv = j < d;
                const T* col = pop + j;
                T* col_next = pop_next + j;
                T* col_trials = trials + base * d + j;
                unsigned int own = (unsigned int)row0 * rbytes;
                const T* in = scratch + j * DE_COLUMN;
                int k0 = 0;
                if (last) {
                    for (; k0 + SELECT <= count; k0 += SELECT) {
                        de_select_batch<T, SELECT, true, true>(SELECT, taken >> k0, stale >> k0, col, col_next, col_trials, own,
                                                               rbytes, jv, in);
                        own += SELECT * rbytes;
                        in += SELECT;
                    }
                    if (k0 < count)
                        de_select_batch<T, SELECT, false, true>(count - k0, taken >> k0, stale >> k0, col, col_next, col_trials, own,
                                                        rbytes, jv, in);
                } else {
                    for (; k0 + SELECT <= count; k0 += SELECT) {
                        de_select_batch<T, SELECT, true, false>(SELECT, taken >> k0, stale >> k0, col, col_next, col_trials, own,
                                                                rbytes, jv, in);
                        own += SELECT * rbytes;
                        in += SELECT;
                    }
                    if (k0 < count)
                        de_select_batch<T, SELECT, false, false>(count - k0, taken >> k0, stale >> k0, col, col_next, col_trials, own,
                                                         rbytes, jv, in);
                }
            }
            if (one_tile) stale = taken;
            if (valid) {
                if (take) f[i] = fu;
                if (last) accepted[i] = take ? 1 : 0;
            }
            __syncwarp();  // the scratch rows and picks are rewritten by the next tile
        }
        // the population's barrier (group_sync.cuh): its gen-th of the launch, in two halves, between
        // which the warp draws the next generation's picks for its first tile (they need nothing of
        // the population), into its pick slots and j_rand into its bounce list (both free until
        // then)
        MwGroupSync sync = {bars + group, (unsigned long long)gen * (unsigned long long)bpp, bpp};
        mw_group_arrive(sync);
        if (AHEAD && gen + 1 < generations && wg < tiles) {  // warp-uniform
            const int il = wg * 32 + lane;
            const bool valid = il < m;
            const MwRng rng(key, (unsigned long long)(keyed + base + (valid ? il : 0)), MW_STREAM_STEP);
            int jr;
            picks[lane] = de_draw<T>(rng, t + 1, per_gen, valid, il, m, d, rbytes, cross, jr);
            ((int*)list)[lane] = jr;
        }
        mw_group_wait(sync);
    }
    // the launch's best: each individual's value as the last generation left it in f (this thread
    // wrote its own), the same (value, index) pairs the generation saw
    MwBest<T> mine = mw_no_best<T>();
    if (generations > 0) {
        for (int tile = wg; tile < tiles; tile += wstride) {
            const int il = tile * 32 + lane;
            if (il < m) mine = mw_better(mine, mw_make_best(f[base + il], base + il));
        }
    }
    de_commit(mine, (generations & 1) ? X1 : X0, d, part_f, part_i, ticket, best_f, best_x, best_i);
}

// The kernels: an ordinary launch (its code as before grids existed) in two batch sizes (the host
// takes de_generations_wide where many warps share a multiprocessor) and a tuning grid's launch
// (gsize > 0), instantiated apart so that the grid's extra live values cost the ordinary kernels
// nothing (ptxas: the grid's body spills where the ordinary one does not).
template <typename F, typename T>
__global__ void __launch_bounds__(256, 4) de_generations(DE_GENERATIONS_PARAMS) {
    de_generations_run<F, T, false, DE_BUILD_BATCH, DE_SELECT_BATCH, true>(DE_GENERATIONS_ARGS);
}

// de_generations_wide in blocks of up to 1,024 threads (the host: WIDE_MAX_BLOCK), one a
// multiprocessor, so that no block of a population is a younger block on its multiprocessor, which
// the schedulers serve last (the same 64 registers a thread as four blocks of 256)
template <typename F, typename T>
__global__ void __launch_bounds__(1024, 1) de_generations_wide(DE_GENERATIONS_PARAMS) {
    de_generations_run<F, T, false, DE_WIDE_BATCH, DE_WIDE_BATCH, true>(DE_GENERATIONS_ARGS);
}

template <typename F, typename T>
__global__ void __launch_bounds__(256, 4) de_generations_grid(DE_GENERATIONS_PARAMS) {
    de_generations_run<F, T, true, DE_BUILD_BATCH, DE_SELECT_BATCH, false>(DE_GENERATIONS_ARGS);
}
