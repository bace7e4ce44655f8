"""The test suite of the simulated-annealing seed (Ferreiro et al. 2013, seed 002, its Appendix A).

The seed's plain text lost every formula and box. They are restored from, in this order:
1. the seed authors' own code, CUSIMANN (the samples of its public release): the normalised
   Schwefel function and its box [-512, 512]; the modified Langerman formula and table; the
   modified Shekel foxholes table (row 7, column 5 = 4.584, where some copies print 0.584);
2. Ali, Khompatraporn & Zabinsky 2005, "A numerical evaluation of several stochastic algorithms on
   selected continuous global optimization test problems" (J. Global Optim. 31), the usual source
   of this suite, for the other formulas and every box, except where noted on the definition;
3. the standard literature definition (named on the definition) where neither has the function.
Ackley, Griewank, Rastrigin and Rosenbrock of the suite are Yao's (registered in yao.py).

Minima without a closed form (Langerman, foxholes, Dekkers-Aarts, Shekel, six-hump camel) were
found by multistart local optimisation in float64 and agree with the published values quoted on each
definition; Michalewicz and Shubert minima come from 1-D minimisations (both are built from 1-D
terms). The same conventions as yao.py hold: Python-float constants, tables converted to X's dtype
with ``xp.asarray`` inside ``fn``, and twin functors in kernels/problems.cuh.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from .base import SA_ASYNC_DEFAULTS, ProblemDef, box, boxes, register
from .yao import SCHWEFEL_G, SCHWEFEL_X, TWO_PI, penalized_2_body

GROUP = "Simulated annealing suite (Ferreiro et al. 2013)"
SEED = "Ferreiro et al. 2013, J. Global Optim. 57 (seed 002), "
AKZ = "Ali, Khompatraporn & Zabinsky 2005"
FIVE_PI = 5.0 * math.pi

# The modified Shekel foxholes (Bersini et al. 1996, 2nd ICEO), as in CUSIMANN.
FOXHOLES_A = np.array([
    [9.681, 0.667, 4.783, 9.095, 3.517, 9.325, 6.544, 0.211, 5.122, 2.020],
    [9.400, 2.041, 3.788, 7.931, 2.882, 2.672, 3.568, 1.284, 7.033, 7.374],
    [8.025, 9.152, 5.114, 7.621, 4.564, 4.711, 2.996, 6.126, 0.734, 4.982],
    [2.196, 0.415, 5.649, 6.979, 9.510, 9.166, 6.304, 6.054, 9.377, 1.426],
    [8.074, 8.777, 3.467, 1.863, 6.708, 6.349, 4.534, 0.276, 7.633, 1.567],
    [7.650, 5.658, 0.720, 2.764, 3.278, 5.283, 7.474, 6.274, 1.409, 8.208],
    [1.256, 3.605, 8.623, 6.905, 4.584, 8.133, 6.071, 6.888, 4.187, 5.448],
    [8.314, 2.261, 4.224, 1.781, 4.124, 0.932, 8.129, 8.658, 1.208, 5.762],
    [0.226, 8.858, 1.420, 0.945, 1.622, 4.698, 6.228, 9.096, 0.972, 7.637],
    [7.305, 2.228, 1.242, 5.928, 9.133, 1.826, 4.060, 5.204, 8.713, 8.247],
    [0.652, 7.027, 0.508, 4.876, 8.807, 4.632, 5.808, 6.937, 3.291, 7.016],
    [2.699, 3.516, 5.874, 4.119, 4.461, 7.496, 8.817, 0.690, 6.593, 9.789],
    [8.327, 3.897, 2.017, 9.570, 9.825, 1.150, 1.395, 3.885, 6.354, 0.109],
    [2.132, 7.006, 7.136, 2.641, 1.882, 5.943, 7.273, 7.691, 2.880, 0.564],
    [4.707, 5.579, 4.080, 0.581, 9.698, 8.542, 8.077, 8.515, 9.231, 4.670],
    [8.304, 7.559, 8.567, 0.322, 7.128, 8.392, 1.472, 8.524, 2.277, 7.826],
    [8.632, 4.409, 4.832, 5.768, 7.050, 6.715, 1.711, 4.323, 4.405, 4.591],
    [4.887, 9.112, 0.170, 8.967, 9.693, 9.867, 7.508, 7.770, 8.382, 6.740],
    [2.440, 6.686, 4.299, 1.007, 7.008, 1.427, 9.398, 8.480, 9.950, 1.675],
    [6.306, 8.583, 6.084, 1.138, 4.350, 3.134, 7.853, 6.061, 7.457, 2.258],
    [0.652, 2.343, 1.370, 0.821, 1.310, 1.063, 0.689, 8.819, 8.833, 9.070],
    [5.558, 1.272, 5.756, 9.857, 2.279, 2.764, 1.284, 1.677, 1.244, 1.234],
    [3.352, 7.549, 9.817, 9.437, 8.687, 4.167, 2.570, 6.540, 0.228, 0.027],
    [8.798, 0.880, 2.370, 0.168, 1.701, 3.680, 1.231, 2.390, 2.499, 0.064],
    [1.460, 8.057, 1.336, 7.217, 7.914, 3.615, 9.981, 9.198, 5.292, 1.224],
    [0.432, 8.645, 8.774, 0.249, 8.081, 7.461, 4.416, 0.652, 4.002, 4.644],
    [0.679, 2.800, 5.523, 3.049, 2.968, 7.225, 6.730, 4.199, 9.614, 9.229],
    [4.263, 1.074, 7.286, 5.599, 8.291, 5.200, 9.214, 8.272, 4.398, 4.506],
    [9.496, 4.830, 3.150, 8.270, 5.079, 1.231, 5.731, 9.494, 1.883, 9.732],
    [4.138, 2.562, 2.532, 9.661, 5.611, 5.500, 6.886, 2.341, 9.699, 6.500],
])
FOXHOLES_C = np.array([
    0.806, 0.517, 0.100, 0.908, 0.965, 0.669, 0.524, 0.902, 0.531, 0.876,
    0.462, 0.491, 0.463, 0.714, 0.352, 0.869, 0.813, 0.811, 0.828, 0.964,
    0.789, 0.360, 0.369, 0.992, 0.332, 0.817, 0.632, 0.883, 0.608, 0.326,
])

# The modified Langerman function uses the first 5 rows of the same table and the same c.
LANGERMAN_A = FOXHOLES_A[:5]
LANGERMAN_C = FOXHOLES_C[:5]

# Shekel's family (Dixon & Szego 1978): S_m uses the first m rows.
SHEKEL_A = np.array([
    [4.0, 4.0, 4.0, 4.0], [1.0, 1.0, 1.0, 1.0], [8.0, 8.0, 8.0, 8.0], [6.0, 6.0, 6.0, 6.0],
    [3.0, 7.0, 3.0, 7.0], [2.0, 9.0, 2.0, 9.0], [5.0, 5.0, 3.0, 3.0], [8.0, 1.0, 8.0, 1.0],
    [6.0, 2.0, 6.0, 2.0], [7.0, 3.6, 7.0, 3.6],
])
SHEKEL_C = np.array([0.1, 0.2, 0.2, 0.4, 0.4, 0.6, 0.3, 0.7, 0.5, 0.5])

# Branin's constants (a = 1, b = 5.1 / (4 pi^2), c = 5 / pi, r = 6, s = 10, t = 1 / (8 pi)).
BRANIN_B = 5.1 / (4.0 * math.pi * math.pi)
BRANIN_C = 5.0 / math.pi
BRANIN_S = 10.0 * (1.0 - 1.0 / (8.0 * math.pi))


# --- functions ----------------------------------------------------------------------------------
def _schwefel(xp, X):
    # CUSIMANN's minimizeSchwefel: f = -(1/n) sum x_i sin(sqrt|x_i|)
    return -(xp.sum(X * xp.sin(xp.sqrt(xp.abs(X))), axis=1) / X.shape[1])


def _branin(xp, X):
    x1, x2 = X[:, 0], X[:, 1]
    t = x2 - BRANIN_B * x1 * x1 + BRANIN_C * x1 - 6.0
    return t * t + BRANIN_S * xp.cos(x1) + 10.0


def _cosine_mixture(xp, X):
    # AKZ's minimisation form of Breiman & Cutler's function.
    return -0.1 * xp.sum(xp.cos(FIVE_PI * X), axis=1) + xp.sum(X * X, axis=1)


def _dekkers_aarts(xp, X):
    a = X[:, 0] * X[:, 0]
    b = X[:, 1] * X[:, 1]
    r = a + b
    r2 = r * r
    return 1.0e5 * a + b - r2 + 1.0e-5 * (r2 * r2)


def _easom(xp, X):
    x1, x2 = X[:, 0], X[:, 1]
    p = x1 - math.pi
    q = x2 - math.pi
    return -xp.cos(x1) * xp.cos(x2) * xp.exp(-(p * p + q * q))


def _exponential(xp, X):
    return -xp.exp(-0.5 * xp.sum(X * X, axis=1))


def _goldstein_price(xp, X):
    x1, x2 = X[:, 0], X[:, 1]
    a = x1 + x2 + 1.0
    b = 19.0 - 14.0 * x1 + 3.0 * x1 * x1 - 14.0 * x2 + 6.0 * x1 * x2 + 3.0 * x2 * x2
    c = 2.0 * x1 - 3.0 * x2
    e = 18.0 - 32.0 * x1 + 12.0 * x1 * x1 + 48.0 * x2 - 36.0 * x1 * x2 + 27.0 * x2 * x2
    return (1.0 + a * a * b) * (30.0 + c * c * e)


def _himmelblau(xp, X):
    x1, x2 = X[:, 0], X[:, 1]
    a = x1 * x1 + x2 - 11.0
    b = x1 + x2 * x2 - 7.0
    return a * a + b * b


def _levy_montalvo_1(xp, X):
    Y = 1.0 + (X + 1.0) / 4.0
    d = X.shape[1]
    head = 10.0 * xp.sin(math.pi * Y[:, 0]) ** 2
    body = xp.sum((Y[:, :-1] - 1.0) ** 2 * (1.0 + 10.0 * xp.sin(math.pi * Y[:, 1:]) ** 2), axis=1)
    return (math.pi / d) * (head + body + (Y[:, -1] - 1.0) ** 2)


def _levy_montalvo_2(xp, X):
    return penalized_2_body(xp, X)


def _langerman(xp, X):
    d = X.shape[1]
    A = xp.asarray(LANGERMAN_A[:, :d], dtype=X.dtype)
    C = xp.asarray(LANGERMAN_C, dtype=X.dtype)
    acc = xp.zeros(X.shape[0], dtype=X.dtype)
    for k in range(A.shape[0]):  # a loop over the table's rows, not over walkers
        diff = X - A[k]
        D = xp.sum(diff * diff, axis=1)
        acc = acc + C[k] * xp.exp(-D / math.pi) * xp.cos(math.pi * D)
    return -acc


def _michalewicz(xp, X):
    S = xp.sin(xp.arange(1, X.shape[1] + 1, dtype=X.dtype) * X * X / math.pi)
    S2 = S * S
    S4 = S2 * S2
    S8 = S4 * S4
    S16 = S8 * S8
    return -xp.sum(xp.sin(X) * (S16 * S4), axis=1)  # m = 10: sin^(2m) = sin^20


def _salomon(xp, X):
    r = xp.sqrt(xp.sum(X * X, axis=1))
    return 1.0 - xp.cos(TWO_PI * r) + 0.1 * r


def _six_hump_camel(xp, X):
    x1, x2 = X[:, 0], X[:, 1]
    a = x1 * x1
    b = x2 * x2
    return (4.0 - 2.1 * a + a * a / 3.0) * a + x1 * x2 + (-4.0 + 4.0 * b) * b


def shubert_factor(xp, x):
    """sum_{j=1..5} j cos((j + 1) x + j), for one coordinate column x."""
    g = xp.zeros_like(x)
    for j in range(1, 6):
        g = g + float(j) * xp.cos(float(j + 1) * x + float(j))
    return g


def _shubert(xp, X):
    prod = shubert_factor(xp, X[:, 0])
    for i in range(1, X.shape[1]):  # a loop over dimensions
        prod = prod * shubert_factor(xp, X[:, i])
    return prod


def _inverse_distance_sum(xp, X, A_table, C_table):
    """-sum_k 1 / (|x - a_k|^2 + c_k): the Shekel and foxholes form."""
    A = xp.asarray(A_table[:, :X.shape[1]], dtype=X.dtype)
    C = xp.asarray(C_table, dtype=X.dtype)
    acc = xp.zeros(X.shape[0], dtype=X.dtype)
    for k in range(A.shape[0]):
        diff = X - A[k]
        acc = acc + 1.0 / (xp.sum(diff * diff, axis=1) + C[k])
    return -acc


def _shekel(m):
    def fn(xp, X):
        return _inverse_distance_sum(xp, X, SHEKEL_A[:m], SHEKEL_C[:m])
    fn.__name__ = f"_shekel_{m}"
    return fn


def _foxholes(xp, X):
    return _inverse_distance_sum(xp, X, FOXHOLES_A, FOXHOLES_C)


# --- minima that are computed rather than tabulated ------------------------------------------
def _michalewicz_term(i, x):
    """The i-th Michalewicz term -sin(x) sin^20(i x^2 / pi) (i and x arrays of one shape)."""
    return -np.sin(x) * np.sin(i * x * x / math.pi) ** 20


def _golden_minimise(g, lo, hi, iterations=90):
    """Golden-section minimisation of a vectorised g over the brackets [lo, hi] (arrays)."""
    r = (math.sqrt(5.0) - 1.0) / 2.0
    a, b = lo.astype(np.float64), hi.astype(np.float64)
    c, e = b - r * (b - a), a + r * (b - a)
    gc, ge = g(c), g(e)
    for _ in range(iterations):
        left = gc < ge  # the minimum lies in [a, e]: drop (e, b]; else drop [a, c)
        a, b = np.where(left, a, c), np.where(left, e, b)
        c, e = np.where(left, b - r * (b - a), e), np.where(left, c, a + r * (b - a))
        gc, ge = np.where(left, g(c), ge), np.where(left, gc, g(e))
    x = (a + b) / 2.0
    return x, g(x)


@functools.lru_cache(maxsize=8)
def michalewicz_minima(d: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-coordinate (argmins, minima) of the Michalewicz terms i = 1..d, each over [0, pi].

    The function is a sum of 1-D terms, so its minimum is the sum of theirs. sin^20(i x^2 / pi)
    peaks where i x^2 / pi = pi (k + 1/2), k = 0..i-1, and between two zeros of sin(i x^2 / pi) the
    term has one minimum; the three peaks with the lowest term values are refined by golden section
    between their bracketing zeros and the best kept. All terms are handled at once (no loop over i).
    """
    counts = np.arange(1, d + 1)
    i = np.repeat(counts, counts).astype(np.float64)
    k = np.arange(i.size) - np.repeat(np.cumsum(counts) - counts, counts)
    values = _michalewicz_term(i, math.pi * np.sqrt((k + 0.5) / i))
    order = np.lexsort((values, i))  # grouped by i (same group slots as k), best peaks first
    pick = order[k < 3]  # k doubles as the rank within each group
    ip, kp = i[pick], k[pick]
    lo = math.pi * np.sqrt(kp / ip)
    hi = math.pi * np.sqrt(np.minimum(kp + 1.0, ip) / ip)
    x, v = _golden_minimise(lambda z: _michalewicz_term(ip, z), lo, hi)
    best = np.lexsort((v, ip))
    first = np.r_[True, ip[best][1:] != ip[best][:-1]]
    return x[best][first], v[best][first]


