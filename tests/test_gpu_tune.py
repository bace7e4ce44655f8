"""GPU: tuning grids. The cupy engine runs a grid as one batched run of its array code, the cuda
engine as one batched run of its fused kernels (PSO classic, DE, pattern search: per-group values
and Philox keys as device arrays; simulated annealing async/sync: each run's schedule on the host,
its temperature per launch); either way each group equals the same setting and seed run one
at a time on that engine. The annealing hybrid runs one run per (setting, seed), equal to solvers.run."""
from __future__ import annotations

import numpy as np
import pytest

import solvers
from solvers.engines import get_engine
from solvers.params import make_params
from solvers.problems import get_problem
from solvers.rng import GroupedRNG
from solvers.tune import prepare, tune
from test_tune_reach import MDS, PS, batch_chunks, reached, runner_chunks, truth

pytestmark = pytest.mark.gpu

GRIDS = [
    ("particle_swarm", ["omega=0.3:0.9:2", "phi_g=1:2:2"], {"variant": "classic"}),
    ("differential_evolution", ["F=0.3:0.9:2", "Cr=0.1:0.9:2"], {}),
    ("pattern_search", ["delta0=0.01:0.2:2", "tol_halvings=4:20:2"], {}),
]


@pytest.mark.parametrize("name, axes, fixed", GRIDS)
def test_cupy_batched_grid_equals_runs_one_at_a_time(name, axes, fixed):
    table = tune(name, "rastrigin", axes, dim=3, seeds=2, max_evals=3001, engine="cupy")
    assert table.batched
    for row in table.rows:
        alone = solvers.run(name, "rastrigin", "cupy", dim=3, seed=row.seed, max_evals=3001,
                            params={**fixed, **row.params})
        assert (row.best_f, row.evals) == (alone.best_f, alone.evals)


# annealing: every group of chains its own alpha and chain length (and schedule); short schedules
# (T0 50 -> T_min 0.5) that reheat within the budget
SA_FIXED = {"walkers": 16, "t0": 50.0, "t_min": 0.5}


@pytest.mark.parametrize("variant, dtype", [("sync", "float32"), ("sync", "float64"), ("async", "float32")])
def test_cupy_annealing_grid_equals_runs_one_at_a_time(variant, dtype):
    axes = ["alpha=0.5:0.95:2", "chain_length=3:17:2"]
    fixed = {"variant": variant, **SA_FIXED}
    table = tune("simulated_annealing", "rastrigin", axes, dim=3, seeds=2, max_evals=2013,
                 engine="cupy", dtype=dtype, params=fixed)
    assert table.batched
    for row in table.rows:
        alone = solvers.run("simulated_annealing", "rastrigin", "cupy", dim=3, seed=row.seed,
                            max_evals=2013, dtype=dtype,
                            params={"schedule": "fixed", **fixed, **row.params})
        assert (row.best_f, row.evals) == (alone.best_f, alone.evals), row
    assert len({row.best_f for row in table.rows}) > 1


# max_evals not a multiple of a run's evaluations per iteration: the cut iteration is per group
@pytest.mark.parametrize("dtype, budget", [("float32", {"max_evals": 3001}),
                                           ("float64", {"max_evals": 2017}),
                                           ("float32", {"max_iters": 40})])
@pytest.mark.parametrize("name, axes, fixed", GRIDS)
def test_cuda_batched_grid_equals_runs_one_at_a_time(name, axes, fixed, dtype, budget):
    table = tune(name, "rastrigin", axes, dim=5, seeds=2, first_seed=3, engine="cuda", dtype=dtype,
                 **budget)
    assert table.batched and "fused kernels" in table.path, table.path
    for row in table.rows:
        alone = solvers.run(name, "rastrigin", "cuda", dim=5, seed=row.seed, dtype=dtype,
                            params={**fixed, **row.params}, **budget)
        assert (row.best_f, row.evals) == (alone.best_f, alone.evals), row
    assert len({row.best_f for row in table.rows}) > 1


def test_cuda_grid_with_state_in_global_memory_equals_runs_alone(monkeypatch):
    # a large grid keeps less of each particle in shared memory than a run alone (one wave of
    # blocks, solvers/cuda/particle_swarm.py): where the state lives must not change a number
    import solvers.cuda.particle_swarm as pso

    axes, fixed = ["omega=0.3:0.9:2", "lr=0.5:1:2"], {"variant": "classic"}
    with monkeypatch.context() as patch:
        patch.setattr(pso, "SHARED_CHOICES", (0,))
        table = tune("particle_swarm", "rastrigin", axes, dim=5, seeds=2, engine="cuda",
                     dtype="float32", max_evals=3001)
    for row in table.rows:
        alone = solvers.run("particle_swarm", "rastrigin", "cuda", dim=5, seed=row.seed, dtype="float32",
                            max_evals=3001, params={**fixed, **row.params})
        assert (row.best_f, row.evals) == (alone.best_f, alone.evals), row


# the same seed in every group: only the parameter differs, so groups 0 and 2 agree bit for bit
CASES = [("particle_swarm", {"variant": "classic", "walkers": 40, "swarms": 1}, "omega", (0.4, 0.9, 0.4)),
         ("particle_swarm", {"variant": "classic", "walkers": 40, "swarms": 2}, "lr", (1.0, 0.5, 1.0)),
         ("differential_evolution", {"walkers": 40, "populations": 1}, "F", (0.5, 0.9, 0.5)),
         ("differential_evolution", {"walkers": 40, "populations": 1}, "Cr", (0.2, 0.9, 0.2)),
         ("pattern_search", {"walkers": 24}, "delta0", (0.1, 0.02, 0.1)),
         ("pattern_search", {"walkers": 24}, "tol_halvings", (2, 20, 2))]


