"""The problem library: every registered function, parametrised over the registry.

Values are checked against numbers that do not come from the code under test: values derived by
hand (the derivation is in the comment beside each), published minima (with the precision they were
published to), and a pure-Python reference of the noisy quartic's hash.
"""
from __future__ import annotations

import math
import re
import struct

import numpy as np
import pytest

from solvers.errors import ConfigError
from solvers.problems import (
    get_definition,
    get_problem,
    list_problems,
    problem_definitions,
)

NAMES = list_problems()
PI = math.pi


def _dims(name):
    """Dimensions to test: the default, the smallest accepted, and 5 and 10 where accepted."""
    d = get_definition(name)
    if d.dims is None:
        candidates = {d.default_dim, d.min_dim, 2, 5, 10}
    else:
        candidates = {d.default_dim, min(d.dims), max(d.dims), 5}
    return sorted(k for k in candidates if d.accepts(k) and k <= 30)


CASES = [(name, dim) for name in NAMES for dim in _dims(name)]


def _value(name, x, dtype=np.float64):
    x = np.asarray(x, dtype=np.float64)
    return get_problem(name, x.size).evaluate(x[None, :].astype(dtype))[0]


# --- values derived by hand: (x, f(x)); the comment gives the derivation -------------------------
HAND = {
    "sphere": [([1, 2, 3], 14.0)],  # 1 + 4 + 9
    "schwefel_2_22": [([1, -2, 3], 12.0)],  # sum |x| = 6, prod |x| = 6
    "schwefel_1_2": [([1, 2, 3], 46.0)],  # partial sums 1, 3, 6: 1 + 9 + 36
    "schwefel_2_21": [([1, -5, 3], 5.0)],  # max |x_i|
    "rosenbrock": [([-1, 1], 4.0),  # 100 (1 - 1)^2 + (-1 - 1)^2
                   ([1, 2, 4], 101.0)],  # 100 (2 - 1)^2 + 0 + 100 (4 - 4)^2 + (2 - 1)^2
    "step": [([0.4, -0.6, 1.5, 2.49], 9.0)],  # floor(x + 0.5) = 0, -1, 2, 2 -> 0 + 1 + 4 + 4
    "quartic": [([0.5, -1, 1], 5.0625)],  # 1 * 0.0625 + 2 * 1 + 3 * 1
    "quartic_noisy": [],  # checked against a pure-Python hash below (test_quartic_noise_*)
    "schwefel_2_26": [([0, 0], 2 * 418.9829),  # the sum vanishes at 0
                      ([PI ** 2 / 4], 418.9829 - PI ** 2 / 4)],  # sqrt(pi^2/4) = pi/2, sin = 1
    "rastrigin": [([0.5, 1], 21.25)],  # (0.25 + 10 + 10) + (1 - 10 + 10): cos(pi) = -1, cos(2 pi) = 1
    # mean x^2 = 1 and mean cos(2 pi) = 1: -20 e^-0.2 - e + 20 + e
    "ackley": [([1, 1], 20.0 - 20.0 * math.exp(-0.2))],
    "griewank": [([PI / 2, 0], 1.0 + PI ** 2 / 16000.0)],  # cos(pi/2) = 0 kills the product
    # y = 1 + (x + 1)/4 = (1.5, 1): pi/2 [10 sin^2(1.5 pi) + 0.5^2 (1 + 10 sin^2 pi) + 0], no penalty
    "penalized_1": [([1, -1], PI / 2 * 10.25),
                    # y1 = 4.25: 10 sin^2(4.25 pi) = 5, (3.25)^2 = 10.5625; u(12) = 100 (12 - 10)^4
                    ([12, -1], PI / 2 * 15.5625 + 1600.0)],
    # 0.1 [sin^2(1.5 pi) + (0.5 - 1)^2 (1 + sin^2(3 pi)) + 0] = 0.1 * 1.25
    "penalized_2": [([0.5, 1], 0.125),
                    # 0.1 [sin^2(21 pi) + 6^2 (1 + sin^2(3 pi)) + 0] + u(7) = 100 (7 - 5)^4
                    ([7, 1], 3.6 + 1600.0)],
    "schwefel": [([PI ** 2 / 4, PI ** 2 / 4], -PI ** 2 / 4),  # -(1/2)(2 * pi^2/4 * sin(pi/2))
                 ([9 * PI ** 2 / 4], 9 * PI ** 2 / 4)],  # sin(3 pi / 2) = -1
    "branin": [([0, 0], 56.0 - 1.25 / PI),  # (0 - 0 + 0 - 6)^2 + 10 (1 - 1/(8 pi)) cos 0 + 10
               ([PI, 2.275], 5.0 / (4.0 * PI))],  # 2.275 - 5.1/4 + 5 - 6 = 0; -10 + 10/(8 pi) + 10
    "cosine_mixture": [([1, 0.5], 1.35)],  # -0.1 (cos 5 pi + cos 2.5 pi) + 1 + 0.25
    "dekkers_aarts": [([1, 0], 99999.00001),  # 1e5 - 1 + 1e-5
                      ([0, 10], -8900.0)],  # 100 - 100^2 + 1e-5 * 100^4
    "easom": [([0, 0], -math.exp(-2 * PI ** 2)),  # -cos 0 cos 0 exp(-(pi^2 + pi^2))
              ([PI, PI], -1.0)],  # cos(pi)^2 = 1, exp(0)
    "exponential": [([1, 1, 1, 1], -math.exp(-2.0))],  # -exp(-0.5 * 4)
    "goldstein_price": [([0, 0], 600.0),  # (1 + 1 * 19)(30 + 0)
                        # a = 3, b = 19-14+3-14+6+3 = 3, c = -1, e = 18-32+12+48-36+27 = 37
                        ([1, 1], 28.0 * 67.0)],
    "himmelblau": [([0, 0], 170.0),  # 11^2 + 7^2
                   ([3, 2], 0.0)],  # 9 + 2 - 11 = 0, 3 + 4 - 7 = 0
    # LM1 at x = (3, -1): y = (2, 1): (pi/2) [10 sin^2(2 pi) + 1 (1 + 10 sin^2(pi)) + 0] = pi/2
    # at x = (1, 1): y = (1.5, 1.5): (pi/2) [10 + 0.25 (1 + 10) + 0.25] = (pi/2) 13
    "levy_montalvo_1": [([3, -1], PI / 2), ([1, 1], PI / 2 * 13.0), ([-1, -1, -1], 0.0)],
    "levy_montalvo_2": [([0.5, 1], 0.125),  # as penalized_2 without its penalty
                      ([-1, 1], 0.4)],  # 0.1 [sin^2(-3 pi) + (-2)^2 (1 + sin^2(3 pi)) + 0]
    # d = 1 at x = 8.074 (row 5): squared distances to column 1 of rows 1-5 are 1.607^2 = 2.582449,
    # 1.326^2 = 1.758276, 0.049^2 = 0.002401, 5.878^2 = 34.550884 and 0
    "langerman": [([8.074], -(0.806 * math.exp(-2.582449 / PI) * math.cos(2.582449 * PI)
                              + 0.517 * math.exp(-1.758276 / PI) * math.cos(1.758276 * PI)
                              + 0.100 * math.exp(-0.002401 / PI) * math.cos(0.002401 * PI)
                              + 0.908 * math.exp(-34.550884 / PI) * math.cos(34.550884 * PI)
                              + 0.965))],
    "shekel_foxholes": [],  # 30 table rows: see PUBLISHED (AKZ's value at their minimiser)
    "michalewicz": [([PI / 2, PI / 2], -(2.0 ** -10 + 1.0))],  # sin(pi/4)^20 = 2^-10, sin(pi/2)^20 = 1
    "salomon": [([3, 4], 0.5)],  # |x| = 5: 1 - cos(10 pi) + 0.5
    "six_hump_camel": [([1, 0], 4.0 - 2.1 + 1.0 / 3.0),  # (4 - 2.1 + 1/3) * 1
                       ([0, 1], 0.0)],  # (-4 + 4) * 1
    "shubert": [([-1, -1], 225.0 * math.cos(1.0) ** 2)],  # (j+1)(-1) + j = -1: (15 cos 1)^2
    # at (4, 4, 4, 4): |x - a_k|^2 = 0, 36, 64, 16, 20 (rows 1-5), 58, 4 (rows 6-7),
    # 50, 16, 18.32 (rows 8-10), each plus c_k
    "shekel_5": [([4, 4, 4, 4], -(1 / 0.1 + 1 / 36.2 + 1 / 64.2 + 1 / 16.4 + 1 / 20.4))],
    "shekel_7": [([4, 4, 4, 4], -(1 / 0.1 + 1 / 36.2 + 1 / 64.2 + 1 / 16.4 + 1 / 20.4
                                  + 1 / 58.6 + 1 / 4.3))],
    "shekel_10": [([4, 4, 4, 4], -(1 / 0.1 + 1 / 36.2 + 1 / 64.2 + 1 / 16.4 + 1 / 20.4
                                   + 1 / 58.6 + 1 / 4.3 + 1 / 50.7 + 1 / 16.5 + 1 / 18.82))],
    "schaffer_f7": [([0.6, 0.8], (1.0 + math.sin(50.0) ** 2) ** 2),  # s = 1
                    # s = (pi/50)^5: 50 s^0.2 = pi, sin = 0, f = (sqrt(s))^2 = s
                    ([(PI / 50) ** 5, 0], (PI / 50) ** 5)],
    "portfolio_variance": [([1, 0, 0], 10.0),  # sum = 1, w'Sw = S_11
                           # w/sum = 1/3 each: (3 * 10 + 6 * 7.5)/9 = 75/9; (1.5 - 1)^2 = 0.25
                           ([0.5, 0.5, 0.5], 75.0 / 9.0 + 0.25)],
}