def _michalewicz_x_min(d):
    return michalewicz_minima(d)[0].copy()


def _michalewicz_f_min(d):
    return math.fsum(michalewicz_minima(d)[1])


# Shubert: the 1-D factor g(x) = sum j cos((j+1) x + j) has min G_MIN and max G_MAX on [-10, 10]
# (grid of 2e6 points, then Brent). A product of d factors is smallest with one factor at G_MIN and
# the others at G_MAX, because G_MAX > |G_MIN|: f* = G_MIN G_MAX^(d-1); d = 2 gives the published
# -186.7309 (Levy & Montalvo 1985; AKZ).
SHUBERT_G_MIN, SHUBERT_X_GMIN = -12.870885497725686, -1.4251284283271999
SHUBERT_G_MAX, SHUBERT_X_GMAX = 14.508007927195033, -0.800321100469009


def _shubert_f_min(d):
    try:
        return SHUBERT_G_MIN * SHUBERT_G_MAX ** (d - 1)
    except OverflowError:  # d > ~265: beyond float64, as are the function's values there
        return None


# Multistart L-BFGS-B + Nelder-Mead in float64 (2000-4000 starts plus every table row).
LANGERMAN_MINIMA = {  # AKZ: -0.965 for n = 5, 10; the n = 2 value -1.0809 is also the published one
    2: (-1.0809384576510122, [9.681070709294, 0.666651541855]),
    5: (-0.9649999197933318, [8.073999879614, 8.777000851307, 3.467003730437, 1.863013058293,
                              6.707995133322]),
    10: (-0.965, LANGERMAN_A[4].tolist()),  # the 5th row: the other rows add terms below 1e-30
}
FOXHOLES_MINIMA = {  # AKZ: -10.4056 (n = 5), -10.2087 (n = 10)
    2: (-12.11900837975359, [8.024065317533, 9.146534038971]),
    5: (-10.405617238992441, [8.024914886162, 9.151725754265, 5.113927810626, 7.620860955708,
                              4.564088392431]),
    10: (-10.208792792153835, [8.024966817167, 9.151928380583, 5.113991014439, 7.620959243275,
                               4.564022046423, 4.711005069423, 2.996030607804, 6.125993025387,
                               0.734057732828, 4.981999375088]),
}
SHEKEL_MINIMA = {  # Dixon & Szego / AKZ: -10.1532, -10.4029, -10.5364
    5: (-10.153199679058229, [4.000037152376549, 4.000133278657566, 4.000037151057555,
                              4.000133277090425]),
    7: (-10.402940566818662, [4.000572914277084, 4.000689366040889, 3.999489710793845,
                              3.999606160006792]),
    10: (-10.536409816692045, [4.000746530253313, 4.000592936779709, 3.999663395771479,
                               3.999509799329998]),
}


