// Parallel simulated annealing with many Markov chains (Ferreiro et al., seed 002; CUSIMANN), one
// thread per chain, many proposals per launch. Mirrors solvers/algorithms/simulated_annealing.py:
//   neighbour: coordinate j uniform; with u < 1/2 the new value is uniform between x_j and the lower
//     bound, otherwise between x_j and the upper bound (shrunk by `width`), clipped to the box;
//   Metropolis: accept iff a < exp(min(-(f_new - f) / T, 0)); a NaN difference never accepts;
//   width: `width` * (T / T0)^width_power (width_power > 0 under the auto schedule, 0 = the seed's);
//   schedule: T <- alpha T after every `chain_length` proposals; at T <= T_min the schedule
//     restarts at T0 (reheating) -- the host limits a launch so that the level ends needing a
//     global exchange (sync broadcast, the hybrid's switch to polishing) end a launch.
// Random numbers: one Philox block per chain and proposal, stream MW_STREAM_STEP, draw index = the
// global iteration number: word x picks j, (y[, z]) gives u, the last word gives a. Chains are keyed
// by their global index walker0 + i (walker0 > 0 only in a shard of a run split over devices).
// The best point of a launch: each chain keeps its own best value of the launch and, lazily, its
// point (copied to B only when the chain moves away from it); the launch ends with a grid argmin
// over the chains' bests and the winner is folded into best_f/best_x (no host round trip).
// Every proposal is one full evaluation, of the chain's column with the proposal written in place
// (put back if rejected).
//
// Nelder-Mead polishing (hybrid): one warp per simplex, many iterations per launch, exactly the
// batched reference (solvers/algorithms/nelder_mead.py); vertices stay in place and a per-simplex
// index array keeps them sorted best-first (stable), evaluations counted in a device counter.
//
// Tuning grids (random.cuh's MwGroupKey; solvers/cuda/simulated_annealing.py): with gsize > 0 the
// chains form independent runs of gsize chains, each with its own Philox key and its chains keyed
// 0..gsize-1 (sa_init, sa_anneal_groups). The host keeps each run's schedule and ends every
// sa_anneal_groups launch at the first level end of any run, so within a launch every run has one
// temperature (gtemp, read once per thread) and one level; accepted proposals are counted per run.
// The best of each run is reduced on the host side from each chain's best of the launch
// (chain_best) and its point (at_best ? X : B), then broadcast within the run (sync).
//
// MW_KERNELS: sa_init<F,T> sa_anneal<F,T> sa_anneal_groups<F,T> nm_start<F,T> nm_iterate<F,T>

template <typename F, typename T>
__global__ void sa_init(T* X, T* f, unsigned char* accepted, const T* __restrict__ lower,
                        const T* __restrict__ upper, long long n, int d, unsigned long long seed,
                        long long walker0, const unsigned long long* gseeds, long long gsize) {
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= n) return;
    const MwGroupKey k = mw_group_key(seed, gseeds, gsize, i);  // outside a grid: seed, first 0
    const MwRng rng(k.seed, (unsigned long long)(walker0 + i - k.first), MW_STREAM_INIT);
    mw_fill_uniform(rng, 0ull, lower, upper, X + i, n, d);
    const StridedPoint<T> x = {X + i, n};
    f[i] = mw_sanitize(F::template eval<T>(x, d));
    accepted[i] = 0;
}

// The neighbour's coordinate value and the acceptance uniform from one Philox block.
template <typename T> struct SaDraw {
    int j;
    T u, a;
};
__device__ __forceinline__ SaDraw<float> sa_draw(const MwWords& r, int d, float) {
    SaDraw<float> s;
    s.j = (int)mw_below(r.x, (unsigned int)d);
    s.u = mw_u01f(r.y);
    s.a = mw_u01f(r.z);
    return s;
}
__device__ __forceinline__ SaDraw<double> sa_draw(const MwWords& r, int d, double) {
    SaDraw<double> s;
    s.j = (int)mw_below(r.x, (unsigned int)d);
    s.u = mw_u01d(r.y, r.z);
    s.a = (double)r.w * (1.0 / 4294967296.0);  // 32 bits resolve an acceptance probability amply
    return s;
}

