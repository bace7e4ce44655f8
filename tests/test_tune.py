"""Parameter grids (solvers/tune): spec checks, per-group parameters, batched = one at a time, CLI."""
import csv
import json

import numpy as np
import pytest

import solvers
from solvers.algorithms import get_algorithm
from solvers.cli import main
from solvers.errors import ConfigError
from solvers.params import make_params
from solvers.problems import get_problem
from solvers.rng import ArrayRNG, GroupedRNG
from solvers.tune import MAX_GROUPS, build_grid, cell_stats, prepare, tune

PSO = get_algorithm("particle_swarm")


# --- the grid spec -------------------------------------------------------------------------------
def test_axes_linear_log_and_integer():
    grid = build_grid(["omega=0.2:1.0:5", "phi_g=0.04:4:3:log"], PSO, seeds=2, first_seed=7)
    assert grid.axes[0].values == pytest.approx((0.2, 0.4, 0.6, 0.8, 1.0))
    assert grid.axes[0].values[0] == 0.2 and grid.axes[0].values[-1] == 1.0  # ends exact
    assert grid.axes[1].values == pytest.approx((0.04, 0.4, 4.0))
    assert grid.shape == (5, 3) and grid.seeds == (7, 8) and grid.groups == 30
    pairs = grid.pairs()
    assert pairs[0] == (0, {"omega": 0.2, "phi_g": 0.04}, 7) and pairs[1][2] == 8
    assert pairs[2][1] == {"omega": 0.2, "phi_g": pytest.approx(0.4)}  # last axis fastest
    halvings = build_grid("tol_halvings=4:20:5", get_algorithm("pattern_search"), seeds=1)
    assert halvings.axes[0].values == (4, 8, 12, 16, 20)


@pytest.mark.parametrize("spec, words", [
    ("nope=0:1:4", "has no parameter 'nope'"),
    ("walkers=10:40:4", "cannot be a grid axis: it sets the size"),
    ("swarms=1:4:4", "cannot be a grid axis"),
    ("variant=0:1:2", "only numeric"),
    ("omega=1.0:0.2:4", "inverted range"),
    ("omega=0.5:0.5:4", "empty range"),
    ("omega=0.2:2.0:4", "must be in [0, 1.5]"),
    ("omega=0:1:4:log", "log axis needs a lower end above 0"),
    ("omega=0.2:1.0", "expected NAME=LO:HI:N"),
    ("omega0.2:1.0:4", "expected NAME=LO:HI:N"),
    ("omega=a:1.0:4", "the lower end must be a number"),
    ("omega=0.2:1.0:0", "from 1 to 1024"),
    ("omega=0.2:1.0:4:cubic", "'log' or 'lin'"),
    ("informants=1:3:8", "cannot be a grid axis"),
])
def test_bad_axes_are_refused_with_one_line(spec, words):
    with pytest.raises(ConfigError) as err:
        build_grid([spec], PSO, seeds=1)
    assert words in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("grid", [None, 5, 0.5])
def test_a_grid_that_is_not_axis_text_is_refused_with_one_line(grid):
    with pytest.raises(ConfigError, match=f"grid must be an axis 'NAME=LO:HI:N' or a list of one or two, "
                                          f"got {type(grid).__name__}"):
        tune("particle_swarm", "sphere", grid, seeds=1, dim=2, max_iters=1)


def test_integer_axis_with_too_few_integers_and_grid_limits():
    with pytest.raises(ConfigError, match="only 3 distinct"):
        build_grid("tol_halvings=1:3:5", get_algorithm("pattern_search"), seeds=1)
    with pytest.raises(ConfigError, match="2\\^20"):
        build_grid(["omega=0.1:1:1024", "phi_g=0.1:2:1024"], PSO, seeds=2)
    assert build_grid(["omega=0.1:1:1024", "phi_g=0.1:2:1024"], PSO, seeds=1).groups == MAX_GROUPS
    with pytest.raises(ConfigError, match="given twice"):
        build_grid(["omega=0.1:1:2", "omega=0.1:1:3"], PSO, seeds=1)
    with pytest.raises(ConfigError, match="one or two"):
        build_grid(["omega=0.1:1:2", "phi_g=0.1:1:2", "phi_p=0.1:1:2"], PSO, seeds=1)
    with pytest.raises(ConfigError, match="seeds must be"):
        build_grid("omega=0.1:1:2", PSO, seeds=0)