def _tabulated(table):
    """f_min and x_min callables from {dim: (f, x)}; None for the other dimensions."""
    def f_min(d):
        return table[d][0] if d in table else None

    def x_min(d):
        return np.asarray(table[d][1], dtype=np.float64) if d in table else None
    return f_min, x_min


# --- registration -----------------------------------------------------------------------------
def _suite(name, title, fn, bounds, functor, source, **kw):
    register(ProblemDef(name=name, title=title, group=GROUP, source=source, fn=fn, bounds=bounds,
                        cuda_functor=functor, **kw))


_suite("schwefel", "Schwefel, normalised (F0)", _schwefel, box(-512, 512), "SchwefelNormalized",
       SEED + "eq. (6); CUSIMANN minimizeSchwefel",
       f_min=lambda d: SCHWEFEL_G, x_min=lambda d: np.full(d, SCHWEFEL_X),
       notes="-(1/n) sum x_i sin(sqrt|x_i|) on [-512, 512]^n: the minimum -418.9829 does not grow "
             "with n.")
_suite("branin", "Branin (F2)", _branin, boxes([-5.0, 0.0], [10.0, 15.0]), "Branin",
       SEED + "test 2; Dixon & Szego 1978", dims=(2,),
       f_min=lambda d: 5.0 / (4.0 * math.pi), x_min=lambda d: np.array([math.pi, 2.275]),
       x_mins=lambda d: [(-math.pi, 12.275), (math.pi, 2.275), (3.0 * math.pi, 2.475)],
       notes="Three global minima 5/(4 pi) = 0.397887: (-pi, 12.275), (pi, 2.275), (3 pi, 2.475).")
