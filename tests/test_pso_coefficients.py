"""Classic PSO's random coefficients in float32 runs (issue 14): r_p and r_g of a coordinate are the
low and high 16-bit halves of one Philox word (kernels/particle_swarm.cu pso_coefficients, the numba
engine's classic_move), four coordinates a Philox block instead of two. A generator change, so the
issue asks for the new stream's statistics: here the halves' uniformity and their independence, of
each other, of the neighbouring coordinates' and of the next iteration's, over 2^20 words drawn as
the move draws them (STREAM_STEP, keyed by particle, draw t * blocks + b). The numbers are fixed
(one seed), so each check passes or fails the same way every time; the bounds are five standard
deviations of the statistic, which a stream as good as Philox's passes by a wide margin and a
mapping mistake (a half used twice, a word shared by two coordinates) fails by orders of magnitude.
The numba engine's move is checked to take exactly these halves (its coefficients recovered from a
move with omega = 0); the cuda kernels' against numba's on the GPU (tests/test_gpu_pso_coefficients.py);
mw_u01h against numba's halves here, through nvcc on the host."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

from solvers.numba import philox  # noqa: E402

D = 30  # coordinates of a particle, as in the benchmark (8 Philox blocks a move)
BLOCKS = (D + 3) // 4
PARTICLES, ITERATIONS = 2048, 16  # 2048 x 16 x 8 blocks x 4 words = 2^20 words


@pytest.fixture(scope="module")
def words():
    """words[particle, iteration, coordinate]: the 32-bit word whose halves are that coordinate's
    r_p (low) and r_g (high), drawn as the move draws them (coordinate j: word j % 4 of block j // 4
    of draw t * BLOCKS)."""
    W = np.empty((4, philox.batch_columns(BLOCKS * ITERATIONS)), dtype=np.uint64)
    out = np.empty((PARTICLES, ITERATIONS, D), dtype=np.uint64)
    j = np.arange(D)
    for i in range(PARTICLES):
        philox.fill_words(20261127, i, philox.STREAM_STEP, 0, BLOCKS * ITERATIONS, W)
        blocks = W[:, :BLOCKS * ITERATIONS].reshape(4, ITERATIONS, BLOCKS)
        out[i] = blocks[j % 4, :, j // 4].T
    return out


def _halves(words):
    return (words & 0xFFFF).astype(np.int64), (words >> 16).astype(np.int64)


def _chi2_z(counts: np.ndarray) -> float:
    """The chi-square statistic of `counts` against equal expected counts, as a standard normal
    (Wilson-Hilferty; k - 1 degrees of freedom)."""
    counts = counts.ravel().astype(np.float64)
    expected = counts.sum() / counts.size
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    k = counts.size - 1
    return ((chi2 / k) ** (1 / 3) - (1 - 2 / (9 * k))) / np.sqrt(2 / (9 * k))


def test_numba_halves_are_the_16_bit_uniforms():
    for u in (0, 1, 0xFFFF, 0x10000, 0xFFFF0000, 0xFFFFFFFF, 0x12345678):
        w = np.uint64(u)
        assert philox.u01h_low(w) == (u & 0xFFFF) / 65536.0
        assert philox.u01h_high(w) == (u >> 16) / 65536.0
        assert 0.0 <= philox.u01h_low(w) < 1.0 and 0.0 <= philox.u01h_high(w) < 1.0
        assert np.float32(philox.u01h_high(w)) == philox.u01h_high(w)  # exact in float32


@pytest.mark.parametrize("which", ["r_p (low half)", "r_g (high half)"])
def test_each_half_is_uniform_in_its_high_and_low_bits(words, which):
    half = _halves(words)[0 if which.startswith("r_p") else 1].ravel()
    n = half.size
    # 256 bins of the half's top 8 bits and of its bottom 8 bits
    assert abs(_chi2_z(np.bincount(half >> 8, minlength=256))) < 5
    assert abs(_chi2_z(np.bincount(half & 0xFF, minlength=256))) < 5
    # mean and variance of the uniform (k / 65536, k < 65536): (65535 / 2) / 65536 and (65536^2 - 1) / 12 / 65536^2
    u = half / 65536.0
    mean, var = (65535 / 2) / 65536, (65536 ** 2 - 1) / 12 / 65536 ** 2
    assert abs(u.mean() - mean) < 5 * np.sqrt(var / n)
    assert abs(u.var() - var) < 5 * np.sqrt((1 / 180) / n)  # the variance of (u - mean)^2 is 1/180


def _pair_cells(a, b, bins=32):
    """The 2-D histogram of two arrays of halves by their top log2(bins) bits."""
    shift = 16 - int(np.log2(bins))
    return np.bincount(((a >> shift) * bins + (b >> shift)).ravel(), minlength=bins * bins)


def _correlation(a, b) -> float:
    return float(np.corrcoef(a.ravel().astype(np.float64), b.ravel().astype(np.float64))[0, 1])


def test_a_coordinates_r_p_and_r_g_are_independent(words):
    low, high = _halves(words)
    n = low.size
    assert abs(_chi2_z(_pair_cells(low, high))) < 5
    assert abs(_correlation(low, high)) < 5 / np.sqrt(n)
    # and the low half's bottom bits against the high half's bottom bits (bits 0-4 and 16-20)
    assert abs(_chi2_z(np.bincount(((low & 0x1F) * 32 + (high & 0x1F)).ravel(), minlength=1024))) < 5


@pytest.mark.parametrize("pair", ["neighbouring coordinates", "the next coordinate block",
                                  "the next iteration", "the next particle"])
def test_coefficients_are_independent_across_coordinates_iterations_and_particles(words, pair):
    low, high = _halves(words)
    if pair == "neighbouring coordinates":  # words q and q + 1 of one block (coordinates 4b + q, + 1)
        a, b = (low[:, :, :-1], high[:, :, 1:]), (high[:, :, :-1], low[:, :, 1:])
    elif pair == "the next coordinate block":  # coordinate j and j + 4: one block and the next
        a, b = (low[:, :, :-4], low[:, :, 4:]), (high[:, :, :-4], high[:, :, 4:])
    elif pair == "the next iteration":
        a, b = (low[:, :-1], low[:, 1:]), (high[:, :-1], high[:, 1:])
    else:
        a, b = (low[:-1], low[1:]), (high[:-1], high[1:])
    for x, y in (a, b):
        assert abs(_chi2_z(_pair_cells(x, y))) < 5, pair
        assert abs(_correlation(x, y)) < 5 / np.sqrt(x.size), pair


U01H = """
#include <cstdio>
#include "common.cuh"
#include "random.cuh"
int main() {
    const unsigned int words[] = {0u, 1u, 0xFFFFu, 0x10000u, 0xFFFF0000u, 0xFFFFFFFFu, 0x12345678u, 0x9E3779B9u};
    for (unsigned int u : words) printf("%a %a\\n", (double)mw_u01h(u & 0xFFFFu), (double)mw_u01h(u >> 16));
    return 0;
}
"""


def test_kernel_halves_are_numbas():
    from tests.test_kernels_compile import NVCC, run_on_host

    if NVCC is None:
        pytest.skip("nvcc not found on PATH (CUDA toolkit absent)")
    out = run_on_host(U01H).split("\n")
    for line, u in zip(out, (0, 1, 0xFFFF, 0x10000, 0xFFFF0000, 0xFFFFFFFF, 0x12345678, 0x9E3779B9)):
        low, high = (float.fromhex(v) for v in line.split())  # exact: hexadecimal floats
        assert low == philox.u01h_low(np.uint64(u)) and high == philox.u01h_high(np.uint64(u)), (hex(u), line)


def _coefficients_of_numbas_move(particle: int, t: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    """r_p and r_g of every coordinate as the numba engine's classic_move uses them at iteration t
    (float32): with omega = 0, x = 0 and lr = 1 the new x is phi_p r_p (p - x) + phi_g r_g (g - x),
    so p = 1, phi_g = 0 gives r_p and g = 1, phi_p = 0 gives r_g, exactly."""
    from solvers.numba import functions
    from solvers.numba.particle_swarm import classic_move
    from solvers.problems import get_problem

    fid = functions.function_id(get_problem("sphere", d))
    lower, upper = np.full(d, -2, np.float32), np.full(d, 2, np.float32)
    out = []
    for phi_p, phi_g in ((1.0, 0.0), (0.0, 1.0)):
        n = particle + 1
        X, V = np.zeros((n, d), np.float32), np.zeros((n, d), np.float32)
        P, g = np.ones((n, d), np.float32), np.ones(d, np.float32)
        f, Pf = np.zeros(n, np.float32), np.full(n, np.inf, np.float32)
        W = np.empty((4, philox.batch_columns(d + 1)), dtype=np.uint64)
        classic_move(X, V, P, f, Pf, g, particle, lower, upper, fid, np.uint64(20261127), np.uint64(t),
                     np.float32(0), np.float32(phi_p), np.float32(phi_g), np.float32(1), True,
                     np.zeros(n, np.int64), np.empty(d), np.int64(0), False, W, np.empty(d, np.float32))
        out.append(X[particle].astype(np.float64))
    return out[0], out[1]


@pytest.mark.parametrize("d", [30, 7, 1])
def test_numbas_move_takes_coordinate_js_halves_of_word_j_mod_4_of_block_j_div_4(d):
    # the mapping itself, in the engine's own move (the fixture above builds it independently)
    blocks = (d + 3) // 4
    for particle, t in ((0, 0), (5, 3), (1000, 12345)):
        r_p, r_g = _coefficients_of_numbas_move(particle, t, d)
        for j in range(d):
            word = np.uint64(philox.words(20261127, particle, philox.STREAM_STEP, t * blocks + j // 4)[j % 4])
            assert (r_p[j], r_g[j]) == (philox.u01h_low(word), philox.u01h_high(word)), (d, particle, t, j)
