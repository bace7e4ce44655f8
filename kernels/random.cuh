// Counter-based random numbers for every Multiwalk kernel: Philox4x32-10 (Salmon et al., "Parallel
// random numbers: as easy as 1, 2, 3", SC 2011), written out here so that no curand header is
// needed (a pip-installed CuPy may lack them).
//
// A draw is a pure function of (run seed, walker, stream, draw index): no generator state lives in
// memory, so a run repeats exactly for a seed whatever the block size, grid size or number of
// iterations per launch. Counter layout (documented in kernels/README.md):
//   key   = (seed low 32 bits, seed high 32 bits)
//   ctr.x = draw index, low 32 bits      ctr.y = draw index, high 32 bits
//   ctr.z = walker index, low 32 bits    ctr.w = stream tag << 24 | walker index bits 32..55
// Each kernel file names its streams (MW_STREAM_* below or its own tags 16..255) and derives the draw
// index from the global iteration number, so that chunking never changes the numbers drawn.
// One Philox block yields four 32-bit words: four floats or two doubles in [0, 1).
#ifndef MW_RANDOM_CUH
#define MW_RANDOM_CUH

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define MW_HD __host__ __device__ __forceinline__
#else
#define MW_HD inline
#endif

// Streams shared by the kernels; a kernel file may add its own tags from 16 to 255.
#define MW_STREAM_INIT 1u      // initial points
#define MW_STREAM_RESTART 2u   // restarts (draw index = the iteration at which the restart happens)
#define MW_STREAM_STEP 3u      // per-iteration moves
#define MW_STREAM_SAMPLE 4u    // evaluation-only points
#define MW_STREAM_POLISH 5u    // local polishing (hybrid methods)

struct MwWords { unsigned int x, y, z, w; };  // one Philox output block (own type: host tests too)

MW_HD unsigned long long mw_mul_wide(unsigned int a, unsigned int b) {
#if defined(__CUDA_ARCH__)
    unsigned long long p;
    asm("mul.wide.u32 %0, %1, %2;" : "=l"(p) : "r"(a), "r"(b));
    return p;
#else
    return (unsigned long long)a * b;
#endif
}

