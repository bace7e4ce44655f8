"""Particle swarm optimisation on the numba engine (kernels/particle_swarm.cu on CPU cores): the
classic global-best PSO and SPSO-2011, many swarms at once.

Same Params, equations, confinement and synchronous update as solvers/algorithms/particle_swarm.py,
and the random numbers of the cuda kernel (Philox, draw index from the global iteration t):
INIT draws the point (blocks 0..B-1) and the velocity (B..2B-1); STEP draws the classic r_p, r_g
(float32: a word's 16-bit halves, 4 coordinates per block; float64: 1) or SPSO's normals (Box-Muller, P per block) and the radius uniform
(one more block); the K link targets of a particle are drawn from stream PSO_LINKS keyed by the
iteration after which its swarm last redrew them (``epochs``), so links are never stored in the
state (a launch of the many-swarm kernel keeps a swarm's current links in scratch, redrawn with
the epoch).

Two paths, bit-identical (the same per-particle helpers, Philox draws and tie rules), chosen by
``NumbaAlgorithm.runs_wide``. Many swarms (at least as many as threads, or too little work per
thread): swarms are independent, ``prange`` runs over swarms and a launch runs a whole chunk of
iterations (``pso_classic``, ``pso_spso``). Fewer swarms than threads (one swarm of 131,072
particles would use one core): a launch runs one iteration with ``prange`` over every particle,
then the per-swarm reductions: the classic swarm's best; SPSO's informants (the links drawn per
particle, gathered per range of particles), pending personal bests, the swarm's best and the
links' redraw (``pso_classic_wide``, ``pso_spso_wide``).

Streams are keyed by the particle's global index ``walker0 + i`` (walker0 > 0 only in a shard of a
run split over devices by whole swarms, solvers/shards.py); link targets, like every other index
here, are the shard's own (its swarm's first particle + U{0..m-1}).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit, prange

from ..algorithms.particle_swarm import (SPSO_C, SPSO_W, ParticleSwarm, ParticleSwarmParams,
                                          ParticleSwarmState)
from . import functions, philox
from .base import (PJIT, WIDE_PJIT, WORKERS, NumbaAlgorithm, claim_counter, claim_walkers, draw_uniform_points,
                   thread_blocks, widened)

STREAM_LINKS = 16  # PSO_STREAM_LINKS


@njit(**PJIT)
def pso_init(X, V, P, f, Pf, lower, upper, fid, seed, classic, single, bad, walker0):
    """Particle i: the engines' initial point (draw_uniform_points) and its value, a velocity
    (classic: U(-range, range); spso: U(lo - x, up - x); Philox stream INIT after the point's
    blocks, as pso_init in kernels/particle_swarm.cu), its personal best that point."""
    draw_uniform_points(X, f, lower, upper, fid, seed, single, bad, walker0)
    n, d = X.shape
    per = 4 if single else 2
    B = np.uint64((d + per - 1) // per)
    for i in prange(n):
        for j in range(d):
            lo = lower[j]
            hi = upper[j]
            a = -(hi - lo) if classic else lo - X[i, j]
            b = (hi - lo) if classic else hi - X[i, j]
            u = philox.uniform_at(seed, walker0 + i, philox.STREAM_INIT, B, j, single)
            V[i, j] = a + (b - a) * X.dtype.type(u)
            P[i, j] = X[i, j]
        Pf[i] = f[i]


@njit(nogil=True, cache=True)
def link(seed, key, epoch, k, K, base, m):
    """The k-th link target of the particle keyed `key` (its global index walker0 + i) for links
    drawn after iteration `epoch`: base (its swarm's first particle, local) + U{0..m-1}."""
    per_draw = np.uint64((K + 3) // 4)
    w0, w1, w2, w3 = philox.words(seed, key, STREAM_LINKS,
                                  np.uint64(epoch + 1) * per_draw + np.uint64(k // 4))
    q = k % 4
    w = w0 if q == 0 else (w1 if q == 1 else (w2 if q == 2 else w3))
    return base + philox.below(w, m)


@njit(nogil=True, cache=True)
def draw_links(seed, key, epoch, K, base, m, out, row):
    """out[row, k] = link(seed, key, epoch, k, K, base, m) for every k < K, drawing each Philox
    block once (link() draws the block of its k alone: K = 3 drew one block three times)."""
    per_draw = (K + 3) // 4
    first = np.uint64(epoch + 1) * np.uint64(per_draw)
    for b in range(per_draw):
        w0, w1, w2, w3 = philox.words(seed, key, STREAM_LINKS, first + np.uint64(b))
        for q in range(min(4, K - 4 * b)):
            w = w0 if q == 0 else (w1 if q == 1 else (w2 if q == 2 else w3))
            out[row, 4 * b + q] = base + philox.below(w, m)


@njit(nogil=True, cache=True)
def draw_swarm_links(seed, key, epoch, K, base, m, out, LW):
    """out[p, k] = link(seed, key + p, epoch, k, K, base, m) for every particle p < m of a swarm
    (key: its first particle's key) and k < K: each Philox block of the m particles drawn in one
    vectorised loop (philox.fill_walker_words; LW: (4, >= m) uint64 scratch), the same numbers
    as draw_links per particle."""
    per_draw = (K + 3) // 4
    first = np.uint64(epoch + 1) * np.uint64(per_draw)
    for b in range(per_draw):
        philox.fill_walker_words(seed, key, m, STREAM_LINKS, first + np.uint64(b), LW)
        for q in range(min(4, K - 4 * b)):
            for p in range(m):
                out[p, 4 * b + q] = base + philox.below(LW[q, p], m)


@njit(nogil=True, cache=True, inline="always")
def confine(x, v, lo, hi):
    """SPSO-2011 confinement of one coordinate: clamp, reverse and halve the velocity (below lo:
    lo; else above hi: hi). Written as selects, no early return: the branches mispredicted on
    swarms pressing on the bounds (30-D rastrigin: 98 against 41 ns for the 30 coordinates'
    update, float64, 2-core AMD EPYC); the same values, NaN included (it compares false). `|`,
    not `or`, which branches."""
    below = x < lo
    above = x > hi
    return (lo if below else (hi if above else x)), (-0.5 * v if below | above else v)


@njit(nogil=True, cache=True, inline="always")
def place(X, V, x, i, j, xj, v, lo, hi):
    """Coordinate j of particle i after its move: confined, stored in X and V and the row x."""
    xj, v = confine(xj, v, lo, hi)
    X[i, j] = xj
    V[i, j] = v
    x[j] = xj


@njit(nogil=True, cache=True, inline="always")
def evaluated(fid, X, x, bad, i, f, Pf, live):
    """f[i] = f(X[i]) (non-finite counted; x: the float64 scratch a float32 row is widened into);
    True, with Pf[i] updated, where it improves the particle's best. Not `live` (max_evals cuts
    the particle's evaluation): f[i] = +inf, uncounted."""
    if not live:
        f[i] = np.inf
        return False
    fx = f.dtype.type(functions.counted(fid, widened(X, i, x), bad, i))
    f[i] = fx
    if fx < Pf[i]:
        Pf[i] = fx
        return True
    return False


@njit(nogil=True, cache=True)
def swarm_argmin(Pf, base, m):
    k = base
    for i in range(base + 1, base + m):
        if Pf[i] < Pf[k]:
            k = i
    return k


@njit(nogil=True, cache=True, inline="always")
def classic_velocity(X, V, P, g, z, i, j, rp, rg, omega, phi_p, phi_g):
    """z[j] = the new velocity of coordinate j of particle i, from its uniforms r_p, r_g."""
    xj = X[i, j]
    z[j] = omega * V[i, j] + phi_p * rp * (P[i, j] - xj) + phi_g * rg * (g[j] - xj)


# inlined into the swarm loops at numba's level: as a call (~20 arrays passed as their fields) the
# call alone cost ~50 ns a particle (30-D float64, 2-core AMD EPYC)
@njit(nogil=True, cache=True, inline="always")
def classic_move(X, V, P, f, Pf, g, i, lower, upper, fid, seed, t, omega, phi_p, phi_g, lr, single,
                 bad, x, walker0, live, W, z):
    """Particle i's classic move at iteration t (r_p, r_g from Philox, keyed walker0 + i) toward its
    personal best and `g`, a copy of its swarm's best taken before the iteration; confined,
    evaluated if `live` (x: float64 scratch of d), and its personal best updated at once (only the
    particle itself reads its P). W: (4, >= philox.batch_columns(d)) uint64 scratch: the
    iteration's Philox blocks, drawn first in one vectorised loop (philox.fill_words: the same
    numbers); z: scratch of d in X's dtype (the velocities before confinement)."""
    d = X.shape[1]
    T = X.dtype.type
    blocks = (d + 3) // 4 if single else d  # r_p and r_g of 4 coordinates per block, else of 1
    philox.fill_words(seed, walker0 + i, philox.STREAM_STEP, t * np.uint64(blocks), blocks, W)
    # One loop per dtype, a coordinate's block and words by shifts and masks (the shared loop's
    # j // C, j % C with C known at run time and uniform_k's branches cost ~5 ns a coordinate),
    # then the confinement in a loop of its own: LLVM vectorises a loop only where it can check
    # at run time that its arrays do not overlap, at most 8 pairs; the single loop reading W, V,
    # P, X, g, lower, upper and writing X, V, x had more and ran scalar (121 against 68 ns for
    # the 30 coordinates, float64, 2-core AMD EPYC). The same operations on every coordinate.
    if single:  # coordinate j: the low and high halves of word j & 3 of block j // 4 (pso_coefficients)
        for j in range(d):
            u = W[j & 3, j >> 2]
            classic_velocity(X, V, P, g, z, i, j, T(philox.u01h_low(u)), T(philox.u01h_high(u)),
                             omega, phi_p, phi_g)
    else:  # coordinate j: block j, r_p from words 0-1, r_g from 2-3
        for j in range(d):
            classic_velocity(X, V, P, g, z, i, j, T(philox.u01d(W[0, j], W[1, j])),
                             T(philox.u01d(W[2, j], W[3, j])), omega, phi_p, phi_g)
    for j in range(d):
        X[i, j], V[i, j] = confine(X[i, j] + lr * z[j], z[j], lower[j], upper[j])
    if evaluated(fid, X, x, bad, i, f, Pf, live):  # only the particle itself reads its P: at once
        for j in range(d):
            P[i, j] = X[i, j]


@njit(nogil=True, cache=True)
def copy_row(dst, k, src, i):
    """dst[k] = src[i] (a swarm's best point before an iteration; a pending personal best)."""
    for j in range(src.shape[1]):
        dst[k, j] = src[i, j]


@njit(**PJIT)
def pso_classic(X, V, P, f, Pf, swarm_f, lower, upper, fid, m, seed, first_iter, iterations,
                last_active, omega, phi_p, phi_g, lr, single, bad, walker0):
    """Many swarms: ``prange`` over swarms, each running `iterations` iterations (in the last one
    only particles i < last_active evaluate: max_evals)."""
    n, d = X.shape
    for s in prange(n // m):
        base = s * m
        x = np.empty(d, dtype=np.float64)
        g = np.empty((1, d), dtype=X.dtype)
        z = np.empty(d, dtype=X.dtype)
        W = np.empty((4, philox.batch_columns_jit(d + 1)), dtype=np.uint64)
        gi = swarm_argmin(Pf, base, m)
        for it in range(iterations):
            t = np.uint64(first_iter + it)
            copy_row(g, 0, P, gi)
            cut = it + 1 == iterations
            for i in range(base, base + m):
                classic_move(X, V, P, f, Pf, g[0], i, lower, upper, fid, seed, t, omega, phi_p, phi_g,
                             lr, single, bad, x, walker0, not cut or i < last_active, W, z)
            gi = swarm_argmin(Pf, base, m)
        swarm_f[s] = Pf[gi]


@njit(**WIDE_PJIT)
def pso_classic_wide(X, V, P, f, Pf, swarm_f, lower, upper, fid, m, seed, t, last_active, omega,
                     phi_p, phi_g, lr, single, bad, walker0):
    """Few swarms: one iteration t, ``prange`` over every particle (the many-swarm kernel's order
    of arithmetic per particle, so the same run); only particles i < last_active evaluate."""
    n, d = X.shape
    swarms = n // m
    G = np.empty((swarms, d), dtype=X.dtype)
    for s in prange(swarms):
        copy_row(G, s, P, swarm_argmin(Pf, s * m, m))
    blocks = thread_blocks(n)
    counter = claim_counter()
    for worker in prange(min(WORKERS, blocks)):  # each claims blocks of walkers until none are left
        x = np.empty(d, dtype=np.float64)
        z = np.empty(d, dtype=X.dtype)
        W = np.empty((4, philox.batch_columns_jit(d + 1)), dtype=np.uint64)
        i0, i1 = claim_walkers(counter, blocks, n)
        while i0 < i1:
            for i in range(i0, i1):
                classic_move(X, V, P, f, Pf, G[i // m], i, lower, upper, fid, seed, np.uint64(t), omega,
                             phi_p, phi_g, lr, single, bad, x, walker0, i < last_active, W, z)
            i0, i1 = claim_walkers(counter, blocks, n)
    for s in prange(swarms):
        swarm_f[s] = Pf[swarm_argmin(Pf, s * m, m)]


@njit(nogil=True, cache=True)
def better_informant(Pf, src, b):
    """Whether particle src informs better than b: a smaller personal best, ties to the smaller
    index (the reference's informant_best). A strict order, so the best informant of a particle
    does not depend on the order its informants are compared in."""
    return Pf[src] < Pf[b] or (Pf[src] == Pf[b] and src < b)


@njit(nogil=True, cache=True)
def informants(Pf, best, targets, base, m):
    """best[p] = the best informant of particle base + p: each particle informs itself and its K
    targets (targets: (m, K), row p the swarm's targets of particle base + p, from draw_links)."""
    for p in range(m):
        best[p] = base + p
    for p in range(m):
        src = base + p
        fs = Pf[src]
        for k in range(targets.shape[1]):
            tgt = targets[p, k] - base
            b = best[tgt]
            fb = Pf[b]
            # better_informant(Pf, src, b) as selects: its branches on random values mispredicted
            # (`|`, `&`: `or`, `and` branch)
            best[tgt] = src if (fs < fb) | ((fs == fb) & (src < b)) else b


@njit(nogil=True, cache=True)
def gather_informants(Pf, best, targets, lo, hi, m):
    """best[p] for the particles p in [lo, hi) from every particle's drawn targets (n, K): the
    sources of the swarms holding them scanned in order, the comparisons of ``informants``."""
    for p in range(lo, hi):
        best[p] = p
    if hi <= lo:
        return
    for src in range((lo // m) * m, min(targets.shape[0], ((hi - 1) // m + 1) * m)):
        for k in range(targets.shape[1]):
            tgt = targets[src, k]
            if lo <= tgt < hi and better_informant(Pf, src, best[tgt]):
                best[tgt] = src


@njit(nogil=True, cache=True, inline="always")
def _pair_uniform32(W, p, k):
    """Uniform k (0: u1, 1: u2) of normal pair p in a float32 run: block p // 2, word
    2 (p & 1) + k (24 bits, mw_uniform<float>), as float64."""
    return philox.u01f(W[2 * (p & 1) + k, p >> 1])


@njit(nogil=True, cache=True, inline="always")
def _pair_uniform64(W, p, k):
    """Uniform k (0: u1, 1: u2) of normal pair p in a float64 run: block p, words 2k and 2k + 1
    (53 bits)."""
    return philox.u01d(W[2 * k, p], W[2 * k + 1, p])


@njit(nogil=True, cache=True, inline="always")
def pair_uniforms(W, p, single):
    """The uniforms (u1, u2) of normal pair p (float64): float32 runs, block p // 2's words
    2 (p & 1) and 2 (p & 1) + 1 (24-bit uniforms, mw_uniform<float>); float64, block p's two
    53-bit uniforms."""
    if single:
        return _pair_uniform32(W, p, 0), _pair_uniform32(W, p, 1)
    return _pair_uniform64(W, p, 0), _pair_uniform64(W, p, 1)


# The angle loop's pairs are padded to a multiple of this: its vector step is 8 pairs (zmm) or
# fewer, and the pairs left over ran scalar; 15 pairs (30-D) took one vector step and 7 scalar
# ones (the scalar rest then cost about as much as the vector step, 2-core AMD EPYC)
NORMAL_LANES = 8


@njit(nogil=True, cache=True)
def normal_slots(d):
    """Length of the normals' scratch z of d coordinates: the pairs padded to NORMAL_LANES."""
    pairs = (d + 1) // 2
    return 2 * ((pairs + NORMAL_LANES - 1) // NORMAL_LANES * NORMAL_LANES)


@njit(nogil=True, cache=True, inline="always")
def _rotate(z, k, u2):
    """z[k], z[k + 1] = r cos(2 pi u2), r sin(2 pi u2), r = sqrt(-2 log(1 - u1)) from z[k + 1]
    = log(1 - u1) (the operations of one expression, in z's dtype)."""
    T = z.dtype.type
    c, s = functions.sincospi(2.0 * np.float64(u2))
    r = np.sqrt(T(-2) * z[k + 1])
    z[k] = r * T(c)
    z[k + 1] = r * T(s)


# Inlined at numba's level, so compiled with the kernel's flags (fastmath off: no FMA contraction,
# whatever a helper's own flags say): the numbers do not depend on which helper a line sits in.
@njit(nogil=True, cache=True, inline="always")
def normals(z, W, pairs, single):
    """z[2p], z[2p + 1] = the Box-Muller normals of pair p < pairs, in z's dtype (z holds
    normal_slots: the pairs padded to NORMAL_LANES, whose extra values are never read; W the
    columns they read, as fill_words pads them). Two loops per dtype: libm's log(1 - u1), one call
    a pair, into z[2p + 1], then a loop LLVM vectorises over the padded pairs: the radius's sqrt
    and cos and sin of 2 pi u2 from one polynomial (functions.sincospi, 2 u2 exact). libm's cos and
    sin had taken about half of SPSO's time (issue 13). The angle's cos/sin are those of 2 pi u2
    through sincospi of 2 u2, as mw_normal2's (float: the device's sincospif, within an ulp of
    these): the normals agree with the cuda engine's to a few ulps, not bit for bit
    (tests/test_gpu_spso_normals.py). spso_move sums |G - x|^2 and |direction|^2 coordinate by
    coordinate; the cuda kernels a Philox block at a time (the same sums up to rounding).

    Per dtype, not through pair_uniforms: its branch on `single` inside the loop kept the angle
    loop scalar (LLVM did not unswitch it); the sqrt with the polynomial, not after each log call:
    between calls it ran scalar and the polynomial's constants, held in registers that calls
    clobber, were reloaded after each (30-D float64 on the development machine: the move with
    the evaluation 466 -> 338 ns, both changes; the same numbers)."""
    T = z.dtype.type
    padded = (pairs + NORMAL_LANES - 1) // NORMAL_LANES * NORMAL_LANES
    if single:
        for p in range(pairs):
            z[2 * p + 1] = np.log(T(1) - T(_pair_uniform32(W, p, 0)))
    else:
        for p in range(pairs):
            z[2 * p + 1] = np.log(T(1) - T(_pair_uniform64(W, p, 0)))
    for p in range(pairs, padded):  # padding: log(1) (never read, but defined)
        z[2 * p + 1] = T(0)
    if single:  # by blocks of 2 pairs: W[2 (p & 1) + 1, p >> 1] a pair kept the loop scalar
        for b in range(padded // 2):
            _rotate(z, 4 * b, T(philox.u01f(W[1, b])))
            _rotate(z, 4 * b + 2, T(philox.u01f(W[3, b])))
    else:
        for p in range(padded):
            _rotate(z, 2 * p, T(_pair_uniform64(W, p, 1)))


# inlined into both kernels at numba's level: as a call, the grouped kernel ran 3% slower on one
# thread (0.83 vs 0.86 M evals/s, rastrigin 30-D, float32); the other helpers lost nothing
@njit(nogil=True, cache=True, inline="always")
def spso_move(X, V, P, f, Pf, i, l, lower, upper, fid, seed, t, w, c, single, bad, z, x, walker0,
              live, W):
    """Particle i's SPSO-2011 move at iteration t around its personal best and that of its best
    informant l (normals and radius from Philox, keyed walker0 + i), confined and evaluated (z:
    scratch of normal_slots(d) in X's dtype, x: float64); not `live`: f[i] = +inf, unevaluated
    (max_evals). Updates Pf[i] and says whether it improved: the caller copies the P row after
    every particle of the swarm moved (other particles read it). W: (4, >=
    philox.batch_columns(d + 1)) uint64 scratch: the iteration's Philox blocks (philox.fill_words,
    one vectorised loop: the same numbers).

    Its time was mostly libm's (log, cos, sin of each pair of normals: ~half the move's time on
    30-D float64): cos and sin are now one vectorised polynomial (normals); the loops around them
    are split per dtype and the confinement runs in a loop of its own (see classic_move). What
    remains (30-D float64, perf on the development machine): libm's log, the evaluation, the
    angle polynomial and the sequential sums tc2, dir2 (their order fixes the numbers), each
    about a fifth."""
    d = X.shape[1]
    T = X.dtype.type
    NP = 4 if single else 2  # normals per Philox block
    nb = (d + NP - 1) // NP  # the normals' blocks, then the radius block
    tiny = np.finfo(X.dtype).tiny
    coef = T(c) * (T(0.25) if l == i else T(1.0 / 3.0))
    philox.fill_words(seed, walker0 + i, philox.STREAM_STEP, np.uint64(t) * np.uint64(nb + 1), nb + 1, W)
    normals(z, W, (d + 1) // 2, single)  # the pairs of the coordinates (a last odd one's twin unused)
    ru = T(philox.u01f(W[0, nb])) if single else T(philox.u01d(W[0, nb], W[1, nb]))
    tc2 = T(0)
    dir2 = T(0)
    for j in range(d):
        tc = coef * (P[i, j] + P[l, j] - T(2) * X[i, j])
        tc2 += tc * tc
        dir2 += z[j] * z[j]
    scale = np.sqrt(tc2) * ru / max(np.sqrt(dir2), tiny)
    for j in range(d):  # z[j]: the new velocity, then confined in a loop of its own
        tc = coef * (P[i, j] + P[l, j] - T(2) * X[i, j])
        z[j] = T(w) * V[i, j] + tc + scale * z[j]
    for j in range(d):
        X[i, j], V[i, j] = confine(X[i, j] + z[j], z[j], lower[j], upper[j])
    return evaluated(fid, X, x, bad, i, f, Pf, live)


@njit(nogil=True, cache=True)
def settle(Pf, base, m, previous, epoch, t):
    """A swarm's end of iteration t: (its best personal best, the links' epoch, whether they are
    redrawn). SPSO redraws the links after an iteration that did not improve the swarm's best."""
    g = Pf[swarm_argmin(Pf, base, m)]
    redraw = not g < previous
    return g, (t if redraw else epoch), redraw


@njit(**PJIT)
def pso_spso(X, V, P, f, Pf, swarm_f, epochs, redrawn, lower, upper, fid, m, K, seed, first_iter,
             iterations, last_active, w, c, single, bad, walker0):
    """Many swarms: ``prange`` over swarms, each running `iterations` iterations (in the last one
    only particles i < last_active evaluate: max_evals)."""
    n, d = X.shape
    for s in prange(n // m):
        base = s * m
        z = np.empty(normal_slots(d), dtype=X.dtype)  # normals: pairs, padded (normals)
        x = np.empty(d, dtype=np.float64)
        W = np.empty((4, philox.batch_columns_jit(d + 1)), dtype=np.uint64)
        best = np.empty(m, dtype=np.int64)  # best informant of each particle
        pending = np.zeros(m, dtype=np.bool_)
        targets = np.empty((m, K), dtype=np.int64)  # the links of the epoch `drawn`
        LW = np.empty((4, m), dtype=np.uint64)  # their Philox blocks, a draw index at a time
        drawn = np.int64(-2)  # none yet (epochs start at -1)
        previous = Pf[swarm_argmin(Pf, base, m)]
        epoch = epochs[s]
        for it in range(iterations):
            t = first_iter + it
            if epoch != drawn:  # links change only when redrawn: drawn once per epoch, not per iteration
                draw_swarm_links(seed, walker0 + base, epoch, K, base, m, targets, LW)
                drawn = epoch
            informants(Pf, best, targets, base, m)
            cut = it + 1 == iterations
            for p in range(m):
                pending[p] = spso_move(X, V, P, f, Pf, base + p, best[p], lower, upper, fid, seed, t,
                                       w, c, single, bad, z, x, walker0,
                                       not cut or base + p < last_active, W)
            for p in range(m):  # P is read by other particles: written after all have moved
                if pending[p]:
                    copy_row(P, base + p, X, base + p)
            previous, epoch, redrawn[s] = settle(Pf, base, m, previous, epoch, t)
        epochs[s] = epoch
        swarm_f[s] = previous


@njit(**WIDE_PJIT)
def pso_spso_wide(X, V, P, f, Pf, swarm_f, epochs, redrawn, best, pending, targets, owners, lower,
                  upper, fid, m, K, seed, t, last_active, w, c, single, bad, walker0):
    """Few swarms: one iteration t, ``prange`` over every particle for the links' draws, the move
    and the P copy. The informants are gathered by `owners` threads, each for its own range of
    particles (no two threads write one entry; the serial kernel's comparisons): a serial pass
    over a swarm of 131,072 particles (K = 3) took 11 ms, about one 16-core move and evaluation.
    Scratch: best (n,), pending (n,), targets (n, K). Only particles i < last_active evaluate."""
    n, d = X.shape
    swarms = n // m
    previous = np.empty(swarms, dtype=X.dtype)
    for s in prange(swarms):
        previous[s] = Pf[swarm_argmin(Pf, s * m, m)]
    for i in prange(n):
        s = i // m
        draw_links(seed, walker0 + i, epochs[s], K, s * m, m, targets, i)
    for r in prange(owners):
        gather_informants(Pf, best, targets, r * n // owners, (r + 1) * n // owners, m)
    blocks = thread_blocks(n)
    counter = claim_counter()
    for worker in prange(min(WORKERS, blocks)):  # each claims blocks of walkers until none are left
        z = np.empty(normal_slots(d), dtype=X.dtype)  # normals: pairs, padded (normals)
        x = np.empty(d, dtype=np.float64)
        W = np.empty((4, philox.batch_columns_jit(d + 1)), dtype=np.uint64)
        i0, i1 = claim_walkers(counter, blocks, n)
        while i0 < i1:
            for i in range(i0, i1):
                pending[i] = spso_move(X, V, P, f, Pf, i, best[i], lower, upper, fid, seed, t, w, c, single,
                                       bad, z, x, walker0, i < last_active, W)
            i0, i1 = claim_walkers(counter, blocks, n)
    for i in prange(n):
        if pending[i]:
            copy_row(P, i, X, i)
    for s in prange(swarms):
        swarm_f[s], epochs[s], redrawn[s] = settle(Pf, s * m, m, previous[s], epochs[s], t)


@njit(**PJIT)
def links_of(ids, seed, epochs, K, m, walker0):
    """(k, K) link targets of particles `ids` (this object's indices, as the targets)."""
    out = np.empty((ids.shape[0], K), dtype=np.int64)
    for r in prange(ids.shape[0]):
        i = ids[r]
        s = i // m
        draw_links(seed, walker0 + i, epochs[s], K, s * m, m, out, r)
    return out


class _Links:
    """``state.links[ids]`` for the reference's snapshot: the targets of those particles, redrawn."""

    def __init__(self, algo, state):
        self.algo, self.state = algo, state

    def __getitem__(self, ids):
        p = self.algo.params
        ids = np.atleast_1d(np.asarray(ids, dtype=np.int64))
        return links_of(ids, np.uint64(self.algo._seed), self.state.epochs, int(p.informants), int(p.walkers),
                        np.int64(self.algo.walker0))


@dataclass
class ParticleSwarmNumbaState(ParticleSwarmState):
    epochs: Any = None  # spso: (swarms,) iteration after which the links were last drawn (-1: init)


class ParticleSwarmNumba(NumbaAlgorithm, ParticleSwarm):
    """Compiled swarms; snapshots inherited from the reference."""

    def memory_words_per_walker(self) -> float:
        words = 3.0 * self.problem.dim + 5.0  # X, V, P, f, Pf, NaN count
        if self.params.variant == "spso2011":  # best informant, pending copy, K int32 link targets
            words += (9.0 + 4.0 * self.params.informants) / self.dtype.itemsize
        return words

    def init(self, rng) -> ParticleSwarmNumbaState:
        p, n, d = self.params, self.total_walkers(), self.problem.dim
        self._seed = self.seed_from(rng)
        a = [np.empty((n, d), dtype=self.dtype) for _ in range(3)]
        f, Pf = np.empty(n, dtype=self.dtype), np.empty(n, dtype=self.dtype)
        self.use_threads()
        bad = self.nonfinite_counter(n)
        pso_init(a[0], a[1], a[2], f, Pf, self.lower, self.upper, self.fid, np.uint64(self._seed),
                 p.variant == "classic", self.single, bad, np.int64(self.walker0))
        state = ParticleSwarmNumbaState(X=a[0], f=f, best_x=np.zeros(d, dtype=self.dtype),
                                        best_f=np.asarray(np.inf, dtype=self.dtype), V=a[1],
                                        P=a[2], Pf=Pf)
        if self.cap_drawn(state, f, bad) < n:  # max_evals below the swarms: no best past it yet
            Pf[...] = f
        state.swarm_best_f = Pf.reshape(p.swarms, p.walkers).min(axis=1)
        if p.variant == "spso2011":
            state.epochs = np.full(p.swarms, -1, dtype=np.int64)
            state.redrawn = np.ones(p.swarms, dtype=np.bool_)
            state.links = _Links(self, state)
        self.fold_best(state, state.P, state.Pf)
        return state

    def step(self, state: ParticleSwarmNumbaState, iterations: int) -> None:
        self.step_fused(state, iterations, self._iterations)  # the cut iteration in the same launch

    def _iterations(self, state: ParticleSwarmNumbaState, iterations: int, last_active: int) -> None:
        p, T = self.params, self.dtype.type
        self.use_threads()
        common = (state.X, state.V, state.P, state.f, state.Pf, state.swarm_best_f)
        n = self.total_walkers()
        bad = self.nonfinite_counter(n)
        seed, first = np.uint64(self._seed), int(state.iteration)
        walker0 = np.int64(self.walker0)  # a shard's first particle in the split run (keys only)
        if p.variant == "classic":
            coefficients = (T(p.omega), T(p.phi_p), T(p.phi_g), T(p.lr), self.single, bad)
            if self.runs_wide(p.swarms):
                for t in range(first, first + int(iterations)):
                    active = last_active if t + 1 == first + int(iterations) else n
                    pso_classic_wide(*common, self.lower, self.upper, self.fid, int(p.walkers), seed,
                                     np.int64(t), np.int64(active), *coefficients, walker0)
            else:
                pso_classic(*common, self.lower, self.upper, self.fid, int(p.walkers), seed,
                            np.int64(first), int(iterations), np.int64(last_active), *coefficients,
                            walker0)
        else:
            links = (self.lower, self.upper, self.fid, int(p.walkers), int(p.informants), seed)
            if self.runs_wide(p.swarms):
                # scratch: best informants, pending P copies, link targets
                scratch = (np.empty(n, dtype=np.int64), np.empty(n, dtype=np.bool_),
                           np.empty((n, int(p.informants)), dtype=np.int32), int(self.threads))
                for t in range(first, first + int(iterations)):
                    active = last_active if t + 1 == first + int(iterations) else n
                    pso_spso_wide(*common, state.epochs, state.redrawn, *scratch, *links, np.int64(t),
                                  np.int64(active), SPSO_W, SPSO_C, self.single, bad, walker0)
            else:
                pso_spso(*common, state.epochs, state.redrawn, *links, np.int64(first), int(iterations),
                         np.int64(last_active), SPSO_W, SPSO_C, self.single, bad, walker0)
        state.evals += n * (int(iterations) - 1) + int(last_active)
        self.tally_nonfinite(state, bad)
        state.iteration += int(iterations)
        self.fold_best(state, state.P, state.Pf)
