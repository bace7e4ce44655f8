"""Yao, Liu & Lin (1999), "Evolutionary programming made faster", IEEE TEC 3(2): its f1-f13.

These are the pattern-search seed's twelve test functions (Zhu & Curry, seed 000, Appendix A, which
prints only Ackley and Griewank and refers to Yao et al. for the rest), plus f8 as the shifted
Schwefel 2.26 and the noisy quartic f7 as its own entry. Boxes are Yao's, except Ackley, whose box is
the seed's [-30, 30] (Yao: [-32, 32]) so that the seed's Delta_0 = range / 20 is reproduced.

Every ``fn(xp, X)`` is written against the array module ``xp`` (NumPy or CuPy) on X of shape (n, d)
and returns shape (n,) in X's dtype: constants are Python floats (weak scalars that never upcast
float32) and index weights are built with ``dtype=X.dtype``. Each function has a twin functor in
kernels/problems.cuh that follows the same formula term by term and in the same order of operations
(constants folded in double first, then rounded to the working type), so the two differ by rounding
of sums only.
"""
from __future__ import annotations

import math

import numpy as np

from .base import SA_ASYNC_DEFAULTS, SA_HYBRID_DEFAULTS, ProblemDef, box, register

GROUP = "Yao, Liu & Lin 1999"
SOURCE = "Yao, Liu & Lin 1999, Evolutionary programming made faster, IEEE TEC 3(2), "

TWO_PI = 2.0 * math.pi
THREE_PI = 3.0 * math.pi

# Schwefel 2.26: the per-coordinate minimiser of -x sin(sqrt|x|) solves tan(sqrt x) = -sqrt(x)/2
# (derivative set to zero); Newton's method in float64 gives the root and the value below.
SCHWEFEL_X = 420.968746359982
SCHWEFEL_G = -418.98288727243374  # -SCHWEFEL_X * sin(sqrt(SCHWEFEL_X))
SCHWEFEL_226_SHIFT = 418.9829  # the constant of the shifted form (the 418.9829 n - ...)


def _weights(xp, X):
    """1, 2, ..., d in X's dtype (so that float32 input stays float32)."""
    return xp.arange(1, X.shape[1] + 1, dtype=X.dtype)


def _sphere(xp, X):
    return xp.sum(X * X, axis=1)


def _schwefel_2_22(xp, X):
    a = xp.abs(X)
    return xp.sum(a, axis=1) + xp.prod(a, axis=1)


def _schwefel_1_2(xp, X):
    c = xp.cumsum(X, axis=1)
    return xp.sum(c * c, axis=1)


def _schwefel_2_21(xp, X):
    return xp.max(xp.abs(X), axis=1)


def _rosenbrock(xp, X):
    head = X[:, :-1]
    a = X[:, 1:] - head * head
    b = head - 1.0
    return xp.sum(100.0 * a * a + b * b, axis=1)


def _step(xp, X):
    s = xp.floor(X + 0.5)
    return xp.sum(s * s, axis=1)


def _quartic(xp, X):
    x2 = X * X
    return xp.sum(_weights(xp, X) * (x2 * x2), axis=1)


# --- the noise of the noisy quartic ------------------------------------------------------------
# Yao's f7 adds random[0, 1). A run must be reproducible and the cuda engine must agree with the
# numpy one, so the noise is a pure function of the point: a hash of the float64 bit patterns of its
# coordinates (the float32 value widened exactly to float64 first, so a point has the same noise in
# both dtypes), chained coordinate by coordinate through the SplitMix64 finaliser, starting from the
# 64-bit golden ratio; the top 53 bits of the final word scaled by 2^-53 give a value in [0, 1).
# -0.0 and +0.0 have different bit patterns and therefore different noise.
NOISE_SEED = 0x9E3779B97F4A7C15
_MIX1 = 0xBF58476D1CE4E5B9
_MIX2 = 0x94D049BB133111EB


def _splitmix_finalise(xp, z):
    u = xp.uint64  # explicit uint64 operands: uint64 arrays wrap modulo 2^64 on NumPy and CuPy
    z = z ^ (z >> u(30))
    z = z * u(_MIX1)
    z = z ^ (z >> u(27))
    z = z * u(_MIX2)
    return z ^ (z >> u(31))


def point_noise(xp, X):
    """Reproducible noise in [0, 1) for each row of X (see the comment above), in X's dtype."""
    h = xp.full(X.shape[0], xp.uint64(NOISE_SEED), dtype=xp.uint64)
    for j in range(X.shape[1]):
        bits = X[:, j].astype(xp.float64).view(xp.uint64)
        h = _splitmix_finalise(xp, h ^ bits)
    unit = (h >> xp.uint64(11)).astype(xp.float64) * (1.0 / 9007199254740992.0)  # * 2^-53
    return unit.astype(X.dtype)


def _quartic_noisy(xp, X):
    return _quartic(xp, X) + point_noise(xp, X)


def _schwefel_2_26(xp, X):
    return SCHWEFEL_226_SHIFT * X.shape[1] - xp.sum(X * xp.sin(xp.sqrt(xp.abs(X))), axis=1)


def _rastrigin(xp, X):
    return xp.sum(X * X - 10.0 * xp.cos(TWO_PI * X) + 10.0, axis=1)


def _ackley(xp, X):
    d = X.shape[1]
    s1 = xp.sum(X * X, axis=1)
    s2 = xp.sum(xp.cos(TWO_PI * X), axis=1)
    return -20.0 * xp.exp(-0.2 * xp.sqrt(s1 / d)) - xp.exp(s2 / d) + 20.0 + math.e


