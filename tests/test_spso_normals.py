"""SPSO-2011's normals (issue 14, a generator change): the Box-Muller pairs r cos(2 pi u2), r sin(2 pi u2)
with the angle's cosine and sine taken as cos(pi x), sin(pi x) of x = 2 u2 (kernels/random.cuh
mw_normal2, the numba engine's normals), drawn as the move draws them (STREAM_STEP, keyed by
particle, the normals' blocks b of draw t * (blocks + 1) + b), and |direction|^2 summed a Philox
block at a time from the pairs' radii r^2 = -2 log(1 - u1) (kernels/particle_swarm.cu pso_normals).
The issue asks for the new stream's statistics: here the normals' distribution (through the normal
CDF: uniform in 256 bins; mean, variance and kurtosis), their independence within a pair and across
neighbouring pairs, blocks, iterations and particles, and |direction|^2's chi-square law with d
degrees of freedom. The numbers are fixed (one seed): each check passes or fails the same way every
time; the bounds are five standard deviations, which a mapping mistake (a uniform used twice, a pair
sharing a word, an angle off by a factor) fails by orders of magnitude. The cuda kernels' normals
equal numba's to a few ulps (tests/test_gpu_cospi.py, on the GPU)."""
from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("numba")

from numba import njit  # noqa: E402

from solvers.numba import philox  # noqa: E402
from solvers.numba.particle_swarm import normal_slots, normals, pair_uniforms  # noqa: E402
from tests.test_pso_coefficients import _chi2_z  # noqa: E402

D = 30  # coordinates of a particle, as in the benchmark: 8 Philox blocks of 4 normals (float32)
BLOCKS = (D + 3) // 4
PAIRS = (D + 1) // 2
PARTICLES, ITERATIONS = 1024, 16  # 1024 x 16 x 30 = 491,520 normals
SEED = 20261127


@njit(cache=True)
def _draw(z, W, pairs):
    normals(z, W, pairs, True)


@njit(cache=True)
def _uniforms(W, pairs):
    out = np.empty((pairs, 2))
    for p in range(pairs):
        out[p, 0], out[p, 1] = pair_uniforms(W, p, True)
    return out


@pytest.fixture(scope="module")
def drawn():
    """z[particle, iteration, coordinate] (float32) and u1[particle, iteration, pair], as the move
    draws them."""
    z = np.empty((PARTICLES, ITERATIONS, D), dtype=np.float32)
    u1 = np.empty((PARTICLES, ITERATIONS, PAIRS))
    W = np.empty((4, philox.batch_columns(BLOCKS + 1)), dtype=np.uint64)
    scratch = np.empty(normal_slots(D), dtype=np.float32)
    for i in range(PARTICLES):
        for t in range(ITERATIONS):
            philox.fill_words(SEED, i, philox.STREAM_STEP, t * (BLOCKS + 1), BLOCKS + 1, W)
            _draw(scratch, W, PAIRS)
            z[i, t] = scratch[:D]
            u1[i, t] = _uniforms(W, PAIRS)[:, 0]
    return z, u1


def _cdf(z):
    """The standard normal CDF, elementwise (float64)."""
    return 0.5 * (1.0 + np.vectorize(math.erf)(np.asarray(z, dtype=np.float64) / math.sqrt(2.0)))


def _cells(a, b, bins=32):
    """The 2-D histogram of two arrays of normals by their CDF values in `bins` x `bins` cells."""
    ia = np.minimum((_cdf(a) * bins).astype(np.int64), bins - 1)
    ib = np.minimum((_cdf(b) * bins).astype(np.int64), bins - 1)
    return np.bincount((ia * bins + ib).ravel(), minlength=bins * bins)


def _correlation(a, b) -> float:
    return float(np.corrcoef(np.ravel(a).astype(np.float64), np.ravel(b).astype(np.float64))[0, 1])


def test_normals_are_standard_normal(drawn):
    z = drawn[0].ravel().astype(np.float64)
    n = z.size
    assert abs(_chi2_z(np.bincount(np.minimum((_cdf(z) * 256).astype(np.int64), 255), minlength=256))) < 5
    assert abs(z.mean()) < 5 / np.sqrt(n)
    assert abs(z.var() - 1.0) < 5 * np.sqrt(2.0 / n)  # var of z^2 is 2
    kurtosis = float((z ** 4).mean())  # 3 for a normal; var of z^4 is 105 - 9 = 96
    assert abs(kurtosis - 3.0) < 5 * np.sqrt(96.0 / n)
    # the tails Box-Muller's radius makes (24-bit u1: |z| <= sqrt(-2 log 2^-24) = 5.77)
    assert np.abs(z).max() <= 5.8


@pytest.mark.parametrize("pair", ["a pair's two normals", "neighbouring pairs of a block", "the next block",
                                  "the next iteration", "the next particle"])
def test_normals_are_independent(drawn, pair):
    z = drawn[0]
    if pair == "a pair's two normals":
        a, b = z[:, :, 0::2], z[:, :, 1::2]
    elif pair == "neighbouring pairs of a block":  # coordinates 4b + q and 4b + q + 2
        a, b = z[:, :, 0:28:4], z[:, :, 2:30:4]
    elif pair == "the next block":  # coordinate j and j + 4
        a, b = z[:, :, :-4], z[:, :, 4:]
    elif pair == "the next iteration":
        a, b = z[:, :-1], z[:, 1:]
    else:
        a, b = z[:-1], z[1:]
    assert abs(_chi2_z(_cells(a, b))) < 5, pair
    assert abs(_correlation(a, b)) < 5 / np.sqrt(a.size), pair


def test_direction_squared_from_the_radii_is_chi_square_with_d_degrees(drawn):
    """|direction|^2 as the kernels sum it (d = 30 even: every pair whole, each adds its r^2) follows
    chi-square(30): its CDF, P(15, y / 2) = 1 - exp(-y / 2) sum_{k < 15} (y / 2)^k / k!, uniform in 64
    bins; and it is the sum of the normals' squares up to rounding."""
    z, u1 = drawn
    r2 = (np.float32(-2) * np.log(np.float32(1) - u1.astype(np.float32))).astype(np.float64)
    dir2 = r2.sum(axis=2).ravel()
    assert np.allclose(dir2, (z.astype(np.float64) ** 2).sum(axis=2).ravel(), rtol=1e-5)
    h = dir2 / 2.0
    term, total = np.ones_like(h), np.zeros_like(h)
    for k in range(15):
        total += term
        term = term * h / (k + 1)
    cdf = 1.0 - np.exp(-h) * total
    assert abs(_chi2_z(np.bincount(np.minimum((cdf * 64).astype(np.int64), 63), minlength=64))) < 5