_suite("cosine_mixture", "Cosine mixture (F3)", _cosine_mixture, box(-1, 1), "CosineMixture",
       SEED + f"test 3; Breiman & Cutler 1993, minimisation form of {AKZ}",
       f_min=lambda d: -0.1 * d, x_min=lambda d: np.zeros(d))
_suite("dekkers_aarts", "Dekkers & Aarts (F4)", _dekkers_aarts, box(-20, 20), "DekkersAarts",
       SEED + f"test 4; Dekkers & Aarts 1991; {AKZ}", dims=(2,),
       # x2* = sqrt(u), u the root near 223.6 of 4e-5 u^3 - 2 u + 1 = 0 (df/dx2 = 0 at x1 = 0)
       f_min=lambda d: -24776.51834231768, x_min=lambda d: np.array([0.0, 14.945112151891957]),
       notes="Two global minima (0, +-14.9451) with f = -24776.518 (often quoted as (0, +-15)).")
_suite("easom", "Easom (F5)", _easom, box(-10, 10), "Easom",
       SEED + f"test 5; Michalewicz 1996; box of {AKZ}", dims=(2,),
       f_min=lambda d: -1.0, x_min=lambda d: np.array([math.pi, math.pi]))
_suite("exponential", "Exponential (F6)", _exponential, box(-1, 1), "Exponential",
       SEED + f"test 6; Breiman & Cutler 1993; {AKZ}",
       f_min=lambda d: -1.0, x_min=lambda d: np.zeros(d))
