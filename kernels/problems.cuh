// Objective functors: one struct per problem of the registry (solvers/problems/*.py), each a
// term-by-term twin of its NumPy formula. Included after common.cuh (the loader concatenates the
// text); includes nothing.
//
// Shape of every functor:
//     struct Name { template <typename T, typename X> __device__ static T eval(const X& x, int d); };
// or a fold (MwFold below: Sphere, Step, Quartic, Schwefel226, Rastrigin, Ackley, Griewank), whose
// eval MwFold derives.
// x[j] is coordinate j as T (StridedPoint, PatchedPoint or DensePoint of common.cuh), d the dimension.
//
// Mirroring rules, so that numpy and cuda agree to rounding:
// - constants are folded in double and rounded once to T, as NumPy does with a Python float applied
//   to a float32 array: T(2.0 * MW_PI) * v, never T(2) * T(MW_PI) * v in a different order;
//   the one exception is cos(2 pi v), written mw_cos2pi_coordinate(v): cospi(2 v) (2 v is exact; cospi is
//   the more accurate of the two and half the cost of a precise cos: issue 14), reduced from v itself;
// - operations keep the NumPy expression's order (left to right); sums run j = 0..d-1 (NumPy's
//   pairwise summation differs from this only by rounding);
// - math only through mw_* (fast-math switch); powers as products where NumPy multiplies.
// Tables are `__device__ const double` arrays, read as T(table[k][j]) (the same rounding as
// np.asarray(table, dtype=float32)). Names local to this file start with mwp_.
#ifndef MW_PROBLEMS_CUH
#define MW_PROBLEMS_CUH

template <typename T> __device__ __forceinline__ T mwp_sq(T v) { return v * v; }

// Folds (issue 14). A functor whose value is a left-to-right fold over its coordinates, each read
// once in order, may define the fold instead of eval and derive from MwFold<Self>:
//     template <typename T> struct Acc { ... };                          // the running state
//     template <typename T> __device__ static Acc<T> start();
//     template <typename T> __device__ static auto term(T v, int j);     // coordinate j's part
//     template <typename T, typename U> __device__ static void accumulate(Acc<T>& a, const U& t);
//     template <typename T> __device__ static T finish(const Acc<T>& a, int d);
// A coordinate is folded in as accumulate(a, term(v, j)): the term (the costly part: a cosine, a
// sine) apart from its accumulation, so that two points sharing a coordinate compute its term once
// and fold it into both (pattern search's plus and minus trials: MwPair below). MwFold's eval runs
// the fold over x[0..d-1], so every kernel sees one definition; a kernel that makes its coordinates
// one at a time (evaluation-only draws four per Philox block, a particle's move) folds them as they
// come, in registers, instead of storing the point and reading it back: the same operations in the
// same order, so the same value bit for bit (scripts/kernel_digests.py checks it on the GPU).
// mw_folds<F>::value says whether F is one.
template <typename F> struct MwFold {
    static constexpr bool folds = true;
    // A: F::Acc<T> (a parameter: F is incomplete where this base is instantiated)
    template <typename T, typename A> __device__ static void add(A& a, T v, int j) {
        F::template accumulate<T>(a, F::template term<T>(v, j));
    }
    template <typename T, typename X> __device__ static T eval(const X& x, int d) {
        typename F::template Acc<T> a = F::template start<T>();
        for (int j = 0; j < d; ++j) add<T>(a, T(x[j]), j);
        return F::finish(a, d);
    }
};

template <typename F, typename = void> struct mw_folds { static constexpr bool value = false; };
template <typename F> struct mw_folds<F, decltype(void(F::folds))> { static constexpr bool value = F::folds; };

