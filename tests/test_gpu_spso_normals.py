"""GPU: the cuda kernels' SPSO normals (kernels/random.cuh mw_normal2: radius by the device's log and
sqrt, angle by the lean sincospi of 2 u2) against the numba engine's (libm's log, the angle's sincospi
in float64), whose statistics tests/test_spso_normals.py checks in CI: the same Philox words give the
same normals to a few ulps of the radius, in both dtypes, and the pair's r^2 that |direction|^2 adds."""
from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from kernels import loader
from solvers.numba import philox
from solvers.numba.particle_swarm import normal_slots, normals

pytestmark = pytest.mark.gpu

NORMALS = r"""
template <typename T> __global__ void normals_of(const unsigned int* words, int blocks, T* z, T* r2) {
    const int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= blocks) return;
    const MwWords w = {words[b], words[blocks + b], words[2 * blocks + b], words[3 * blocks + b]};
    const int NP = MwPerBlock<T>::value;
    r2[b * NP / 2] = mw_normal2(mw_uniform<T>(w, 0), mw_uniform<T>(w, 1), z[b * NP], z[b * NP + 1]);
    if (NP == 4) r2[b * 2 + 1] = mw_normal2(mw_uniform<T>(w, 2), mw_uniform<T>(w, 3), z[b * 4 + 2], z[b * 4 + 3]);
}
"""


@njit(cache=True)
def _numba_normals(z, W, pairs, single):
    normals(z, W, pairs, single)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_kernel_normals_are_numbas(cupy, dtype):
    single = dtype == np.float32
    blocks = 1 << 16
    W = np.empty((4, philox.batch_columns(blocks)), dtype=np.uint64)
    philox.fill_words(20261127, 7, philox.STREAM_STEP, 0, blocks, W)
    pairs = blocks * (2 if single else 1)
    expect = np.empty(normal_slots(2 * pairs), dtype=dtype)
    _numba_normals(expect, W, pairs, single)
    expect = expect[:2 * pairs]

    name = f"normals_of<{'float' if single else 'double'}>"
    mod = cupy.RawModule(code=loader.header_text() + NORMALS, options=loader.options(False), name_expressions=[name])
    words = cupy.asarray(W[:, :blocks].astype(np.uint32))
    z = cupy.empty(2 * pairs, dtype=dtype)
    r2 = cupy.empty(pairs, dtype=dtype)
    mod.get_function(name)(((blocks + 255) // 256,), (256,), (words, np.int32(blocks), z, r2))
    z, r2 = z.get(), r2.get()

    radius = np.sqrt(r2.astype(np.float64))
    ulp = np.repeat(np.spacing(radius.astype(dtype)).astype(np.float64), 2)
    err = np.abs(z.astype(np.float64) - expect.astype(np.float64)) / ulp
    assert err.max() <= 4, f"largest difference {err.max():.1f} ulps of the radius"
    # r^2 is z0^2 + z1^2 up to rounding, and the radius the pair's
    assert np.allclose(r2, z[0::2].astype(np.float64) ** 2 + z[1::2].astype(np.float64) ** 2,
                       rtol=1e-5 if single else 1e-13, atol=0)