// The neighbour of coordinate value x: towards lo (u < 1/2) or hi, at most the fraction w of the way,
// clipped to [lo, hi]. Shared by every annealing kernel, so that they round alike.
template <typename T> __device__ __forceinline__ T sa_neighbour(T x, T lo, T hi, T w, T u) {
    const T towards_lower = x - w * (T(1) - T(2) * u) * (x - lo);
    const T towards_upper = x + w * (T(2) * u - T(1)) * (hi - x);
    return mw_fmin(mw_fmax(u < T(0.5) ? towards_lower : towards_upper, lo), hi);
}

// Metropolis at temperature temp (double, as the host keeps it): accept iff a < exp(min(-(fn - fi) / T, 0));
// a NaN difference (inf - inf) makes both tests false: rejected.
template <typename T> __device__ __forceinline__ bool sa_accept(T fn, T fi, double temp, T a) {
    const T e = -(fn - fi) / (T)temp;
    return (e >= T(0)) || (a < mw_exp(e));
}

// One proposal of chain i (its point xi, stride xs: column i of X or its staged copy) at draw t: the move, the Metropolis rule and
// the chain's best bookkeeping (B keeps a copy of the chain's best point when it moves away from
// it). Shared by sa_anneal and sa_anneal_groups, so that a grid's run and a run alone round alike.
template <typename F, typename T>
__device__ __forceinline__ bool sa_propose(const MwRng& rng, unsigned long long t, T* xi, long long xs, T* B,
                                           long long n, int d, long long i, const T* __restrict__ lower,
                                           const T* __restrict__ upper, T w, double temp, T& fi,
                                           T& chain_best, bool& at_chain_best, unsigned int& count) {
    const SaDraw<T> s = sa_draw(rng(t), d, T(0));
    const T lo = lower[s.j], hi = upper[s.j];
    T* const xj = xi + (long long)s.j * xs;
    const T x = *xj;
    const T proposal = sa_neighbour(x, lo, hi, w, s.u);
    // evaluated in place: the proposal written into the chain's own column and put back if rejected
    // (issue 14: a PatchedPoint paid a compare and a select per coordinate; no other thread reads
    // this column until the launch's end or a barrier, and the proposal is gone by then)
    *xj = proposal;
    const StridedPoint<T> xp = {xi, xs};
    const T fn = mw_sanitize(F::template eval<T>(xp, d));
    const bool acc = sa_accept(fn, fi, temp, s.a);
    if (acc) {
        if (fn < chain_best) {
            chain_best = fn;
            at_chain_best = true;
        } else if (at_chain_best) {  // leaving the chain's best point: keep a copy (the old value at s.j)
            for (int j = 0; j < d; ++j) B[(long long)j * n + i] = j == s.j ? x : xi[(long long)j * xs];
            at_chain_best = false;
        }
        fi = fn;
        ++count;
    } else {
        *xj = x;
    }
    return acc;
}

// The chain's point during a launch (issue 14). Staged (STAGED, the host passing d x blockDim values
// of dynamic shared memory), it is copied from column i of X into the thread's column of shared
// memory at the start and back at the end: a proposal's evaluation then reads shared memory, where
// column i of X costs a warp one L2 line per coordinate (131,072 chains' columns are far more than
// L1 holds). The pointer comes straight from the shared array in the STAGED instantiation, so the
// loads are shared-memory loads, not generic ones.
template <typename T, bool STAGED> struct SaColumn {
    T* x;
    long long stride;
    __device__ __forceinline__ SaColumn(T* X, long long n, int d, long long i, bool active) {
        extern __shared__ __align__(16) unsigned char sa_stage_bytes[];
        if (STAGED) {
            x = reinterpret_cast<T*>(sa_stage_bytes) + threadIdx.x;
            stride = blockDim.x;
            if (active) {
                for (int j = 0; j < d; ++j) x[j * stride] = X[(long long)j * n + i];
            }
        } else {
            x = X + (active ? i : 0);
            stride = n;
        }
    }
    __device__ __forceinline__ void write_back(T* X, long long n, int d, long long i) const {
        if (STAGED) {
            for (int j = 0; j < d; ++j) X[(long long)j * n + i] = x[j * stride];
        }
    }
};

