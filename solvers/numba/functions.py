"""Every built-in objective as a compiled scalar function of one point, for the numba engine.

The twin of kernels/problems.cuh: one function per functor, following the NumPy formula of
solvers/problems term by term (same order of operations, sums over j = 0..d-1). A point of either
dtype is evaluated in float64 (the kernels copy a float32 point into a float64 work row), so each
function compiles once and float32 runs differ from NumPy's float32 arithmetic by rounding only.
``evaluate(fid, x)`` dispatches on an integer id; ``function_id(problem)`` maps a problem to it by
its ``cuda_functor`` name, the name both compiled engines share. A typed expression's "id" is its
compiled callback (solvers/numba/expression.py): the kernels pass ``fid`` on to ``counted`` untouched,
and ``objective`` calls the one or the other, so each kernel has one compiled form for the built-ins
and one for every expression.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit, types
from numba.extending import intrinsic, overload

from ..errors import EngineUnavailable
from ..problems.annealing_suite import FOXHOLES_A, FOXHOLES_C, SHEKEL_A, SHEKEL_C
from ..problems.base import refuse_foreign_twin

JIT = dict(nogil=True, cache=True, fastmath=False)
PI = math.pi
E = math.e

# functor name (ProblemDef.cuda_functor) -> id used by evaluate(); order is free but fixed
FUNCTORS = (
    "Sphere", "Schwefel222", "Schwefel12", "Schwefel221", "Rosenbrock", "Step", "Quartic",
    "QuarticNoisy", "Schwefel226", "Rastrigin", "Ackley", "Griewank", "Penalized1", "Penalized2",
    "SchwefelNormalized", "Branin", "CosineMixture", "DekkersAarts", "Easom", "Exponential",
    "GoldsteinPrice", "Himmelblau", "LevyMontalvo", "Langerman", "Michalewicz", "Salomon",
    "SixHumpCamel", "Shubert", "Shekel5", "Shekel7", "Shekel10", "ShekelFoxholes", "SchafferF7",
    "PortfolioVariance", "LevyMontalvo1",
)
FUNCTOR_IDS = {name: i for i, name in enumerate(FUNCTORS)}
FUNCTOR_IDS["LevyMontalvo2"] = FUNCTOR_IDS["LevyMontalvo"]  # LM2 is the penalty-free f13 body

_FOX_A = np.ascontiguousarray(FOXHOLES_A, dtype=np.float64)
_FOX_C = np.ascontiguousarray(FOXHOLES_C, dtype=np.float64)
_SHEKEL_A = np.ascontiguousarray(SHEKEL_A, dtype=np.float64)
_SHEKEL_C = np.ascontiguousarray(SHEKEL_C, dtype=np.float64)

_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_NOISE_SEED = np.uint64(0x9E3779B97F4A7C15)


def function_id(problem):
    """The id of `problem`'s compiled twin, or a typed expression's compiled callback (compiled
    here, once per text); EngineUnavailable for a Python callable, a built-in's or an
    expression's copy with another fn included (refuse_foreign_twin)."""
    definition = problem.definition
    refuse_foreign_twin(problem)  # the id below names a built-in's code or an expression's, not the object's fn
    if definition.expression is not None:
        from .expression import compiled_expression  # noqa: PLC0415 - compiles on first use

        return compiled_expression(definition.expression)
    functor = definition.cuda_functor
    if functor not in FUNCTOR_IDS:
        raise EngineUnavailable(
            f"function '{problem.name}' has no compiled numba twin: a Python callable runs on the "
            f"numpy and cupy engines; write it as an expression ('expr: ...') to run it compiled")
    return FUNCTOR_IDS[functor]


@intrinsic
def _float_bits(typingctx, value):
    """The IEEE bit pattern of a float64 as uint64 (__double_as_longlong)."""
    if value != types.float64:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(types.uint64))
    return types.uint64(types.float64), codegen


@njit(**JIT)
def _splitmix(z):
    z = z ^ (z >> np.uint64(30))
    z = z * _MIX1
    z = z ^ (z >> np.uint64(27))
    z = z * _MIX2
    return z ^ (z >> np.uint64(31))