# Published values: (dim, x or None, value, absolute tolerance = the precision they were printed to).
# x None: the value is the registry's f_min, checked against the literature.
PUBLISHED = {
    # R package DEoptimR's test listing (fnLangerman): minimum 0.96499992 at this point (sign flipped)
    "langerman": [(5, [8.074000, 8.777001, 3.467004, 1.863013, 6.707995], -0.96499992, 5e-8),
                  (2, [9.6810707, 0.6666515], -1.0809, 1e-4),  # AKZ 2005
                  (10, None, -0.965, 5e-4)],  # AKZ 2005
    "shekel_foxholes": [(5, [8.025, 9.152, 5.114, 7.621, 4.564], -10.4056, 1e-3),  # AKZ 2005
                        (5, None, -10.4056, 1e-4), (10, None, -10.2087, 2e-4)],  # AKZ; GAMS table
    "michalewicz": [(2, None, -1.8013, 1e-4), (5, None, -4.687658, 1e-6),
                    (10, None, -9.66015, 1e-5)],  # Ferreiro et al. (seed 002); AKZ
    "shubert": [(2, None, -186.7309, 1e-4)],  # AKZ; Levy & Montalvo 1985
    "shekel_5": [(4, None, -10.1532, 1e-4)], "shekel_7": [(4, None, -10.4029, 1e-4)],
    "shekel_10": [(4, None, -10.5364, 1e-4)],  # Dixon & Szego 1978; AKZ
    "dekkers_aarts": [(2, None, -24776.5183, 1e-4)],  # GAMS SELCONGLOBAL (AKZ) best known
    "six_hump_camel": [(2, None, -1.0316, 1e-4)],  # Dixon & Szego 1978
    "branin": [(2, None, 0.397887, 1e-6)],
    "schwefel": [(8, None, -418.9829, 1e-4)],  # 420.9687 sin(sqrt(420.9687))
    "schwefel_2_26": [(30, None, 0.0, 30 * 1e-4)],  # 418.9829 is rounded to 4 decimals
    "goldstein_price": [(2, None, 3.0, 0.0)],
    "himmelblau": [(2, [-2.805118, 3.131312], 0.0, 1e-8),  # Himmelblau 1972 (6 decimals)
                   (2, [-3.779310, -3.283186], 0.0, 1e-8), (2, [3.584428, -1.848126], 0.0, 1e-8)],
    "easom": [(2, None, -1.0, 0.0)],
}