// Sum of a per-thread count over the warp, added once per warp to *out (all lanes must call).
__device__ __forceinline__ void sa_flush_count(unsigned int count, unsigned long long* out) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) count += __shfl_down_sync(0xFFFFFFFFu, count, offset);
    if ((threadIdx.x & 31) == 0 && count) atomicAdd(out, (unsigned long long)count);
}

// `iterations` proposals per chain from global iteration `first_iter`. temperature/level_iter: the
// schedule at the start (double, as the host keeps it). level_counts[k]: accepted proposals in the
// k-th level touched by this launch. B (d, n) and at_best (n,): per-chain best bookkeeping.
// The proposals of one sa_anneal launch for chain i (every thread, active or not: the warp counts
// need all lanes), its point staged or not; the schedule state (temp, level_iter, w) advances alike
// in every thread.
template <typename F, typename T, bool STAGED>
__device__ __forceinline__ void sa_anneal_chains(T* X, T* B, const T* __restrict__ lower,
                                                 const T* __restrict__ upper, long long n, int d, long long i,
                                                 bool active, const MwRng& rng, long long first_iter,
                                                 int iterations, double& temp, int level_iter, int chain_length,
                                                 double alpha, double t_min, double t0, T width,
                                                 double width_power, T& w, long long last_chains,
                                                 unsigned long long* level_counts, T& fi, T& chain_best,
                                                 bool& at_chain_best, bool& acc) {
    const SaColumn<T, STAGED> col(X, n, d, i, active);
    unsigned int count = 0;
    int slot = 0;
    for (int it = 0; it < iterations; ++it) {
        // max_evals as a hard cap: only the first last_chains chains make the last proposal
        if (active && (it + 1 < iterations || i < last_chains)) {
            acc = sa_propose<F, T>(rng, (unsigned long long)(first_iter + it), col.x, col.stride, B, n, d, i,
                                   lower, upper, w, temp, fi, chain_best, at_chain_best, count);
        }
        if (++level_iter >= chain_length) {  // uniform across the grid
            sa_flush_count(count, level_counts + slot);
            count = 0;
            ++slot;
            level_iter = 0;
            temp *= alpha;
            if (temp <= t_min) temp = t0;
            if (width_power > 0.0) w = (T)(width * pow(fmin(temp / t0, 1.0), width_power));
        }
    }
    sa_flush_count(count, level_counts + slot);
    if (active) col.write_back(X, n, d, i);
}

// `iterations` proposals per chain from global iteration `first_iter`. temperature/level_iter: the
// schedule at the start (double, as the host keeps it). level_counts[k]: accepted proposals in the
// k-th level touched by this launch. B (d, n) and at_best (n,): per-chain best bookkeeping.
// staged: the chains' points in shared memory during the launch (SaColumn).
template <typename F, typename T>
__global__ void sa_anneal(T* X, T* f, unsigned char* accepted, T* B, unsigned char* at_best,
                          const T* __restrict__ lower, const T* __restrict__ upper, long long n, int d,
                          unsigned long long seed, long long walker0, long long first_iter,
                          int iterations, double temperature, int level_iter, int chain_length, double alpha,
                          double t_min, double t0, T width, double width_power,
                          long long last_chains, unsigned long long* level_counts,
                          T* part_f, long long* part_i, unsigned int* ticket, T* best_f, T* best_x,
                          long long* best_i, int staged) {
    __shared__ MwBest<T> winner;
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    const bool active = i < n;  // inactive threads still loop: warp counts and the grid argmin
    T fi = active ? f[i] : mw_inf<T>();
    T chain_best = fi;
    bool at_chain_best = true;
    bool acc = false;
    double temp = temperature;
    T w = width_power > 0.0 ? (T)(width * pow(fmin(temp / t0, 1.0), width_power)) : width;
    const MwRng rng(seed, (unsigned long long)(active ? walker0 + i : 0), MW_STREAM_STEP);
    if (staged) {
        sa_anneal_chains<F, T, true>(X, B, lower, upper, n, d, i, active, rng, first_iter, iterations, temp,
                                     level_iter, chain_length, alpha, t_min, t0, width, width_power, w,
                                     last_chains, level_counts, fi, chain_best, at_chain_best, acc);
    } else {
        sa_anneal_chains<F, T, false>(X, B, lower, upper, n, d, i, active, rng, first_iter, iterations, temp,
                                      level_iter, chain_length, alpha, t_min, t0, width, width_power, w,
                                      last_chains, level_counts, fi, chain_best, at_chain_best, acc);
    }
    MwBest<T> mine = mw_no_best<T>();
    if (active) {
        f[i] = fi;
        accepted[i] = acc ? 1 : 0;
        at_best[i] = at_chain_best ? 1 : 0;
        if (chain_best < mw_inf<T>()) mine = mw_make_best(chain_best, i);
        __threadfence();  // at_best and B are read by the last block after the grid reduction
    }
    if (mw_grid_argmin(mine, part_f, part_i, ticket, &winner)) {
        const long long w = winner.i;
        if (mw_replaces_best<false>(winner, *best_f, *best_i)) {  // uniform across the block
            const T* src = ((volatile unsigned char*)at_best)[w] ? X : B;
            for (int j = threadIdx.x; j < d; j += blockDim.x) {
                best_x[j] = ((volatile T*)src)[(long long)j * n + w];
            }
            __syncthreads();
            if (threadIdx.x == 0) {
                *best_f = winner.f;
                *best_i = w;
            }
        }
    }
}

