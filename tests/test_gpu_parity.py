"""GPU: cuda vs numpy, the same quality on the same budget (medians over 10 seeds), with margins
set per case. (Every algorithm x variant on every GPU engine against numpy, with one loose margin:
tests/test_gpu_contract.py.) The random streams differ between engines, so single runs differ;
medians of the best value must agree within the stated margin:

    median(engine) <= 2 * median(numpy) + atol

with atol per case, small against what a broken algorithm leaves (e.g. one Rastrigin basin where
a wrong pattern search stays tens of units away). All runs in float64.
"""
from __future__ import annotations

import numpy as np
import pytest

import solvers

pytestmark = pytest.mark.gpu

SA = {"walkers": 256, "schedule": "fixed", "t0": 10.0, "t_min": 0.01, "alpha": 0.8, "chain_length": 20}
# id, algorithm, problem, dim, params, iterations, atol. The numpy medians seen when the case was
# written (for scale): 5.97, 18.1, 0.068, 3.6e-5, 2.5e-8, 3.1e-4.
CUDA_CASES = [
    ("ps_rastrigin", "pattern_search", "rastrigin", 6, {"walkers": 128}, 15, 1.0),
    ("ps_sphere", "pattern_search", "sphere", 10, {"walkers": 64}, 8, 1.0),
    ("sa_async", "simulated_annealing", "rastrigin", 4, {**SA, "variant": "async"}, 620, 0.05),
    ("sa_sync", "simulated_annealing", "rastrigin", 4, {**SA, "variant": "sync"}, 620, 1e-3),
    ("sa_hybrid", "simulated_annealing", "rastrigin", 4, {**SA, "variant": "hybrid"}, 700, 1e-6),
    ("sa_sync_sphere", "simulated_annealing", "sphere", 5, {**SA, "variant": "sync"}, 620, 1e-3),
    # multi-directional search, particle swarm and differential evolution (issue 4). Numpy medians
    # seen when written: 0.995, 5.0e-4, 8.5e-4, 0.014, 0.94, 4.9e-6, 1.02, 1.1e-3; a broken optimiser
    # leaves several units on rastrigin 4-D and >> 1 on sphere 10-D.
    ("mds_rastrigin", "multidirectional_search", "rastrigin", 4, {"walkers": 64}, 60, 1.0),
    ("mds_sphere", "multidirectional_search", "sphere", 6, {"walkers": 32}, 40, 1e-3),
    ("mds_restart", "multidirectional_search", "rastrigin", 4, {"walkers": 64, "restart": True, "tol": 1e-4},
     80, 0.5),
    ("pso_classic", "particle_swarm", "rastrigin", 4, {"walkers": 32, "swarms": 4, "variant": "classic"}, 100, 1.0),
    ("pso_spso", "particle_swarm", "rastrigin", 4, {"walkers": 32, "swarms": 4, "variant": "spso2011"}, 100, 1.0),
    ("pso_spso_sphere", "particle_swarm", "sphere", 10, {"walkers": 40, "swarms": 2, "variant": "spso2011"},
     150, 1e-4),
    ("de", "differential_evolution", "rastrigin", 4, {"walkers": 32, "populations": 4}, 100, 1.0),
    ("de_sphere", "differential_evolution", "sphere", 10, {"walkers": 40, "populations": 2}, 150, 1e-3),
]


def _runs(engine, algorithm, problem, dim, params, iterations, seeds):
    return [solvers.run(algorithm, problem, engine=engine, dim=dim, seed=s, max_iters=iterations,
                        params=params) for s in seeds]


@pytest.mark.slow
@pytest.mark.parametrize("case_id,algorithm,problem,dim,params,iterations,atol", CUDA_CASES,
                         ids=[c[0] for c in CUDA_CASES])
def test_cuda_reaches_numpy_quality_on_the_same_budget(case_id, algorithm, problem, dim, params,
                                                       iterations, atol):
    seeds = range(10)
    ref = _runs("numpy", algorithm, problem, dim, params, iterations, seeds)
    got = _runs("cuda", algorithm, problem, dim, params, iterations, seeds)
    ref_best = np.median([r.best_f for r in ref])
    got_best = np.median([r.best_f for r in got])
    assert got_best <= 2 * ref_best + atol, f"cuda median {got_best:.4g} vs numpy {ref_best:.4g}"
    ref_evals = sorted(r.evals for r in ref)
    got_evals = sorted(r.evals for r in got)
    if params.get("variant") != "hybrid" and algorithm != "multidirectional_search":
        assert ref_evals == got_evals  # same work, counted the same way
    else:  # polishing, rejected trials and collapses depend on the run
        assert abs(np.median(got_evals) - np.median(ref_evals)) <= 0.05 * np.median(ref_evals)
