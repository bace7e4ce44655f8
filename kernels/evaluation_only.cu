// Evaluation only: the ceiling a fused algorithm approaches. Every thread draws uniform points in
// the box with the run's Philox generator, evaluates them and keeps the smallest value. Points are
// generated coordinate by coordinate as the functor reads them (MwRandomPoint) and never stored; the
// best point is regenerated from its counter (walker, round) at the end of the launch.
//
// Round t of walker i draws its coordinates from stream MW_STREAM_SAMPLE, draw indices
// t * B .. t * B + B - 1 with B = ceil(d / per-block). Round 0 is the initial evaluation.
//
// Staged points (issue 14): when the block's points fit in shared memory (the host passes
// `staged` = 1 and d * blockDim * sizeof(T) bytes of dynamic shared memory), each round first
// draws the whole point, one Philox block per four (float) coordinates with the word index a
// compile-time constant, into the thread's column of a (d, blockDim) shared array, and the functor
// then reads that column. Same numbers as MwRandomPoint (the same formula per coordinate), but no
// per-coordinate block lookup, select chain or branch inside the functor's loop, which the
// compiler can then unroll and overlap.
//
// Folded points (issue 14): when the functor is a fold (problems.cuh: MwFold; Rastrigin, Ackley,
// Sphere, ...), each Philox block's four coordinates go straight into the fold as they are drawn,
// in registers: no shared-memory stage, no second pass, the same numbers. A box with the same bounds
// in every coordinate (every built-in) is passed as two scalars (box_mode != 0: EoBox), so a coordinate
// costs no bound loads; otherwise lower/upper are read per coordinate as before.
//
// MW_KERNELS: eo_rounds<F,T> eo_points<T>

// The box of the drawn points: coordinate j of uniform u is min(lo + (hi - lo) u, hi), the formula
// of MwRandomPoint and mw_fill_uniform (hi - lo rounds the same whether taken once or per draw).
// BOX: EO_BOX_COORDS reads the bounds per coordinate; EO_BOX_CLAMP has one lo and hi for every
// coordinate and fuses the uniform's scale into the width: fma(w * unit, units, lo) with unit
// 2^-24 (float) or 2^-53 (double), the value of fma(w, u, lo), which is the form nvcc contracts
// MwRandomPoint's lo + (hi - lo) * u to (random.cuh's MwUnit); EO_BOX_FITS is the same where the
// host has shown that no draw rounds past hi (solvers/cuda/evaluation_only.py: box_mode), so the
// min is left out.
#define EO_BOX_COORDS 0
#define EO_BOX_CLAMP 1
#define EO_BOX_FITS 2
template <typename T, int BOX> struct EoBox {
    const T* __restrict__ lower;
    const T* __restrict__ upper;
    T lo, scaled, hi;
    __device__ __forceinline__ T at(int j, T units) const {
        if (BOX == EO_BOX_COORDS) {
            const T l = lower[j], h = upper[j];
            return mw_fmin(l + (h - l) * (units * MwUnit<T>::value), h);
        }
        const T v = mw_fma(scaled, units, lo);
        return BOX == EO_BOX_CLAMP ? mw_fmin(v, hi) : v;
    }
};

// R rounds of one walker as folds, side by side (round k's first Philox block at draw[k]): P
// coordinates per block, each folded as drawn; the last block's words past d are drawn and dropped,
// as mw_fill_uniform does. Two rounds in one loop give the scheduler two independent Philox and
// cosine chains per thread (131,072 walkers fill only half the GPU's warps), the same values.
// G is the generator (MwRng with 64-bit draw indices, or MwRngHigh with their low words, D).
template <typename F, typename T, int BOX, int R, typename G, typename D>
__device__ __forceinline__ void eo_folded(const G& rng, const D (&draw)[R], const EoBox<T, BOX>& box, int d,
                                          T (&f)[R]) {
    const int P = MwPerBlock<T>::value;
    typename F::template Acc<T> a[R];
#pragma unroll
    for (int k = 0; k < R; ++k) a[k] = F::template start<T>();
    D b = 0;
    int j0 = 0;
    for (; j0 + P <= d; j0 += P, ++b) {
#pragma unroll
        for (int k = 0; k < R; ++k) {
            const MwWords r = rng(draw[k] + b);
#pragma unroll
            for (int q = 0; q < P; ++q) F::template add<T>(a[k], box.at(j0 + q, mw_uniform_units<T>(r, q)), j0 + q);
        }
    }
    if (j0 < d) {
#pragma unroll
        for (int k = 0; k < R; ++k) {
            const MwWords r = rng(draw[k] + b);
#pragma unroll
            for (int q = 0; q < P; ++q) {
                if (j0 + q < d) F::template add<T>(a[k], box.at(j0 + q, mw_uniform_units<T>(r, q)), j0 + q);
            }
        }
    }
#pragma unroll
    for (int k = 0; k < R; ++k) f[k] = mw_sanitize(F::finish(a[k], d));
}

