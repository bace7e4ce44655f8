"""Every algorithm declares its memory (issue 17, item 2): the declared estimate covers the peak
that tracemalloc measures during init and a few iterations, without overstating it much, so the
check before the first allocation neither lets a run be killed nor refuses one that fits."""
from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from solvers.algorithms import get_algorithm
from solvers.config import RunConfig
from solvers.errors import ConfigError
from solvers.params import make_params
from solvers.problems import get_problem
from solvers.rng import ArrayRNG
from solvers.runner import Runner

HYBRID = {"variant": "hybrid", "schedule": "fixed", "t0": 1.0, "t_min": 0.5, "alpha": 0.5, "chain_length": 1}
CASES = [("pattern_search", {}), ("multidirectional_search", {}), ("particle_swarm", {}),
         ("differential_evolution", {}), ("simulated_annealing", {"variant": "sync"}),
         ("simulated_annealing", {"variant": "async"}),
         ("simulated_annealing", {**HYBRID, "polish_points": 64})]


def traced_peak(name, params, n, d, dtype):
    cls = get_algorithm(name)
    algo = cls(get_problem("rastrigin", d), make_params(cls.Params, {"walkers": n, **params}), dtype=dtype)
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        state = algo.init(ArrayRNG(np, 0))
        algo.step(state, 4)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    return peak, algo


@pytest.mark.parametrize("name, params", CASES, ids=[f"{n}-{p.get('variant', '')}" for n, p in CASES])
@pytest.mark.parametrize("n, d, dtype", [(64, 12, "float64"), (128, 30, "float64"), (128, 30, "float32")])
def test_estimate_covers_the_measured_peak(name, params, n, d, dtype):
    traced_peak(name, params, 8, 3, dtype)  # first-call caches are not the run's memory
    peak, algo = traced_peak(name, params, n, d, dtype)
    estimate = algo.memory_estimate()
    assert peak <= estimate, f"measured {peak} B > declared {estimate} B"
    proportional = estimate - algo.FIXED_MEMORY_BYTES
    assert proportional <= 2.0 * peak, f"declared {proportional} B is more than twice the measured {peak} B"


def test_multidirectional_search_counts_whole_simplices():
    cls = get_algorithm("multidirectional_search")
    algo = cls(get_problem("sphere", 1000), make_params(cls.Params, {"walkers": 100}))
    assert algo.memory_estimate() >= 100 * 1001 * 1000 * 8  # n (d+1) d, the defect's missing factor


def test_a_run_that_cannot_fit_is_refused_before_allocating(monkeypatch):
    import solvers.engines.base as engines  # where check_memory reads the free host memory

    monkeypatch.setattr(engines, "host_available_bytes", lambda: 50 * 2**20)
    config = RunConfig.build("multidirectional_search", "sphere", 200, params={"walkers": 1000})
    with pytest.raises(ConfigError, match="memory"):
        Runner(config).prepare()
    hybrid = RunConfig.build("simulated_annealing", "sphere", 1000,
                             params={**HYBRID, "walkers": 100, "polish_points": 2000})
    with pytest.raises(ConfigError, match="memory"):  # the Nelder-Mead stage is counted up front
        Runner(hybrid).prepare()


@pytest.mark.parametrize("dim, fragment", [(10**9, "too large"), (10**30, "too large"),
                                           (1e30, "integer"), (10**400, "too large")])
def test_dimension_is_checked_before_allocating(dim, fragment):
    with pytest.raises(ConfigError, match=fragment):
        get_problem("sphere", dim)



def test_numba_multidirectional_search_snapshot_stays_inside_the_estimate():
    """The numba engine's check counts one copy of the simplices; the Runner's snapshots (the
    reference's, at the start and the end of every run) took the simplex sizes over the whole
    population, two temporaries as large as the simplices: 3x the admitted memory at the peak."""
    pytest.importorskip("numba")
    config = RunConfig.build("multidirectional_search", "rastrigin", 30, engine="numba",
                             params={"walkers": 4000}, max_iters=1, sample_size=1)
    Runner(config).run()  # kernels compiled or loaded: not the run's memory
    runner = Runner(config)
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        runner.run()
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    estimate = runner.engine.memory_needed(runner.algorithm)
    simplices = 4000 * 31 * 30 * 8
    assert peak <= estimate, f"measured {peak} B > declared {estimate} B ({simplices} B of simplices)"