// A tuning grid's launch: `iterations` proposals per chain from global iteration `first_iter`, none
// crossing a level end of any run (the host ends the launch there), so each run's temperature
// gtemp[run] holds throughout (the fixed schedule: the width is `width`). The same move, rule and
// per-chain best bookkeeping as sa_anneal; run r's chain c is thread r * gsize + c. max_evals: only
// each run's first last_chains chains make the last proposal. group_counts[run] += accepted
// proposals; chain_best[i]: chain i's best value of the launch (its point: at_best[i] ? X : B).
template <typename F, typename T>
__global__ void sa_anneal_groups(T* X, T* f, unsigned char* accepted, T* B, unsigned char* at_best,
                                 T* chain_best_out, const T* __restrict__ lower,
                                 const T* __restrict__ upper, long long n, int d,
                                 const unsigned long long* gseeds, long long gsize,
                                 const double* __restrict__ gtemp, long long first_iter, int iterations,
                                 T width, long long last_chains, unsigned long long* group_counts,
                                 int staged) {
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= n) return;
    const MwGroupKey k = mw_group_key(0ull, gseeds, gsize, i);
    const long long c = i - k.first;  // the chain's index within its run
    const double temp = gtemp[k.index];
    T fi = f[i];
    T chain_best = fi;
    bool at_chain_best = true;
    bool acc = false;
    unsigned int count = 0;
    const MwRng rng(k.seed, (unsigned long long)c, MW_STREAM_STEP);
    const auto chains = [&](auto col) {  // col: SaColumn<T, staged or not>
        for (int it = 0; it < iterations; ++it) {
            if (it + 1 < iterations || c < last_chains) {
                acc = sa_propose<F, T>(rng, (unsigned long long)(first_iter + it), col.x, col.stride, B, n, d, i,
                                       lower, upper, width, temp, fi, chain_best, at_chain_best, count);
            }
        }
        col.write_back(X, n, d, i);
    };
    if (staged) {
        chains(SaColumn<T, true>(X, n, d, i, true));
    } else {
        chains(SaColumn<T, false>(X, n, d, i, true));
    }
    f[i] = fi;
    accepted[i] = acc ? 1 : 0;
    at_best[i] = at_chain_best ? 1 : 0;
    chain_best_out[i] = chain_best;
    if (count) atomicAdd(group_counts + k.index, (unsigned long long)count);
}

// ---- Nelder-Mead polishing ---------------------------------------------------------------------
// Simplex s: vertices S[(s * (d + 1) + v) * d + j] (slot v), values V[s * (d + 1) + v], order
// O[s * (d + 1) + k] = slot of the k-th best vertex; scratch W[s * 3 * d ...]: centroid, x_r, x_2.
// Rows R[s]: the chain whose row shows simplex s's best vertex.

// Stable insertion sort of the slots by value (ties keep their order, as the reference's
// stable argsort).
template <typename T> __device__ void nm_sort(const T* V, int* O, int m) {
    for (int k = 1; k < m; ++k) {
        const int slot = O[k];
        const T v = V[slot];
        int p = k - 1;
        while (p >= 0 && V[O[p]] > v) {
            O[p + 1] = O[p];
            --p;
        }
        O[p + 1] = slot;
    }
}