// `rounds` rounds of one walker with a fold functor, two at a time: (its last value; its best
// value and round, compared in round order as one at a time). Draw indices are taken modulo 2^32
// with MwRngHigh (the caller has checked that the launch's draws share their high word).
template <typename F, typename T, int BOX, typename G>
__device__ __forceinline__ T eo_folded_rounds(const G& rng, unsigned long long per_point, long long first_round,
                                              int rounds, const EoBox<T, BOX>& box, int d, MwBest<T>& mine,
                                              long long& kept) {
    typedef typename G::draw_type D;
    T f = mw_inf<T>();
    int r = 0;
    for (; r + 1 < rounds; r += 2) {
        const long long t = first_round + r;
        const D draw[2] = {(D)((unsigned long long)t * per_point), (D)((unsigned long long)(t + 1) * per_point)};
        T v[2];
        eo_folded<F, T, BOX, 2>(rng, draw, box, d, v);
#pragma unroll
        for (int k = 0; k < 2; ++k) {
            if (v[k] < mine.f) {
                mine.f = v[k];
                kept = t + k;
            }
        }
        f = v[1];
    }
    if (r < rounds) {
        const long long t = first_round + r;
        const D draw[1] = {(D)((unsigned long long)t * per_point)};
        T v[1];
        eo_folded<F, T, BOX, 1>(rng, draw, box, d, v);
        if (v[0] < mine.f) {
            mine.f = v[0];
            kept = t;
        }
        f = v[0];
    }
    return f;
}

// One thread's point in shared memory: coordinate j at column[j * stride] (bank-conflict free:
// neighbouring threads, neighbouring words).
template <typename T> struct EoColumn {
    const T* column;
    int stride;
    __device__ __forceinline__ T operator[](int j) const { return column[j * stride]; }
};