@njit(**JIT)
def _penalty_u(v, a, k):
    hi = max(v - a, 0.0)
    lo = max(-v - a, 0.0)
    hi2 = hi * hi
    lo2 = lo * lo
    return k * (hi2 * hi2) + k * (lo2 * lo2)


@njit(**JIT)
def _penalized_2_body(x):
    d = x.shape[0]
    s0 = math.sin(3.0 * PI * x[0])
    body = s0 * s0
    for j in range(d - 1):
        xm = x[j] - 1.0
        s = math.sin(3.0 * PI * x[j + 1])
        body += xm * xm * (1.0 + s * s)
    last = x[d - 1]
    xm = last - 1.0
    t = math.sin(2.0 * PI * last)
    body += xm * xm * (1.0 + t * t)
    return 0.1 * body


@njit(**JIT)
def _inverse_distance_sum(x, a, c, m):
    acc = 0.0
    for k in range(m):
        D = 0.0
        for j in range(x.shape[0]):
            t = x[j] - a[k, j]
            D += t * t
        acc += 1.0 / (D + c[k])
    return -acc


@njit(**JIT)
def _sum_squares(x):
    s = 0.0
    for j in range(x.shape[0]):
        s += x[j] * x[j]
    return s


# Rastrigin and Ackley, the benchmark's hot functions, as loops LLVM vectorises: cos(2 pi v) is
# cospi(2 v) (as in kernels/problems.cuh: 2 v is exact) by a polynomial instead of libm's scalar
# cos, and their sums may be reassociated into vector lanes. On one core, 30-D, this took the
# evaluation from 27 M to 256 M terms per second (numpy's array code: 19 M; one loaded 2-core
# machine, /tmp prototype). Sums then differ from the sequential order by rounding only (the
# lane count, 4 or 8, follows the CPU), and cospi is more accurate than cos(2 pi v), whose
# argument is rounded: results agree with numpy to ~1e-15 relative.
VECTOR = dict(nogil=True, cache=True, fastmath={"reassoc", "contract"})


@njit(inline="always", fastmath={"contract"})
def _pi_parts(a):
    """cos and sin of pi r and k = q mod 4 for a = r + q/2, |r| <= 1/4 (exact): Taylor polynomials
    to degree 18/17 (truncation below 1e-19), no branch. cospi and sincospi pick from them."""
    q = np.rint(a + a)
    t = PI * (a - 0.5 * q)
    t2 = t * t
    c = 1.0 + t2 * (-1.0 / 2 + t2 * (1.0 / 24 + t2 * (-1.0 / 720 + t2 * (1.0 / 40320 + t2 * (
        -1.0 / 3628800 + t2 * (1.0 / 479001600 + t2 * (-1.0 / 87178291200 + t2 * (
            1.0 / 20922789888000 + t2 * (-1.0 / 6402373705728000)))))))))
    s = t * (1.0 + t2 * (-1.0 / 6 + t2 * (1.0 / 120 + t2 * (-1.0 / 5040 + t2 * (1.0 / 362880 + t2 * (
        -1.0 / 39916800 + t2 * (1.0 / 6227020800 + t2 * (-1.0 / 1307674368000 + t2 * (
            1.0 / 355687428096000)))))))))
    return c, s, np.int64(q) & 3


@njit(inline="always", fastmath={"contract"})
def cospi(a):
    """cos(pi a) for float64 a (_pi_parts), so a loop over coordinates vectorises. Error about
    1 ulp, as CUDA's cospi."""
    c, s, k = _pi_parts(a)  # cos(pi (r + k/2)): k = 0: c, 1: -s, 2: -c, 3: s
    v = c if (k & 1) == 0 else s
    return -v if (k == 1 or k == 2) else v


@njit(inline="always", fastmath={"contract"})
def sincospi(a):
    """(cos(pi a), sin(pi a)) for float64 a from one _pi_parts: sin(pi (r + k/2)) is s, c, -s, -c."""
    c, s, k = _pi_parts(a)
    odd = (k & 1) == 1
    cv = s if odd else c
    sv = c if odd else s
    return (-cv if (k == 1 or k == 2) else cv), (-sv if k >= 2 else sv)


@njit(**VECTOR)
def _rastrigin(x):
    s = 0.0
    for j in range(x.shape[0]):
        v = x[j]
        s += v * v - 10.0 * cospi(2.0 * v) + 10.0
    return s


