"""Yao, Liu & Lin (1999), "Evolutionary programming made faster": the pattern-search seed's twelve."""
from __future__ import annotations

import math

import numpy as np

from .base import ProblemDef, box, register

GROUP = "Yao, Liu & Lin 1999"


def _sphere(xp, X):
    return xp.sum(X * X, axis=1)


def _rastrigin(xp, X):
    return xp.sum(X * X - 10.0 * xp.cos(2.0 * math.pi * X) + 10.0, axis=1)


register(ProblemDef(name="sphere", title="Sphere (f1)", group=GROUP, source="Yao et al. 1999, f1",
                    fn=_sphere, bounds=box(-100, 100), f_min=lambda d: 0.0,
                    x_min=lambda d: np.zeros(d), cuda_functor="Sphere"))
register(ProblemDef(name="rastrigin", title="Rastrigin (f9)", group=GROUP, source="Yao et al. 1999, f9",
                    fn=_rastrigin, bounds=box(-5.12, 5.12), f_min=lambda d: 0.0,
                    x_min=lambda d: np.zeros(d), cuda_functor="Rastrigin"))