def _griewank(xp, X):
    s = xp.sum(X * X, axis=1)
    p = xp.prod(xp.cos(X / xp.sqrt(_weights(xp, X))), axis=1)
    return s / 4000.0 - p + 1.0


def penalty_u(xp, X, a: float, k: float):
    """Yao's u(x, a, k, 4) summed over coordinates: k (x - a)^4 above a, k (-x - a)^4 below -a."""
    hi = xp.maximum(X - a, 0.0)
    lo = xp.maximum(-X - a, 0.0)
    hi2 = hi * hi
    lo2 = lo * lo
    return xp.sum(k * (hi2 * hi2) + k * (lo2 * lo2), axis=1)


def _penalized_1(xp, X):
    d = X.shape[1]
    Y = 1.0 + (X + 1.0) / 4.0
    s = xp.sin(math.pi * Y)
    s2 = s * s
    ym = Y - 1.0
    body = 10.0 * s2[:, 0] + xp.sum(ym[:, :-1] * ym[:, :-1] * (1.0 + 10.0 * s2[:, 1:]), axis=1)
    body = body + ym[:, -1] * ym[:, -1]
    return (math.pi / d) * body + penalty_u(xp, X, 10.0, 100.0)


def penalized_2_body(xp, X):
    """The bracket of Yao's f13 times 0.1: also Levy & Montalvo's second function (LM2)."""
    s = xp.sin(THREE_PI * X)
    s2 = s * s
    xm = X - 1.0
    last = X[:, -1]
    t = xp.sin(TWO_PI * last)
    body = s2[:, 0] + xp.sum(xm[:, :-1] * xm[:, :-1] * (1.0 + s2[:, 1:]), axis=1)
    body = body + xm[:, -1] * xm[:, -1] * (1.0 + t * t)
    return 0.1 * body


def _penalized_2(xp, X):
    return penalized_2_body(xp, X) + penalty_u(xp, X, 5.0, 100.0)


def _zeros(d):
    return np.zeros(d)


def _yao(name, title, fn, lo, hi, functor, f_min=lambda d: 0.0, x_min=_zeros, **kw):
    fnum = title.rsplit("(", 1)[-1].rstrip(")")
    register(ProblemDef(name=name, title=title, group=GROUP, source=SOURCE + fnum, fn=fn,
                        bounds=box(lo, hi), f_min=f_min, x_min=x_min, cuda_functor=functor, **kw))


_yao("sphere", "Sphere (f1)", _sphere, -100, 100, "Sphere")
_yao("schwefel_2_22", "Schwefel 2.22 (f2)", _schwefel_2_22, -10, 10, "Schwefel222")
_yao("schwefel_1_2", "Schwefel 1.2 (f3)", _schwefel_1_2, -100, 100, "Schwefel12")
_yao("schwefel_2_21", "Schwefel 2.21 (f4)", _schwefel_2_21, -100, 100, "Schwefel221")
_yao("rosenbrock", "Rosenbrock (f5)", _rosenbrock, -30, 30, "Rosenbrock", min_dim=2,
     x_min=lambda d: np.ones(d), param_defaults=SA_HYBRID_DEFAULTS,
     notes="Simulated annealing defaults to variant hybrid (async annealing, then Nelder-Mead) here: "
           "sync stops in the curved valley (f ~ 0.1) at the default budget, async under an "
           "evaluation budget.")
_yao("step", "Step (f6)", _step, -100, 100, "Step",
     notes="Flat at 0 on the whole cube [-0.5, 0.5)^d.")
_yao("quartic", "Quartic, noise-free (f7)", _quartic, -1.28, 1.28, "Quartic",
     notes="Yao's f7 without its random[0, 1) term.")
_yao("quartic_noisy", "Quartic with noise (f7)", _quartic_noisy, -1.28, 1.28, "QuarticNoisy",
     f_min=lambda d: None,
     notes="f7 = sum i x_i^4 + noise in [0, 1); the noise is a hash of the point (reproducible, the "
           "same on every engine), so the infimum 0 is approached but never attained.")
_yao("schwefel_2_26", "Schwefel 2.26, offset (f8)", _schwefel_2_26, -500, 500, "Schwefel226",
     f_min=lambda d: d * (SCHWEFEL_226_SHIFT + SCHWEFEL_G), x_min=lambda d: np.full(d, SCHWEFEL_X),
     notes="418.9829 d - sum x_i sin(sqrt|x_i|): Yao's f8 offset by the constant 418.9829 d (not "
           "shifted in x: the minimiser stays at x_i = 420.9687) so that its minimum is about 0 "
           "(1.27e-5 d, since 418.9829 rounds the true 418.98288727...).")
_yao("rastrigin", "Rastrigin (f9)", _rastrigin, -5.12, 5.12, "Rastrigin")
_yao("ackley", "Ackley (f10)", _ackley, -30, 30, "Ackley",
     notes="Box [-30, 30] as in the pattern-search seed's Appendix A (Yao: [-32, 32]).")
_yao("griewank", "Griewank (f11)", _griewank, -600, 600, "Griewank", param_defaults=SA_ASYNC_DEFAULTS,
     notes="Simulated annealing defaults to variant async here: sync stops in the local minimum "
           "f = 0.0037 in half the seeds.")
_yao("penalized_1", "Generalized penalized 1 (f12)", _penalized_1, -50, 50, "Penalized1",
     x_min=lambda d: -np.ones(d))
_yao("penalized_2", "Generalized penalized 2 (f13)", _penalized_2, -50, 50, "Penalized2",
     x_min=lambda d: np.ones(d))
