// The best walker by a reduction on the GPU: argmin over walkers with its index, float and double,
// with no round trip to the host. Building blocks for algorithm kernels plus ready-made kernels.
//
// Ties go to the smaller walker index, so the winner never depends on the launch shape.
// Values are expected to be sanitised (mw_sanitize: NaN and -inf already mapped to +inf).
//
// Every thread of a block must call the block/grid reductions (they use full-warp shuffles and
// __syncthreads): threads without a walker pass mw_no_best<T>(). Block sizes: multiples of 32, up
// to 1024.
#ifndef MW_REDUCE_CUH
#define MW_REDUCE_CUH

template <typename T> struct MwBest {
    T f;
    long long i;
};

template <typename T> __device__ __forceinline__ MwBest<T> mw_no_best() {
    MwBest<T> b;
    b.f = mw_inf<T>();
    b.i = 0x7FFFFFFFFFFFFFFFLL;
    return b;
}

template <typename T> __device__ __forceinline__ MwBest<T> mw_make_best(T f, long long i) {
    MwBest<T> b;
    b.f = f;
    b.i = i;
    return b;
}

template <typename T> __device__ __forceinline__ MwBest<T> mw_better(MwBest<T> a, MwBest<T> b) {
    return (b.f < a.f || (b.f == a.f && b.i < a.i)) ? b : a;
}

