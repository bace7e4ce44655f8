"""Runs split over devices and their unsplit twins, shared by test_shards.py and test_gpu_shards.py."""
from __future__ import annotations

import numpy as np

from solvers.config import RunConfig
from solvers.runner import Runner

CASES = [  # (algorithm, params, budget): every algorithm x variant that splits
    ("pattern_search", {"walkers": 50}, {"max_iters": 6}),
    ("pattern_search", {"walkers": 40, "restart": True, "round_iterations": 2}, {"max_evals": 5001}),
    ("simulated_annealing", {"walkers": 37, "variant": "async"}, {"max_evals": 9001}),
    ("simulated_annealing", {"walkers": 37, "variant": "sync", "schedule": "fixed", "chain_length": 20,
                             "alpha": 0.8}, {"max_evals": 9001}),
    ("differential_evolution", {"walkers": 12, "populations": 5}, {"max_iters": 7}),
    ("differential_evolution", {"walkers": 10, "populations": 3}, {"max_evals": 1234}),
    ("particle_swarm", {"variant": "classic", "walkers": 9, "swarms": 5}, {"max_iters": 6}),
    ("particle_swarm", {"variant": "spso2011", "walkers": 10, "swarms": 4}, {"max_iters": 8}),
    # the cut iteration's 20 evaluations cross the shards' boundary: 16 + 4 (devices 0,0 and 0,0,0)
    ("particle_swarm", {"variant": "classic", "walkers": 8, "swarms": 4}, {"max_evals": 340}),
    ("particle_swarm", {"variant": "spso2011", "walkers": 7, "swarms": 3}, {"max_evals": 409}),
]
PSO_CASES = [c for c in CASES if c[0] == "particle_swarm"]


def run_case(algorithm, params, budget, engine="numpy", devices=None, sample=64, dtype="float64",
             problem="rastrigin", dim=4):
    cfg = RunConfig.build(algorithm, problem, dim, params=params, engine=engine, seed=11,
                          devices=devices, sample_size=sample, snapshot_hz=1000.0, dtype=dtype,
                          **budget)
    runner = Runner(cfg)
    result = runner.run()
    return result, runner.last_snapshot


def assert_same_run(a, b):
    (ra, sa), (rb, sb) = a, b
    assert rb.best_f == ra.best_f
    np.testing.assert_array_equal(rb.best_x, ra.best_x)
    assert (rb.evals, rb.iterations, rb.points_per_iteration) == (ra.evals, ra.iterations,
                                                                  ra.points_per_iteration)
    assert rb.params == ra.params  # the effective parameters (SA's fitted schedule included)
    np.testing.assert_array_equal(sb.positions, sa.positions)  # the same sample, from every shard
    np.testing.assert_array_equal(sb.fitness, sa.fitness)
    assert sorted(sb.overlays) == sorted(sa.overlays)
    for key in sa.overlays:  # velocities, trials, SPSO's links (sample positions) ...
        np.testing.assert_array_equal(sb.overlays[key], sa.overlays[key], err_msg=key)