def test_prepare_checks_variant_schedule_budget_and_memory(monkeypatch):
    tuning = prepare("particle_swarm", "sphere", ["omega=0.2:0.8:2"], dim=2, max_evals=400)
    assert tuning.table.base_params["variant"] == "classic" and "classic" in tuning.table.notes[0]
    with pytest.raises(ConfigError, match="no effect under variant spso2011"):
        prepare("particle_swarm", "sphere", ["omega=0.2:0.8:2"], dim=2, max_evals=400,
                params={"variant": "spso2011"})
    with pytest.raises(ConfigError, match="both a grid axis and a fixed parameter"):
        prepare("particle_swarm", "sphere", ["omega=0.2:0.8:2"], max_evals=400, params={"omega": 0.5})
    sa = prepare("simulated_annealing", "sphere", ["alpha=0.5:0.9:2"], dim=2, max_evals=400)
    assert sa.table.base_params["schedule"] == "fixed"
    with pytest.raises(ConfigError, match="fitted under schedule=auto"):
        prepare("simulated_annealing", "sphere", ["alpha=0.5:0.9:2"], max_evals=400,
                params={"schedule": "auto"})
    with pytest.raises(ConfigError, match="t_min' must be smaller"):  # cross-field rule, per setting
        prepare("simulated_annealing", "sphere", ["t0=0.5:100:2"], max_evals=400, params={"t_min": 1.0})
    with pytest.raises(ConfigError, match="needs a budget"):
        prepare("particle_swarm", "sphere", ["omega=0.2:0.8:2"])
    import solvers.engines.base as engine_base

    monkeypatch.setattr(engine_base, "host_available_bytes", lambda: 10_000_000)
    with pytest.raises(ConfigError, match="memory"):  # the whole batch's walkers, checked up front
        prepare("particle_swarm", "sphere", ["omega=0.2:0.8:64", "phi_g=0.5:2:64"], dim=30,
                seeds=16, max_evals=10_000)


# --- per-group parameters and streams -----------------------------------------------------------
CASES = [("particle_swarm", {"variant": "classic", "walkers": 8, "swarms": 3}, "omega", (0.4, 0.9, 0.4)),
         ("particle_swarm", {"variant": "classic", "walkers": 8, "swarms": 3}, "lr", (1.0, 0.5, 1.0)),
         ("differential_evolution", {"walkers": 8, "populations": 3}, "F", (0.5, 0.9, 0.5)),
         ("differential_evolution", {"walkers": 8, "populations": 3}, "Cr", (0.2, 0.9, 0.2)),
         ("pattern_search", {"walkers": 24}, "delta0", (0.1, 0.02, 0.1)),
         ("pattern_search", {"walkers": 24}, "tol_halvings", (2, 20, 2))]


@pytest.mark.parametrize("name, params, varied, values", CASES)
def test_groups_with_different_params_differ_and_equal_ones_agree(name, params, varied, values):
    cls = get_algorithm(name)
    algo = cls(get_problem("rastrigin", 3), make_params(cls.Params, params))
    algo.set_groups(3, {varied: values})
    state = algo.init(GroupedRNG(np, [11, 11, 11]))  # the same seed: only the parameter differs
    algo.step(state, 30)
    X = state.X.reshape(3, -1, 3)
    assert np.array_equal(X[0], X[2]) and state.group_best_f[0] == state.group_best_f[2]
    assert not np.array_equal(X[0], X[1])


def test_grouped_streams_repeat_each_seed_alone():
    rng = GroupedRNG(np, [3, 9])
    draws = rng.random((6, 2)), rng.integers(0, 5, 4), rng.normal((2, 3))
    for g, seed in enumerate((3, 9)):
        alone = ArrayRNG(np, seed)
        assert np.array_equal(draws[0][3 * g:3 * g + 3], alone.random((3, 2)))
        assert np.array_equal(draws[1][2 * g:2 * g + 2], alone.integers(0, 5, 2))
        assert np.array_equal(draws[2][g:g + 1], alone.normal((1, 3)))


