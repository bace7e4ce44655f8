"""Functions of the other seeds: Schaffer F7 (PSO seed 003) and the portfolio variance (seed 001).

Same conventions as yao.py: ``fn(xp, X)`` over rows, Python-float constants, twin functors in
kernels/problems.cuh.
"""
from __future__ import annotations

import numpy as np

from .base import SA_ASYNC_DEFAULTS, ProblemDef, box, register


def _schaffer_f7(xp, X):
    # The PSO seed names "SchafferF7" without a formula; this is the usual one (the untransformed
    # f17 of Hansen et al., BBOB 2009): [1/(n-1) sum_i sqrt(s_i) (1 + sin^2(50 s_i^0.2))]^2 with
    # s_i = sqrt(x_i^2 + x_{i+1}^2).
    a = X[:, :-1]
    b = X[:, 1:]
    s = xp.sqrt(a * a + b * b)
    t = xp.sin(50.0 * s ** 0.2)
    mean = xp.sum(xp.sqrt(s) * (1.0 + t * t), axis=1) / (X.shape[1] - 1)
    return mean * mean


register(ProblemDef(
    name="schaffer_f7", title="Schaffer F7", group="Particle swarm seed (MMI713 2021)",
    source="PSO seed 003 (SchafferF7); formula of Hansen et al. 2009, BBOB f17 untransformed",
    fn=_schaffer_f7, bounds=box(-100, 100), min_dim=2,
    f_min=lambda d: 0.0, x_min=lambda d: np.zeros(d), cuda_functor="SchafferF7",
    param_defaults=SA_ASYNC_DEFAULTS,
    notes="[1/(n-1) sum sqrt(s_i) (1 + sin^2(50 s_i^0.2))]^2, s_i = sqrt(x_i^2 + x_i+1^2). "
          "Simulated annealing defaults to variant async here (sync stops on a ring in 1 seed in 5)."))


# --- portfolio variance ------------------------------------------------------------------------
# Seed 001 minimises w' S w (S_ii = 10, S_ij = 7.5) subject to the budget sum w = 1, optimum
# w_k = 1/n. Its Figure 2 code shows neither how the budget is enforced (it evaluates raw weights,
# whose unconstrained minimum is w = 0) nor w_i w_j: it accumulates w_i^2 S_ij, a slip that leaves the
# constrained optimum unchanged. Here the formula of its Section 5 is used and the budget is handled
# by normalisation: the portfolio evaluated is w / sum(w), so every point of the box stands for a
# feasible portfolio (V(w / s) = V(w) / s^2 is smooth in the long-only box [0, 1]^n), plus a small
# quadratic pull BUDGET_PULL (s - 1)^2 that makes the minimiser unique: exactly w = 1/n, where
# f = V = (10 + 7.5 (n - 1)) / n. w = 0 (s = 0, no portfolio) evaluates to +inf.
# V(w) = sum_ij w_i S_ij w_j = (S_ii - S_ij) sum w_i^2 + S_ij s^2 exactly, which is evaluated in O(n).
PORTFOLIO_DIAG = 10.0
PORTFOLIO_OFF = 7.5
BUDGET_PULL = 1.0


def _portfolio_variance(xp, X):
    s = xp.sum(X, axis=1)
    q = xp.sum(X * X, axis=1)
    ok = s > 0.0
    safe = xp.where(ok, s, xp.ones_like(s))  # no 0/0 warning at w = 0; that row becomes inf below
    value = ((PORTFOLIO_DIAG - PORTFOLIO_OFF) * q + PORTFOLIO_OFF * (safe * safe)) / (safe * safe)
    u = safe - 1.0
    value = value + BUDGET_PULL * (u * u)
    return xp.where(ok, value, xp.full_like(value, np.inf))


register(ProblemDef(
    name="portfolio_variance", title="Portfolio variance (n stocks)",
    group="Multi-directional search seed (Stchedroff)",
    source="Stchedroff, Multi-directional optimisation on the GPU (seed 001), Section 5",
    fn=_portfolio_variance, bounds=box(0, 1), min_dim=1, default_dim=15,
    f_min=lambda d: (PORTFOLIO_DIAG + PORTFOLIO_OFF * (d - 1)) / d,
    x_min=lambda d: np.full(d, 1.0 / d), cuda_functor="PortfolioVariance",
    notes="Variance w'Sw of the normalised portfolio w / sum(w) (S_ii = 10, S_ij = 7.5) plus "
          "(sum(w) - 1)^2: the budget sum w = 1 holds at the unique minimiser w = 1/n."))