def test_every_problem_has_an_independent_value():
    published_points = {n for n, rows in PUBLISHED.items() if any(x is not None for _, x, _, _ in rows)}
    missing = [n for n in NAMES if not HAND.get(n) and n not in published_points | {"quartic_noisy"}]
    assert not missing, f"no hand-derived or published value at a point for {missing}"
    assert set(HAND) == set(NAMES), "HAND lists a problem that is not registered (or misses one)"


@pytest.mark.parametrize("name", NAMES)
def test_hand_values(name):
    if not HAND[name]:
        pytest.skip(f"{name}: checked by PUBLISHED values or its own test")
    for x, expected in HAND[name]:
        got = _value(name, x)
        assert got == pytest.approx(expected, rel=1e-12, abs=1e-12), (name, x)
        # float32: rounding of x and of the arithmetic (24-bit mantissa)
        assert _value(name, x, np.float32) == pytest.approx(expected, rel=2e-5, abs=2e-5), (name, x)


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_published_values(name):
    for dim, x, value, tol in PUBLISHED[name]:
        if x is None:
            got = get_problem(name, dim).f_min
        else:
            got = _value(name, x)
            assert len(x) == dim
        assert abs(got - value) <= tol + 1e-12, (name, dim, got, value)


@pytest.mark.parametrize("name, dim", CASES)
def test_value_at_minimiser_equals_f_min(name, dim):
    p = get_problem(name, dim)
    if p.f_min is None or p.x_min is None:
        pytest.skip(f"{name} in {dim}-D has no known minimum (f_min={p.f_min})")
    scale = max(1.0, abs(p.f_min))
    # float64: x_min is given to ~12 digits and f is flat there, so only rounding remains
    assert p.evaluate(p.x_min[None, :])[0] == pytest.approx(p.f_min, abs=1e-9 * scale)
    f32 = p.evaluate(p.x_min[None, :].astype(np.float32))[0]
    assert f32.dtype == np.float32
    # float32 rounding grows with the size of the terms that cancel, not with f_min (Schwefel 2.26:
    # 418.98 d - 418.98 d), so the tolerance also scales with f's typical size in the box
    typical = np.median(np.abs(p.evaluate(np.random.default_rng(5).uniform(p.lower, p.upper, (64, dim)))))
    assert f32 == pytest.approx(p.f_min, abs=1e-4 * scale + 1e-5 * typical)


