"""max_evals is a hard cap on the cuda engine too (issue 10): every algorithm and variant makes at
most max_evals evaluations, and as many as the numpy reference reports for the same set-up (the
iteration the budget cuts is made only by the walkers/trials it allows). Runs on the GPU only."""
from __future__ import annotations

import numpy as np
import pytest

import solvers
from solvers.cuda.pattern_search import PatternSearchCuda

from variants import CAP_IDS, CAP_VARIANTS

pytestmark = pytest.mark.gpu

VARIANTS, IDS = CAP_VARIANTS, CAP_IDS


def _both(algorithm, params, max_evals, dim=10, function="rastrigin"):
    runs = [solvers.run(algorithm, function, engine=engine, dim=dim, seed=3, max_evals=max_evals,
                        params=params) for engine in ("numpy", "cuda")]
    return runs


def _check(algorithm, params, exact, max_evals):
    reference, cuda = _both(algorithm, params, max_evals)
    assert cuda.evals <= max_evals
    assert np.isfinite(cuda.best_f)
    if exact or (reference.stop_reason == cuda.stop_reason == "max_evals"):
        assert cuda.evals == reference.evals, (cuda.evals, reference.evals)
    if cuda.stop_reason == "max_evals":
        assert cuda.evals == max_evals


@pytest.mark.parametrize("algorithm, params, exact", VARIANTS, ids=IDS)
@pytest.mark.parametrize("walkers", [0, 37])
@pytest.mark.parametrize("max_evals", [12_345, 200_003])
def test_max_evals_is_a_hard_cap_on_cuda(algorithm, params, exact, walkers, max_evals):
    # neither budget is a multiple of any iteration's size; 37 walkers x 10-D overshoot on purpose
    _check(algorithm, dict(params, walkers=walkers) if walkers else params, exact, max_evals)


@pytest.mark.parametrize("lanes", [1, 2, 8])
@pytest.mark.parametrize("max_evals", [1_001, 12_345])
def test_pattern_search_cap_in_both_kernels(monkeypatch, lanes, max_evals):
    # ps_iterate (1 lane) and ps_iterate_group (2, 8 lanes) cut the last iteration alike
    monkeypatch.setattr(PatternSearchCuda, "lanes", lanes)
    _check("pattern_search", {"walkers": 50}, True, max_evals)


@pytest.mark.parametrize("algorithm, params, exact", VARIANTS, ids=IDS)
def test_budget_below_the_walkers_counts_only_the_allowed_ones(algorithm, params, exact):
    # fewer evaluations than walkers (or starts' simplices): the initial draw itself is cut
    walkers = 200 if algorithm != "multidirectional_search" else 40
    _check(algorithm, dict(params, walkers=walkers), exact, 150)


def test_hybrid_polish_stops_at_the_budget():
    # a budget that ends inside the Nelder-Mead phase (the default share): the polish is cut, not overrun
    params = {"variant": "hybrid", "walkers": 64, "polish_points": 64, "polish_tol": 1e-15}
    for max_evals in (20_011, 50_000):
        result = solvers.run("simulated_annealing", "rosenbrock", engine="cuda", dim=10, seed=1,
                             max_evals=max_evals, params=params)
        assert result.evals <= max_evals
        if result.stop_reason == "max_evals":
            assert result.evals == max_evals
