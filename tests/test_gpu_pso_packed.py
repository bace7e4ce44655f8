"""GPU: classic PSO with several small swarms packed into one block (pso_classic_packed,
pso_classic_grid_packed) is the same run as with a block per swarm: every particle's position,
velocity and personal best, every swarm's best, the run's best and its evaluations, including a
max_evals cut, a grid's runs against the same runs alone, idle threads (blocks not filled to a warp,
a last block with fewer swarms) and both places of a particle's state (shared or global memory).
The CPU side (the choice of swarms per block): test_pso_packing.py."""
from __future__ import annotations

import numpy as np
import pytest

import solvers
from solvers.config import Budget
from solvers.cuda.particle_swarm import SWARMS_PER_BLOCK_ENV, ParticleSwarmCuda
from solvers.engines import get_engine
from solvers.params import make_params
from solvers.problems import get_problem
from solvers.rng import ArrayRNG, GroupedRNG
from solvers.tune import tune

pytestmark = pytest.mark.gpu

STATE = ("X", "V", "P", "Pf", "f", "swarm_best_f", "swarm_best_i", "best_f", "best_x")


def _run(monkeypatch, spb, params, dtype, budget=None, iterations=25, shared=None):
    """(the algorithm, host copies of its state after init and `iterations` iterations)."""
    import solvers.cuda.particle_swarm as pso

    engine = get_engine("cuda")
    monkeypatch.setattr(ParticleSwarmCuda, "swarms_per_block", spb)
    monkeypatch.setattr(ParticleSwarmCuda, "lanes", 1)  # unpacked: pso_classic (lanes: test_gpu_pso_lanes.py)
    with monkeypatch.context() as patch:
        if shared is not None:
            patch.setattr(pso, "SHARED_CHOICES", shared)
        problem = get_problem("rastrigin", 6)
        algo = engine.build("particle_swarm", problem, make_params(ParticleSwarmCuda.Params, params),
                            dtype, budget=budget)
        state = algo.init(ArrayRNG(engine.xp, 7))
        algo.step(state, iterations)
    host = {k: engine.xp.asnumpy(engine.xp.asarray(getattr(state, k))) for k in STATE}
    host["evals"] = int(state.evals)
    return algo, host


def _same(a, b):
    for key in (*STATE, "evals"):
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("walkers, swarms, spb", [(40, 11, 4), (40, 11, 3), (7, 13, 5), (33, 9, 2),
                                                   (12, 40, 13)])
def test_packed_run_equals_a_block_per_swarm(monkeypatch, dtype, walkers, swarms, spb):
    params = {"variant": "classic", "walkers": walkers, "swarms": swarms}
    base_algo, base = _run(monkeypatch, 1, params, dtype)
    algo, packed = _run(monkeypatch, spb, params, dtype)
    assert base_algo._launch.spb == 1 and base_algo._launch.kernel == "pso_classic"
    assert algo._launch.spb == spb and algo._launch.kernel == "pso_classic_packed"
    assert algo._launch.shape.block % 32 == 0 and algo._launch.shape.block <= 160
    _same(base, packed)
    assert len(np.unique(packed["swarm_best_f"])) > 1  # the swarms did differ


@pytest.mark.parametrize("shared", [(0,), (1 | 2 | 4,)])  # state in global memory / x, v, p shared
def test_packed_run_with_a_max_evals_cut_and_either_state_place(monkeypatch, shared):
    params = {"variant": "classic", "walkers": 40, "swarms": 10}
    budget = Budget(max_evals=400 * 12 + 123)  # the cut iteration: 123 particles, into swarm 3
    base_algo, base = _run(monkeypatch, 1, params, "float32", budget, iterations=20, shared=shared)
    algo, packed = _run(monkeypatch, 4, params, "float32", budget, iterations=20, shared=shared)
    assert algo._launch.spb == 4 and algo._launch.flags == base_algo._launch.flags == shared[0]
    assert packed["evals"] == 400 * 12 + 123
    _same(base, packed)


@pytest.mark.parametrize("spb", [3, 4])
@pytest.mark.parametrize("dtype, budget", [("float32", {"max_evals": 3001}), ("float64", {"max_evals": 2017}),
                                           ("float32", {"max_iters": 40})])
def test_packed_grid_equals_runs_one_at_a_time(monkeypatch, spb, dtype, budget):
    # 3 x 3 settings x 2 seeds = 18 runs of 40: blocks of 3 or 4 runs, the last one short (18 % 4)
    monkeypatch.setattr(ParticleSwarmCuda, "swarms_per_block", spb)
    axes, fixed = ["omega=0.3:0.9:3", "phi_g=1:2:3"], {"variant": "classic", "walkers": 40}
    table = tune("particle_swarm", "rastrigin", axes, dim=5, seeds=2, first_seed=3, engine="cuda",
                 dtype=dtype, params=fixed, **budget)
    assert table.batched and "fused kernels" in table.path, table.path
    for row in table.rows:  # a run alone has one swarm: unpacked
        alone = solvers.run("particle_swarm", "rastrigin", "cuda", dim=5, seed=row.seed, dtype=dtype,
                            params={**fixed, **row.params}, **budget)
        assert (row.best_f, row.evals) == (alone.best_f, alone.evals), row
    assert len({row.best_f for row in table.rows}) > 1


def test_the_tuning_benchmarks_grid_is_packed_and_the_environment_unpacks_it(monkeypatch):
    """2,048 runs of 40 (scripts/tune_bench.py's grid): 4 swarms of 40 per block of 160 threads on
    a 132-multiprocessor H100/H200; MULTIWALK_PSO_SWARMS_PER_BLOCK=1 gives the unpacked kernel."""
    from solvers.cuda.particle_swarm import choose_swarms_per_block
    from solvers.cuda.resident import multiprocessors

    engine = get_engine("cuda")
    problem = get_problem("rastrigin", 30)
    one = make_params(ParticleSwarmCuda.Params, {"variant": "classic", "walkers": 40, "swarms": 1})

    def launch(env):
        if env is None:
            monkeypatch.delenv(SWARMS_PER_BLOCK_ENV, raising=False)
        else:
            monkeypatch.setenv(SWARMS_PER_BLOCK_ENV, env)
        probe = engine.build("particle_swarm", problem, one, "float32")
        algo = engine.build("particle_swarm", problem, probe.params_for_groups(one, 2048), "float32")
        algo.set_groups(2048, {"omega": np.linspace(0.2, 1.0, 2048)})
        algo.init(GroupedRNG(engine.xp, list(range(2048))))
        return algo._launch

    auto = launch(None)
    assert auto.spb == choose_swarms_per_block(40, 2048, multiprocessors())
    assert auto.kernel == ("pso_classic_grid_packed" if auto.spb > 1 else "pso_classic_grid")
    if multiprocessors() == 132:
        assert (auto.spb, auto.shape.block) == (4, 160)
    old = launch("1")
    assert (old.spb, old.kernel, old.shape.block) == (1, "pso_classic_grid", 64)