_suite("goldstein_price", "Goldstein & Price (F7)", _goldstein_price, box(-2, 2), "GoldsteinPrice",
       SEED + "test 7; Dixon & Szego 1978", dims=(2,),
       f_min=lambda d: 3.0, x_min=lambda d: np.array([0.0, -1.0]))
_suite("himmelblau", "Himmelblau (F9)", _himmelblau, box(-5, 5), "Himmelblau",
       SEED + "test 9; Himmelblau 1972", dims=(2,),
       f_min=lambda d: 0.0, x_min=lambda d: np.array([3.0, 2.0]),
       x_mins=lambda d: [(3.0, 2.0), (-2.805118, 3.131312), (-3.779310, -3.283186), (3.584428, -1.848126)],
       notes="Four global minima with f = 0: (3, 2), (-2.805118, 3.131312), (-3.779310, -3.283186), "
             "(3.584428, -1.848126). Box [-5, 5]^2 (the seed's CUSIMANN sample uses [-6, 6]^2).")
_suite("levy_montalvo_1", "Levy & Montalvo 1 (F10)", _levy_montalvo_1, box(-10, 10), "LevyMontalvo1",
       SEED + f"test 10; Levy & Montalvo 1985, LM1 of {AKZ}; CUSIMANN minimizeLevyMontalvo",
       f_min=lambda d: 0.0, x_min=lambda d: -np.ones(d),
       notes="LM1: y = 1 + (x + 1)/4, (pi/n) [10 sin^2(pi y1) + sum (y_i - 1)^2 (1 + 10 sin^2(pi y_i+1)) "
             "+ (y_n - 1)^2] on [-10, 10]^n, about 5^n local minima: the variant of the annealing "
             "seed's code base (CUSIMANN's minimizeLevyMontalvo sample), which its garbled F10 fits.")