// The objective of a point a kernel makes coordinate by coordinate (a particle's move): fed each
// coordinate as it is made (add) when F is a fold, so value() needs no second pass; for the other
// functors add does nothing and value() evaluates the stored point x. One code path for both.
template <typename F, typename T, bool = mw_folds<F>::value> struct MwRunningEval {
    __device__ __forceinline__ void add(T, int) {}
    template <typename X> __device__ __forceinline__ T value(const X& x, int d) const { return F::template eval<T>(x, d); }
};
template <typename F, typename T> struct MwRunningEval<F, T, true> {
    typename F::template Acc<T> a;
    __device__ __forceinline__ MwRunningEval() : a(F::template start<T>()) {}
    __device__ __forceinline__ void add(T v, int j) { F::template add<T>(a, v, j); }
    template <typename X> __device__ __forceinline__ T value(const X&, int d) const { return F::finish(a, d); }
};

// Two points equal to x but in coordinate jj (va and vb there): their values fa, fb. For a fold,
// one pass: every other coordinate's term is computed once and folded into both (each sum sees the
// same terms in the same order as evaluating the point alone: the same values); otherwise two
// evaluations of the patched point.
template <typename F, typename T, typename X, bool = mw_folds<F>::value> struct MwPair {
    __device__ static void eval(const X& x, int d, int jj, T va, T vb, T& fa, T& fb) {
        fa = F::template eval<T>(PatchedPoint<T>{x.base, x.stride, jj, va}, d);
        fb = F::template eval<T>(PatchedPoint<T>{x.base, x.stride, jj, vb}, d);
    }
};
template <typename F, typename T, typename X> struct MwPair<F, T, X, true> {
    // coordinates [k0, k1) of x: each term once, into both folds
    __device__ __forceinline__ static void shared(const X& x, int k0, int k1, typename F::template Acc<T>& a,
                                                  typename F::template Acc<T>& b) {
        for (int k = k0; k < k1; ++k) {
            const auto t = F::template term<T>(T(x[k]), k);
            F::template accumulate<T>(a, t);
            F::template accumulate<T>(b, t);
        }
    }
    __device__ static void eval(const X& x, int d, int jj, T va, T vb, T& fa, T& fb) {
        typename F::template Acc<T> a = F::template start<T>(), b = F::template start<T>();
        shared(x, 0, jj, a, b);  // three loops, not a test of k == jj in one: each unrolls
        F::template accumulate<T>(a, F::template term<T>(va, jj));
        F::template accumulate<T>(b, F::template term<T>(vb, jj));
        shared(x, jj + 1, d, a, b);
        fa = F::finish(a, d);
        fb = F::finish(b, d);
    }
};

// A fold over one accumulated sum (most separable functions): the functor gives term(v, j).
// Terms are written with mw_fma where nvcc fuses a product into the term's sum (it decides by
// context: a term hoisted out of a loop was fused the other way round), so a term rounds the same
// wherever it is computed.
template <typename F> struct MwSumFold : MwFold<F> {
    template <typename T> struct Acc { T s; };
    template <typename T> __device__ static Acc<T> start() { return {T(0)}; }
    template <typename T> __device__ static void accumulate(Acc<T>& a, T t) { a.s += t; }
    template <typename T> __device__ static T finish(const Acc<T>& a, int) { return a.s; }
};

// A sum of squares of term(v, j): s = fma(t, t, s), the form nvcc gives s += t * t.
template <typename F> struct MwSquareSumFold : MwSumFold<F> {
    template <typename T> __device__ static void accumulate(typename MwSumFold<F>::template Acc<T>& a, T t) {
        a.s = mw_fma(t, t, a.s);
    }
};

struct Sphere : MwSquareSumFold<Sphere> {
    template <typename T> __device__ static T term(T v, int) { return v; }
};

struct Schwefel222 {
    template <typename T, typename X> __device__ static T eval(const X& x, int d) {
        T s = T(0), p = T(1);
        for (int j = 0; j < d; ++j) { const T a = mw_fabs(x[j]); s += a; p *= a; }
        return s + p;
    }
};

struct Schwefel12 {
    template <typename T, typename X> __device__ static T eval(const X& x, int d) {
        T c = T(0), s = T(0);
        for (int j = 0; j < d; ++j) { c += x[j]; s += c * c; }
        return s;
    }
};

