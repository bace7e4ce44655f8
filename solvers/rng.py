"""One random-number interface over NumPy and CuPy, seeded once per run.

NumPy uses PCG64 through ``default_rng``; CuPy uses its own generator. The same seed on the same
engine gives the same stream; streams differ between engines (as they do between libraries).
"""
from __future__ import annotations

import numpy as np


class ArrayRNG:
    """Uniform, integer and normal draws as arrays of the engine's module and dtype."""

    def __init__(self, xp, seed: int | None):
        self.xp = xp
        self.seed = seed
        self._generator = None

    @property
    def _gen(self):
        # Made on the first draw, with the same seed (so the same stream): the cuda engine only asks
        # for raw_seed(), and setting up CuPy's generator is host time inside every end-to-end run.
        if self._generator is None:
            if self.xp is np:
                self._generator = np.random.default_rng(self.seed)
            else:
                self._generator = self.xp.random.RandomState(self.seed)
        return self._generator

    def random(self, shape, dtype=np.float64):
        """Uniform draws in [0, 1)."""
        if self.xp is np:
            return self._gen.random(shape, dtype=np.dtype(dtype))
        return self._gen.random_sample(shape, dtype=dtype)

    def uniform(self, lower, upper, shape, dtype=np.float64):
        """Uniform draws in [lower, upper) (broadcast against shape)."""
        u = self.random(shape, dtype)
        return lower + (upper - lower) * u

    def integers(self, low: int, high: int, shape):
        """Integers in [low, high)."""
        if self.xp is np:
            return self._gen.integers(low, high, size=shape)
        return self._gen.randint(low, high, size=shape)

    def normal(self, shape, dtype=np.float64):
        if self.xp is np:
            return self._gen.standard_normal(shape, dtype=np.dtype(dtype))
        return self._gen.standard_normal(shape, dtype=dtype)

    def raw_seed(self) -> int:
        """A 64-bit seed derived from this stream, for kernels with their own counter-based generator."""
        return int(np.random.default_rng(self.seed).integers(0, 2**63 - 1))
