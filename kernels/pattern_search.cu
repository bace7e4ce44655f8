// Multi-walk pattern search (Zhu & Curry, seed 000, Fig. 1): one compass search per thread, many
// iterations per launch. Mirrors solvers/algorithms/pattern_search.py exactly:
//   for each coordinate j: try x + delta e_j and x - delta e_j (delta = step * range_j, the trial
//   clipped to the box); move to the better of the two if it is no worse than f(x) (ties accepted,
//   the plus move first); if no coordinate strictly improved in the iteration, halve step; below
//   tol reset it to delta0.
// Exactly 2 d full evaluations per walker per iteration; trials are evaluated through PatchedPoint
// (the walker's column with one coordinate replaced), never written. X is (d, n).
//
// Two kernels run the same iteration: ps_iterate (a thread per walker) and ps_iterate_pairs (two
// lanes per walker, one evaluating the plus trial and one the minus trial, then both take the same
// decision). The pair form doubles the threads in flight where walkers are too few to fill the GPU
// (the seed's Table 1: 15,360 walkers = 116 threads per H100 SM, latency-bound); results are
// bit-identical, so the host picks by walker count.
//
// MW_KERNELS: ps_init<F,T> ps_iterate<F,T> ps_iterate_pairs<F,T>

// Draw walker i's point uniformly in the box (stream `stream`, draw index `draw` onwards),
// evaluate it, reset its step: the initial points and the restarts of the seed's Table 5 mode.
template <typename F, typename T>
__global__ void ps_init(T* X, T* f, T* step, unsigned char* improved, const T* __restrict__ lower,
                        const T* __restrict__ upper, long long n, int d, unsigned long long seed,
                        unsigned int stream, unsigned long long draw, T delta0) {
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= n) return;
    const MwRng rng(seed, (unsigned long long)i, stream);
    mw_fill_uniform(rng, draw * mw_blocks_per_point(d, MwPerBlock<T>::value), lower, upper, X + i,
                    n, d);
    const StridedPoint<T> x = {X + i, n};
    f[i] = mw_sanitize(F::template eval<T>(x, d));
    step[i] = delta0;
    improved[i] = 0;
}

// `iterations` iterations of every walker; walkers' values only decrease, so the caller's best
// reduction after the launch sees the best point of the launch.
template <typename F, typename T>
__global__ void ps_iterate(T* X, T* f, T* step, unsigned char* improved_last,
                           const T* __restrict__ lower, const T* __restrict__ upper, long long n,
                           int d, int iterations, T delta0, T tol) {
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= n) return;
    T* xi = X + i;
    T fi = f[i];
    T s = step[i];
    bool improved = false;
    for (int it = 0; it < iterations; ++it) {
        improved = false;
        for (int j = 0; j < d; ++j) {
            const T lo = lower[j], hi = upper[j];
            const T delta = s * (hi - lo);
            const T xj = xi[(long long)j * n];
            const T plus = mw_fmin(xj + delta, hi);
            const T minus = mw_fmax(xj - delta, lo);
            const PatchedPoint<T> xp = {xi, n, j, plus};
            const T fp = mw_sanitize(F::template eval<T>(xp, d));
            const PatchedPoint<T> xm = {xi, n, j, minus};
            const T fm = mw_sanitize(F::template eval<T>(xm, d));
            const bool take_plus = fp <= fi && fp <= fm;
            const bool take_minus = !take_plus && fm <= fi;
            if (take_plus || take_minus) {
                const T fn = take_plus ? fp : fm;
                xi[(long long)j * n] = take_plus ? plus : minus;
                improved = improved || fn < fi;
                fi = fn;
            }
        }
        s = improved ? s : s * T(0.5);
        if (s < tol) s = delta0;
    }
    f[i] = fi;
    step[i] = s;
    improved_last[i] = improved ? 1 : 0;
}

// Two lanes per walker (adjacent lanes t = 2 i and 2 i + 1): lane 0 evaluates x + delta e_j, lane 1
// x - delta e_j; the values are exchanged by a shuffle and both lanes apply the decision (both write
// the moved coordinate, the same value, so each lane reads its own write next). Launch 2 n threads.
template <typename F, typename T>
__global__ void ps_iterate_pairs(T* X, T* f, T* step, unsigned char* improved_last,
                                 const T* __restrict__ lower, const T* __restrict__ upper, long long n,
                                 int d, int iterations, T delta0, T tol) {
    const long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    const long long i = t >> 1;
    const bool minus_lane = (t & 1) != 0;
    const bool active = i < n;  // inactive lanes still loop: the shuffles need every lane
    T* xi = X + (active ? i : 0);
    T fi = active ? f[i] : T(0);
    T s = active ? step[i] : T(0);
    bool improved = false;
    for (int it = 0; it < iterations; ++it) {
        improved = false;
        for (int j = 0; j < d; ++j) {
            const T lo = lower[j], hi = upper[j];
            const T delta = s * (hi - lo);
            const T xj = active ? xi[(long long)j * n] : lo;
            const T plus = mw_fmin(xj + delta, hi);
            const T minus = mw_fmax(xj - delta, lo);
            T mine = T(0);
            if (active) {
                const PatchedPoint<T> xt = {xi, n, j, minus_lane ? minus : plus};
                mine = mw_sanitize(F::template eval<T>(xt, d));
            }
            const T other = __shfl_xor_sync(0xFFFFFFFFu, mine, 1);
            const T fp = minus_lane ? other : mine;
            const T fm = minus_lane ? mine : other;
            const bool take_plus = fp <= fi && fp <= fm;
            const bool take_minus = !take_plus && fm <= fi;
            if (active && (take_plus || take_minus)) {
                const T fn = take_plus ? fp : fm;
                xi[(long long)j * n] = take_plus ? plus : minus;
                improved = improved || fn < fi;
                fi = fn;
            }
        }
        s = improved ? s : s * T(0.5);
        if (s < tol) s = delta0;
    }
    if (active && !minus_lane) {
        f[i] = fi;
        step[i] = s;
        improved_last[i] = improved ? 1 : 0;
    }
}