// Philox4x32 with 10 rounds; round constants from Random123. Each round's two products are taken
// whole (one 32x32->64 IMAD.WIDE each, both halves used): written as mulhi and a separate low
// product, nvcc emitted an extra 32-bit IMAD per product, 60 instructions per block instead of 40
// (issue 14; the same numbers).
// Rounds FIRST..9 of Philox4x32-10 on c, with the keys of round 0 (bumped here FIRST times).
template <int FIRST> MW_HD MwWords mw_philox_rounds(MwWords c, unsigned int k0, unsigned int k1) {
    k0 += FIRST * 0x9E3779B9u;
    k1 += FIRST * 0xBB67AE85u;
#pragma unroll
    for (int round = FIRST; round < 10; ++round) {
        const unsigned long long p0 = mw_mul_wide(0xD2511F53u, c.x), p1 = mw_mul_wide(0xCD9E8D57u, c.z);
        MwWords n;
        n.x = (unsigned int)(p1 >> 32) ^ c.y ^ k0;
        n.y = (unsigned int)p1;
        n.z = (unsigned int)(p0 >> 32) ^ c.w ^ k1;
        n.w = (unsigned int)p0;
        c = n;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    return c;
}

MW_HD MwWords mw_philox4x32_10(MwWords c, unsigned int k0, unsigned int k1) { return mw_philox_rounds<0>(c, k0, k1); }

// The generator of one walker in one stream; call it with a draw index to get four words.
struct MwRng {
    typedef unsigned long long draw_type;  // its draw index
    unsigned int k0, k1, z, w;
    MW_HD MwRng(unsigned long long seed, unsigned long long walker, unsigned int stream)
        : k0((unsigned int)seed), k1((unsigned int)(seed >> 32)), z((unsigned int)walker),
          w((stream << 24) | ((unsigned int)(walker >> 32) & 0xFFFFFFu)) {}
    MW_HD MwWords operator()(unsigned long long draw) const {
        MwWords c;
        c.x = (unsigned int)draw;
        c.y = (unsigned int)(draw >> 32);
        c.z = z;
        c.w = w;
        return mw_philox4x32_10(c, k0, k1);
    }
};

// The same generator for draws whose indices share their high 32 bits (a launch of fewer than 2^32
// blocks per walker past a multiple of 2^32: always, in practice; check with mw_same_high). Philox's
// first two rounds partly depend on the counter's constant words only: round 0 multiplies ctr.z
// (the walker) and its ctr.y (the high word) passes into round 1's first product; those two
// products and an xor are made once here instead of per block, three of the block's 40
// instructions (issue 14). Same words as MwRng for every draw.
struct MwRngHigh {
    typedef unsigned int draw_type;  // the low word of its draw index
    unsigned int k0, k1, wk1, x1, y1, hi2, lo2;
    MW_HD MwRngHigh(const MwRng& g, unsigned int high) : k0(g.k0), k1(g.k1), wk1(g.w ^ g.k1) {
        const unsigned long long p1 = mw_mul_wide(0xCD9E8D57u, g.z);  // round 0's second product
        x1 = (unsigned int)(p1 >> 32) ^ high ^ g.k0;
        y1 = (unsigned int)p1;
        const unsigned long long p0 = mw_mul_wide(0xD2511F53u, x1);   // round 1's first product
        hi2 = (unsigned int)(p0 >> 32) ^ (g.k1 + 0xBB67AE85u);
        lo2 = (unsigned int)p0;
    }
    // The block at draw index high * 2^32 + low.
    MW_HD MwWords operator()(unsigned int low) const {
        const unsigned long long p0 = mw_mul_wide(0xD2511F53u, low);  // round 0
        const unsigned int z1 = (unsigned int)(p0 >> 32) ^ wk1, w1 = (unsigned int)p0;
        const unsigned long long p1 = mw_mul_wide(0xCD9E8D57u, z1);   // round 1
        MwWords c;
        c.x = (unsigned int)(p1 >> 32) ^ y1 ^ (k0 + 0x9E3779B9u);
        c.y = (unsigned int)p1;
        c.z = hi2 ^ w1;
        c.w = lo2;
        return mw_philox_rounds<2>(c, k0, k1);
    }
};

// Whether draw indices first..last (inclusive) share their high 32 bits (MwRngHigh applies).
MW_HD bool mw_same_high(unsigned long long first, unsigned long long last) { return (first >> 32) == (last >> 32); }

// A tuning grid (solvers/tune): the walkers form independent runs ("groups") of `size` walkers
// each, group after group. Group g draws with its own key seeds[g] and keys its walkers 0..size-1,
// exactly as that run alone keys them, so a batched grid equals its runs one at a time; its
// parameter values are row g of a (groups, columns) table, read once per thread at kernel start.
// size 0: an ordinary run (one key `seed`, walkers keyed by their global index; the table unused).
struct MwGroupKey {
    unsigned long long seed;  // Philox key of the walker's run
    long long first;          // global index of the run's walker 0: subtract it to key and to budget
    long long index;          // the run's row of the parameter table
};

MW_HD MwGroupKey mw_group_key(unsigned long long seed, const unsigned long long* seeds, long long size,
                              long long i) {
    MwGroupKey k;
    if (size <= 0) {
        k.seed = seed;
        k.first = 0;
        k.index = 0;
    } else {
        k.index = i / size;
        k.first = k.index * size;
        k.seed = seeds[k.index];
    }
    return k;
}

// The same with whether the launch is a grid known at compile time: kernels instantiate their body
// for both and branch once on gsize, so an ordinary launch keeps its key and parameters where they
// were (kernel arguments, walker keys unshifted): no extra registers live across its loops.
template <bool GROUPED>
MW_HD MwGroupKey mw_group_key_if(unsigned long long seed, const unsigned long long* seeds, long long size,
                                 long long i) {
    if (GROUPED) return mw_group_key(seed, seeds, size, i);
    MwGroupKey k;
    k.seed = seed;
    k.first = 0;
    k.index = 0;
    return k;
}

// Column `column` of the group's row of the parameter table, or `scalar` outside a grid.
template <typename T>
MW_HD T mw_group_value(const T* table, int columns, int column, const MwGroupKey& k, long long size, T scalar) {
    return size > 0 ? table[k.index * columns + column] : scalar;
}

// Uniform in [0, 1): 24 random bits for float, 53 for double, so that 1.0 is never returned.
MW_HD float mw_u01f(unsigned int u) { return (float)(u >> 8) * (1.0f / 16777216.0f); }
MW_HD double mw_u01d(unsigned int hi, unsigned int lo) {
    const unsigned long long bits = ((unsigned long long)hi << 21) ^ (unsigned long long)(lo >> 11);
    return (double)(bits & ((1ull << 53) - 1)) * (1.0 / 9007199254740992.0);
}

// Uniform in [0, 1) with 16 random bits: one half of a word (classic PSO's r_p and r_g in float, two a
// word: particle_swarm.cu pso_coefficients), exact in float.
MW_HD float mw_u01h(unsigned int half) { return (float)half * (1.0f / 65536.0f); }

// An integer in [0, m) from one word (multiply-shift; bias below m / 2^32, irrelevant for m <= 2^16).
MW_HD unsigned int mw_below(unsigned int u, unsigned int m) {
    return (unsigned int)(((unsigned long long)u * m) >> 32);
}

// How many uniforms of type T one Philox block gives, and the k-th of them (k a compile-time
// constant after unrolling, so the words stay in registers).
template <typename T> struct MwPerBlock;
template <> struct MwPerBlock<float> { static const int value = 4; };
template <> struct MwPerBlock<double> { static const int value = 2; };

MW_HD unsigned int mw_word(const MwWords& r, int k) {
    // a select chain rather than an indexed array, so a run-time k never spills to local memory
    return k == 0 ? r.x : k == 1 ? r.y : k == 2 ? r.z : r.w;
}

// The same uniforms as integers held exactly in T (mw_uniform = units * MwUnit): a kernel that
// scales a uniform by a width w can take w * MwUnit once and fuse one multiply-add per draw:
// fma(w * MwUnit, units, lo) equals fma(w, uniform, lo) (scaling by a power of two is exact, so
// both products are the same real number), the form nvcc contracts lo + w * uniform to.
template <typename T> struct MwUnit;
template <> struct MwUnit<float> { static constexpr float value = 1.0f / 16777216.0f; };
template <> struct MwUnit<double> { static constexpr double value = 1.0 / 9007199254740992.0; };
template <typename T> MW_HD T mw_uniform_units(const MwWords& r, int k);
template <> MW_HD float mw_uniform_units<float>(const MwWords& r, int k) { return (float)(mw_word(r, k) >> 8); }
template <> MW_HD double mw_uniform_units<double>(const MwWords& r, int k) {
    const unsigned int hi = k == 0 ? r.x : r.z, lo = k == 0 ? r.y : r.w;
    const unsigned long long bits = ((unsigned long long)hi << 21) ^ (unsigned long long)(lo >> 11);
    return (double)(bits & ((1ull << 53) - 1));
}

template <typename T> MW_HD T mw_uniform(const MwWords& r, int k);
template <> MW_HD float mw_uniform<float>(const MwWords& r, int k) { return mw_u01f(mw_word(r, k)); }
template <> MW_HD double mw_uniform<double>(const MwWords& r, int k) {
    return k == 0 ? mw_u01d(r.x, r.y) : mw_u01d(r.z, r.w);
}

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
// Two standard normals from the two uniforms (u1, u2) of one block by Box-Muller: radius
// r = sqrt(-2 log(1 - u1)) (1 - u1 is in (0, 1], so the logarithm is finite), angle 2 pi u2 through
// sin(pi x) and cos(pi x) of x = 2 u2 (exact), whose reduction is a rounding to halves: no 2 pi to
// round first and no Cody-Waite reduction (float: common.cuh mw_sincospi_boxed, libdevice's sincospif
// by fewer instructions; issue 14, notes-gpu.md v23). Returns r^2 = z0^2 + z1^2 as the radius has it.
template <typename T> __device__ __forceinline__ T mw_normal2(T u1, T u2, T& z0, T& z1) {
    const T r2 = T(-2) * mw_log_unit(T(1) - u1);  // logf's values by fewer instructions (common.cuh)
    const T r = mw_sqrt(r2);
    T s, c;
    mw_sincospi_boxed(u2 + u2, &s, &c);
    z0 = r * c;
    z1 = r * s;
    return r2;
}

// A uniformly random point of the box [lower, upper], generated coordinate by coordinate as the
// objective reads it: x[j] is word j % P of block (first_draw + j / P). The last block is cached,
// so a functor that reads coordinates in order pays one Philox block per P coordinates and the
// point is never stored (the evaluation-only kernel). Same numbers as drawing into memory with
// mw_fill_uniform below.
template <typename T> struct MwRandomPoint {
    MwRng rng;
    unsigned long long first_draw;
    const T* lower;
    const T* upper;
    mutable MwWords cache;
    mutable long long cached;  // block number held in cache, -1 for none
    __device__ MwRandomPoint(MwRng r, unsigned long long draw, const T* lo, const T* hi)
        : rng(r), first_draw(draw), lower(lo), upper(hi), cached(-1) {}
    __device__ __forceinline__ T operator[](int j) const {
        const int P = MwPerBlock<T>::value;
        const long long b = j / P;
        if (b != cached) {
            cache = rng(first_draw + (unsigned long long)b);
            cached = b;
        }
        const T lo = lower[j], hi = upper[j];
        return mw_fmin(lo + (hi - lo) * mw_uniform<T>(cache, j % P), hi);
    }
};

// Draw blocks needed for one d-dimensional point.
__device__ __forceinline__ unsigned long long mw_blocks_per_point(int d, int per_block) {
    return (unsigned long long)((d + per_block - 1) / per_block);
}

// Write the uniform point of walker `i` into column i of a (d, n) array (stride n; any stride:
// 1 for a row, blockDim.x for a column of a shared-memory tile): the same numbers as MwRandomPoint
// with the same rng and first_draw. One Philox block per P coordinates, its words taken by
// constant index (registers, no select chain); the draw index counts up, no division.
template <typename T, typename S>
__device__ __forceinline__ void mw_fill_uniform(const MwRng& rng, unsigned long long first_draw,
                                                const T* __restrict__ lower,
                                                const T* __restrict__ upper, T* column, S stride,
                                                int d) {
    const int P = MwPerBlock<T>::value;
    unsigned long long draw = first_draw;
    for (int j0 = 0; j0 < d; j0 += P, ++draw) {
        const MwWords r = rng(draw);
#pragma unroll
        for (int k = 0; k < P; ++k) {
            const int j = j0 + k;
            if (j < d) {
                const T lo = lower[j], hi = upper[j];
                column[(S)j * stride] = mw_fmin(lo + (hi - lo) * mw_uniform<T>(r, k), hi);
            }
        }
    }
}
#endif  // device code

#endif  // MW_RANDOM_CUH
