// Shared device helpers for every Multiwalk kernel. Pure CUDA C++: no standard headers, so the
// same text compiles under NVRTC (CuPy) and nvcc (CI) alike.
//
// Math goes through mw_* so one switch picks precise or fast intrinsics. MW_FAST_MATH (0 or 1) is
// defined by the loader before this header; fast math only changes float (double has no
// intrinsics), as in the multi-directional paper's comparison of __sinf and sinf.
#ifndef MW_COMMON_CUH
#define MW_COMMON_CUH

#ifndef MW_FAST_MATH
#define MW_FAST_MATH 0
#endif

#define MW_PI 3.14159265358979323846
#define MW_E 2.71828182845904523536

__device__ __forceinline__ float mw_sin(float x) { return MW_FAST_MATH ? __sinf(x) : sinf(x); }
__device__ __forceinline__ float mw_cos(float x) { return MW_FAST_MATH ? __cosf(x) : cosf(x); }
// cos(pi x), precise: CUDA's cospif (libdevice's algorithm: both polynomials on the
// half-integer-reduced argument, then a select) written out, the same operations on the same
// constants, so the same value for every float argument but one detail: a zero result (x an odd
// multiple of 1/2) may come out as -0 where cospif gives +0. The folds of problems.cuh cannot show
// it (each adds the cosine to a nonzero square or to a sum that starts at +0); a user's expression
// could (atan2 of it): the expression emitter therefore calls the library's cospif.
// What it saves is the quadrant arithmetic: q = (i + 1) << 30 holds libdevice's "which polynomial"
// bit at bit 30 and its "negate" bit at bit 31, the sign bit, so the choice is one bit test and the
// negation one xor; the quadrant is converted from x + x itself (nearest even: the integer r holds),
// not from r, so that the conversion runs beside the rounding instead of after it.
// BOXED (mw_cospi_coordinate below) promises |x| <= 2^21: libdevice's large-argument path (|x| >
// 2^24) is dead, and the rounding of 2 x is the magic-number sum t = 2 x + 1.5 * 2^23, one fma:
// nearest integer, ties to even (as rintf), for |2 x| <= 2^22; t's low bits hold that integer (the
// quadrant, no float-to-int conversion) and t - 1.5 * 2^23 gives it back exactly. (Evaluation-only's
// loop of 8 rastrigin coordinates on sm_90: 316 instructions with cospif, 276 boxed.)
// GPU test: tests/test_gpu_cospi.py, every float (the boxed build over its promised arguments).
// The reduction and both polynomials, shared by the cosine and the sine: x = r / 2 + f, |f| <= 1/4,
// c = cos(pi f), sn = sin(pi f); the return holds rint(2 x) mod 4 in bits 30-31.
template <bool BOXED> __device__ __forceinline__ unsigned int mw_pi_parts(float x, float& c, float& sn) {
    float r;
    unsigned int q;
    if (BOXED) {
        const float t = __fmaf_rn(x, 2.0f, 0x1.8p23f);
        r = __fadd_rn(t, -0x1.8p23f);
        q = __float_as_uint(t) << 30;  // t's low bits: rint(2 x) mod 4
    } else {
        if (fabsf(x) > 0x1p24f) x = x * 0.0f;  // libdevice's large-argument path: x an even integer, cos 1
        r = rintf(x + x);                      // nearest even, as libdevice's round
        q = (unsigned int)__float2int_rn(x + x) << 30;
    }
    const float f = __fmaf_rn(-r, 0.5f, x);
    const float s = __fmul_rn(f, f);
    c = __fmaf_rn(__fmaf_rn(__fmaf_rn(__fmaf_rn(0x1.d09c24p-3f, s, -0x1.55a5cp+0f), s, 0x1.03c19ep+2f), s,
                            -0x1.3bd3ccp+2f), s, 1.0f);
    const float p = __fmaf_rn(__fmaf_rn(-0x1.2f5992p-1f, s, 0x1.466b2p+1f), s, -0x1.4abbecp+2f);
    sn = __fmaf_rn(0x1.921fb6p+1f, f, __fmaf_rn(p, __fmaf_rn(s, f, 0.0f), 0.0f));
    return q;
}
// One quadrant's value: bit 30 of q picks the cosine polynomial, bit 31 negates (cos(pi x): q + 2^30,
// sin(pi x): q itself, as sin(pi (r / 2 + f)) is sn, c, -sn, -c for r mod 4 = 0..3).
__device__ __forceinline__ float mw_pi_select(unsigned int q, float c, float sn) {
    const float v = (q & 0x40000000u) ? c : sn;
    return __uint_as_float(__float_as_uint(v) ^ (q & 0x80000000u));
}
template <bool BOXED> __device__ __forceinline__ float mw_cospif_precise(float x) {
    float c, sn;
    const unsigned int q = mw_pi_parts<BOXED>(x, c, sn);
    return mw_pi_select(q + (1u << 30), c, sn);
}
// sin(pi x) and cos(pi x) from one reduction, x in [-2^21, 2^21] (the boxed rounding): CUDA's sincospif
// by the same operations but for the sign of a zero result (GPU test: tests/test_gpu_cospi.py, the
// arguments 2 u of a float uniform u).
__device__ __forceinline__ void mw_sincospif_boxed(float x, float* s, float* c) {
    float cp, sp;
    const unsigned int q = mw_pi_parts<true>(x, cp, sp);
    *s = mw_pi_select(q, cp, sp);
    *c = mw_pi_select(q + (1u << 30), cp, sp);
}
// cos(2 pi v) of a coordinate v with |2 v| <= 2^21: mw_cospif_precise<true>(2 v) bit for bit, without
// forming 2 v (one FADD a coordinate less in every fold that takes it: issue 14). The reduction reads
// v directly: t = fma(v, 4, 1.5 * 2^23) is fma(2 v, 2, 1.5 * 2^23) (4 v and 2 v are exact), so r and
// the quadrant are the same; h = v - r / 4 is exact (|h| <= 1/8 and a multiple of v's ulp) and is
// f / 2. With s4 = h^2 = s / 4 (exactly, wherever s is a normal float), every Horner level runs on s4
// with its constants scaled by powers of two, so each intermediate is the original one times a power
// of two, the same rounding (A1 = 64 L1, ..., c = fma(4 L3, s4, 1) = fma(L3, s, 1); 8 p; sn from 2 pi h).
// Where s4 underflows (|v| < 2^-63) r = 0 and both forms return c = 1. GPU test: tests/test_gpu_cospi.py,
// every float with |2 v| <= 2^21.
__device__ __forceinline__ float mw_cos2pi_boxed(float v) {
    const float t = __fmaf_rn(v, 4.0f, 0x1.8p23f);
    const float r = __fadd_rn(t, -0x1.8p23f);
    const unsigned int q = (__float_as_uint(t) << 30) + (1u << 30);  // cos: the quadrant plus one
    const float h = __fmaf_rn(-r, 0.25f, v);
    const float s4 = __fmul_rn(h, h);
    // mw_pi_parts's constants times 256, 64, 16, 4 (c) and 128, 32, 8 (p), exact
    const float c = __fmaf_rn(__fmaf_rn(__fmaf_rn(__fmaf_rn(0x1.d09c24p+5f, s4, -0x1.55a5cp+6f), s4, 0x1.03c19ep+6f), s4,
                                        -0x1.3bd3ccp+4f), s4, 1.0f);
    const float p8 = __fmaf_rn(__fmaf_rn(-0x1.2f5992p+6f, s4, 0x1.466b2p+6f), s4, -0x1.4abbecp+5f);
    const float sn = __fmaf_rn(0x1.921fb6p+2f, h, __fmaf_rn(p8, __fmaf_rn(s4, h, 0.0f), 0.0f));
    return mw_pi_select(q, c, sn);
}
// MW_COSPI_BOXED = 1 (a compile option: kernels/loader.py options(boxed=True)): the host compiles a
// problem whose box lies within +-2^19 (every built-in's; kernels/loader.py is_boxed) with it. Then
// mw_cospi_coordinate(2 v) for a coordinate v of an evaluated point meets BOXED's promise: every
// kernel evaluates points inside its box, or at most rounding away from it (clamped trials and
// moves, bounce-back, confinement, checked or convex simplices), and a box within +-2^19 gives
// |2 v| <= 2^20 against the 2^21 promised. Only problems.cuh's folds call it (their argument is
// 2 v); everything else calls mw_cospi.
#ifndef MW_COSPI_BOXED
#define MW_COSPI_BOXED 0
#endif
// MW_COSPI_LIBRARY = 1 (a kernel file's "// MW_DEFINES:" line, kernels/loader.py) keeps the library's
// cospif, for a kernel where the lean one measured slower. particle_swarm.cu set it until v21 (an
// older pso_classic spilled more with the lean one at 64 registers: 131,072 4.85 -> 4.44 G/s); its
// kernels now run faster with the lean one (H100, rastrigin 30-D float32: classic PSO 131,072
// 7.94 -> 8.31-8.33 G/s, 65,536 +5%, 1,024 +3.5%, SPSO +1%; notes-gpu.md v21), and none sets it.
#ifndef MW_COSPI_LIBRARY
#define MW_COSPI_LIBRARY 0
#endif
// Fast math keeps __cosf(float(pi) * x), which is the old __cosf(float(2 pi) * v) bit for bit when
// x = 2 v. mw_cospi: any argument (the library's cospif; user expressions); mw_cospi_coordinate:
// 2 v for a coordinate v of an evaluated point (problems.cuh's folds).
__device__ __forceinline__ float mw_cospi(float x) { return MW_FAST_MATH ? __cosf(float(MW_PI) * x) : cospif(x); }
__device__ __forceinline__ float mw_cospi_lean(float x) { return MW_COSPI_LIBRARY ? cospif(x) : mw_cospif_precise<MW_COSPI_BOXED != 0>(x); }
__device__ __forceinline__ float mw_cospi_coordinate(float x) { return MW_FAST_MATH ? __cosf(float(MW_PI) * x) : mw_cospi_lean(x); }
// cos(2 pi v) of a coordinate v (problems.cuh's folds): mw_cospi_coordinate(2 v), the same bits
__device__ __forceinline__ float mw_cos2pi_coordinate(float v) {
    return (MW_COSPI_BOXED && !MW_COSPI_LIBRARY && !MW_FAST_MATH) ? mw_cos2pi_boxed(v) : mw_cospi_coordinate(2.0f * v);
}
// sin(pi x) and cos(pi x); _boxed: |x| <= 2^21 (mw_sincospif_boxed). Fast math: __sincosf(float(pi) x)
__device__ __forceinline__ void mw_sincospi(float x, float* s, float* c) {
    if (MW_FAST_MATH) __sincosf(float(MW_PI) * x, s, c);
    else sincospif(x, s, c);
}
__device__ __forceinline__ void mw_sincospi_boxed(float x, float* s, float* c) {
    if (MW_FAST_MATH) __sincosf(float(MW_PI) * x, s, c);
    else mw_sincospif_boxed(x, s, c);
}
// log(x) for a normal float x in (0, 1] (Box-Muller's 1 - u1 >= 2^-24): libdevice's logf (sm_90, CUDA
// 13: x = 2^i m, m in [2/3, 4/3), a polynomial in m - 1, then i ln 2) by the same operations on the
// same constants, without its paths for subnormal, zero, negative and non-finite x: 19 instructions
// instead of 27 (GPU test: tests/test_gpu_cospi.py, every normal float in (0, 1] against logf bit for
// bit). H100, SPSO-2011 rastrigin 30-D float32: 131,072 2.23-2.25 -> 2.41-2.43 G/s (notes-gpu.md v23).
// (sqrt.rn's fast path written out likewise for the radius measured slower: ptxas spilled more.)
__device__ __forceinline__ float mw_log_unit_precise(float x) {
    const int ix = __float_as_int(x);
    const int e = (ix - 0x3f2aaaab) & (int)0xff800000;
    const float m = __fadd_rn(__int_as_float(ix - e), -1.0f);
    const float i = __fmaf_rn((float)e, 0x1p-23f, 0.0f);
    float r = __fmaf_rn(m, -__int_as_float(0x3e055027), __int_as_float(0x3e1039f6));
    r = __fmaf_rn(m, r, __int_as_float((int)0xbdf8cdcc));
    r = __fmaf_rn(m, r, __int_as_float(0x3e0f2955));
    r = __fmaf_rn(m, r, __int_as_float((int)0xbe2ad8b9));
    r = __fmaf_rn(m, r, __int_as_float(0x3e4ced0b));
    r = __fmaf_rn(m, r, __int_as_float((int)0xbe7fff22));
    r = __fmaf_rn(m, r, __int_as_float(0x3eaaaa78));
    r = __fmaf_rn(m, r, -0.5f);
    r = __fmul_rn(m, r);
    r = __fmaf_rn(m, r, m);
    return __fmaf_rn(i, __int_as_float(0x3f317218), r);
}
__device__ __forceinline__ float mw_log_unit(float x) { return MW_FAST_MATH ? __logf(x) : mw_log_unit_precise(x); }
__device__ __forceinline__ float mw_exp(float x) { return MW_FAST_MATH ? __expf(x) : expf(x); }
__device__ __forceinline__ float mw_log(float x) { return MW_FAST_MATH ? __logf(x) : logf(x); }
__device__ __forceinline__ float mw_pow(float x, float y) { return MW_FAST_MATH ? __powf(x, y) : powf(x, y); }
__device__ __forceinline__ float mw_sqrt(float x) { return sqrtf(x); }
__device__ __forceinline__ float mw_fabs(float x) { return fabsf(x); }
__device__ __forceinline__ float mw_floor(float x) { return floorf(x); }
__device__ __forceinline__ float mw_fmin(float a, float b) { return fminf(a, b); }
__device__ __forceinline__ float mw_fmax(float a, float b) { return fmaxf(a, b); }
// a * b + c rounded once, whatever the context: fold terms pin the fused form nvcc contracts them to
// (problems.cuh), so that a term computed apart or hoisted out of a loop rounds the same
__device__ __forceinline__ float mw_fma(float a, float b, float c) { return fmaf(a, b, c); }

