"""GPU: kernels/common.cuh's precise float cospi against CUDA's cospif, every float32 argument.

mw_cospif_precise writes out libdevice's cospif with fewer instructions (issue 14); it must return
the same bits for all 2^32 inputs, except that a zero result may carry the other sign (documented
there: the folds of problems.cuh add it to a nonzero square or to a sum that starts at +0) and that
NaN payloads may differ. Its boxed form (no large-argument path, the magic-number rounding) must do
so for every argument it is promised, |x| <= 2^21. The signed zeros are exactly the half-integers
x = i / 2 with i = 1 mod 4 (libdevice negates +0 to +0, the xor to -0): 2^23 of them in all, 2^21
within 2^21. The boxed sincospi (SPSO's normals' angle, from the same reduction and polynomials) must
equal the library's sincospif likewise for every |x| <= 2^21, and the folds' cos(2 pi v) reduced from v
(mw_cos2pi_boxed) the boxed cospi of 2 v bit for bit, zeros' signs included, for every |2 v| <= 2^21."""
from __future__ import annotations

import numpy as np
import pytest

from kernels import loader

pytestmark = pytest.mark.gpu

# Every float argument through a check (Outcome: SAME bits or both NaN, ZEROS of the other sign,
# DIFFER, SKIP outside the promise); a thread's tallies go to out: [differ, zeros, first differing bits].
TALLY = r"""
enum Outcome { SAME, ZEROS, DIFFER, SKIP };
__device__ __forceinline__ Outcome compare_bits(float a, float b) {
    if (__float_as_uint(a) == __float_as_uint(b) || (a != a && b != b)) return SAME;
    return a == 0.0f && b == 0.0f ? ZEROS : DIFFER;
}
template <typename Check> __device__ void tally(unsigned long long count, unsigned long long* out, Check check) {
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    unsigned long long differ = 0, zeros = 0;
    unsigned int first = 0xFFFFFFFFu;
    for (unsigned long long k = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; k < count; k += stride) {
        const unsigned int bits = (unsigned int)k;
        const Outcome o = check(__uint_as_float(bits));
        if (o == ZEROS) ++zeros;
        if (o == DIFFER) {
            ++differ;
            first = min(first, bits);
        }
    }
    if (differ) atomicAdd(out, differ);
    if (zeros) atomicAdd(out + 1, zeros);
    if (differ) atomicMin(out + 2, (unsigned long long)first);
}
"""

COMPARE = TALLY + r"""
template <bool BOXED> struct CospiCheck {
    __device__ Outcome operator()(float x) const {
        if (BOXED && !(fabsf(x) <= 0x1p21f)) return SKIP;  // the boxed form's promise
        return compare_bits(cospif(x), mw_cospif_precise<BOXED>(x));
    }
};
template <bool BOXED> __global__ void cospi_compare(unsigned long long count, unsigned long long* out) {
    tally(count, out, CospiCheck<BOXED>());
}

template <bool BOXED> __global__ void cospi_at(unsigned int bits, float* at) {
    at[0] = cospif(__uint_as_float(bits));
    at[1] = mw_cospif_precise<BOXED>(__uint_as_float(bits));
}
"""


@pytest.mark.parametrize("boxed", [False, True])
def test_precise_cospi_is_cospif_for_every_float(cupy, boxed):
    flag = "true" if boxed else "false"
    compare, at_name = f"cospi_compare<{flag}>", f"cospi_at<{flag}>"
    mod = cupy.RawModule(code=loader.header_text() + COMPARE, options=loader.options(False),
                         name_expressions=[compare, at_name])
    out = cupy.asarray(np.array([0, 0, 2**32], dtype=np.uint64))
    mod.get_function(compare)((4096,), (256,), (np.uint64(2**32), out))
    differ, zeros, first = (int(v) for v in out.get())
    if differ:
        at = cupy.zeros(2, dtype=np.float32)
        mod.get_function(at_name)((1,), (1,), (np.uint32(first), at))
        pytest.fail(f"{differ} arguments differ from cospif, the first 0x{first:08x}: "
                    f"cospif {float(at[0])}, ours {float(at[1])}")
    assert zeros == (2**21 if boxed else 2**23)


SINCOS = TALLY + r"""
struct SincospiCheck {
    __device__ Outcome operator()(float x) const {
        if (!(fabsf(x) <= 0x1p21f)) return SKIP;  // the boxed rounding's promise
        float s, c, ls, lc;
        sincospif(x, &ls, &lc);
        mw_sincospif_boxed(x, &s, &c);
        const Outcome os = compare_bits(s, ls), oc = compare_bits(c, lc);
        return os == DIFFER || oc == DIFFER ? DIFFER : (os == ZEROS || oc == ZEROS ? ZEROS : SAME);
    }
};
__global__ void sincospi_compare(unsigned long long count, unsigned long long* out) {
    tally(count, out, SincospiCheck());
}
"""