struct Schwefel221 {
    template <typename T, typename X> __device__ static T eval(const X& x, int d) {
        T m = mw_fabs(x[0]);
        for (int j = 1; j < d; ++j) m = mw_fmax(m, mw_fabs(x[j]));
        return m;
    }
};

struct Rosenbrock {
    template <typename T, typename X> __device__ static T eval(const X& x, int d) {
        T s = T(0);
        T head = x[0];
        for (int j = 0; j + 1 < d; ++j) {
            const T next = x[j + 1];
            const T a = next - head * head;
            const T b = head - T(1);
            s += T(100) * a * a + b * b;
            head = next;
        }
        return s;
    }
};

struct Step : MwSquareSumFold<Step> {
    template <typename T> __device__ static T term(T x, int) { return mw_floor(x + T(0.5)); }
};

struct Quartic : MwFold<Quartic> {  // s += (j + 1) v^4, the product and the sum fused
    template <typename T> struct Acc { T s; };
    template <typename T> struct Term { T w, q; };
    template <typename T> __device__ static Acc<T> start() { return {T(0)}; }
    template <typename T> __device__ static Term<T> term(T v, int j) { const T v2 = v * v; return {T(j + 1), v2 * v2}; }
    template <typename T> __device__ static void accumulate(Acc<T>& a, const Term<T>& t) { a.s = mw_fma(t.w, t.q, a.s); }
    template <typename T> __device__ static T finish(const Acc<T>& a, int) { return a.s; }
};