// max_evals as a hard cap on the polish: each warp claims its evaluations (mw_claim).
__device__ __forceinline__ int nm_claim(unsigned long long* claimed, unsigned long long allow, int want,
                                        int lane) {
    return mw_claim(claimed, allow, want, lane == 0, 0xFFFFFFFFu, 32);
}

// Vertex 0 = the chain's point (value known); vertex j + 1 = base + h_j e_j, h_j = edge * range_j,
// flipped to base - h_j where base + h_j leaves the box; evaluates the d new vertices, only those
// numbered s d + j below `allow` (max_evals; the others read +inf, uncounted).
template <typename F, typename T>
__global__ void nm_start(const T* X, const T* f, long long n, int d, const long long* R, int m,
                         long long allow, const T* base_x, const T* base_f, T edge,
                         const T* __restrict__ lower,
                         const T* __restrict__ upper, T* S, T* V, int* O, unsigned char* active) {
    const int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= m) return;
    const long long r = R[s];
    T* simplex = S + (long long)s * (d + 1) * d;
    T* values = V + (long long)s * (d + 1);
    int* order = O + (long long)s * (d + 1);
    // simplex 0 starts from base_x (the better of the best chain and the best point ever found)
    for (int j = 0; j < d; ++j) simplex[j] = s == 0 ? base_x[j] : X[(long long)j * n + r];
    values[0] = s == 0 ? *base_f : f[r];
    for (int v = 1; v <= d; ++v) {
        T* vert = simplex + (long long)v * d;
        for (int j = 0; j < d; ++j) vert[j] = simplex[j];
        const int j = v - 1;
        const T h = edge * (upper[j] - lower[j]);
        vert[j] = simplex[j] + h <= upper[j] ? simplex[j] + h : simplex[j] - h;
        const DensePoint<T> p = {vert};
        values[v] = (long long)s * d + j < allow ? mw_sanitize(F::template eval<T>(p, d)) : mw_inf<T>();
    }
    for (int v = 0; v <= d; ++v) order[v] = v;
    nm_sort(values, order, d + 1);
    active[s] = 1;
}