__device__ __forceinline__ double mw_sin(double x) { return sin(x); }
__device__ __forceinline__ double mw_cos(double x) { return cos(x); }
__device__ __forceinline__ double mw_cospi(double x) { return cospi(x); }
__device__ __forceinline__ double mw_cospi_coordinate(double x) { return cospi(x); }
__device__ __forceinline__ double mw_cos2pi_coordinate(double v) { return cospi(2.0 * v); }
__device__ __forceinline__ void mw_sincospi(double x, double* s, double* c) { sincospi(x, s, c); }
__device__ __forceinline__ void mw_sincospi_boxed(double x, double* s, double* c) { sincospi(x, s, c); }
__device__ __forceinline__ double mw_log_unit(double x) { return log(x); }
__device__ __forceinline__ double mw_exp(double x) { return exp(x); }
__device__ __forceinline__ double mw_log(double x) { return log(x); }
__device__ __forceinline__ double mw_pow(double x, double y) { return pow(x, y); }
__device__ __forceinline__ double mw_sqrt(double x) { return sqrt(x); }
__device__ __forceinline__ double mw_fabs(double x) { return fabs(x); }
__device__ __forceinline__ double mw_floor(double x) { return floor(x); }
__device__ __forceinline__ double mw_fmin(double a, double b) { return fmin(a, b); }
__device__ __forceinline__ double mw_fmax(double a, double b) { return fmax(a, b); }
__device__ __forceinline__ double mw_fma(double a, double b, double c) { return fma(a, b, c); }