@njit(**VECTOR)
def _ackley(x):
    d = x.shape[0]
    s1 = 0.0
    s2 = 0.0
    for j in range(d):
        v = x[j]
        s1 += v * v
        s2 += cospi(2.0 * v)
    return -20.0 * math.exp(-0.2 * math.sqrt(s1 / d)) - math.exp(s2 / d) + 20.0 + E


@njit(**JIT)
def evaluate(fid, x):
    """f(x) of function `fid` at the float64 point x (1-D, contiguous)."""
    d = x.shape[0]
    if fid == 0:  # Sphere
        return _sum_squares(x)
    if fid == 1:  # Schwefel 2.22
        s = 0.0
        p = 1.0
        for j in range(d):
            a = abs(x[j])
            s += a
            p *= a
        return s + p
    if fid == 2:  # Schwefel 1.2
        c = 0.0
        s = 0.0
        for j in range(d):
            c += x[j]
            s += c * c
        return s
    if fid == 3:  # Schwefel 2.21
        m = abs(x[0])
        for j in range(1, d):
            m = max(m, abs(x[j]))
        return m
    if fid == 4:  # Rosenbrock
        s = 0.0
        for j in range(d - 1):
            head = x[j]
            a = x[j + 1] - head * head
            b = head - 1.0
            s += 100.0 * a * a + b * b
        return s
    if fid == 5:  # Step
        s = 0.0
        for j in range(d):
            v = math.floor(x[j] + 0.5)
            s += v * v
        return s
    if fid == 6 or fid == 7:  # Quartic, and with Yao's noise as a hash of the point
        s = 0.0
        h = _NOISE_SEED
        for j in range(d):
            v2 = x[j] * x[j]
            s += (j + 1.0) * (v2 * v2)
            if fid == 7:
                h = _splitmix(h ^ _float_bits(x[j]))
        if fid == 7:
            s += float(h >> np.uint64(11)) * (1.0 / 9007199254740992.0)
        return s
    if fid == 8 or fid == 14:  # Schwefel 2.26 (shifted) and the normalised Schwefel
        s = 0.0
        for j in range(d):
            v = x[j]
            s += v * math.sin(math.sqrt(abs(v)))
        if fid == 8:
            return 418.9829 * d - s
        return -(s / d)
    if fid == 9:  # Rastrigin
        return _rastrigin(x)
    if fid == 10:  # Ackley
        return _ackley(x)
    if fid == 11:  # Griewank
        s = 0.0
        p = 1.0
        for j in range(d):
            v = x[j]
            s += v * v
            p *= math.cos(v / math.sqrt(j + 1.0))
        return s / 4000.0 - p + 1.0
    if fid == 12 or fid == 34:  # Penalized 1, and without its penalty Levy & Montalvo 1
        y = 1.0 + (x[0] + 1.0) / 4.0
        s0 = math.sin(PI * y)
        body = 10.0 * (s0 * s0)
        for j in range(d - 1):
            ym = y - 1.0
            yn = 1.0 + (x[j + 1] + 1.0) / 4.0
            s = math.sin(PI * yn)
            body += ym * ym * (1.0 + 10.0 * (s * s))
            y = yn
        ym = y - 1.0
        body += ym * ym
        if fid == 34:
            return (PI / d) * body
        pen = 0.0
        for j in range(d):
            pen += _penalty_u(x[j], 10.0, 100.0)
        return (PI / d) * body + pen
    if fid == 13:  # Penalized 2
        pen = 0.0
        for j in range(d):
            pen += _penalty_u(x[j], 5.0, 100.0)
        return _penalized_2_body(x) + pen
    if fid == 15:  # Branin
        x1 = x[0]
        x2 = x[1]
        t = x2 - (5.1 / (4.0 * PI * PI)) * x1 * x1 + (5.0 / PI) * x1 - 6.0
        return t * t + (10.0 * (1.0 - 1.0 / (8.0 * PI))) * math.cos(x1) + 10.0
    if fid == 16:  # Cosine mixture
        sc = 0.0
        for j in range(d):
            sc += math.cos(5.0 * PI * x[j])
        return -0.1 * sc + _sum_squares(x)
    if fid == 17:  # Dekkers & Aarts
        a = x[0] * x[0]
        b = x[1] * x[1]
        r = a + b
        r2 = r * r
        return 1.0e5 * a + b - r2 + 1.0e-5 * (r2 * r2)
    if fid == 18:  # Easom
        p = x[0] - PI
        q = x[1] - PI
        return -math.cos(x[0]) * math.cos(x[1]) * math.exp(-(p * p + q * q))
    if fid == 19:  # Exponential
        return -math.exp(-0.5 * _sum_squares(x))
    if fid == 20:  # Goldstein & Price
        x1 = x[0]
        x2 = x[1]
        a = x1 + x2 + 1.0
        b = 19.0 - 14.0 * x1 + 3.0 * x1 * x1 - 14.0 * x2 + 6.0 * x1 * x2 + 3.0 * x2 * x2
        c = 2.0 * x1 - 3.0 * x2
        e = 18.0 - 32.0 * x1 + 12.0 * x1 * x1 + 48.0 * x2 - 36.0 * x1 * x2 + 27.0 * x2 * x2
        return (1.0 + a * a * b) * (30.0 + c * c * e)
    if fid == 21:  # Himmelblau
        a = x[0] * x[0] + x[1] - 11.0
        b = x[0] + x[1] * x[1] - 7.0
        return a * a + b * b
    if fid == 22:  # Levy & Montalvo
        return _penalized_2_body(x)
    if fid == 23:  # Modified Langerman
        acc = 0.0
        for k in range(5):
            D = 0.0
            for j in range(d):
                t = x[j] - _FOX_A[k, j]
                D += t * t
            acc += _FOX_C[k] * math.exp(-D / PI) * math.cos(PI * D)
        return -acc
    if fid == 24:  # Michalewicz, m = 10
        s = 0.0
        for j in range(d):
            v = x[j]
            q = math.sin((j + 1.0) * v * v / PI)
            q2 = q * q
            q4 = q2 * q2
            q8 = q4 * q4
            q16 = q8 * q8
            s += math.sin(v) * (q16 * q4)
        return -s
    if fid == 25:  # Salomon
        r = math.sqrt(_sum_squares(x))
        return 1.0 - math.cos(2.0 * PI * r) + 0.1 * r
    if fid == 26:  # Six-hump camel
        a = x[0] * x[0]
        b = x[1] * x[1]
        return (4.0 - 2.1 * a + a * a / 3.0) * a + x[0] * x[1] + (-4.0 + 4.0 * b) * b
    if fid == 27:  # Shubert
        prod = 1.0
        for i in range(d):
            v = x[i]
            g = 0.0
            for j in range(1, 6):
                g += j * math.cos((j + 1.0) * v + j)
            prod = g if i == 0 else prod * g
        return prod
    if fid == 28:
        return _inverse_distance_sum(x, _SHEKEL_A, _SHEKEL_C, 5)
    if fid == 29:
        return _inverse_distance_sum(x, _SHEKEL_A, _SHEKEL_C, 7)
    if fid == 30:
        return _inverse_distance_sum(x, _SHEKEL_A, _SHEKEL_C, 10)
    if fid == 31:
        return _inverse_distance_sum(x, _FOX_A, _FOX_C, 30)
    if fid == 32:  # Schaffer F7
        acc = 0.0
        for j in range(d - 1):
            a = x[j]
            b = x[j + 1]
            s = math.sqrt(a * a + b * b)
            t = math.sin(50.0 * s ** 0.2)
            acc += math.sqrt(s) * (1.0 + t * t)
        mean = acc / (d - 1)
        return mean * mean
    if fid == 33:  # Portfolio variance
        s = 0.0
        for j in range(d):
            s += x[j]
        if not s > 0.0:
            return np.inf
        q = _sum_squares(x)
        u = s - 1.0
        return ((10.0 - 7.5) * q + 7.5 * (s * s)) / (s * s) + 1.0 * (u * u)
    return np.nan