// The warp's argmin by shuffles, valid in lane 0 (five rounds of three or four shuffles).
template <typename T> __device__ __forceinline__ MwBest<T> mw_warp_argmin_shfl(MwBest<T> v) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
        MwBest<T> o;
        o.f = __shfl_down_sync(0xFFFFFFFFu, v.f, offset);
        o.i = __shfl_down_sync(0xFFFFFFFFu, v.i, offset);
        v = mw_better(v, o);
    }
    return v;
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define MW_WARP_REDUX 1
// float on sm_80 and later: the lane that holds the warp's argmin (every lane gets the same), by
// warp-wide min instructions (redux.sync) instead of shuffle rounds: the smallest value's key (its
// bits in the values' order, -0 as +0, as mw_better compares), then among the lanes holding it the
// smallest index, high word then low word (indices are >= 0). H100 (notes-gpu.md v12), classic
// PSO's warp-0 exchange: 16,384 particles 2.55-2.58 -> 2.60-2.66 G/s, 1,024 266-268 -> 275-282 M/s
// against the shuffles; SPSO-2011 and DE unchanged; the same numbers (261 digests).
__device__ __forceinline__ int mw_warp_argmin_lane(MwBest<float> v) {
    unsigned int bits = __float_as_uint(v.f);
    if ((bits << 1) == 0u) bits = 0u;  // -0 ties with +0
    const unsigned int key = (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
    const unsigned int hi = (unsigned int)((unsigned long long)v.i >> 32), lo = (unsigned int)v.i;
    const unsigned int kmin = __reduce_min_sync(0xFFFFFFFFu, key);
    bool in = key == kmin;
    const unsigned int hmin = __reduce_min_sync(0xFFFFFFFFu, in ? hi : 0xFFFFFFFFu);
    in = in && hi == hmin;
    const unsigned int lmin = __reduce_min_sync(0xFFFFFFFFu, in ? lo : 0xFFFFFFFFu);
    return __ffs(__ballot_sync(0xFFFFFFFFu, in && lo == lmin)) - 1;
}
#else
#define MW_WARP_REDUX 0
#endif

// The warp's argmin, valid in lane 0 (float on sm_80 and later: in every lane).
template <typename T> __device__ __forceinline__ MwBest<T> mw_warp_argmin(MwBest<T> v) {
    return mw_warp_argmin_shfl(v);
}
__device__ __forceinline__ MwBest<float> mw_warp_argmin(MwBest<float> v) {
#if MW_WARP_REDUX
    const int from = mw_warp_argmin_lane(v);
    return mw_make_best(__shfl_sync(0xFFFFFFFFu, v.f, from), __shfl_sync(0xFFFFFFFFu, v.i, from));
#else
    return mw_warp_argmin_shfl(v);
#endif
}

// The block's argmin, valid in thread 0 only.
template <typename T> __device__ __forceinline__ MwBest<T> mw_block_argmin(MwBest<T> v) {
    __shared__ T warp_f[32];
    __shared__ long long warp_i[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int warps = (blockDim.x + 31) >> 5;
    v = mw_warp_argmin(v);
    __syncthreads();  // the shared slots may still be read by an earlier call in this kernel
    if (lane == 0) {
        warp_f[warp] = v.f;
        warp_i[warp] = v.i;
    }
    __syncthreads();
    if (warp == 0) {
        v = lane < warps ? mw_make_best(warp_f[lane], warp_i[lane]) : mw_no_best<T>();
        v = mw_warp_argmin(v);
    }
    return v;
}

// A grid-wide argmin in one launch (threadfence-reduction pattern): every block writes its
// partial; the last block to finish reduces the partials. Returns true in every thread of that
// last block, with the grid's argmin in *out (shared memory, valid after the call). `ticket` must
// be 0 before the launch; the last block sets it back to 0. part_f/part_i hold gridDim.x entries.
template <typename T>
__device__ bool mw_grid_argmin(MwBest<T> mine, T* part_f, long long* part_i, unsigned int* ticket,
                               MwBest<T>* out) {
    __shared__ bool last;
    const MwBest<T> b = mw_block_argmin(mine);
    if (threadIdx.x == 0) {
        part_f[blockIdx.x] = b.f;
        part_i[blockIdx.x] = b.i;
        __threadfence();  // the partial is visible to every block before the ticket is taken
        const unsigned int taken = atomicAdd(ticket, 1u);
        last = (taken == gridDim.x - 1);
    }
    __syncthreads();
    if (!last) return false;
    __threadfence();
    MwBest<T> v = mw_no_best<T>();
    for (unsigned int k = threadIdx.x; k < gridDim.x; k += blockDim.x) {
        // volatile: read the other blocks' partials from L2, not a stale L1 line
        v = mw_better(v, mw_make_best(((volatile T*)part_f)[k], ((volatile long long*)part_i)[k]));
    }
    v = mw_block_argmin(v);
    if (threadIdx.x == 0) {
        *out = v;
        *ticket = 0u;
    }
    __syncthreads();
    return true;
}

// Whether a launch's winner replaces the run's best (best_f, best_i as the device holds them): a
// smaller value, or the same finite value at a smaller walker index, or at the same walker where
// MOVES (the kernel's rows can move to another point of the same value: pattern search and DE take
// an equal trial). Folded once a launch from rows whose values never rise, this gives the run's
// smallest (value, walker) pair and its point however the iterations are split into launches; on
// the value alone, a tie went to whichever walker reached it in an earlier launch (the step
// function's plateaus). solvers/numba/base.py's replaces_best is the same rule.
template <bool MOVES, typename T>
__device__ __forceinline__ bool mw_replaces_best(const MwBest<T>& winner, T best_f, long long best_i) {
    if (winner.f < best_f) return true;
    return winner.f == best_f && winner.f < mw_inf<T>() && (winner.i < best_i || (MOVES && winner.i == best_i));
}

// Called by every thread of one block: if `winner` replaces the run's best (mw_replaces_best), copy
// its point (column winner.i of a (d, ld) array) into best_x and update best_f/best_i. One block only.
template <bool MOVES = false, typename T>
__device__ void mw_commit_best(MwBest<T> winner, const T* X, long long ld, int d, T* best_f,
                               T* best_x, long long* best_i) {
    // uniform across the block: every thread reads the same
    if (!mw_replaces_best<MOVES>(winner, *best_f, *best_i)) return;
    for (int j = threadIdx.x; j < d; j += blockDim.x) best_x[j] = X[(long long)j * ld + winner.i];
    __syncthreads();  // every thread has read *best_f before thread 0 overwrites it
    if (threadIdx.x == 0) {
        *best_f = winner.f;
        *best_i = winner.i;
    }
}

// Kernel: the run's best from values f (n,) of points X (d, n); one launch, any grid size (a
// grid-stride loop; 256 to 1024 blocks suit). part_f/part_i: gridDim.x entries; ticket: 0.
// `moves`: the algorithm's rows move at equal values (mw_replaces_best's MOVES).
template <typename T>
__global__ void mw_argmin_update(const T* f, const T* X, long long n, int d, T* part_f,
                                 long long* part_i, unsigned int* ticket, T* best_f, T* best_x,
                                 long long* best_i, int moves) {
    __shared__ MwBest<T> winner;
    MwBest<T> v = mw_no_best<T>();
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        v = mw_better(v, mw_make_best(f[i], i));
    }
    if (mw_grid_argmin(v, part_f, part_i, ticket, &winner)) {
        if (moves) {
            mw_commit_best<true>(winner, X, n, d, best_f, best_x, best_i);
        } else {
            mw_commit_best<false>(winner, X, n, d, best_f, best_x, best_i);
        }
    }
}

// Kernel: every walker takes the point src_x and value *src_f (device buffers, such as the run's
// best): the synchronous broadcast, with no host round trip. X is (d, n).
template <typename T>
__global__ void mw_broadcast_point(T* X, T* f, long long n, int d, const T* src_x, const T* src_f) {
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= n) return;
    for (int j = 0; j < d; ++j) X[(long long)j * n + i] = src_x[j];
    f[i] = *src_f;
}

#endif  // MW_REDUCE_CUH