// `iterations` Nelder-Mead iterations of every active simplex (reference: nelder_mead.step), then
// the best vertices are written to their chains' rows. One warp per simplex: the lanes share the
// coordinate loops (centroid, trial points, shrink, collapse test) and the shrink's d evaluations;
// a single trial point is evaluated by every lane alike (same result, counted once), and lane 0
// keeps the order. counters[0] += evaluations, counters[1] = max iterations any simplex ran while
// active, counters[2] += simplices still active, counters[3]: evaluations claimed (nm_claim). A
// simplex that gets no evaluation for its next trial stops where it is (the budget is spent).
template <typename F, typename T>
__global__ void nm_iterate(T* X, T* f, unsigned char* accepted, long long n, int d, const long long* R,
                           int m, int iterations, unsigned long long allow, T tol, const T* __restrict__ lower,
                           const T* __restrict__ upper, T* S, T* V, int* O, T* W,
                           unsigned char* active, unsigned long long* counters) {
    const int lane = threadIdx.x & 31;
    const int s = (int)((blockIdx.x * (long long)blockDim.x + threadIdx.x) >> 5);
    if (s >= m) return;  // whole warps: s is the same for the 32 lanes
    const T RHO = T(1), CHI = T(2), GAMMA = T(0.5), SIGMA = T(0.5);
    T* simplex = S + (long long)s * (d + 1) * d;
    T* values = V + (long long)s * (d + 1);
    int* order = O + (long long)s * (d + 1);
    T* c = W + (long long)s * 3 * d;
    T* xr = c + d;
    T* x2 = xr + d;
    bool on = active[s] != 0;
    unsigned long long evals = 0;
    int ran = 0;
    T before = values[order[0]];
    for (int it = 0; it < iterations && on; ++it) {
        if (nm_claim(counters + 3, allow, 1, lane) == 0) break;  // no evaluation left for the reflection
        before = values[order[0]];
        ++ran;
        const int w = order[d];
        const T* worst_x = simplex + (long long)w * d;
        const T best = values[order[0]], worst = values[w], second = values[order[d - 1]];
        for (int j = lane; j < d; j += 32) {
            T sum = T(0);
            for (int k = 0; k < d; ++k) sum += simplex[(long long)order[k] * d + j];
            c[j] = sum / T(d);
            xr[j] = mw_fmin(mw_fmax(c[j] + RHO * (c[j] - worst_x[j]), lower[j]), upper[j]);
        }
        __syncwarp();
        const DensePoint<T> pr = {xr};
        const T fr = mw_sanitize(F::template eval<T>(pr, d));
        ++evals;
        const bool expand = fr < best;
        const bool take_r = !expand && fr < second;
        const bool outside = !expand && !take_r && fr < worst;
        const bool inside = !expand && !take_r && !outside;
        bool use_2 = false;
        T f2 = mw_inf<T>();
        const bool starved = !take_r && nm_claim(counters + 3, allow, 1, lane) == 0;
        if (!take_r && !starved) {
            for (int j = lane; j < d; j += 32) {
                if (expand) x2[j] = mw_fmin(mw_fmax(c[j] + CHI * (xr[j] - c[j]), lower[j]), upper[j]);
                else if (outside) x2[j] = c[j] + GAMMA * (xr[j] - c[j]);
                else x2[j] = c[j] + GAMMA * (worst_x[j] - c[j]);
            }
            __syncwarp();
            const DensePoint<T> p2 = {x2};
            f2 = mw_sanitize(F::template eval<T>(p2, d));
            ++evals;
            use_2 = (expand && f2 < fr) || (outside && f2 <= fr) || (inside && f2 < worst);
        }
        const bool use_r = take_r || (expand && !use_2);
        const bool shrink = (outside || inside) && !use_2 && !starved;
        if (use_2 || use_r) {
            T* dst = simplex + (long long)w * d;
            const T* src = use_2 ? x2 : xr;
            for (int j = lane; j < d; j += 32) dst[j] = src[j];
            if (lane == 0) values[w] = use_2 ? f2 : fr;
            __syncwarp();
            // stable re-sort: the replaced slot sits last, after every vertex of equal value
            if (lane == 0) nm_sort(values, order, d + 1);
            __syncwarp();
        } else if (shrink) {
            const T* head = simplex + (long long)order[0] * d;
            for (int q = lane; q < d * d; q += 32) {
                T* vert = simplex + (long long)order[1 + q / d] * d;
                const int j = q % d;
                vert[j] = head[j] + SIGMA * (vert[j] - head[j]);
            }
            __syncwarp();
            const int granted = nm_claim(counters + 3, allow, d, lane);
            for (int k = 1 + lane; k <= d; k += 32) {
                const DensePoint<T> p = {simplex + (long long)order[k] * d};
                values[order[k]] = k <= granted ? mw_sanitize(F::template eval<T>(p, d)) : mw_inf<T>();
            }
            evals += granted;
            __syncwarp();
            if (lane == 0) nm_sort(values, order, d + 1);
            __syncwarp();
        }
        // collapse test: every vertex within tol (fraction of the range) of the best vertex
        const T* head = simplex + (long long)order[0] * d;
        T size = T(0);
        for (int q = lane; q < d * d; q += 32) {
            const T* vert = simplex + (long long)order[1 + q / d] * d;
            const int j = q % d;
            size = mw_fmax(size, mw_fabs(vert[j] - head[j]) / (upper[j] - lower[j]));
        }
#pragma unroll
        for (int offset = 16; offset > 0; offset >>= 1) {
            size = mw_fmax(size, __shfl_xor_sync(0xFFFFFFFFu, size, offset));
        }
        on = size >= tol;
        if (starved) break;
    }
    const long long r = R[s];
    const T* head = simplex + (long long)order[0] * d;
    for (int j = lane; j < d; j += 32) X[(long long)j * n + r] = head[j];
    if (lane == 0) {
        active[s] = on ? 1 : 0;
        f[r] = values[order[0]];
        accepted[r] = values[order[0]] < before ? 1 : 0;
        atomicAdd(counters, evals);
        atomicMax(counters + 1, (unsigned long long)ran);
        if (on) atomicAdd(counters + 2, 1ull);
    }
}
