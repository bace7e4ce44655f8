"""Philox4x32-10 for the numba engine: the generator and counter layout of kernels/random.cuh.

A draw is a pure function of (run seed, walker, stream, draw index), so results never depend on the
thread count or the chunking, and the numba and cuda engines draw the same numbers:
    key   = (seed low 32 bits, seed high 32 bits)
    ctr   = (draw low 32, draw high 32, walker low 32, stream << 24 | walker bits 32..55)
All arithmetic is in uint64 masked to 32 bits (numba promotes uint32 operands unpredictably).
"""
from __future__ import annotations

import numpy as np
from numba import njit

STREAM_INIT = 1  # MW_STREAM_INIT: initial points
STREAM_RESTART = 2  # MW_STREAM_RESTART: restarts (draw index = iteration of the restart)
STREAM_STEP = 3  # MW_STREAM_STEP: per-iteration moves
STREAM_SAMPLE = 4  # MW_STREAM_SAMPLE
STREAM_POLISH = 5  # MW_STREAM_POLISH

_M32 = np.uint64(0xFFFFFFFF)
_MUL0 = np.uint64(0xD2511F53)
_MUL1 = np.uint64(0xCD9E8D57)
_W0 = np.uint64(0x9E3779B9)
_W1 = np.uint64(0xBB67AE85)
_S32 = np.uint64(32)
_S24 = np.uint64(24)
_S8 = np.uint64(8)
_S11 = np.uint64(11)
_S21 = np.uint64(21)
_M24 = np.uint64(0xFFFFFF)
_M53 = np.uint64((1 << 53) - 1)
_M16 = np.uint64(0xFFFF)
_S16 = np.uint64(16)

JIT = dict(nogil=True, cache=True, fastmath=False)
# the per-coordinate conversions, inlined at numba's level: as calls, LLVM's inliner left them out
# of the move kernels (big functions: the objective's dispatch is inlined there), whose coordinate
# loops then made two calls a coordinate and never vectorised (PSO classic, 30-D float64: 190 ns
# against 40 ns for the 30 coordinates' update, 2-core AMD EPYC)
INLINE = dict(JIT, inline="always")


@njit(**JIT)
def philox4x32_10(c0, c1, c2, c3, k0, k1):
    """Ten Philox rounds on the counter (c0..c3) with key (k0, k1); all uint64 holding 32 bits."""
    for _ in range(10):
        p0 = _MUL0 * c0
        p1 = _MUL1 * c2
        hi0 = p0 >> _S32
        lo0 = p0 & _M32
        hi1 = p1 >> _S32
        lo1 = p1 & _M32
        c0, c1, c2, c3 = (hi1 ^ c1 ^ k0), lo1, (hi0 ^ c3 ^ k1), lo0
        k0 = (k0 + _W0) & _M32
        k1 = (k1 + _W1) & _M32
    return c0, c1, c2, c3


@njit(**JIT)
def words(seed, walker, stream, draw):
    """The four 32-bit words of draw `draw` of walker `walker` in `stream` (MwRng of random.cuh)."""
    k0, k1, c2, c3 = key_and_walker(seed, walker, stream)
    draw = np.uint64(draw)
    return philox4x32_10(draw & _M32, draw >> _S32, c2, c3, k0, k1)


@njit(**JIT)
def key_and_walker(seed, walker, stream):
    """The key (k0, k1) and the walker's counter words (c2, c3) of random.cuh's MwRng."""
    seed = np.uint64(seed)
    walker = np.uint64(walker)
    c3 = ((np.uint64(stream) << _S24) | ((walker >> _S32) & _M24)) & _M32
    return seed & _M32, seed >> _S32, walker & _M32, c3


BATCH = 8  # fill_words draws whole batches of this many blocks (the vector loop's step, see there)


def batch_columns(count: int) -> int:
    """Columns a W for fill_words(..., count, W) needs to take the whole padded batch."""
    return (count + BATCH - 1) // BATCH * BATCH


@njit(**JIT)
def batch_columns_jit(count):
    """batch_columns for compiled callers."""
    return (count + BATCH - 1) // BATCH * BATCH


@njit(**INLINE)
def _rounds_into(W, col, x0, x1, x2, x3, y0, y1):
    """W[:, col] = Philox4x32-10 of the counter (x0..x3) with key (y0, y1): the rounds spelled out
    (no tuple swap) and inlined at numba's level, so that the loops of fill_words and
    fill_walker_words around it stay vector loops (through philox4x32_10, a call, they ran scalar)."""
    for _ in range(10):
        p0 = _MUL0 * x0
        p1 = _MUL1 * x2
        n0 = (p1 >> _S32) ^ x1 ^ y0
        n2 = (p0 >> _S32) ^ x3 ^ y1
        x1 = p1 & _M32
        x3 = p0 & _M32
        x0 = n0
        x2 = n2
        y0 = (y0 + _W0) & _M32
        y1 = (y1 + _W1) & _M32
    W[0, col] = x0
    W[1, col] = x1
    W[2, col] = x2
    W[3, col] = x3