// max_evals as a hard cap where a kernel's evaluations depend on its moves (multi-directional
// search, the hybrid's Nelder-Mead): a group of `width` lanes (its lane 0 the leader, `mask` its
// lanes) claims `want` evaluations from a launch's allowance (`claimed` counts what was asked;
// allow = ~0: no cap) and gets what is left of it, so a launch makes exactly
// min(allow, what the moves ask). Every lane of the group gets the same grant.
__device__ __forceinline__ int mw_claim(unsigned long long* claimed, unsigned long long allow, int want,
                                        bool leader, unsigned int mask, int width) {
    if (allow == ~0ull) return want;
    unsigned long long got = 0;
    if (leader) {
        const unsigned long long old = atomicAdd(claimed, (unsigned long long)want);
        got = old >= allow ? 0ull : (allow - old < (unsigned long long)want ? allow - old : want);
    }
    return (int)__shfl_sync(mask, got, 0, width);
}

template <typename T> __device__ __forceinline__ T mw_inf();
template <> __device__ __forceinline__ float mw_inf<float>() { return __int_as_float(0x7f800000); }
template <> __device__ __forceinline__ double mw_inf<double>() { return __longlong_as_double(0x7ff0000000000000LL); }

// A NaN or infinite objective value must never become a best point (same rule as the NumPy engine).
template <typename T> __device__ __forceinline__ T mw_sanitize(T f) {
    return (f == f && mw_fabs(f) < mw_inf<T>()) ? f : mw_inf<T>();
}

// Point accessors: objective functors read coordinate j as x[j], whatever holds the point.
// StridedPoint: walker i's point in a (d, n) coordinate-major array, so that consecutive threads
// read consecutive addresses (coalesced).
template <typename T> struct StridedPoint {
    const T* base;  // &X[0 * n + i]
    long long stride;  // n
    __device__ __forceinline__ T operator[](int j) const { return base[(long long)j * stride]; }
};

// A strided point with coordinate `jj` replaced by `v`: a trial of one-coordinate moves (pattern
// search, annealing) evaluated without writing the trial to memory.
template <typename T> struct PatchedPoint {
    const T* base;
    long long stride;
    int jj;
    T v;
    // the load is unconditional (every j < d is in the column) and the patch a select: a predicated
    // load cost the move of its address pair and a default value per coordinate (issue 14)
    __device__ __forceinline__ T operator[](int j) const {
        const T stored = base[(long long)j * stride];
        return j == jj ? v : stored;
    }
};

// A contiguous point (shared memory, a local array or a row of a (n, d) array).
template <typename T> struct DensePoint {
    const T* p;
    __device__ __forceinline__ T operator[](int j) const { return p[j]; }
};

#endif  // MW_COMMON_CUH
