// Multi-directional search (Torczon; Stchedroff, seed 001), many starts at once, a whole chunk of
// iterations per launch. Mirrors solvers/algorithms/multidirectional_search.py exactly (its
// docstring gives Torczon's rule and the choices where the seed is ambiguous):
//   reflection r_i = v0 - (v_i - v0), taken unless a vertex leaves the box (then +inf, unevaluated);
//   if min f(r) < f(v0): expansion e_i = v0 - mu (v_i - v0) (rejected if a vertex leaves the box),
//     taken if min f(e) < min f(r), else the reflection; otherwise the contraction
//     c_i = v0 + theta (v_i - v0) (always inside: convex combinations);
//   the best vertex is swapped to the head (first minimum, no sort); a start whose vertices are all
//   within tol (fraction of each side of the box) of v0 has collapsed and costs nothing more, or,
//   with `restart`, begins a fresh axis simplex in its next iteration (n + 1 evaluations).
// Every trial vertex is computed as v0 + c (v_i - v0) with the roundings spelled out (__fmul_rn,
// __fadd_rn: no fused multiply-add), so the vertex stored is bit for bit the point evaluated.
//
// Mapping, chosen per dimension n. A group of g lanes works on one start, g = the smallest power of
// two >= n, at most 32: lane q owns vertices 1 + q, 1 + q + g, ... and evaluates their trials, so
// the n trials of a move are evaluated in parallel (the seed parallelises the simplex operations
// over the threads of a block the same way); min/and/argmin over the simplex are shuffles within
// the group (shuffle masks per group, so groups of one warp may diverge). Why not a thread per
// start for small n: a thread evaluates its 2n trials one after another, and the per-start
// bookkeeping (bounds checks, argmin, collapse test) reads the whole simplex n^2 times over; with
// g = 2..8 lanes per start for n = 2..8 the same warp holds 16..4 starts and the work is spread.
// Why not a block per start for n > 32 (the seed's choice for its n <= 15 on a 2009 GPU): one warp
// already has 32 lanes for the n trials, and several warps per start would need __syncthreads
// between phases that most starts (collapsed ones) skip. For n > 32 the warp's lanes own
// ceil(n/32) vertices each.
// The simplex (n+1 rows, padded to an odd stride so that lanes reading different rows hit
// different banks) and its values live in shared memory for the whole launch when they fit
// (up to n ~ 128 in float, more with the host's opt-in limit), loaded once and written back once;
// otherwise the group works on the global arrays in place (same code: a row pointer and a stride).
// Collapsed starts without restart skip the iteration entirely (no evaluation); a device counter
// (one atomicAdd per warp) returns the evaluations, the starts still active and the last iteration
// in which any start moved.
//
// Random numbers (fresh simplices only; Philox, P uniforms per block): the initial base point is
// MW_STREAM_INIT draws 0.., a restart at global iteration t uses MW_STREAM_RESTART draws
// t * ceil(n / P) .., so restarts repeat for a seed whatever the launch shape.
//
// MW_KERNELS: mds_init<F,T> mds_iterate<F,T>