@pytest.mark.parametrize("name, params, varied, values", CASES)
def test_cuda_groups_with_different_params_differ_and_equal_ones_agree(name, params, varied, values):
    engine = get_engine("cuda")
    cls = engine.algorithm_class(name)
    one = make_params(cls.Params, params)
    probe = engine.build(name, get_problem("rastrigin", 4), one, "float32")
    algo = engine.build(name, get_problem("rastrigin", 4), probe.params_for_groups(one, 3), "float32")
    algo.set_groups(3, {varied: values})
    state = algo.init(GroupedRNG(engine.xp, [11, 11, 11]))
    algo.step(state, 30)
    X = engine.xp.asnumpy(state.X).reshape(3, -1, 4)
    best = engine.xp.asnumpy(state.group_best_f)
    assert np.array_equal(X[0], X[2]) and best[0] == best[2]
    assert not np.array_equal(X[0], X[1])
    assert state.evals % 3 == 0


@pytest.mark.parametrize("variant, dtype, budget", [("sync", "float32", {"max_evals": 2013}),
                                                    ("sync", "float64", {"max_iters": 90}),
                                                    ("async", "float32", {"max_evals": 1601})])
def test_cuda_annealing_grid_runs_batched_and_equals_runs_one_at_a_time(variant, dtype, budget):
    # every run its own alpha, chain length (so level ends at different iterations) and schedule
    axes = ["alpha=0.5:0.95:2", "chain_length=3:17:2"]
    fixed = {"variant": variant, **SA_FIXED}
    table = tune("simulated_annealing", "rastrigin", axes, dim=5, seeds=2, first_seed=3, engine="cuda",
                 dtype=dtype, params=fixed, **budget)
    assert table.batched and "fused kernels" in table.path, table.path
    for row in table.rows:
        alone = solvers.run("simulated_annealing", "rastrigin", "cuda", dim=5, seed=row.seed, dtype=dtype,
                            params={"schedule": "fixed", **fixed, **row.params}, **budget)
        assert (row.best_f, row.evals) == (alone.best_f, alone.evals), row
    assert len({row.best_f for row in table.rows}) > 1


def test_cuda_annealing_groups_keep_their_own_schedule():
    engine = get_engine("cuda")
    cls = engine.algorithm_class("simulated_annealing")
    one = make_params(cls.Params, {"schedule": "fixed", "variant": "sync", "walkers": 24, "t0": 10.0,
                                   "t_min": 1.0})
    algo = engine.build("simulated_annealing", get_problem("rastrigin", 4), one, "float32")
    algo.set_groups(3, {"alpha": (0.5, 0.9, 0.5), "chain_length": (3, 4, 3)})
    state = algo.init(GroupedRNG(engine.xp, [11, 12, 11]))
    algo.step(state, 12)
    sched = state.schedule
    assert list(sched.level) == [4, 3, 4] and list(sched.rounds) == [1, 0, 1]
    X = engine.xp.asnumpy(state.X).reshape(3, -1, 4)
    best_x = engine.xp.asnumpy(sched.best_x).T
    assert np.array_equal(X[0], X[2])
    for g in range(3):  # a level just ended in every run: its chains sit at its own best point
        assert np.all(X[g] == best_x[g])
    assert state.evals == 24 * 13


def test_cuda_annealing_hybrid_grid_runs_one_run_per_setting_and_seed():
    table = tune("simulated_annealing", "rastrigin", ["alpha=0.5:0.9:2"], dim=3, seeds=2,
                 max_evals=4000, engine="cuda", params={"variant": "hybrid"})
    assert not table.batched and "one run per (setting, seed)" in table.path
    assert "hybrid polishes" in table.path
    for row in table.rows:
        alone = solvers.run("simulated_annealing", "rastrigin", "cuda", dim=3, seed=row.seed,
                            max_evals=4000, params={"schedule": "fixed", "variant": "hybrid", **row.params})
        assert (row.best_f, row.evals) == (alone.best_f, alone.evals)


# reached_at (solvers/tune/reach.py): the fused kernels fold a run's best once per launch, so a
# grid finds the iteration in the chunk again; it never depends on how the runs were chunked
@pytest.mark.parametrize("grid, path", [(PS, "batched"), (PS, "one at a time"), (MDS, "one at a time")])
@pytest.mark.parametrize("grow", [False, True])
def test_cuda_reached_at_is_the_iteration_whatever_the_chunks(monkeypatch, grid, path, grow):
    expected = truth(grid, "cuda")
    assert any(e is not None for e in expected)
    if path == "one at a time":  # the cuda class copies the reference's group_params
        monkeypatch.setattr(get_engine("cuda").algorithm_class(grid["algorithm"]), "group_params", ())
        runner_chunks(monkeypatch, 1000 if grow else 1)
    batch_chunks(monkeypatch, grow)
    table = prepare(**grid, engine="cuda").run()
    assert table.batched == (path == "batched") and table.stop_reason == "finished"
    assert reached(table) == expected