// The noise of Yao's f7 as a hash of the point (yao.point_noise): the float64 bits of each
// coordinate chained through the SplitMix64 finaliser from the 64-bit golden ratio; top 53 bits
// times 2^-53. Exact in integers, so numpy and cuda draw the same noise.
__device__ __forceinline__ unsigned long long mwp_splitmix(unsigned long long z) {
    z ^= z >> 30;
    z *= 0xBF58476D1CE4E5B9ULL;
    z ^= z >> 27;
    z *= 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

struct QuarticNoisy {
    template <typename T, typename X> __device__ static T eval(const X& x, int d) {
        T s = T(0);
        unsigned long long h = 0x9E3779B97F4A7C15ULL;
        for (int j = 0; j < d; ++j) {
            const T v = x[j];
            const T v2 = v * v;
            s += T(j + 1) * (v2 * v2);
            h = mwp_splitmix(h ^ (unsigned long long)__double_as_longlong((double)v));
        }
        const double unit = (double)(h >> 11) * (1.0 / 9007199254740992.0);
        return s + T(unit);
    }
};

// s += v sin(sqrt|v|), the product and the sum fused (the form nvcc contracted them to), so that a
// term computed apart from its sum (classic PSO's lanes shuffle terms) rounds alike
struct Schwefel226 : MwFold<Schwefel226> {
    template <typename T> struct Acc { T s; };
    template <typename T> struct Term { T v, s; };
    template <typename T> __device__ static Acc<T> start() { return {T(0)}; }
    template <typename T> __device__ static Term<T> term(T v, int) { return {v, mw_sin(mw_sqrt(mw_fabs(v)))}; }
    template <typename T> __device__ static void accumulate(Acc<T>& a, const Term<T>& t) { a.s = mw_fma(t.v, t.s, a.s); }
    template <typename T> __device__ static T finish(const Acc<T>& a, int d) { return T(418.9829 * d) - a.s; }
};

struct Rastrigin : MwSumFold<Rastrigin> {  // v^2 - 10 cos(2 pi v) + 10, v^2 fused into the difference
    template <typename T> __device__ static T term(T v, int) {
        return mw_fma(v, v, -(T(10) * mw_cos2pi_coordinate(v))) + T(10);
    }
};

struct Ackley : MwFold<Ackley> {
    template <typename T> struct Acc { T s1, s2; };
    template <typename T> struct Term { T v, c; };
    template <typename T> __device__ static Acc<T> start() { return {T(0), T(0)}; }
    template <typename T> __device__ static Term<T> term(T v, int) { return {v, mw_cos2pi_coordinate(v)}; }
    template <typename T> __device__ static void accumulate(Acc<T>& a, const Term<T>& t) {
        a.s1 = mw_fma(t.v, t.v, a.s1);
        a.s2 += t.c;
    }
    template <typename T> __device__ static T finish(const Acc<T>& a, int d) {
        return T(-20) * mw_exp(T(-0.2) * mw_sqrt(a.s1 / T(d))) - mw_exp(a.s2 / T(d)) + T(20) + T(MW_E);
    }
};

struct Griewank : MwFold<Griewank> {
    template <typename T> struct Acc { T s, p; };
    template <typename T> struct Term { T v, c; };
    template <typename T> __device__ static Acc<T> start() { return {T(0), T(1)}; }
    template <typename T> __device__ static Term<T> term(T v, int j) { return {v, mw_cos(v / mw_sqrt(T(j + 1)))}; }
    template <typename T> __device__ static void accumulate(Acc<T>& a, const Term<T>& t) {
        a.s = mw_fma(t.v, t.v, a.s);
        a.p *= t.c;
    }
    template <typename T> __device__ static T finish(const Acc<T>& a, int) { return a.s / T(4000) - a.p + T(1); }
};

// Yao's u(x, a, k, 4) for one coordinate: k (x - a)^4 above a, k (-x - a)^4 below -a.
template <typename T> __device__ __forceinline__ T mwp_penalty_u(T v, T a, T k) {
    const T hi = mw_fmax(v - a, T(0));
    const T lo = mw_fmax(-v - a, T(0));
    const T hi2 = hi * hi;
    const T lo2 = lo * lo;
    return k * (hi2 * hi2) + k * (lo2 * lo2);
}

struct Penalized1 {
    template <typename T, typename X> __device__ static T eval(const X& x, int d) {
        T pen = T(0);
        T y = T(1) + (x[0] + T(1)) / T(4);
        const T s0 = mw_sin(T(MW_PI) * y);
        T body = T(10) * (s0 * s0);
        for (int j = 0; j + 1 < d; ++j) {
            const T ym = y - T(1);
            const T yn = T(1) + (x[j + 1] + T(1)) / T(4);
            const T s = mw_sin(T(MW_PI) * yn);
            body += ym * ym * (T(1) + T(10) * (s * s));
            y = yn;
        }
        const T ym = y - T(1);
        body += ym * ym;
        for (int j = 0; j < d; ++j) pen += mwp_penalty_u(x[j], T(10), T(100));
        return T(MW_PI / d) * body + pen;
    }
};

// 0.1 [sin^2(3 pi x1) + sum (x_i - 1)^2 (1 + sin^2(3 pi x_i+1)) + (x_n - 1)^2 (1 + sin^2(2 pi x_n))]:
// Yao's f13 without its penalty, and Levy & Montalvo's LM2 (yao.penalized_2_body).
template <typename T, typename X> __device__ __forceinline__ T mwp_penalized_2_body(const X& x, int d) {
    const T s0 = mw_sin(T(3.0 * MW_PI) * x[0]);
    T body = s0 * s0;
    for (int j = 0; j + 1 < d; ++j) {
        const T xm = x[j] - T(1);
        const T s = mw_sin(T(3.0 * MW_PI) * x[j + 1]);
        body += xm * xm * (T(1) + s * s);
    }
    const T last = x[d - 1];
    const T xm = last - T(1);
    const T t = mw_sin(T(2.0 * MW_PI) * last);
    body += xm * xm * (T(1) + t * t);
    return T(0.1) * body;
}

struct Penalized2 {
    template <typename T, typename X> __device__ static T eval(const X& x, int d) {
        T pen = T(0);
        for (int j = 0; j < d; ++j) pen += mwp_penalty_u(x[j], T(5), T(100));
        return mwp_penalized_2_body<T>(x, d) + pen;
    }
};

// ---- The simulated-annealing suite (solvers/problems/annealing_suite.py) -----------------------

struct SchwefelNormalized {
    template <typename T, typename X> __device__ static T eval(const X& x, int d) {
        T s = T(0);
        for (int j = 0; j < d; ++j) { const T v = x[j]; s += v * mw_sin(mw_sqrt(mw_fabs(v))); }
        return -(s / T(d));
    }
};

struct Branin {
    template <typename T, typename X> __device__ static T eval(const X& x, int) {
        const T x1 = x[0], x2 = x[1];
        const T t = x2 - T(5.1 / (4.0 * MW_PI * MW_PI)) * x1 * x1 + T(5.0 / MW_PI) * x1 - T(6);
        return t * t + T(10.0 * (1.0 - 1.0 / (8.0 * MW_PI))) * mw_cos(x1) + T(10);
    }
};

struct CosineMixture {
    template <typename T, typename X> __device__ static T eval(const X& x, int d) {
        T sc = T(0), sq = T(0);
        for (int j = 0; j < d; ++j) {
            const T v = x[j];
            sc += mw_cos(T(5.0 * MW_PI) * v);
            sq += v * v;
        }
        return T(-0.1) * sc + sq;
    }
};

struct DekkersAarts {
    template <typename T, typename X> __device__ static T eval(const X& x, int) {
        const T a = x[0] * x[0];
        const T b = x[1] * x[1];
        const T r = a + b;
        const T r2 = r * r;
        return T(1.0e5) * a + b - r2 + T(1.0e-5) * (r2 * r2);
    }
};

struct Easom {
    template <typename T, typename X> __device__ static T eval(const X& x, int) {
        const T x1 = x[0], x2 = x[1];
        const T p = x1 - T(MW_PI);
        const T q = x2 - T(MW_PI);
        return -mw_cos(x1) * mw_cos(x2) * mw_exp(-(p * p + q * q));
    }
};

struct Exponential {
    template <typename T, typename X> __device__ static T eval(const X& x, int d) {
        T s = T(0);
        for (int j = 0; j < d; ++j) { const T v = x[j]; s += v * v; }
        return -mw_exp(T(-0.5) * s);
    }
};

struct GoldsteinPrice {
    template <typename T, typename X> __device__ static T eval(const X& x, int) {
        const T x1 = x[0], x2 = x[1];
        const T a = x1 + x2 + T(1);
        const T b = T(19) - T(14) * x1 + T(3) * x1 * x1 - T(14) * x2 + T(6) * x1 * x2 + T(3) * x2 * x2;
        const T c = T(2) * x1 - T(3) * x2;
        const T e = T(18) - T(32) * x1 + T(12) * x1 * x1 + T(48) * x2 - T(36) * x1 * x2 + T(27) * x2 * x2;
        return (T(1) + a * a * b) * (T(30) + c * c * e);
    }
};

struct Himmelblau {
    template <typename T, typename X> __device__ static T eval(const X& x, int) {
        const T x1 = x[0], x2 = x[1];
        const T a = x1 * x1 + x2 - T(11);
        const T b = x1 + x2 * x2 - T(7);
        return a * a + b * b;
    }
};

// LM1 (annealing_suite._levy_montalvo_1): y = 1 + (x + 1) / 4,
// (pi / n) [10 sin^2(pi y1) + sum (y_i - 1)^2 (1 + 10 sin^2(pi y_i+1)) + (y_n - 1)^2]
struct LevyMontalvo1 {
    template <typename T, typename X> __device__ static T eval(const X& x, int d) {
        T y = T(1) + (x[0] + T(1)) * T(0.25);
        const T s0 = mw_sin(T(MW_PI) * y);
        T body = T(10) * s0 * s0;
        for (int j = 0; j + 1 < d; ++j) {
            const T next = T(1) + (x[j + 1] + T(1)) * T(0.25);
            const T s = mw_sin(T(MW_PI) * next);
            body += (y - T(1)) * (y - T(1)) * (T(1) + T(10) * s * s);
            y = next;
        }
        body += (y - T(1)) * (y - T(1));
        return T(MW_PI) / T(d) * body;
    }
};

struct LevyMontalvo2 {
    template <typename T, typename X> __device__ static T eval(const X& x, int d) {
        return mwp_penalized_2_body<T>(x, d);
    }
};

// The modified Shekel foxholes table (2nd ICEO, as in the seed authors' CUSIMANN); its first five
// rows and weights are also the modified Langerman's.
__device__ const double mwp_foxholes_a[30][10] = {
    {9.681, 0.667, 4.783, 9.095, 3.517, 9.325, 6.544, 0.211, 5.122, 2.020},
    {9.400, 2.041, 3.788, 7.931, 2.882, 2.672, 3.568, 1.284, 7.033, 7.374},
    {8.025, 9.152, 5.114, 7.621, 4.564, 4.711, 2.996, 6.126, 0.734, 4.982},
    {2.196, 0.415, 5.649, 6.979, 9.510, 9.166, 6.304, 6.054, 9.377, 1.426},
    {8.074, 8.777, 3.467, 1.863, 6.708, 6.349, 4.534, 0.276, 7.633, 1.567},
    {7.650, 5.658, 0.720, 2.764, 3.278, 5.283, 7.474, 6.274, 1.409, 8.208},
    {1.256, 3.605, 8.623, 6.905, 4.584, 8.133, 6.071, 6.888, 4.187, 5.448},
    {8.314, 2.261, 4.224, 1.781, 4.124, 0.932, 8.129, 8.658, 1.208, 5.762},
    {0.226, 8.858, 1.420, 0.945, 1.622, 4.698, 6.228, 9.096, 0.972, 7.637},
    {7.305, 2.228, 1.242, 5.928, 9.133, 1.826, 4.060, 5.204, 8.713, 8.247},
    {0.652, 7.027, 0.508, 4.876, 8.807, 4.632, 5.808, 6.937, 3.291, 7.016},
    {2.699, 3.516, 5.874, 4.119, 4.461, 7.496, 8.817, 0.690, 6.593, 9.789},
    {8.327, 3.897, 2.017, 9.570, 9.825, 1.150, 1.395, 3.885, 6.354, 0.109},
    {2.132, 7.006, 7.136, 2.641, 1.882, 5.943, 7.273, 7.691, 2.880, 0.564},
    {4.707, 5.579, 4.080, 0.581, 9.698, 8.542, 8.077, 8.515, 9.231, 4.670},
    {8.304, 7.559, 8.567, 0.322, 7.128, 8.392, 1.472, 8.524, 2.277, 7.826},
    {8.632, 4.409, 4.832, 5.768, 7.050, 6.715, 1.711, 4.323, 4.405, 4.591},
    {4.887, 9.112, 0.170, 8.967, 9.693, 9.867, 7.508, 7.770, 8.382, 6.740},
    {2.440, 6.686, 4.299, 1.007, 7.008, 1.427, 9.398, 8.480, 9.950, 1.675},
    {6.306, 8.583, 6.084, 1.138, 4.350, 3.134, 7.853, 6.061, 7.457, 2.258},
    {0.652, 2.343, 1.370, 0.821, 1.310, 1.063, 0.689, 8.819, 8.833, 9.070},
    {5.558, 1.272, 5.756, 9.857, 2.279, 2.764, 1.284, 1.677, 1.244, 1.234},
    {3.352, 7.549, 9.817, 9.437, 8.687, 4.167, 2.570, 6.540, 0.228, 0.027},
    {8.798, 0.880, 2.370, 0.168, 1.701, 3.680, 1.231, 2.390, 2.499, 0.064},
    {1.460, 8.057, 1.336, 7.217, 7.914, 3.615, 9.981, 9.198, 5.292, 1.224},
    {0.432, 8.645, 8.774, 0.249, 8.081, 7.461, 4.416, 0.652, 4.002, 4.644},
    {0.679, 2.800, 5.523, 3.049, 2.968, 7.225, 6.730, 4.199, 9.614, 9.229},
    {4.263, 1.074, 7.286, 5.599, 8.291, 5.200, 9.214, 8.272, 4.398, 4.506},
    {9.496, 4.830, 3.150, 8.270, 5.079, 1.231, 5.731, 9.494, 1.883, 9.732},
    {4.138, 2.562, 2.532, 9.661, 5.611, 5.500, 6.886, 2.341, 9.699, 6.500},
};
__device__ const double mwp_foxholes_c[30] = {
    0.806, 0.517, 0.100, 0.908, 0.965, 0.669, 0.524, 0.902, 0.531, 0.876,
    0.462, 0.491, 0.463, 0.714, 0.352, 0.869, 0.813, 0.811, 0.828, 0.964,
    0.789, 0.360, 0.369, 0.992, 0.332, 0.817, 0.632, 0.883, 0.608, 0.326,
};

// Shekel's family (Dixon & Szego 1978): S_m uses the first m rows.
__device__ const double mwp_shekel_a[10][4] = {
    {4.0, 4.0, 4.0, 4.0}, {1.0, 1.0, 1.0, 1.0}, {8.0, 8.0, 8.0, 8.0}, {6.0, 6.0, 6.0, 6.0},
    {3.0, 7.0, 3.0, 7.0}, {2.0, 9.0, 2.0, 9.0}, {5.0, 5.0, 3.0, 3.0}, {8.0, 1.0, 8.0, 1.0},
    {6.0, 2.0, 6.0, 2.0}, {7.0, 3.6, 7.0, 3.6},
};
__device__ const double mwp_shekel_c[10] = {0.1, 0.2, 0.2, 0.4, 0.4, 0.6, 0.3, 0.7, 0.5, 0.5};

struct Langerman {
    template <typename T, typename X> __device__ static T eval(const X& x, int d) {
        T acc = T(0);
        for (int k = 0; k < 5; ++k) {
            T D = T(0);
            for (int j = 0; j < d; ++j) { const T t = x[j] - T(mwp_foxholes_a[k][j]); D += t * t; }
            acc += T(mwp_foxholes_c[k]) * mw_exp(-D / T(MW_PI)) * mw_cos(T(MW_PI) * D);
        }
        return -acc;
    }
};

struct Michalewicz {
    template <typename T, typename X> __device__ static T eval(const X& x, int d) {
        T s = T(0);
        for (int j = 0; j < d; ++j) {
            const T v = x[j];
            const T q = mw_sin(T(j + 1) * v * v / T(MW_PI));
            const T q2 = q * q;
            const T q4 = q2 * q2;
            const T q8 = q4 * q4;
            const T q16 = q8 * q8;
            s += mw_sin(v) * (q16 * q4);  // m = 10: sin^20
        }
        return -s;
    }
};

struct Salomon {
    template <typename T, typename X> __device__ static T eval(const X& x, int d) {
        T s = T(0);
        for (int j = 0; j < d; ++j) { const T v = x[j]; s += v * v; }
        const T r = mw_sqrt(s);
        return T(1) - mw_cos(T(2.0 * MW_PI) * r) + T(0.1) * r;
    }
};

struct SixHumpCamel {
    template <typename T, typename X> __device__ static T eval(const X& x, int) {
        const T x1 = x[0], x2 = x[1];
        const T a = x1 * x1;
        const T b = x2 * x2;
        return (T(4) - T(2.1) * a + a * a / T(3)) * a + x1 * x2 + (T(-4) + T(4) * b) * b;
    }
};

struct Shubert {
    template <typename T, typename X> __device__ static T eval(const X& x, int d) {
        T prod = T(1);
        for (int i = 0; i < d; ++i) {
            const T v = x[i];
            T g = T(0);
            for (int j = 1; j <= 5; ++j) g += T(j) * mw_cos(T(j + 1) * v + T(j));
            prod = (i == 0) ? g : prod * g;
        }
        return prod;
    }
};

// -sum_k 1 / (|x - a_k|^2 + c_k) over the first m rows of a table (Shekel and foxholes).
template <typename T, typename X, int COLS>
__device__ __forceinline__ T mwp_inverse_distance_sum(const X& x, int d, const double (*a)[COLS],
                                                      const double* c, int m) {
    T acc = T(0);
    for (int k = 0; k < m; ++k) {
        T D = T(0);
        for (int j = 0; j < d; ++j) { const T t = x[j] - T(a[k][j]); D += t * t; }
        acc += T(1) / (D + T(c[k]));
    }
    return -acc;
}

struct Shekel5 {
    template <typename T, typename X> __device__ static T eval(const X& x, int d) {
        return mwp_inverse_distance_sum<T, X, 4>(x, d, mwp_shekel_a, mwp_shekel_c, 5);
    }
};

struct Shekel7 {
    template <typename T, typename X> __device__ static T eval(const X& x, int d) {
        return mwp_inverse_distance_sum<T, X, 4>(x, d, mwp_shekel_a, mwp_shekel_c, 7);
    }
};

struct Shekel10 {
    template <typename T, typename X> __device__ static T eval(const X& x, int d) {
        return mwp_inverse_distance_sum<T, X, 4>(x, d, mwp_shekel_a, mwp_shekel_c, 10);
    }
};

struct ShekelFoxholes {
    template <typename T, typename X> __device__ static T eval(const X& x, int d) {
        return mwp_inverse_distance_sum<T, X, 10>(x, d, mwp_foxholes_a, mwp_foxholes_c, 30);
    }
};

// ---- Other seeds (solvers/problems/others.py) --------------------------------------------------

struct SchafferF7 {
    template <typename T, typename X> __device__ static T eval(const X& x, int d) {
        T acc = T(0);
        T a = x[0];
        for (int j = 0; j + 1 < d; ++j) {
            const T b = x[j + 1];
            const T s = mw_sqrt(a * a + b * b);
            const T t = mw_sin(T(50) * mw_pow(s, T(0.2)));
            acc += mw_sqrt(s) * (T(1) + t * t);
            a = b;
        }
        const T mean = acc / T(d - 1);
        return mean * mean;
    }
};

// Variance of the normalised portfolio w / sum(w) with S_ii = 10, S_ij = 7.5, plus (sum(w) - 1)^2;
// +inf where sum(w) <= 0 (others.py explains the budget handling).
struct PortfolioVariance {
    template <typename T, typename X> __device__ static T eval(const X& x, int d) {
        T s = T(0), q = T(0);
        for (int j = 0; j < d; ++j) { const T v = x[j]; s += v; q += v * v; }
        if (!(s > T(0))) return mw_inf<T>();
        const T s2 = s * s;
        const T u = s - T(1);
        return (T(10.0 - 7.5) * q + T(7.5) * s2) / s2 + T(1) * (u * u);
    }
};

// Every functor, for the loader and the compile test. Keep in step with the structs above and with
// ProblemDef.cuda_functor in solvers/problems/.
#define MW_FOR_EACH_FUNCTOR(X) \
    X(Sphere) X(Schwefel222) X(Schwefel12) X(Schwefel221) X(Rosenbrock) X(Step) X(Quartic) \
    X(QuarticNoisy) X(Schwefel226) X(Rastrigin) X(Ackley) X(Griewank) X(Penalized1) X(Penalized2) \
    X(SchwefelNormalized) X(Branin) X(CosineMixture) X(DekkersAarts) X(Easom) X(Exponential) \
    X(GoldsteinPrice) X(Himmelblau) X(LevyMontalvo1) X(LevyMontalvo2) \
    X(Langerman) X(Michalewicz) X(Salomon) \
    X(SixHumpCamel) X(Shubert) X(Shekel5) X(Shekel7) X(Shekel10) X(ShekelFoxholes) X(SchafferF7) \
    X(PortfolioVariance)

#endif  // MW_PROBLEMS_CUH