// ---- arithmetic with explicit rounding (the evaluated point must equal the stored one) ---------
__device__ __forceinline__ float mds_mul(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ float mds_add(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ float mds_sub(float a, float b) { return __fsub_rn(a, b); }
__device__ __forceinline__ double mds_mul(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ double mds_add(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ double mds_sub(double a, double b) { return __dsub_rn(a, b); }

// v0 + c (v_i - v0): reflection (c = -1, i.e. v0 - (v_i - v0) exactly), expansion (-mu),
// contraction (theta).
template <typename T> __device__ __forceinline__ T mds_vertex(T v0, T vi, T c) {
    return mds_add(v0, mds_mul(c, mds_sub(vi, v0)));
}

// A trial vertex generated as the objective reads it: never stored unless taken.
template <typename T> struct MdsTrial {
    const T* v0;
    const T* vi;
    T c;
    __device__ __forceinline__ T operator[](int j) const { return mds_vertex(v0[j], vi[j], c); }
};

// The lanes of one start: g lanes, this lane's rank q, the shuffle mask of the group.
struct MdsGroup {
    unsigned int mask;
    int g;
    int q;
};

template <typename T> __device__ __forceinline__ T mds_group_min(T v, const MdsGroup& G) {
    for (int off = G.g >> 1; off > 0; off >>= 1) v = mw_fmin(v, __shfl_xor_sync(G.mask, v, off));
    return v;
}
template <typename T> __device__ __forceinline__ T mds_group_max(T v, const MdsGroup& G) {
    for (int off = G.g >> 1; off > 0; off >>= 1) v = mw_fmax(v, __shfl_xor_sync(G.mask, v, off));
    return v;
}
__device__ __forceinline__ int mds_group_and(int v, const MdsGroup& G) {
    for (int off = G.g >> 1; off > 0; off >>= 1) v &= __shfl_xor_sync(G.mask, v, off);
    return v;
}

// max_evals as a hard cap (evaluations depend on the moves): a start claims the evaluations of a
// trial simplex from the launch's allowance (mw_claim); vertices past the grant read +inf,
// uncounted. The host gives an allowance only to the one iteration the budget cuts.
struct MdsBudget {
    unsigned long long* claimed;
    unsigned long long allow;
};

__device__ __forceinline__ int mds_claim(const MdsBudget& b, const MdsGroup& G, int want) {
    return mw_claim(b.claimed, b.allow, want, G.q == 0, G.mask, G.g);
}

// One start's working copy: vertex v is S[v * ld .. v * ld + n - 1]; F its values, FR/F2 the
// reflection and second-trial values of the current move.
template <typename T> struct MdsWork {
    T* S;
    int ld;
    T* F;
    T* FR;
    T* F2;
};

// The best vertex to the head (first minimum: the head stays on ties), then sync.
template <typename T> __device__ void mds_head(const MdsWork<T>& w, const MdsGroup& G, int n) {
    T best = mw_inf<T>();
    int at = 0x7FFFFFFF;
    for (int v = G.q; v <= n; v += G.g) {
        const T fv = w.F[v];
        if (fv < best || (fv == best && v < at)) {
            best = fv;
            at = v;
        }
    }
    for (int off = G.g >> 1; off > 0; off >>= 1) {
        const T ob = __shfl_xor_sync(G.mask, best, off);
        const int oa = __shfl_xor_sync(G.mask, at, off);
        if (ob < best || (ob == best && oa < at)) {
            best = ob;
            at = oa;
        }
    }
    // all values +inf (an objective returning nothing finite): `at` is the head itself
    if (at != 0 && at <= n) {
        T* head = w.S;
        T* row = w.S + at * w.ld;
        for (int j = G.q; j < n; j += G.g) {
            const T s = head[j];
            head[j] = row[j];
            row[j] = s;
        }
        if (G.q == 0) {
            const T s = w.F[0];
            w.F[0] = w.F[at];
            w.F[at] = s;
        }
    }
    __syncwarp(G.mask);
}

// Largest |v_i - v0| / range over every vertex and coordinate (the reference's simplex_sizes).
template <typename T>
__device__ T mds_size(const MdsWork<T>& w, const MdsGroup& G, int n, const T* lower, const T* upper) {
    T size = T(0);
    for (int v = 1 + G.q; v <= n; v += G.g) {
        const T* row = w.S + v * w.ld;
        for (int j = 0; j < n; ++j) size = mw_fmax(size, mw_fabs(row[j] - w.S[j]) / (upper[j] - lower[j]));
    }
    return mds_group_max(size, G);
}

// A fresh axis simplex (the reference's axis_simplices): vertex 0 uniform in the box, vertex j+1 =
// vertex 0 + h_j e_j with h_j = edge * range_j, or - h_j where + h_j would leave the box. Then its
// values and the best vertex to the head. Returns the evaluations (n + 1, fewer under the budget).
template <typename F, typename T>
__device__ int mds_fresh(const MdsWork<T>& w, const MdsGroup& G, int n, const T* lower, const T* upper,
                         const MwRng& rng, unsigned long long draw, T edge, bool generate,
                         const MdsBudget& budget) {
    const int P = MwPerBlock<T>::value;
    if (generate) {
        for (int j = G.q; j < n; j += G.g) {
            const MwWords r = rng(draw + (unsigned long long)(j / P));
            const T lo = lower[j], hi = upper[j];
            const T base = mw_fmin(lo + (hi - lo) * mw_uniform<T>(r, j % P), hi);
            const T h = edge * (hi - lo);
            const T step = base + h <= hi ? h : -h;
            for (int v = 0; v <= n; ++v) w.S[v * w.ld + j] = (v == j + 1) ? base + step : base;
        }
        __syncwarp(G.mask);
    }
    const int granted = mds_claim(budget, G, n + 1);
    for (int v = G.q; v <= n; v += G.g) {
        const DensePoint<T> x = {w.S + v * w.ld};
        w.F[v] = v < granted ? mw_sanitize(F::template eval<T>(x, n)) : mw_inf<T>();
    }
    __syncwarp(G.mask);
    mds_head(w, G, n);
    return granted;
}

// True (in every lane of the group) if the trial simplex v0 + c (v_i - v0) lies in the box.
template <typename T>
__device__ bool mds_inside(const MdsWork<T>& w, const MdsGroup& G, int n, T c, const T* lower, const T* upper) {
    int ok = 1;
    for (int v = 1 + G.q; v <= n && ok; v += G.g) {
        const T* row = w.S + v * w.ld;
        for (int j = 0; j < n; ++j) {
            const T x = mds_vertex(w.S[j], row[j], c);
            if (!(x >= lower[j] && x <= upper[j])) {
                ok = 0;
                break;
            }
        }
    }
    return mds_group_and(ok, G) != 0;
}

// Evaluate the trial simplex with coefficient c into out[1..n] (the first `granted` vertices;
// the others +inf); the group's minimum.
template <typename F, typename T>
__device__ T mds_trials(const MdsWork<T>& w, const MdsGroup& G, int n, T c, T* out, int granted) {
    T lowest = mw_inf<T>();
    for (int v = 1 + G.q; v <= n; v += G.g) {
        const MdsTrial<T> x = {w.S, w.S + v * w.ld, c};
        const T fv = v <= granted ? mw_sanitize(F::template eval<T>(x, n)) : mw_inf<T>();
        out[v] = fv;
        lowest = mw_fmin(lowest, fv);
    }
    return mds_group_min(lowest, G);
}

// One move of Torczon's method (the reference's _iterate for one active start); returns the
// evaluations it cost.
template <typename F, typename T>
__device__ int mds_move(const MdsWork<T>& w, const MdsGroup& G, int n, const T* lower, const T* upper,
                        T mu, T theta, const MdsBudget& budget) {
    int evals = 0;
    const bool r_ok = mds_inside(w, G, n, T(-1), lower, upper);
    T r_min = mw_inf<T>();
    if (r_ok) {
        const int granted = mds_claim(budget, G, n);
        r_min = mds_trials<F>(w, G, n, T(-1), w.FR, granted);
        evals += granted;
    }
    const bool success = r_ok && r_min < w.F[0];
    const T c2 = success ? -mu : theta;
    const bool second_ok = !success || mds_inside(w, G, n, c2, lower, upper);
    T second_min = mw_inf<T>();
    if (second_ok) {
        const int granted = mds_claim(budget, G, n);
        second_min = mds_trials<F>(w, G, n, c2, w.F2, granted);
        evals += granted;
    }
    const bool take_second = (success && second_ok && second_min < r_min) || !success;
    const T c = take_second ? c2 : T(-1);
    const T* fnew = take_second ? w.F2 : w.FR;
    for (int v = 1 + G.q; v <= n; v += G.g) {
        T* row = w.S + v * w.ld;
        for (int j = 0; j < n; ++j) row[j] = mds_vertex(w.S[j], row[j], c);
        w.F[v] = fnew[v];
    }
    __syncwarp(G.mask);
    mds_head(w, G, n);
    return evals;
}

// Everything a kernel needs to place a start and its working copy.
template <typename T> struct MdsStart {
    MdsGroup G;
    long long s;  // start index
    bool valid;
    MdsWork<T> w;
};

template <typename T>
__device__ MdsStart<T> mds_start(T* simplices, T* values, T* scratch, long long starts, int n, int g,
                                 int ld, int in_shared, unsigned char* smem) {
    MdsStart<T> st;
    const int lane = threadIdx.x & 31;
    st.G.g = g;
    st.G.q = lane & (g - 1);
    st.G.mask = g == 32 ? 0xFFFFFFFFu : (((1u << g) - 1u) << (lane & ~(g - 1)));
    st.s = (blockIdx.x * (long long)blockDim.x + threadIdx.x) / g;
    st.valid = st.s < starts;
    const long long s = st.valid ? st.s : 0;
    if (in_shared) {
        const int per = (n + 1) * ld + 3 * (n + 1);
        T* mine = (T*)smem + (threadIdx.x / g) * per;
        st.w.S = mine;
        st.w.ld = ld;
        st.w.F = mine + (n + 1) * ld;
    } else {
        st.w.S = simplices + s * (n + 1) * n;
        st.w.ld = n;
        st.w.F = values + s * (n + 1);
    }
    T* extra = in_shared ? st.w.F + (n + 1) : scratch + s * 2 * (n + 1);
    st.w.FR = extra;
    st.w.F2 = extra + (n + 1);
    return st;
}

// Copy a start between the global arrays (S (n+1, n) row-major, F (n+1)) and its shared copy.
template <typename T>
__device__ void mds_copy(const MdsStart<T>& st, T* simplices, T* values, int n, bool to_shared) {
    T* S = simplices + st.s * (n + 1) * n;
    T* F = values + st.s * (n + 1);
    for (int v = 0; v <= n; ++v) {
        for (int j = st.G.q; j < n; j += st.G.g) {
            if (to_shared) st.w.S[v * st.w.ld + j] = S[v * n + j];
            else S[v * n + j] = st.w.S[v * st.w.ld + j];
        }
    }
    for (int v = st.G.q; v <= n; v += st.G.g) {
        if (to_shared) st.w.F[v] = F[v];
        else F[v] = st.w.F[v];
    }
    __syncwarp(st.G.mask);
}

// The head, if better than the start's kept best (the best point of the start over its restarts).
template <typename T>
__device__ void mds_keep(const MdsStart<T>& st, int n, T* keep_f, T* keep_x) {
    const T f0 = st.w.F[0];
    if (f0 < keep_f[st.s]) {  // uniform across the group
        for (int j = st.G.q; j < n; j += st.G.g) keep_x[st.s * n + j] = st.w.S[j];
        __syncwarp(st.G.mask);
        if (st.G.q == 0) keep_f[st.s] = f0;
    }
}

// Counters (evaluations, active starts, last iteration + 1 in which a start moved) summed over the
// warp, one atomic each per warp; then the launch's best start folded into the run's best.
template <typename T>
__device__ void mds_finish(unsigned long long evals, unsigned long long still, unsigned long long last,
                           MwBest<T> mine, const T* keep_x, int n, unsigned long long* counters,
                           T* part_f, long long* part_i, unsigned int* ticket, T* best_f, T* best_x,
                           long long* best_i) {
    __shared__ MwBest<T> winner;
    for (int off = 16; off > 0; off >>= 1) {
        evals += __shfl_down_sync(0xFFFFFFFFu, evals, off);
        still += __shfl_down_sync(0xFFFFFFFFu, still, off);
        const unsigned long long o = __shfl_down_sync(0xFFFFFFFFu, last, off);
        last = o > last ? o : last;
    }
    if ((threadIdx.x & 31) == 0) {
        if (evals) atomicAdd(counters + 0, evals);
        if (still) atomicAdd(counters + 1, still);
        if (last) atomicMax(counters + 2, last);
    }
    if (mw_grid_argmin(mine, part_f, part_i, ticket, &winner)) {
        if (mw_replaces_best<false>(winner, *best_f, *best_i)) {  // uniform across the block
            const volatile T* row = keep_x + winner.i * n;
            for (int j = threadIdx.x; j < n; j += blockDim.x) best_x[j] = row[j];
            __syncthreads();
            if (threadIdx.x == 0) {
                *best_f = winner.f;
                *best_i = winner.i;
            }
        }
    }
}

// New starts: a fresh simplex each (generate = 1) or the simplices already in `simplices`
// (generate = 0), evaluated, best vertex to the head, active unless collapsed.
template <typename F, typename T>
__global__ void mds_init(T* simplices, T* values, unsigned char* active, T* keep_f, T* keep_x, T* scratch,
                         const T* __restrict__ lower, const T* __restrict__ upper, long long starts, int n,
                         int g, int ld, int in_shared, unsigned long long seed, int generate, T edge, T tol,
                         unsigned long long allow, unsigned long long* counters, T* part_f, long long* part_i, unsigned int* ticket,
                         T* best_f, T* best_x, long long* best_i) {
    extern __shared__ __align__(16) unsigned char mds_smem[];
    const MdsStart<T> st = mds_start(simplices, values, scratch, starts, n, g, ld, in_shared, mds_smem);
    unsigned long long evals = 0, still = 0;
    MwBest<T> mine = mw_no_best<T>();
    if (st.valid) {
        if (in_shared && !generate) mds_copy(st, simplices, values, n, true);
        const MwRng rng(seed, (unsigned long long)st.s, MW_STREAM_INIT);
        const MdsBudget budget = {counters + 3, allow};
        evals = mds_fresh<F>(st.w, st.G, n, lower, upper, rng, 0ull, edge, generate != 0, budget);
        const bool act = mds_size(st.w, st.G, n, lower, upper) >= tol;
        if (in_shared) mds_copy(st, simplices, values, n, false);
        if (st.G.q == 0) {
            keep_f[st.s] = mw_inf<T>();
            active[st.s] = act ? 1 : 0;
        }
        __syncwarp(st.G.mask);
        mds_keep(st, n, keep_f, keep_x);
        if (st.G.q == 0) {
            mine = mw_make_best(st.w.F[0], st.s);
            still = act ? 1 : 0;
        } else {
            evals = 0;
        }
    }
    mds_finish(evals, still, 0ull, mine, keep_x, n, counters, part_f, part_i, ticket, best_f, best_x, best_i);
}

// `iterations` iterations of every start from global iteration first_iter.
template <typename F, typename T>
__global__ void __launch_bounds__(128, 8)
mds_iterate(T* simplices, T* values, unsigned char* active, T* keep_f, T* keep_x, T* scratch,
                            const T* __restrict__ lower, const T* __restrict__ upper, long long starts,
                            int n, int g, int ld, int in_shared, unsigned long long seed,
                            long long first_iter, int iterations, T edge, T mu, T theta, T tol,
                            int restart, unsigned long long allow, unsigned long long* counters, T* part_f, long long* part_i,
                            unsigned int* ticket, T* best_f, T* best_x, long long* best_i) {
    extern __shared__ __align__(16) unsigned char mds_smem[];
    const MdsStart<T> st = mds_start(simplices, values, scratch, starts, n, g, ld, in_shared, mds_smem);
    unsigned long long evals = 0, still = 0, last = 0;
    MwBest<T> mine = mw_no_best<T>();
    if (st.valid) {
        if (in_shared) mds_copy(st, simplices, values, n, true);
        bool act = active[st.s] != 0;
        const MwRng rng(seed, (unsigned long long)st.s, MW_STREAM_RESTART);
        const unsigned long long per_point = mw_blocks_per_point(n, MwPerBlock<T>::value);
        const MdsBudget budget = {counters + 3, allow};
        for (int it = 0; it < iterations; ++it) {
            const long long t = first_iter + it;
            if (act) {
                evals += mds_move<F>(st.w, st.G, n, lower, upper, mu, theta, budget);
                act = mds_size(st.w, st.G, n, lower, upper) >= tol;
                last = (unsigned long long)(t + 1);
            } else if (restart) {
                mds_keep(st, n, keep_f, keep_x);  // the collapsed simplex's head is about to go
                evals += mds_fresh<F>(st.w, st.G, n, lower, upper, rng, (unsigned long long)t * per_point,
                                      edge, true, budget);
                act = true;  // as the reference: a fresh simplex is active
            }
        }
        if (in_shared) mds_copy(st, simplices, values, n, false);
        mds_keep(st, n, keep_f, keep_x);
        if (st.G.q == 0) {
            active[st.s] = act ? 1 : 0;
            mine = mw_make_best(keep_f[st.s], st.s);
            still = act ? 1 : 0;
        } else {
            evals = 0;
            last = 0;
        }
    }
    mds_finish(evals, still, last, mine, keep_x, n, counters, part_f, part_i, ticket, best_f, best_x, best_i);
}