# --- batched grid = one run at a time -----------------------------------------------------------
@pytest.mark.parametrize("name, axes, dtype, budget", [
    ("particle_swarm", ["omega=0.3:0.9:2", "phi_g=1:2:2"], "float64", 2013),
    ("particle_swarm", ["lr=0.5:1:2"], "float32", 1500),
    ("differential_evolution", ["F=0.3:0.9:2", "Cr=0.1:0.9:2"], "float64", 2017),
    ("pattern_search", ["delta0=0.01:0.2:2:log", "tol_halvings=4:20:2"], "float32", 4007),
])
def test_batched_grid_equals_runs_one_at_a_time(name, axes, dtype, budget):
    table = tune(name, "rastrigin", axes, dim=3, seeds=2, first_seed=5, max_evals=budget, dtype=dtype)
    assert table.batched and table.path.startswith("batched") and table.complete
    fixed = {"variant": "classic"} if name == "particle_swarm" else {}
    for row in table.rows:
        alone = solvers.run(name, "rastrigin", dim=3, seed=row.seed, max_evals=budget, dtype=dtype,
                            params={**fixed, **row.params})
        assert (row.best_f, row.evals) == (alone.best_f, alone.evals)
    assert len({row.best_f for row in table.rows}) > 1


def test_settings_that_cannot_run_as_groups_run_one_at_a_time():
    # the annealing hybrid polishes the whole run's best chains: its grids run one by one, saying why
    table = tune("simulated_annealing", "himmelblau", ["alpha=0.5:0.95:2"], seeds=2, max_evals=1200,
                 params={"variant": "hybrid"})
    assert not table.batched and "one run per (setting, seed)" in table.path
    assert "hybrid polishes" in table.path
    for row in table.rows:
        alone = solvers.run("simulated_annealing", "himmelblau", seed=row.seed, max_evals=1200,
                            params={"schedule": "fixed", "variant": "hybrid", **row.params})
        assert (row.best_f, row.evals) == (alone.best_f, alone.evals)
    # an algorithm with no per-group parameters at all
    table = tune("multidirectional_search", "himmelblau", ["edge=0.05:0.2:2"], seeds=2, max_evals=600)
    assert not table.batched and "takes one parameter set per run" in table.path
    for row in table.rows:
        alone = solvers.run("multidirectional_search", "himmelblau", seed=row.seed, max_evals=600,
                            params=row.params)
        assert (row.best_f, row.evals) == (alone.best_f, alone.evals)


# Annealing grids: every group of chains its own alpha, chain length, T0, T_min and schedule; short
# schedules (T0 50 -> T_min 0.5) so that the runs reheat, and budgets that cut an iteration.
SA_FIXED = {"walkers": 16, "t0": 50.0, "t_min": 0.5}


@pytest.mark.parametrize("variant, axes, dtype, budget", [
    ("sync", ["alpha=0.5:0.95:3", "chain_length=3:17:2"], "float64", {"max_evals": 2013}),
    ("sync", ["alpha=0.5:0.95:2", "chain_length=3:17:2"], "float32", {"max_evals": 1601}),
    ("async", ["alpha=0.5:0.95:2", "chain_length=2:9:2"], "float32", {"max_evals": 2013}),
    ("sync", ["t0=20:80:2", "t_min=0.1:5:2:log"], "float64", {"max_iters": 90}),
])
def test_annealing_grid_runs_batched_and_equals_runs_one_at_a_time(variant, axes, dtype, budget):
    fixed = {k: v for k, v in SA_FIXED.items() if not any(a.startswith(k + "=") for a in axes)}
    table = tune("simulated_annealing", "rastrigin", axes, dim=3, seeds=2, first_seed=5, dtype=dtype,
                 params={"variant": variant, **fixed}, **budget)
    assert table.batched and table.path.startswith("batched") and table.complete
    assert table.base_params["schedule"] == "fixed"  # a grid over the schedule runs it as given
    for row in table.rows:
        alone = solvers.run("simulated_annealing", "rastrigin", dim=3, seed=row.seed, dtype=dtype,
                            params={"variant": variant, "schedule": "fixed", **fixed, **row.params},
                            **budget)
        assert (row.best_f, row.evals) == (alone.best_f, alone.evals)
    assert len({row.best_f for row in table.rows}) > 1