_suite("levy_montalvo_2", "Levy & Montalvo 2", _levy_montalvo_2, box(-5, 5), "LevyMontalvo2",
       SEED + f"(not its F10, which is LM1); Levy & Montalvo 1985, LM2 of {AKZ}",
       f_min=lambda d: 0.0, x_min=lambda d: np.ones(d),
       notes="LM2: 0.1 [sin^2(3 pi x1) + sum (x_i - 1)^2 (1 + sin^2(3 pi x_i+1)) + (x_n - 1)^2 "
             "(1 + sin^2(2 pi x_n))], about 15^n local minima; the seed's n = 2, 5, 10 are AKZ's "
             "LM2 dimensions. Equal to Yao's f13 without its penalty.")
_LANGERMAN_F, _LANGERMAN_X = _tabulated(LANGERMAN_MINIMA)
_suite("langerman", "Modified Langerman (F11)", _langerman, box(0, 10), "Langerman",
       SEED + "test 11; Bersini et al. 1996 (ICEO); CUSIMANN minimizeLangerman",
       dims=tuple(range(1, 11)), f_min=_LANGERMAN_F, x_min=_LANGERMAN_X,
       notes="-sum_k c_k exp(-|x - a_k|^2 / pi) cos(pi |x - a_k|^2), 5 rows, n <= 10. Minimum known "
             "for n = 2 (-1.0809), 5 (-0.96500) and 10 (-0.965).")
_suite("michalewicz", "Michalewicz (F12)", _michalewicz, box(0, math.pi), "Michalewicz",
       SEED + "test 12; Michalewicz 1996, m = 10",
       f_min=_michalewicz_f_min, x_min=_michalewicz_x_min,
       notes="m = 10. Separable, so the minimum is computed coordinate by coordinate for any n "
             "(n = 2, 5, 10: -1.8013, -4.687658, -9.66015).")
