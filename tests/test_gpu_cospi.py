"""GPU: kernels/common.cuh's precise float cospi against CUDA's cospif, every float32 argument.

mw_cospif_precise writes out libdevice's cospif with fewer instructions (issue 14); it must return
the same bits for all 2^32 inputs, except that a zero result may carry the other sign (documented
there: the folds of problems.cuh add it to a nonzero square or to a sum that starts at +0) and that
NaN payloads may differ. Compiled for a box (MW_COSPI_BOXED=1, no large-argument path) it must do so
for every argument it is promised, |x| <= 2^21."""
from __future__ import annotations

import numpy as np
import pytest

from kernels import loader

pytestmark = pytest.mark.gpu

COMPARE = r"""
extern "C" __global__ void cospi_compare(unsigned long long count, unsigned long long* out, float* at) {
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    unsigned long long differ = 0, zeros = 0;
    unsigned int first = 0xFFFFFFFFu;
    for (unsigned long long k = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; k < count; k += stride) {
        const unsigned int bits = (unsigned int)k;
        const float x = __uint_as_float(bits);
        if (MW_COSPI_BOXED && !(fabsf(x) <= 0x1p21f)) continue;  // the promise of a boxed build
        const float a = cospif(x), b = mw_cospif_precise(x);
        if (__float_as_uint(a) == __float_as_uint(b) || (a != a && b != b)) continue;
        if (a == 0.0f && b == 0.0f) {
            ++zeros;
            continue;
        }
        ++differ;
        first = min(first, bits);
    }
    if (differ) atomicAdd(out, differ);
    if (zeros) atomicAdd(out + 1, zeros);
    if (differ) atomicMin(out + 2, (unsigned long long)first);
}

extern "C" __global__ void cospi_at(unsigned int bits, float* at) {
    at[0] = cospif(__uint_as_float(bits));
    at[1] = mw_cospif_precise(__uint_as_float(bits));
}
"""


@pytest.mark.parametrize("boxed", [False, True])
def test_precise_cospi_is_cospif_for_every_float(cupy, boxed):
    mod = cupy.RawModule(code=loader.header_text() + COMPARE, options=loader.options(False, boxed=boxed))
    out = cupy.asarray(np.array([0, 0, 2**32], dtype=np.uint64))
    at = cupy.zeros(2, dtype=np.float32)
    mod.get_function("cospi_compare")((4096,), (256,), (np.uint64(2**32), out, at))
    differ, zeros, first = (int(v) for v in out.get())
    if differ:
        mod.get_function("cospi_at")((1,), (1,), (np.uint32(first), at))
    assert differ == 0, (f"{differ} arguments differ from cospif, the first 0x{first:08x}: "
                         f"cospif {at[0]}, ours {at[1]}")
    # the signed zeros: x = k + 1/2 with (k mod 2) picking the sign, about 2^24 arguments in all
    assert zeros < 2**25