def test_annealing_groups_keep_their_own_schedule_and_broadcast_within_the_group():
    from solvers.algorithms.simulated_annealing import SimulatedAnnealing

    problem = get_problem("rastrigin", 3)
    params = make_params(SimulatedAnnealing.Params, {"schedule": "fixed", "variant": "sync", "walkers": 24,
                                                    "t0": 10.0, "t_min": 1.0})
    algo = SimulatedAnnealing(problem, params)
    algo.set_groups(3, {"alpha": (0.5, 0.9, 0.5), "chain_length": (3, 4, 3)})
    state = algo.init(GroupedRNG(np, [11, 12, 11]))
    algo.step(state, 12)
    sched = state.schedule
    assert list(sched.level) == [4, 3, 4] and list(sched.level_iteration) == [0, 0, 0]
    # T 10 -> 5 -> 2.5 -> 1.25 -> 0.625 <= T_min: reheated; 10 * 0.9^3 > T_min
    assert sched.temperature[0] == 10.0 and sched.temperature[1] == pytest.approx(7.29)
    assert list(sched.rounds) == [1, 0, 1] and state.temperature == 10.0  # scalars: group 0
    X = state.X.reshape(3, 8, 3)
    assert np.array_equal(X[0], X[2])  # the same seed and values: the same run
    for g in range(3):  # a level just ended everywhere: each group sits at its own best point
        assert np.all(X[g] == sched.best_x[g]) and sched.best_f[g] == state.group_best_f[g]
    assert not np.array_equal(sched.best_x[0], sched.best_x[1])
    # the scalar fields show group 0 as that run alone would: no completed level, no level rate yet
    # (group 1's level of 2 ended first; its rate is not group 0's)
    early = SimulatedAnnealing(problem, params)
    early.set_groups(2, {"chain_length": (5, 2)})
    state = early.init(GroupedRNG(np, [11, 12]))
    early.step(state, 2)
    assert list(state.schedule.level) == [0, 1] and state.level == 0
    assert state.last_level_acceptance is None
    assert np.isnan(state.schedule.last_level_acceptance[0])
    hybrid = SimulatedAnnealing(problem, make_params(SimulatedAnnealing.Params,
                                                     {"schedule": "fixed", "variant": "hybrid", "walkers": 8}))
    with pytest.raises(ConfigError, match="hybrid polishes"):
        hybrid.set_groups(2, {"alpha": (0.5, 0.9)})
    auto = SimulatedAnnealing(problem, make_params(SimulatedAnnealing.Params, {"walkers": 8}))
    with pytest.raises(ConfigError, match="schedule fixed"):
        auto.set_groups(2, {"alpha": (0.5, 0.9)})


def test_cells_stop_and_progress():
    seen = []
    table = tune("particle_swarm", "himmelblau", ["phi_g=0.5:2.0:2"], seeds=3, max_evals=2000,
                 tolerance=1e-3, on_progress=seen.append)
    assert seen[-1].done == seen[-1].total == 6
    cells = table.cells()
    assert [c.runs for c in cells] == [3, 3]
    for cell in cells:
        errors = sorted(r.best_f - 0.0 for r in table.rows if r.setting == cell.setting)
        assert cell.best == errors[0] and cell.worst == errors[-1] and cell.median == errors[1]
        assert cell.q1 <= cell.median <= cell.q3
        reached = [r for r in table.rows if r.setting == cell.setting and r.reached_at is not None]
        assert cell.success_rate == pytest.approx(len(reached) / 3)
        assert all(0 < r.reached_at <= 2000 for r in reached)
    stopped = tune("particle_swarm", "himmelblau", ["phi_g=0.5:2.0:2"], seeds=3, max_evals=2000,
                   stop=lambda: True)
    # a stopped batch keeps every run's best so far, at the evaluations it got to
    assert stopped.stop_reason == "stopped" and {r.evals for r in stopped.rows} == {40}


