"""The evaluation-only kernel's box mode (solvers/cuda/evaluation_only.box_mode): whether a uniform
draw of [lo, hi] can round past hi, decided in exact rationals (no GPU needed)."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from solvers.cuda.evaluation_only import BOX_CLAMP, BOX_FITS, box_mode
from solvers.problems.base import problem_definitions


def _top_draw(lo, hi):
    """The exact largest value the kernel's fma(w * unit, k, lo) can round from."""
    dtype = np.asarray(lo).dtype
    bits = 24 if dtype == np.float32 else 53
    width = Fraction(float(dtype.type(hi) - dtype.type(lo)))
    return Fraction(float(lo)) + width * Fraction(2**bits - 1, 2**bits)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_every_built_in_box_fits(dtype):
    for definition in problem_definitions():
        lower, upper = definition.bounds(definition.default_dim)
        lower, upper = np.asarray(lower, dtype=dtype), np.asarray(upper, dtype=dtype)
        for lo, hi in zip(lower, upper):
            assert box_mode(lo, hi) == BOX_FITS, definition.name


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_random_boxes_agree_with_the_exact_bound(dtype):
    # half an ulp of the rounded width is at most the draw's missing 2^-24 (2^-53) of it, so every
    # finite box fits; the mode must say so, and agree with the exact bound it states
    rng = np.random.default_rng(7)
    for _ in range(2000):
        a, b = np.sort(rng.standard_normal(2) * 10.0 ** rng.integers(-30, 30, size=2)).astype(dtype)
        if not a < b:
            continue
        expected = BOX_FITS if _top_draw(a, b) <= Fraction(float(b)) else BOX_CLAMP
        assert box_mode(a, b) == expected == BOX_FITS, (a, b)


def test_a_box_whose_width_overflows_keeps_the_clamp():
    big = np.finfo(np.float32).max
    assert box_mode(np.float32(-big), np.float32(big)) == BOX_CLAMP