def test_boxed_sincospi_is_sincospif_for_every_float_it_is_promised(cupy):
    """mw_sincospif_boxed (SPSO's normals: the angle's sine and cosine from 2 u) against CUDA's
    sincospif for every float |x| <= 2^21: the same bits, up to the sign of a zero result."""
    mod = cupy.RawModule(code=loader.header_text() + SINCOS, options=loader.options(False),
                         name_expressions=["sincospi_compare"])
    out = cupy.asarray(np.array([0, 0, 2**32], dtype=np.uint64))
    mod.get_function("sincospi_compare")((4096,), (256,), (np.uint64(2**32), out))
    differ, zeros, first = (int(v) for v in out.get())
    assert differ == 0, f"{differ} arguments differ from sincospif, the first 0x{first:08x}"
    # the zero results of sin at the integers and of cos at the half-integers within 2^21 whose sign
    # differs (H100, CUDA 13: 3 x 2^22 arguments, as first measured; a pin against a change of form)
    assert zeros == 3 * 2**22


COS2PI = TALLY + r"""
struct Cos2piCheck {  // the promise: |2 v| <= 2^21; the same bits as the boxed cospi of 2 v (zeros too)
    __device__ Outcome operator()(float v) const {
        if (!(fabsf(v) <= 0x1p20f)) return SKIP;
        const float a = mw_cospif_precise<true>(2.0f * v), b = mw_cos2pi_boxed(v);
        return __float_as_uint(a) == __float_as_uint(b) || (a != a && b != b) ? SAME : DIFFER;
    }
};
__global__ void cos2pi_compare(unsigned long long count, unsigned long long* out) {
    tally(count, out, Cos2piCheck());
}
__global__ void cos2pi_at(unsigned int bits, float* at) {
    at[0] = mw_cospif_precise<true>(2.0f * __uint_as_float(bits));
    at[1] = mw_cos2pi_boxed(__uint_as_float(bits));
}
"""


def test_cos_2_pi_v_from_v_is_the_boxed_cospi_of_2v_for_every_float(cupy):
    """mw_cos2pi_boxed (the folds' cos(2 pi v) without forming 2 v: Rastrigin's and Ackley's terms in
    every kernel) against mw_cospif_precise<true>(2 v), itself checked against cospif above, for every
    float v with |2 v| <= 2^21: the same bits, not even a zero's sign apart."""
    mod = cupy.RawModule(code=loader.header_text() + COS2PI, options=loader.options(False),
                         name_expressions=["cos2pi_compare", "cos2pi_at"])
    out = cupy.asarray(np.array([0, 0, 2**32], dtype=np.uint64))
    mod.get_function("cos2pi_compare")((4096,), (256,), (np.uint64(2**32), out))
    differ, zeros, first = (int(v) for v in out.get())
    if differ:
        at = cupy.zeros(2, dtype=np.float32)
        mod.get_function("cos2pi_at")((1,), (1,), (np.uint32(first), at))
        pytest.fail(f"{differ} arguments differ, the first v = 0x{first:08x}: cospi(2 v) {float(at[0])!r}, "
                    f"from v {float(at[1])!r}")
    assert zeros == 0


UNIT = TALLY + r"""
struct LogUnitCheck {  // the promise: a normal float in (0, 1]
    __device__ Outcome operator()(float x) const {
        if (!(x >= 0x1p-126f && x <= 1.0f)) return SKIP;
        return compare_bits(logf(x), mw_log_unit_precise(x));
    }
};
template <typename Check> __global__ void unit_compare(unsigned long long count, unsigned long long* out) {
    tally(count, out, Check());
}
"""


def test_box_muller_log_is_logf_for_every_normal_float_in_the_unit_interval(cupy):
    """mw_log_unit_precise (SPSO's Box-Muller radius, log(1 - u1)) against logf for every normal float
    in (0, 1]: the same bits, not even a zero's sign apart."""
    name = "unit_compare<LogUnitCheck>"
    mod = cupy.RawModule(code=loader.header_text() + UNIT, options=loader.options(False), name_expressions=[name])
    out = cupy.asarray(np.array([0, 0, 2**32], dtype=np.uint64))
    mod.get_function(name)((4096,), (256,), (np.uint64(2**32), out))
    differ, zeros, first = (int(v) for v in out.get())
    assert differ == 0 and zeros == 0, f"{differ + zeros} arguments differ, the first 0x{first:08x}"