def test_cells_of_runs_that_never_saw_a_finite_value_read_inf_not_nan():
    """sqrt(x1 - 4.9) is NaN on most of the box: seeds that never land in x1 >= 4.9 end at +inf.
    Their median and quartiles were NaN (numpy's inf - inf), which the map draws as a cell not run
    yet and the hover text prints as 'median nan'."""
    table = tune("particle_swarm", "expr: sqrt(x1 - 4.9) + x2**2", ["omega=0.2:1.0:2"], seeds=4, dim=2,
                 max_iters=2, params={"walkers": 2})
    lost = [c for c in table.cells() if all(r.best_f == np.inf for r in table.rows if r.setting == c.setting)]
    assert lost, "the case needs a setting whose seeds all end at +inf"
    for cell in lost:
        assert cell.median == cell.q1 == cell.q3 == cell.best == cell.worst == np.inf
    stats = cell_stats(np.array([[1.0, np.inf, np.inf, 2.0], [np.nan] * 4]), np.full((2, 4), np.nan),
                       1e-4, True)
    assert stats.median[0] == np.inf and np.isnan(stats.median[1])
    assert stats.q1[0] == 1.75 and stats.q3[0] == np.inf and np.isnan(stats.q1[1])  # no runs: NaN


# --- the command line ---------------------------------------------------------------------------
@pytest.mark.parametrize("extra, words", [
    (["--grid", "omega=1:0.2:4"], "inverted range"),
    (["--grid", "nope=0:1:4"], "has no parameter"),
    (["--grid", "omega=0.2:9:4"], "must be in [0, 1.5]"),
    (["--grid", "omega=0.1:1:1024", "--grid", "phi_g=0.1:2:1024"], "2^20"),
    (["--grid", "walkers=1:9:3"], "cannot be a grid axis"),
    (["--grid", "omega=0.2:1:4", "--dim", "0"], "dim"),
    (["--grid", "omega=0.2:1:4", "--seeds", "0"], "seeds must be"),
])
def test_cli_bad_specs_exit_2_with_one_line(capsys, extra, words):
    code = main(["tune", "-a", "particle_swarm", "-f", "rastrigin", "--max-evals", "1000", *extra])
    err = capsys.readouterr().err
    assert code == 2 and words in err and err.count("\n") == 1


def test_cli_missing_budget_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["tune", "-a", "particle_swarm", "-f", "rastrigin", "--grid", "omega=0.2:1:4"])
    assert exc.value.code == 2 and capsys.readouterr().err.count("\n") == 1


def test_cli_csv_json_and_text(tmp_path, capsys):
    path = tmp_path / "grid.csv"
    args = ["tune", "-a", "particle_swarm", "-f", "himmelblau", "--grid", "omega=0.3:0.9:2",
            "--grid", "phi_g=1:2:2", "--seeds", "2", "--max-evals", "800"]
    assert main([*args, "--csv", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == len(data["rows"]) == 8 and len(data["cells"]) == 4 and data["batched"]
    assert list(rows[0]) == ["omega", "phi_g", "seed", "best_f", "evals", "seconds", "reached_at"]
    assert float(rows[0]["best_f"]) == data["rows"][0]["best_f"] and rows[0]["evals"] == "800"
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "median final error: rows omega, columns phi_g" in out and "best        omega=" in out
    folder = tmp_path / "a_folder"
    folder.mkdir()
    assert main([*args, "--csv", str(folder)]) == 2
    assert "is a folder" in capsys.readouterr().err


def test_cli_known_minimum_of_a_typed_function(capsys):
    # tune had no --f-min, and --tolerance was accepted and ignored where the minimum is unknown
    args = ["tune", "-a", "particle_swarm", "--grid", "omega=0.3:0.9:2", "--seeds", "2", "--max-evals", "800",
            "-d", "2", "--json"]
    assert main([*args, "-f", "expr: sum(x[i]**2) + 3", "--f-min", "3", "--tolerance", "1e-3"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["f_min"] == 3 and all(c["success_rate"] is not None for c in data["cells"])
    for function, words in [("expr: sum(x[i]**2)", "give it with --f-min"), ("quartic_noisy", "has none")]:
        assert main([*args, "-f", function, "--tolerance", "1e-3"]) == 2
        err = capsys.readouterr().err
        assert "--tolerance needs a known minimum" in err and words in err and err.count("\n") == 1
    assert main([*args, "-f", "expr: sum(x[i]**2)"]) == 0  # the default tolerance is no request


def test_api_is_exported():
    assert solvers.tune is tune