@njit(**JIT)
def fill_words(seed, walker, stream, first, count, W):
    """W[:, b] = words(seed, walker, stream, first + b) for b < count (W: (4, >= count) uint64),
    and the blocks after them up to a multiple of BATCH where W has the columns (never read: the
    caller's numbers are the first `count`, the same whatever W's width).

    The same numbers as `count` calls of ``words``, in one loop LLVM vectorises (the blocks are
    independent): a block drawn where its numbers are used cost ~15-18 ns, its ten rounds waiting
    on each other and on the code around; a block of this loop ~2 ns (2-core AMD EPYC dev box).
    The rounds are spelled out: through philox4x32_10 (a call and a tuple swap) the loop stayed
    scalar. The count is padded to a multiple of 8 because the loop's vector step is 8 blocks
    (zmm, znver4) or 4 (ymm, Intel targets) and the rest ran scalar at ~11 ns a block: 30 blocks
    (PSO classic, 30-D float64) took 102 ns, 32 blocks 58 ns (znver4 build; 82 and 76 ns built
    for sapphirerapids)."""
    k0, k1, c2, c3 = key_and_walker(seed, walker, stream)
    count = min((count + BATCH - 1) // BATCH * BATCH, W.shape[1])
    for b in range(count):
        draw = np.uint64(first) + np.uint64(b)
        _rounds_into(W, b, draw & _M32, draw >> _S32, c2, c3, k0, k1)


@njit(**JIT)
def fill_walker_words(seed, walker, count, stream, draw, W):
    """W[:, r] = words(seed, walker + r, stream, draw) for r < count (W: (4, >= count) uint64):
    one draw index for consecutive walkers, in a loop LLVM vectorises across them (fill_words's
    rounds, spelled out for the same reason; the same numbers as `count` calls of ``words``).
    SPSO's link targets of a swarm: a scalar block a particle had cost ~15 ns."""
    seed = np.uint64(seed)
    k0 = seed & _M32
    k1 = seed >> _S32
    draw = np.uint64(draw)
    high = np.uint64(stream) << _S24
    for r in range(count):
        w = np.uint64(walker) + np.uint64(r)
        _rounds_into(W, r, draw & _M32, draw >> _S32, w & _M32, (high | ((w >> _S32) & _M24)) & _M32, k0, k1)


@njit(**INLINE)
def u01f(u):
    """float-style uniform in [0, 1) from one word: 24 bits (mw_u01f), returned as float64."""
    return float(u >> _S8) * (1.0 / 16777216.0)


@njit(**INLINE)
def u01h_low(u):
    """Uniform in [0, 1) from the low 16 bits of one word (mw_u01h: classic PSO's r_p in float), as float64."""
    return float(u & _M16) * (1.0 / 65536.0)


@njit(**INLINE)
def u01h_high(u):
    """Uniform in [0, 1) from the high 16 bits of one 32-bit word (mw_u01h: classic PSO's r_g in float)."""
    return float((u >> _S16) & _M16) * (1.0 / 65536.0)


@njit(**INLINE)
def u01d(hi, lo):
    """double uniform in [0, 1) from two words: 53 bits (mw_u01d)."""
    bits = ((hi << _S21) ^ (lo >> _S11)) & _M53
    return float(bits) * (1.0 / 9007199254740992.0)


@njit(**INLINE)
def below(u, m):
    """An integer in [0, m) from one word (mw_below: multiply-shift)."""
    return np.int64((u * np.uint64(m)) >> _S32)


@njit(**JIT)
def fill_uniform(seed, walker, stream, first_draw, lower, upper, out, single):
    """A uniform point of the box into `out` (mw_fill_uniform): float32 runs take 4 coordinates
    per Philox block (24-bit uniforms), float64 runs 2 (53-bit)."""
    d = out.shape[0]
    per = 4 if single else 2
    j0 = 0
    block = np.uint64(first_draw)
    while j0 < d:
        w0, w1, w2, w3 = words(seed, walker, stream, block)
        for k in range(per):
            j = j0 + k
            if j < d:
                if single:
                    w = w0 if k == 0 else (w1 if k == 1 else (w2 if k == 2 else w3))
                    u = u01f(w)
                else:
                    u = u01d(w0, w1) if k == 0 else u01d(w2, w3)
                lo = lower[j]
                hi = upper[j]
                out[j] = min(lo + (hi - lo) * u, hi)
        j0 += per
        block += np.uint64(1)


def blocks_per_point(d: int, single: bool) -> int:
    """Philox blocks one d-dimensional uniform point uses (mw_blocks_per_point)."""
    per = 4 if single else 2
    return (d + per - 1) // per


@njit(**JIT)
def blocks_per_point_jit(d, single):
    """blocks_per_point for compiled callers."""
    per = 4 if single else 2
    return np.uint64((d + per - 1) // per)


@njit(**INLINE)
def uniform_k(w0, w1, w2, w3, k, single):
    """The k-th uniform of one block (mw_uniform<T>): float32 runs 4 (24-bit), float64 runs 2."""
    if single:
        w = w0 if k == 0 else (w1 if k == 1 else (w2 if k == 2 else w3))
        return u01f(w)
    return u01d(w0, w1) if k == 0 else u01d(w2, w3)


@njit(**JIT)
def uniform_at(seed, walker, stream, first_draw, j, single):
    """Uniform number j of a sequence drawn P per block from `first_draw` on (P = 4 or 2)."""
    per = 4 if single else 2
    w0, w1, w2, w3 = words(seed, walker, stream, np.uint64(first_draw) + np.uint64(j // per))
    return uniform_k(w0, w1, w2, w3, j % per, single)