// `rounds` rounds starting at round `first_round`; one thread per walker. f_last (n,) gets each
// walker's last value (for snapshots); best_round (n,) its best round in this launch. The last block
// regenerates the launch's best point and folds it into best_f/best_x (no host round trip).
// Float: at most 64 registers (launch bounds: 8 blocks of 128 per SM), so that 131,072 walkers
// (7.8 blocks of 128 per SM on an H100) run as one wave: the folds' two side-by-side rounds and the
// high-word generator's constants asked for up to 71, and 7 blocks per SM would leave a tail.
// Double: 4 blocks (128 registers), what its folds used unbounded (86-96; 8 blocks spilled up to
// 320 bytes). Blocks of 128 threads, the host's BLOCK.
template <typename T> struct EoMinBlocks { static const int value = sizeof(T) == 4 ? 8 : 4; };
template <typename F, typename T>
__global__ void __launch_bounds__(128, EoMinBlocks<T>::value) eo_rounds(const T* __restrict__ lower, const T* __restrict__ upper, long long n, int d,
                          unsigned long long seed, long long first_round, int rounds, T* f_last,
                          long long* best_round, T* part_f, long long* part_i, unsigned int* ticket,
                          T* best_f, T* best_x, long long* best_i, int staged, T box_lo, T box_hi,
                          int box_mode) {
    __shared__ MwBest<T> winner;
    extern __shared__ unsigned char eo_stage_bytes[];
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    const unsigned long long per_point = mw_blocks_per_point(d, MwPerBlock<T>::value);
    MwBest<T> mine = mw_no_best<T>();
    if (i < n) {
        const MwRng rng(seed, (unsigned long long)i, MW_STREAM_SAMPLE);
        T f = mw_inf<T>();
        long long kept = first_round;
        if constexpr (mw_folds<F>::value) {
            const unsigned long long first = (unsigned long long)first_round * per_point;
            const unsigned long long last = (unsigned long long)(first_round + rounds) * per_point - 1;
            const T scaled = (box_hi - box_lo) * MwUnit<T>::value;
            if (box_mode != EO_BOX_COORDS && mw_same_high(first, last)) {
                const MwRngHigh high(rng, (unsigned int)(first >> 32));
                if (box_mode == EO_BOX_FITS) {
                    const EoBox<T, EO_BOX_FITS> box{lower, upper, box_lo, scaled, box_hi};
                    f = eo_folded_rounds<F, T, EO_BOX_FITS>(high, per_point, first_round, rounds, box, d, mine, kept);
                } else {
                    const EoBox<T, EO_BOX_CLAMP> box{lower, upper, box_lo, scaled, box_hi};
                    f = eo_folded_rounds<F, T, EO_BOX_CLAMP>(high, per_point, first_round, rounds, box, d, mine, kept);
                }
            } else {  // per-coordinate bounds, or draws across a 2^32 boundary: the general path
                const EoBox<T, EO_BOX_COORDS> box{lower, upper, box_lo, scaled, box_hi};
                f = eo_folded_rounds<F, T, EO_BOX_COORDS>(rng, per_point, first_round, rounds, box, d, mine, kept);
            }
        } else if (staged) {
            T* column = reinterpret_cast<T*>(eo_stage_bytes) + threadIdx.x;
            const EoColumn<T> x{column, (int)blockDim.x};
            for (int r = 0; r < rounds; ++r) {
                const long long t = first_round + r;
                mw_fill_uniform(rng, (unsigned long long)t * per_point, lower, upper, column,
                                (int)blockDim.x, d);
                f = mw_sanitize(F::template eval<T>(x, d));
                if (f < mine.f) {
                    mine.f = f;
                    kept = t;
                }
            }
        } else {
            for (int r = 0; r < rounds; ++r) {
                const long long t = first_round + r;
                MwRandomPoint<T> x(rng, (unsigned long long)t * per_point, lower, upper);
                f = mw_sanitize(F::template eval<T>(x, d));
                if (f < mine.f) {
                    mine.f = f;
                    kept = t;
                }
            }
        }
        f_last[i] = f;
        best_round[i] = kept;
        if (mine.f < mw_inf<T>()) mine.i = i;
        __threadfence();  // best_round is read by the last block, after the grid reduction
    }
    if (mw_grid_argmin(mine, part_f, part_i, ticket, &winner)) {
        if (mw_replaces_best<false>(winner, *best_f, *best_i)) {  // uniform across the block
            const long long w = winner.i;
            const long long t = ((volatile long long*)best_round)[w];
            const MwRng rng(seed, (unsigned long long)w, MW_STREAM_SAMPLE);
            const MwRandomPoint<T> x(rng, (unsigned long long)t * per_point, lower, upper);
            for (int j = threadIdx.x; j < d; j += blockDim.x) best_x[j] = x[j];
            __syncthreads();
            if (threadIdx.x == 0) {
                *best_f = winner.f;
                *best_i = w;
            }
        }
    }
}

// The points of round `round` of walkers idx[0..k): out is (k, d) row-major (snapshots).
template <typename T>
__global__ void eo_points(const long long* idx, int k, const T* lower, const T* upper, int d,
                          unsigned long long seed, long long round, T* out) {
    const int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= k) return;
    const unsigned long long per_point = mw_blocks_per_point(d, MwPerBlock<T>::value);
    const MwRng rng(seed, (unsigned long long)idx[s], MW_STREAM_SAMPLE);
    const MwRandomPoint<T> x(rng, (unsigned long long)round * per_point, lower, upper);
    for (int j = 0; j < d; ++j) out[(long long)s * d + j] = x[j];
}
