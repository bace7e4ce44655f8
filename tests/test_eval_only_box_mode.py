"""The evaluation-only kernel's box mode (solvers/cuda/evaluation_only.box_mode): whether a uniform
draw of [lo, hi] can round past hi, decided in exact rationals (no GPU needed)."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from solvers.cuda.evaluation_only import BOX_CLAMP, BOX_FITS, box_mode
from solvers.problems.base import problem_definitions


def _rounded(dtype, q: Fraction):
    """q rounded to the nearest number of `dtype`, ties to even (independently of box_mode: the
    double nearest q, then whichever neighbour in dtype is nearest)."""
    f = dtype(float(q))
    candidates = [f, np.nextafter(f, dtype(-np.inf)), np.nextafter(f, dtype(np.inf))]
    bits = np.uint32 if dtype == np.float32 else np.uint64
    return min(candidates, key=lambda c: (abs(Fraction(float(c)) - q), int(np.array(c).view(bits)) & 1))


def _top_draws(lo, hi):
    """What the kernel's fma(w * unit, k, lo) rounds to for the largest draws k."""
    dtype = np.asarray(lo).dtype.type
    bits = 24 if dtype == np.float32 else 53
    scaled = Fraction(float(dtype(hi) - dtype(lo))) / 2**bits  # w * unit: exact
    return [_rounded(dtype, Fraction(float(lo)) + scaled * k) for k in (2**bits - 1, 2**bits - 2, 2**bits - 3)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_every_built_in_box_fits(dtype):
    for definition in problem_definitions():
        lower, upper = definition.bounds(definition.default_dim)
        lower, upper = np.asarray(lower, dtype=dtype), np.asarray(upper, dtype=dtype)
        for lo, hi in zip(lower, upper):
            assert box_mode(lo, hi) == BOX_FITS, definition.name


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_random_boxes_fit_and_their_top_draws_round_inside(dtype):
    # half an ulp of the rounded width is at most the draw's missing 2^-24 (2^-53) of it, so every
    # finite box fits (CLAMP is for a width that overflows); the top draws, rounded independently of
    # box_mode, stay at or below hi (rounding is monotone in k: the largest k decides)
    rng = np.random.default_rng(7)
    for _ in range(1000):
        a, b = np.sort(rng.standard_normal(2) * 10.0 ** rng.integers(-30, 30, size=2)).astype(dtype)
        if not a < b:
            continue
        assert box_mode(a, b) == BOX_FITS, (a, b)
        assert all(top <= b for top in _top_draws(a, b)), (a, b)


def test_a_box_whose_width_overflows_keeps_the_clamp():
    big = np.finfo(np.float32).max
    assert box_mode(np.float32(-big), np.float32(big)) == BOX_CLAMP
