"""One random-number interface over NumPy and CuPy, seeded once per run.

NumPy uses PCG64 through ``default_rng``; CuPy uses its own generator. The same seed on the same
engine gives the same stream; streams differ between engines (as they do between libraries).
"""
from __future__ import annotations

import functools

import numpy as np


def _derived_seed(seed: int | None) -> int:
    return int(np.random.default_rng(seed).integers(0, 2**63 - 1))


# A pure function of the seed whose generator set-up (SeedSequence hashing) is host time in every
# GPU run's build; a sweep or a benchmark asks it for the same few seeds again and again.
_cached_derived_seed = functools.lru_cache(maxsize=1024)(_derived_seed)


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
        if self.seed is None:  # a fresh one each time, as default_rng(None) gives
            return _derived_seed(None)
        return _cached_derived_seed(int(self.seed))


class GroupedRNG:
    """Independent streams, one per group of rows, each seeded as a run of its own would be.

    Every draw's leading axis is split into equal blocks, group after group (the layout of
    solvers/algorithms/groups.py); block g comes from stream g with the shape a run of that group
    alone would ask for, so group g of a batch draws exactly the numbers of ``ArrayRNG(xp, seeds[g])``
    in that run. This is what makes a batched parameter grid equal, run for run, the same settings
    and seeds run one at a time. It costs one generator call per group and draw (a Python loop
    over groups), which the grids' few thousand groups keep small beside the batched arithmetic.
    """

    def __init__(self, xp, seeds):
        self.xp = xp
        self.seeds = tuple(int(s) for s in seeds)
        self.streams = [ArrayRNG(xp, s) for s in self.seeds]

    def _blocks(self, shape, draw):
        shape = (int(shape),) if np.ndim(shape) == 0 else tuple(int(s) for s in shape)
        groups = len(self.streams)
        if shape[0] % groups:
            raise ValueError(f"a draw of {shape[0]} rows does not split into {groups} groups")
        block = (shape[0] // groups, *shape[1:])
        return self.xp.concatenate([draw(stream, block) for stream in self.streams], axis=0)

    def random(self, shape, dtype=np.float64):
        """Uniform draws in [0, 1), each group's block from its own stream."""
        return self._blocks(shape, lambda s, block: s.random(block, dtype))

    def uniform(self, lower, upper, shape, dtype=np.float64):
        """Uniform draws in [lower, upper) (broadcast against shape), as ArrayRNG.uniform."""
        u = self.random(shape, dtype)
        return lower + (upper - lower) * u

    def integers(self, low: int, high: int, shape):
        """Integers in [low, high)."""
        return self._blocks(shape, lambda s, block: s.integers(low, high, block))

    def normal(self, shape, dtype=np.float64):
        return self._blocks(shape, lambda s, block: s.normal(block, dtype))

    def raw_seed(self) -> int:
        raise TypeError("grouped streams feed array code only; kernels take one seed per run")