@pytest.mark.parametrize("name, dim", CASES)
def test_random_points_are_not_below_f_min(name, dim):
    p = get_problem(name, dim)
    if p.f_min is None:
        pytest.skip(f"{name} in {dim}-D has no known minimum")
    X = np.random.default_rng(7).uniform(p.lower, p.upper, (2000, dim))
    f = p.evaluate(X)
    assert np.all(f >= p.f_min - 1e-9 * max(1.0, abs(p.f_min))), (name, dim, f.min(), p.f_min)


@pytest.mark.parametrize("name, dim", CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_shape_dtype_and_rows_independent(name, dim, dtype):
    p = get_problem(name, dim)
    X = np.random.default_rng(3).uniform(p.lower, p.upper, (7, dim)).astype(dtype)
    f = p.evaluate(X)
    assert f.shape == (7,) and f.dtype == dtype
    one = p.evaluate(X[2:3])
    assert one.shape == (1,) and one.dtype == dtype
    # each row is evaluated on its own (no mixing across walkers)
    rows = np.array([p.evaluate(X[i:i + 1])[0] for i in range(7)])
    np.testing.assert_allclose(rows, f, rtol=1e-6 if dtype == np.float32 else 1e-13)


@pytest.mark.parametrize("name, dim", CASES)
def test_bounds_are_finite_boxes_containing_the_minimiser(name, dim):
    p = get_problem(name, dim)
    assert p.lower.shape == (dim,) and p.upper.shape == (dim,)
    assert np.all(np.isfinite(p.lower)) and np.all(np.isfinite(p.upper))
    assert np.all(p.lower < p.upper)
    if p.x_min is not None:
        assert p.x_min.shape == (dim,)
        assert np.all(p.x_min >= p.lower) and np.all(p.x_min <= p.upper)


@pytest.mark.parametrize("definition", problem_definitions(), ids=lambda d: d.name)
def test_metadata(definition):
    assert re.fullmatch(r"[a-z][a-z0-9_]*", definition.name)
    assert definition.title and definition.group and definition.source
    assert definition.accepts(definition.default_dim)
    assert definition.cuda_functor is None or re.fullmatch(r"[A-Z]\w*", definition.cuda_functor)
    get_problem(definition.name)  # the default dimension binds


@pytest.mark.parametrize("definition", problem_definitions(), ids=lambda d: d.name)
def test_wrong_dimensions_are_rejected(definition):
    if definition.dims is not None:
        bad = [max(definition.dims) + 1] + ([min(definition.dims) - 1] if min(definition.dims) > 1 else [])
    else:
        bad = [definition.min_dim - 1]
    for dim in bad:
        with pytest.raises(ConfigError, match=definition.name):
            get_problem(definition.name, dim)
    with pytest.raises(ConfigError):
        get_problem(definition.name, 2.5)


def test_fixed_dimension_functions():
    fixed = {"branin": 2, "dekkers_aarts": 2, "easom": 2, "goldstein_price": 2, "himmelblau": 2,
             "six_hump_camel": 2, "shekel_5": 4, "shekel_7": 4, "shekel_10": 4}
    for name, dim in fixed.items():
        assert get_definition(name).dims == (dim,)
    for name in ("langerman", "shekel_foxholes"):  # their tables have 10 columns
        assert get_definition(name).dims == tuple(range(1, 11))


# --- the noisy quartic ---------------------------------------------------------------------------
def _noise_reference(x):
    """Pure-Python twin of yao.point_noise: SplitMix64 finaliser over the float64 bits."""
    mask = (1 << 64) - 1
    h = 0x9E3779B97F4A7C15
    for v in x:
        z = h ^ struct.unpack("<Q", struct.pack("<d", float(v)))[0]
        z ^= z >> 30
        z = (z * 0xBF58476D1CE4E5B9) & mask
        z ^= z >> 27
        z = (z * 0x94D049BB133111EB) & mask
        h = z ^ (z >> 31)
    return (h >> 11) / 2.0 ** 53


def test_quartic_noise_matches_reference_hash():
    noisy, clean = get_problem("quartic_noisy", 3), get_problem("quartic", 3)
    X = np.array([[0.0, 0.0, 0.0], [0.5, -1.0, 1.0], [-1.28, 0.3, 1.1]])
    for x, f, q in zip(X, noisy.evaluate(X), clean.evaluate(X)):
        assert f - q == pytest.approx(_noise_reference(x), abs=1e-15)
    X32 = X.astype(np.float32)
    f32 = noisy.evaluate(X32)
    q32 = clean.evaluate(X32)
    for x, f, q in zip(X32, f32, q32):  # the float32 point widened exactly: the same hash
        assert f == q + np.float32(_noise_reference(x))


def test_quartic_noise_is_reproducible_and_uniform():
    p = get_problem("quartic_noisy", 5)
    X = np.random.default_rng(11).uniform(p.lower, p.upper, (4000, 5))
    noise = p.evaluate(X) - get_problem("quartic", 5).evaluate(X)
    assert np.array_equal(p.evaluate(X), p.evaluate(X.copy()))
    assert noise.min() >= 0.0 and noise.max() < 1.0
    assert abs(noise.mean() - 0.5) < 0.03 and abs(noise.var() - 1 / 12) < 0.01
    nudged = X.copy()
    nudged[:, 4] = np.nextafter(nudged[:, 4], np.inf)
    assert np.all(p.evaluate(nudged) != p.evaluate(X))  # one ulp moves the noise


def test_portfolio_empty_portfolio_is_infinite():
    p = get_problem("portfolio_variance", 4)
    f = p.evaluate(np.array([[0.0, 0.0, 0.0, 0.0], [0.25, 0.25, 0.25, 0.25]]))
    assert f[0] == np.inf and f[1] == pytest.approx((10 + 7.5 * 3) / 4)


def test_michalewicz_minimum_is_coordinatewise():
    # sum of 1-D terms: the minimiser of d = 10 extends that of d = 5
    x5, x10 = get_problem("michalewicz", 5).x_min, get_problem("michalewicz", 10).x_min
    np.testing.assert_allclose(x10[:5], x5, rtol=0, atol=1e-12)
    assert x10[1] == pytest.approx(PI / 2, abs=1e-7)  # term 2 peaks at sin(2 x^2 / pi) = 1, x = pi/2


@pytest.mark.parametrize("definition", [d for d in problem_definitions() if d.dims is None],
                         ids=lambda d: d.name)
def test_high_dimension_binds_and_evaluates(definition):
    # the annealing seed goes to 512-D; f_min may be None there (Shubert overflows float64)
    p = get_problem(definition.name, 512)
    f = p.evaluate(np.random.default_rng(2).uniform(p.lower, p.upper, (3, 512)))
    assert f.shape == (3,) and not np.any(np.isnan(f))
    if p.f_min is not None and p.x_min is not None:
        assert p.evaluate(p.x_min[None, :])[0] == pytest.approx(p.f_min, abs=1e-9 * max(1.0, abs(p.f_min)))


def test_the_old_levy_montalvo_name_says_where_it_went():
    from solvers.problems import get_problem

    with pytest.raises(ConfigError, match="levy_montalvo_1.*levy_montalvo_2"):
        get_problem("levy_montalvo", 2)
