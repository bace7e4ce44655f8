"""GPU: tuning grids. The cupy engine runs a grid as one batched run whose groups equal the same
settings and seeds run one at a time on cupy; the cuda engine (kernels without per-group
parameters) runs one run per (setting, seed), equal to solvers.run on cuda, and says so."""
from __future__ import annotations

import pytest

import solvers
from solvers.tune import tune

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("name, axes, fixed", [
    ("particle_swarm", ["omega=0.3:0.9:2", "phi_g=1:2:2"], {"variant": "classic"}),
    ("differential_evolution", ["F=0.3:0.9:2", "Cr=0.1:0.9:2"], {}),
    ("pattern_search", ["delta0=0.01:0.2:2", "tol_halvings=4:20:2"], {}),
])
def test_cupy_batched_grid_equals_runs_one_at_a_time(name, axes, fixed):
    table = tune(name, "rastrigin", axes, dim=3, seeds=2, max_evals=3001, engine="cupy")
    assert table.batched
    for row in table.rows:
        alone = solvers.run(name, "rastrigin", "cupy", dim=3, seed=row.seed, max_evals=3001,
                            params={**fixed, **row.params})
        assert (row.best_f, row.evals) == (alone.best_f, alone.evals)


def test_cuda_grid_runs_one_run_per_setting_and_seed():
    table = tune("particle_swarm", "rastrigin", ["omega=0.3:0.9:2"], dim=3, seeds=2, max_iters=50,
                 engine="cuda")
    assert not table.batched and "one run per (setting, seed)" in table.path
    for row in table.rows:
        alone = solvers.run("particle_swarm", "rastrigin", "cuda", dim=3, seed=row.seed, max_iters=50,
                            params={"variant": "classic", **row.params})
        assert (row.best_f, row.evals) == (alone.best_f, alone.evals)