@intrinsic
def _data_pointer(typingctx, arr):
    """The address of a contiguous array's first element (what a C callback reads)."""
    if not isinstance(arr, types.Array) or arr.layout != "C":
        return None

    def codegen(context, builder, signature, args):
        return context.make_array(signature.args[0])(context, builder, args[0]).data
    return types.CPointer(arr.dtype)(arr), codegen


def objective(fid, x):
    """f(x) of a built-in id or of a typed expression's callback (compiled code only)."""
    raise NotImplementedError("objective() runs in compiled code only")  # pragma: no cover


@overload(objective, jit_options=JIT)
def _objective(fid, x):
    if isinstance(fid, types.Integer):
        return lambda fid, x: evaluate(fid, x)
    if isinstance(fid, types.FunctionType):  # an expression's cfunc: float64(float64*, intp)
        return lambda fid, x: fid(_data_pointer(x), x.shape[0])
    return None


@njit(**JIT)
def counted(fid, x, bad, k):
    """f(x), with NaN and +-inf mapped to +inf (they must never become a best point) and counted in
    bad[k], as the numpy engine counts them (k: the walker or group the calling thread owns)."""
    f = objective(fid, x)
    if f != f or abs(f) == np.inf:
        bad[k] += 1
        return np.inf
    return f


