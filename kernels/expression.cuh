// Math helpers of user-expression functors (solvers/problems/expression/emit_cuda.py): the functions
// of the expression language that common.cuh does not wrap, for float and double. The emitter puts
// this text before each generated functor (guarded, so several functors may share a module). Only
// common.cuh reads the fast-math switch: sin, cos, exp, log and pow follow it through mw_*.
#ifndef MW_EXPRESSION_CUH
#define MW_EXPRESSION_CUH

__device__ __forceinline__ float mwx_tan(float v) { return tanf(v); }
__device__ __forceinline__ float mwx_asin(float v) { return asinf(v); }
__device__ __forceinline__ float mwx_acos(float v) { return acosf(v); }
__device__ __forceinline__ float mwx_atan(float v) { return atanf(v); }
__device__ __forceinline__ float mwx_atan2(float a, float b) { return atan2f(a, b); }
__device__ __forceinline__ float mwx_sinh(float v) { return sinhf(v); }
__device__ __forceinline__ float mwx_cosh(float v) { return coshf(v); }
__device__ __forceinline__ float mwx_tanh(float v) { return tanhf(v); }
__device__ __forceinline__ float mwx_log10(float v) { return log10f(v); }
__device__ __forceinline__ float mwx_ceil(float v) { return ceilf(v); }
__device__ __forceinline__ float mwx_hypot(float a, float b) { return hypotf(a, b); }
__device__ __forceinline__ float mwx_fmod(float a, float b) { return fmodf(a, b); }

__device__ __forceinline__ double mwx_tan(double v) { return tan(v); }
__device__ __forceinline__ double mwx_asin(double v) { return asin(v); }
__device__ __forceinline__ double mwx_acos(double v) { return acos(v); }
__device__ __forceinline__ double mwx_atan(double v) { return atan(v); }
__device__ __forceinline__ double mwx_atan2(double a, double b) { return atan2(a, b); }
__device__ __forceinline__ double mwx_sinh(double v) { return sinh(v); }
__device__ __forceinline__ double mwx_cosh(double v) { return cosh(v); }
__device__ __forceinline__ double mwx_tanh(double v) { return tanh(v); }
__device__ __forceinline__ double mwx_log10(double v) { return log10(v); }
__device__ __forceinline__ double mwx_ceil(double v) { return ceil(v); }
__device__ __forceinline__ double mwx_hypot(double a, double b) { return hypot(a, b); }
__device__ __forceinline__ double mwx_fmod(double a, double b) { return fmod(a, b); }

// NumPy's sign: -1, 0 or 1, and NaN for NaN.
template <typename T> __device__ __forceinline__ T mwx_sign(T v) {
    return v > T(0) ? T(1) : (v < T(0) ? T(-1) : v);
}
// NumPy's (and Python's) floored modulo: the result takes the sign of the divisor.
template <typename T> __device__ __forceinline__ T mwx_mod(T a, T b) {
    T r = mwx_fmod(a, b);
    if (r != T(0) && ((r < T(0)) != (b < T(0)))) r += b;
    return r;
}
// NumPy's minimum and maximum (and its max/min reductions): NaN if either is NaN. fmin/fmax drop a
// NaN, so min(log(x1), 5) at x1 < 0 read 5 on cuda where numpy and numba give NaN, a very bad point.
template <typename T> __device__ __forceinline__ T mwx_min(T a, T b) {
    return (a != a || b != b) ? a + b : mw_fmin(a, b);
}
template <typename T> __device__ __forceinline__ T mwx_max(T a, T b) {
    return (a != a || b != b) ? a + b : mw_fmax(a, b);
}
// Small whole powers as products (NumPy squares v ** 2 too): the base is evaluated once.
template <typename T> __device__ __forceinline__ T mwx_pow2(T b) { return b * b; }
template <typename T> __device__ __forceinline__ T mwx_pow3(T b) { return b * b * b; }
template <typename T> __device__ __forceinline__ T mwx_pow4(T b) { const T b2 = b * b; return b2 * b2; }
// b ** y for a whole y typed as a number (x1**5, x1**-1): the power of |b|, negated for an odd y and
// b < 0, which is pow(b, y); but fast math's __powf is exp2(y log2 b), NaN for every b < 0, so x1**5
// read NaN (a very bad point) wherever x1 < 0 on a --fast-math float run.
template <typename T> __device__ __forceinline__ T mwx_powi(T b, T y, bool odd) {
    const T r = mw_pow(mw_fabs(b), y);
    return (odd && b < T(0)) ? -r : r;
}
// NaN as a value: an empty max/min/mean reduction (NumPy gives NaN, a very bad point, too).
template <typename T> __device__ __forceinline__ T mwx_nan() { return mw_inf<T>() - mw_inf<T>(); }

#endif  // MW_EXPRESSION_CUH
