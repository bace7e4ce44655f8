// Multi-walk pattern search (Zhu & Curry, seed 000, Fig. 1): one compass search per thread, many
// iterations per launch. Mirrors solvers/algorithms/pattern_search.py exactly:
//   for each coordinate j: try x + delta e_j and x - delta e_j (delta = step * range_j, the trial
//   clipped to the box); move to the better of the two if it is no worse than f(x) (ties accepted,
//   the plus move first); if no coordinate strictly improved in the iteration, halve step; below
//   tol reset it to delta0.
// max_evals as a hard cap: in a launch's last iteration only the trials numbered below `last_evals`
// are evaluated, numbered as the reference evaluates them: coordinate by coordinate, the plus trials
// of all walkers, then their minus trials (walker i's trial of coordinate j, sign s: (2 j + s) n + i);
// the others read +inf, uncounted, and are never taken. last_evals = 2 d n: the whole iteration.
// The same trials as the numpy engine are cut, and a shard of a split run (solvers/shards.py) cuts
// the ones its walkers cut in the unsplit run (rounds of one evaluation per walker).
// Exactly 2 d full evaluations per walker per iteration; trials are evaluated through PatchedPoint
// (the walker's column with one coordinate replaced), never written. X is (d, n). In ps_iterate the
// plus and minus trials of a coordinate share every other coordinate: for a fold functor (problems.cuh:
// MwPair) one pass computes each shared term once and folds it into both values (issue 14; the
// same values as two evaluations).
//
// Two kernels run the same iteration: ps_iterate (a thread per walker) and ps_iterate_group (2, 4
// or 8 lanes per walker evaluating the plus/minus trials of 1, 2 or 4 consecutive coordinates at
// once, see below). Groups multiply the threads in flight where walkers are too few to fill the GPU
// (the seed's Table 1: 15,360 walkers = 116 threads per H100 SM, latency-bound); results are
// bit-identical, so the host picks by walker count.
//
// One launch for a whole run (issue 14, the seed's Table 1 setting): both iterate kernels can start
// from fresh walkers (`fresh_stream` != 0: each walker first draws and evaluates its point exactly as
// ps_init does, stream fresh_stream, draw index fresh_draw) and can fold the launch's best walker
// into the run's best at the end (`fold` = 1, the grid argmin of reduce.cuh; tracker workspace with
// at least gridDim.x partials), so initialisation, iterations and the best need no host work between.
// Same numbers as ps_init + iterate + mw_argmin_update: the same formulas and the same tie rule.
// `walker0`: the global index of walker 0 (0 unless the run is split into shards over devices,
// solvers/shards.py): random streams are keyed by the global index, so a shard draws exactly the
// numbers its walkers draw in the unsplit run.
// Tuning grids (random.cuh's MwGroupKey): with gsize > 0 the walkers form independent runs of gsize
// walkers, each with its own Philox key, its walkers keyed 0..gsize-1, its own delta0 and tol (row
// of gvals: tol = delta0 / 2^tol_halvings rounded as the host rounds it for one run) and its own
// budget (last_evals counts trials within the run, numbered as above with the run's walkers), so
// each run equals the same run alone.
//
// MW_KERNELS: ps_init<F,T> ps_iterate<F,T> ps_iterate_group<F,T>