# --- the two trials of one coordinate together (pattern search) ---------------------------------
# Pattern search evaluates x + delta e_j and x - delta e_j: two points that differ in coordinate j
# only. Where the function is a fold of per-coordinate terms every other coordinate's term is the
# same in both, so it is computed once and added to both trials' sums, as kernels/pattern_search.cu
# does with MwFold (issue 13: the CPU baseline must not do twice the GPU's work). Each trial keeps
# its own accumulators, fed its own terms, never f(x) - t_j + t(a). The in-order folds add them in
# evaluate()'s order (k = 0..d-1, coordinate j's own term in its place): a trial's value is
# evaluate()'s at that point, bit for bit. Rastrigin and Ackley, whose sums are reassociated into
# vector lanes, compute their d + 1 distinct terms in one vector loop, then sum both trials over
# the same positions (j's term selected, not branched around), so they differ from evaluate() by
# rounding at most and a point's value does not depend on which trial or coordinate made it (a
# clamped trial, the walker's own point, must not improve on it by a rounding error).
# Sphere, Schwefel 2.22, Step, Quartic, Schwefel 2.26, Rastrigin, Ackley, Griewank, normalised
# Schwefel, cosine mixture, exponential, Michalewicz, Salomon; the others: two evaluations.
PAIR_IDS = (0, 1, 5, 6, 8, 9, 10, 11, 14, 16, 19, 24, 25)

# Compiled without Numba's reference counting (they allocate nothing): around every call that
# passes an array it increments and decrements the array's count atomically, which took a quarter
# of a 30-D Rastrigin pair's time through three call levels (106 ns a pair with it, 78 without;
# one core of this machine's EPYC).
PAIR_JIT = dict(JIT, _nrt=False)
PAIR_VECTOR = dict(VECTOR, _nrt=False)


@njit(inline="always")
def _fold_term(fid, v, k):
    """Coordinate k's term at value v of the one-sum folds, as evaluate() computes it (0: v^2, the
    sphere's; 1: |v|, Schwefel 2.22's sum; 16: the cosine mixture's cosine)."""
    if fid == 0:
        return v * v
    if fid == 1:
        return abs(v)
    if fid == 5:
        r = math.floor(v + 0.5)
        return r * r
    if fid == 6:
        v2 = v * v
        return (k + 1.0) * (v2 * v2)
    if fid == 16:
        return math.cos(5.0 * PI * v)
    if fid == 24:
        q = math.sin((k + 1.0) * v * v / PI)
        q2 = q * q
        q4 = q2 * q2
        q8 = q4 * q4
        q16 = q8 * q8
        return math.sin(v) * (q16 * q4)
    return v * math.sin(math.sqrt(abs(v)))  # 8 and 14: the Schwefel 2.26 pair


@njit(inline="always")
def _product_factor(fid, v, k):
    """Coordinate k's factor of Schwefel 2.22's (1) and Griewank's (11) products."""
    if fid == 1:
        return abs(v)
    return math.cos(v / math.sqrt(k + 1.0))


@njit(inline="always")
def _pair_part(fid, v, k, product):
    """Coordinate k's part of a pair fold: its product factor, or its _fold_term."""
    return _product_factor(fid, v, k) if product else _fold_term(fid, v, k)