_suite("salomon", "Salomon (F15)", _salomon, box(-100, 100), "Salomon",
       SEED + f"test 15; Salomon 1995; {AKZ}",
       f_min=lambda d: 0.0, x_min=lambda d: np.zeros(d), param_defaults=SA_ASYNC_DEFAULTS,
       notes="Simulated annealing defaults to variant async here: sync stops on a ring (f = 0.1 at "
             "|x| = 1) in most seeds.")
_suite("six_hump_camel", "Six-hump camel back (F16)", _six_hump_camel, box(-5, 5), "SixHumpCamel",
       SEED + f"test 16; Dixon & Szego 1978; box of {AKZ}", dims=(2,),
       f_min=lambda d: -1.031628453489877,
       x_min=lambda d: np.array([0.08984201368301331, -0.7126564032704135]),
       x_mins=lambda d: [(0.08984201368301331, -0.7126564032704135),
                         (-0.08984201368301331, 0.7126564032704135)],
       notes="Two global minima -1.0316 at +-(0.089842, -0.712656).")
_suite("shubert", "Shubert (F17)", _shubert, box(-10, 10), "Shubert",
       SEED + f"test 17; Levy & Montalvo 1985; {AKZ}",
       f_min=_shubert_f_min,
       x_min=lambda d: np.array([SHUBERT_X_GMIN] + [SHUBERT_X_GMAX] * (d - 1)),
       notes="prod_i sum_j j cos((j+1) x_i + j); n = 2: 760 local minima, 18 global (-186.7309).")
# Simulated annealing runs its chains independently (async) here by default. Shekel's minima are
# narrow wells on a plateau near 0, and each well's centre differs from the others' in every
# coordinate. Sync restarts every chain from the best point after each temperature level; a chain
# moves one coordinate per proposal, so from a wrong well it must cross the plateau and descend
# into the global well within one level, which it does not: the run ends in the well the best point
# reached first (f about -5.1 at (1, 1, 1, 1) or (8, 8, 8, 8); the minima, at (4, 4, 4, 4), are
# -10.15 to -10.54). Seeds 0..19 at the default budget (100 iterations of 16,384 chains): sync
# 15, 16, 16 of 20 converged (S5, S7, S10), async 20 each; at 1e4, 1e5, 1e6 evaluations sync 0-6
# of 20, async 18-20. No sync schedule (longer levels, a higher T0, more chains, 10x the
# iterations) came near 20 without losing 4-D and 10-D rastrigin, where sync is the better variant
# (docs/benchmarks/sa-sync-shekel.md; scripts/sa_default_seeds.py counts the seeds).
SHEKEL_PARAM_DEFAULTS = SA_ASYNC_DEFAULTS  # variant async; the hybrid anneals async (hybrid_base)
for _m in (5, 7, 10):
    _suite(f"shekel_{_m}", f"Shekel {_m} (F18)", _shekel(_m), box(0, 10), f"Shekel{_m}",
           SEED + "test 18; Dixon & Szego 1978", dims=(4,),
           f_min=functools.partial(lambda m, d: SHEKEL_MINIMA[m][0], _m),
           x_min=functools.partial(lambda m, d: np.asarray(SHEKEL_MINIMA[m][1]), _m),
           default_dim=4, param_defaults=SHEKEL_PARAM_DEFAULTS,
           notes=f"-sum_k 1 / (|x - a_k|^2 + c_k) over the first {_m} rows. Simulated annealing "
                 "defaults to variant async here: sync's restart of every chain from the best point "
                 "after each level leaves the run in a wrong well in 4 or 5 seeds of 20 at the "
                 "default budget, and in most seeds under an evaluation budget.")
_FOX_F, _FOX_X = _tabulated(FOXHOLES_MINIMA)
_suite("shekel_foxholes", "Modified Shekel foxholes (F19)", _foxholes, box(0, 10), "ShekelFoxholes",
       SEED + "test 19; Bersini et al. 1996 (ICEO); CUSIMANN minimizeShekelFoxholes",
       dims=tuple(range(1, 11)), f_min=_FOX_F, x_min=_FOX_X,
       notes="-sum_k 1 / (|x - a_k|^2 + c_k), 30 rows, n <= 10. Minimum known for n = 2 (-12.1190), "
             "5 (-10.4056) and 10 (-10.2088).")