// The trial coordinates x_j +/- step * range_j, clipped to the box, rounded operation by operation
// (_rn intrinsics are never contracted into an FMA): every kernel below computes them bit-identically,
// whatever the compiler does with the surrounding code, and as NumPy does (no FMA).
__device__ __forceinline__ float ps_mul(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double ps_mul(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ float ps_add(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ double ps_add(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ float ps_sub(float a, float b) { return __fsub_rn(a, b); }
__device__ __forceinline__ double ps_sub(double a, double b) { return __dsub_rn(a, b); }
template <typename T> __device__ __forceinline__ T ps_plus(T xj, T s, T lo, T hi) {
    return mw_fmin(ps_add(xj, ps_mul(s, ps_sub(hi, lo))), hi);
}
template <typename T> __device__ __forceinline__ T ps_minus(T xj, T s, T lo, T hi) {
    return mw_fmax(ps_sub(xj, ps_mul(s, ps_sub(hi, lo))), lo);
}

// Walker i's fresh point: drawn into column i of X, evaluated; returns its value.
template <typename F, typename T>
__device__ __forceinline__ T ps_fresh(T* X, const T* __restrict__ lower, const T* __restrict__ upper,
                                      long long n, int d, long long i, unsigned long long seed,
                                      long long walker0, unsigned int stream,
                                      unsigned long long draw) {
    const MwRng rng(seed, (unsigned long long)(walker0 + i), stream);  // seed, walker0: the run's
    mw_fill_uniform(rng, draw * mw_blocks_per_point(d, MwPerBlock<T>::value), lower, upper, X + i,
                    n, d);
    const StridedPoint<T> x = {X + i, n};
    return mw_sanitize(F::template eval<T>(x, d));
}

// Draw walker i's point uniformly in the box (stream `stream`, draw index `draw` onwards),
// evaluate it, reset its step: the initial points and the restarts of the seed's Table 5 mode.
template <typename F, typename T>
__global__ void ps_init(T* X, T* f, T* step, unsigned char* improved, const T* __restrict__ lower,
                        const T* __restrict__ upper, long long n, int d, unsigned long long seed,
                        long long walker0, unsigned int stream, unsigned long long draw, T delta0,
                        const unsigned long long* gseeds, const T* gvals, long long gsize) {
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= n) return;
    const MwGroupKey gk = mw_group_key(seed, gseeds, gsize, i);
    f[i] = ps_fresh<F, T>(X, lower, upper, n, d, i, gk.seed, walker0 - gk.first, stream, draw);
    step[i] = mw_group_value(gvals, 2, 0, gk, gsize, delta0);
    improved[i] = 0;
}

// The launch's best walker folded into the run's best (every thread of every block calls this;
// `mine` is mw_no_best for threads without a walker of their own).
template <typename T>
__device__ __forceinline__ void ps_fold(MwBest<T> mine, const T* X, long long n, int d, T* part_f,
                                        long long* part_i, unsigned int* ticket, T* best_f,
                                        T* best_x, long long* best_i) {
    __shared__ MwBest<T> winner;
    __threadfence();  // this thread's X writes are visible to the block that commits the best
    if (mw_grid_argmin(mine, part_f, part_i, ticket, &winner)) {
        mw_commit_best<true>(winner, X, n, d, best_f, best_x, best_i);  // walkers move at equal values
    }
}

// `iterations` iterations of every walker; walkers' values only decrease, so the caller's best
// reduction after the launch sees the best point of the launch.
template <typename F, typename T>
__global__ void ps_iterate(T* X, T* f, T* step, unsigned char* improved_last,
                           const T* __restrict__ lower, const T* __restrict__ upper, long long n,
                           int d, int iterations, T delta0, T tol, long long last_evals,
                           unsigned long long seed, long long walker0,
                           unsigned int fresh_stream, unsigned long long fresh_draw, int fold,
                           T* part_f, long long* part_i, unsigned int* ticket, T* best_f, T* best_x,
                           long long* best_i, const unsigned long long* gseeds, const T* gvals,
                           long long gsize) {
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    MwBest<T> mine = mw_no_best<T>();
    if (i < n) {
        const MwGroupKey gk = mw_group_key(seed, gseeds, gsize, i);  // a grid's run: see the top
        delta0 = mw_group_value(gvals, 2, 0, gk, gsize, delta0);
        tol = mw_group_value(gvals, 2, 1, gk, gsize, tol);
        T* xi = X + i;
        T fi = fresh_stream ? ps_fresh<F, T>(X, lower, upper, n, d, i, gk.seed, walker0 - gk.first,
                                            fresh_stream, fresh_draw)
                             : f[i];
        T s = fresh_stream ? delta0 : step[i];
        // trials numbered within the walker's run (its walkers, its index in it)
        const long long rn = gsize > 0 ? gsize : n, ri = i - gk.first;
        bool improved = false;
        for (int it = 0; it < iterations; ++it) {
            improved = false;
            const long long allowed = it + 1 < iterations ? 0x7FFFFFFFFFFFFFFFLL : last_evals;
            for (int j = 0; j < d; ++j) {
                const T lo = lower[j], hi = upper[j];
                const T xj = xi[(long long)j * n];
                const T plus = ps_plus(xj, s, lo, hi);
                const T minus = ps_minus(xj, s, lo, hi);
                const long long e = 2LL * j * rn + ri;  // the plus trial's number (budget); minus: e + rn
                T fp, fm;
                if (e + rn < allowed) {  // both trials allowed: one pass for a fold (problems.cuh: MwPair)
                    MwPair<F, T, StridedPoint<T>>::eval(StridedPoint<T>{xi, n}, d, j, plus, minus, fp, fm);
                    fp = mw_sanitize(fp);
                    fm = mw_sanitize(fm);
                } else {  // the budget's last trials: the plus one alone, or neither
                    const PatchedPoint<T> xp = {xi, n, j, plus};
                    fp = e < allowed ? mw_sanitize(F::template eval<T>(xp, d)) : mw_inf<T>();
                    fm = mw_inf<T>();
                }
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
        mine = mw_make_best(fi, i);
    }
    if (fold) ps_fold(mine, X, n, d, part_f, part_i, ticket, best_f, best_x, best_i);  // uniform
}

// A group of g = 2 k lanes per walker (g = 2, 4 or 8; groups aligned inside warps): lanes 2c and
// 2c + 1 evaluate the plus and minus trials of coordinate j + c, all at the walker's current point.
// The decisions are then taken in order c = 0, 1, ... exactly as ps_iterate takes them; the first
// move ends the round (the later trials assumed an unchanged point and are discarded), so every
// decision uses the same evaluated points as ps_iterate and the results are bit-identical. Each
// coordinate decided costs the 2 counted evaluations; discarded speculative trials are not counted
// as evaluations (they are not part of the algorithm; their time is in every timing). Every lane of
// a group makes the same decisions and writes the same values. Launch g n threads.
template <typename F, typename T>
__global__ void ps_iterate_group(T* X, T* f, T* step, unsigned char* improved_last,
                                 const T* __restrict__ lower, const T* __restrict__ upper, long long n,
                                 int d, int iterations, T delta0, T tol, long long last_evals, int g,
                                 unsigned long long seed, long long walker0, unsigned int fresh_stream,
                                 unsigned long long fresh_draw, int fold, T* part_f,
                                 long long* part_i, unsigned int* ticket, T* best_f, T* best_x,
                                 long long* best_i, const unsigned long long* gseeds, const T* gvals,
                                 long long gsize) {
    const long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    const long long i = t / g;
    MwBest<T> mine = mw_no_best<T>();
    if (i < n) {  // whole groups: g divides the block size
        const MwGroupKey gk = mw_group_key(seed, gseeds, gsize, i);  // a grid's run: see the top
        delta0 = mw_group_value(gvals, 2, 0, gk, gsize, delta0);
        tol = mw_group_value(gvals, 2, 1, gk, gsize, tol);
        const int q = (int)(t % g);
        const int c = q >> 1;
        const bool minus_lane = (q & 1) != 0;
        const int k = g >> 1;
        const unsigned int base = (threadIdx.x & 31) & ~(unsigned int)(g - 1);
        const unsigned int mask = (g == 32 ? 0xFFFFFFFFu : ((1u << g) - 1u)) << base;
        T* xi = X + i;
        // a fresh point: every lane of the group draws and evaluates it (the same values; each lane
        // then reads its own writes), so no lane waits for another before the first trials
        T fi = fresh_stream ? ps_fresh<F, T>(X, lower, upper, n, d, i, gk.seed, walker0 - gk.first,
                                            fresh_stream, fresh_draw)
                             : f[i];
        T s = fresh_stream ? delta0 : step[i];
        // trials numbered within the walker's run (its walkers, its index in it)
        const long long rn = gsize > 0 ? gsize : n, ri = i - gk.first;
        bool improved = false;
        for (int it = 0; it < iterations; ++it) {
            improved = false;
            const long long allowed = it + 1 < iterations ? 0x7FFFFFFFFFFFFFFFLL : last_evals;
            int j = 0;
            while (j < d) {  // the same trip count in every lane of the group
                const int jj = j + c;
                T mine = T(0);
                mine = mw_inf<T>();  // a trial the budget does not allow reads +inf
                if (jj < d && (2LL * jj + (minus_lane ? 1 : 0)) * rn + ri < allowed) {
                    const T lo = lower[jj], hi = upper[jj];
                    const T xj = xi[(long long)jj * n];
                    const T trial = minus_lane ? ps_minus(xj, s, lo, hi) : ps_plus(xj, s, lo, hi);
                    const PatchedPoint<T> xt = {xi, n, jj, trial};
                    mine = mw_sanitize(F::template eval<T>(xt, d));
                }
                int advanced = 0;
                bool stop = false;
                for (int cc = 0; cc < k; ++cc) {
                    const T fp = __shfl_sync(mask, mine, 2 * cc, g);
                    const T fm = __shfl_sync(mask, mine, 2 * cc + 1, g);
                    const int jc = j + cc;
                    if (stop || jc >= d) continue;  // every lane still takes part in the shuffles
                    advanced = cc + 1;
                    const bool take_plus = fp <= fi && fp <= fm;
                    const bool take_minus = !take_plus && fm <= fi;
                    if (take_plus || take_minus) {
                        const T lo = lower[jc], hi = upper[jc];
                        const T xj = xi[(long long)jc * n];
                        const T fn = take_plus ? fp : fm;
                        xi[(long long)jc * n] = take_plus ? ps_plus(xj, s, lo, hi) : ps_minus(xj, s, lo, hi);
                        improved = improved || fn < fi;
                        fi = fn;
                        stop = true;  // the point moved: later trials of this round are stale
                    }
                }
                j += advanced;
            }
            s = improved ? s : s * T(0.5);
            if (s < tol) s = delta0;
        }
        if (q == 0) {
            f[i] = fi;
            step[i] = s;
            improved_last[i] = improved ? 1 : 0;
            mine = mw_make_best(fi, i);
        }
    }
    if (fold) ps_fold(mine, X, n, d, part_f, part_i, ticket, best_f, best_x, best_i);  // uniform
}