@njit(inline="always")
def _fold_in(acc, t, product):
    return acc * t if product else acc + t


@njit(**PAIR_JIT)
def _pair_fold(fid, x, j, a, b, product):
    """(fold of the parts with x[j] = a, with x[j] = b) in evaluate()'s order: k < j, then j's own,
    then k > j, each shared part computed once. product: _product_factor's product (Schwefel
    2.22's (1) and Griewank's (11)), else the sum of _fold_term."""
    pa = 1.0 if product else 0.0
    pb = pa
    for k in range(j):
        t = _pair_part(fid, x[k], k, product)
        pa = _fold_in(pa, t, product)
        pb = _fold_in(pb, t, product)
    pa = _fold_in(pa, _pair_part(fid, a, j, product), product)
    pb = _fold_in(pb, _pair_part(fid, b, j, product), product)
    for k in range(j + 1, x.shape[0]):
        t = _pair_part(fid, x[k], k, product)
        pa = _fold_in(pa, t, product)
        pb = _fold_in(pb, t, product)
    return pa, pb


PAIR_LANES = 8  # the term loops' lengths are multiples of this (AVX-512's doubles; AVX2's 4 divide it)


@njit(**JIT)
def pair_work(d):
    """The scratch row evaluate_pair needs for a d-dimensional point (one per thread or walker)."""
    return np.zeros(2 * ((d + PAIR_LANES) // PAIR_LANES) * PAIR_LANES)


@njit(inline="always")
def _pair_points(x, j, a, b, work):
    """Lay out the lanes of a vector term loop in work: w = x with w[j] = a, w[d] = b, zeros up to
    a multiple of PAIR_LANES (their terms are computed and never summed); returns (w, t), t the
    row for the terms. The trials' own terms are lanes of the loop too: computed apart, as scalar
    code, b's alone made a 30-D Rastrigin trial cost 39 ns instead of 28 (one core)."""
    d = x.shape[0]
    m = work.shape[0] // 2
    w = work[:m]
    for k in range(d):
        w[k] = x[k]
    w[j] = a
    w[d] = b
    for k in range(d + 1, m):
        w[k] = 0.0
    return w, work[m:]


@njit(**PAIR_VECTOR)
def _rastrigin_pair(x, j, a, b, work):
    # one term loop over the d + 1 values (x's, a in place of x[j], b after them), then the two
    # sums over positions 0..d-1, b's term selected at position j: the same lanes for both
    # trials, so a point's value does not depend on which trial or coordinate made it
    d = x.shape[0]
    w, t = _pair_points(x, j, a, b, work)
    for k in range(w.shape[0]):
        v = w[k]
        t[k] = v * v - 10.0 * cospi(2.0 * v) + 10.0
    tb = t[d]
    sa = 0.0
    sb = 0.0
    for k in range(d):
        sa += t[k]
        sb += tb if k == j else t[k]
    return sa, sb


@njit(**PAIR_VECTOR)
def _ackley_pair(x, j, a, b, work):
    d = x.shape[0]
    w, t = _pair_points(x, j, a, b, work)
    for k in range(w.shape[0]):
        t[k] = cospi(2.0 * w[k])
    cb = t[d]
    sa1 = 0.0
    sa2 = 0.0
    sb1 = 0.0
    sb2 = 0.0
    for k in range(d):
        own = k == j
        va = w[k]
        vb = b if own else va
        sa1 += va * va
        sb1 += vb * vb
        sa2 += t[k]
        sb2 += cb if own else t[k]
    fa = -20.0 * math.exp(-0.2 * math.sqrt(sa1 / d)) - math.exp(sa2 / d) + 20.0 + E
    fb = -20.0 * math.exp(-0.2 * math.sqrt(sb1 / d)) - math.exp(sb2 / d) + 20.0 + E
    return fa, fb


@njit(**PAIR_JIT)
def _fold_pair(fid, x, j, a, b, work):
    """(f with x[j] = a, f with x[j] = b) of a built-in of PAIR_IDS; NaN, NaN for another id."""
    d = x.shape[0]
    if fid == 0 or fid == 16 or fid == 19 or fid == 25:  # the sphere and those built on its sum
        qa, qb = _pair_fold(0, x, j, a, b, False)
        if fid == 0:
            return qa, qb
        if fid == 19:
            return -math.exp(-0.5 * qa), -math.exp(-0.5 * qb)
        if fid == 25:
            ra = math.sqrt(qa)
            rb = math.sqrt(qb)
            return (1.0 - math.cos(2.0 * PI * ra) + 0.1 * ra,
                    1.0 - math.cos(2.0 * PI * rb) + 0.1 * rb)
        ca, cb = _pair_fold(16, x, j, a, b, False)
        return -0.1 * ca + qa, -0.1 * cb + qb
    if fid == 5 or fid == 6 or fid == 8 or fid == 14 or fid == 24:
        sa, sb = _pair_fold(fid, x, j, a, b, False)
        if fid == 8:
            return 418.9829 * d - sa, 418.9829 * d - sb
        if fid == 14:
            return -(sa / d), -(sb / d)
        if fid == 24:
            return -sa, -sb
        return sa, sb
    if fid == 1 or fid == 11:  # a sum and a product
        sa, sb = _pair_fold(1 if fid == 1 else 0, x, j, a, b, False)
        pa, pb = _pair_fold(fid, x, j, a, b, True)
        if fid == 1:
            return sa + pa, sb + pb
        return sa / 4000.0 - pa + 1.0, sb / 4000.0 - pb + 1.0
    if fid == 9:
        return _rastrigin_pair(x, j, a, b, work)
    if fid == 10:
        return _ackley_pair(x, j, a, b, work)
    return np.nan, np.nan


def is_fold(fid):
    """Whether fold_pair makes `fid`'s two trials together: a built-in of PAIR_IDS; a typed
    expression's callback is opaque, never (compiled code only)."""
    raise NotImplementedError("is_fold() runs in compiled code only")  # pragma: no cover


@overload(is_fold, jit_options=PAIR_JIT)
def _is_fold(fid):
    if isinstance(fid, types.Integer):
        def impl(fid):
            for p in PAIR_IDS:
                if fid == p:
                    return True
            return False
        return impl
    if isinstance(fid, types.FunctionType):
        return lambda fid: False
    return None


def fold_pair(fid, x, j, a, b, work):
    """_fold_pair of a built-in; where is_fold(fid) is False (another id, a callback: the kernels
    ask first, and also compile this call for callbacks) NaN, NaN (compiled code only)."""
    raise NotImplementedError("fold_pair() runs in compiled code only")  # pragma: no cover


@overload(fold_pair, jit_options=PAIR_JIT)
def _fold_pair_of(fid, x, j, a, b, work):
    if isinstance(fid, types.Integer):
        return lambda fid, x, j, a, b, work: _fold_pair(fid, x, j, a, b, work)
    if isinstance(fid, types.FunctionType):
        return lambda fid, x, j, a, b, work: (np.nan, np.nan)
    return None


@njit(**JIT)
def evaluate_pair(fid, x, j, a, b, work):
    """(f(x with x[j] = a), f(x with x[j] = b)) of built-in `fid` at the float64 point x (1-D,
    contiguous; x is left as it was; work: pair_work(d), overwritten): for PAIR_IDS every other
    coordinate's term once, for both trials (fold_pair); for the other functions two evaluate()
    calls of the patched point."""
    if is_fold(fid):
        return _fold_pair(fid, x, j, a, b, work)
    old = x[j]
    x[j] = a
    fa = evaluate(fid, x)
    x[j] = b
    fb = evaluate(fid, x)
    x[j] = old
    return fa, fb


@njit(**PAIR_JIT)
def counted_fold_pair(fid, x, j, a, b, both, work, bad, k):
    """counted() of x with x[j] = a and, if `both`, with x[j] = b, made together by fold_pair
    (is_fold(fid) must hold); where not `both` b's trial is not counted and reads +inf (max_evals
    cut between the two; the fold computes it anyway, so a's value is the same either way)."""
    fa, fb = fold_pair(fid, x, j, a, b, work)
    if fa != fa or abs(fa) == np.inf:
        bad[k] += 1
        fa = np.inf
    if not both:
        fb = np.inf
    elif fb != fb or abs(fb) == np.inf:
        bad[k] += 1
        fb = np.inf
    return fa, fb
