"""A function's own defaults for an algorithm's parameters (ProblemDef.param_defaults): simulated
annealing runs its chains independently (variant async) on the Shekel functions, where sync, the
algorithm's default, ends in a wrong well in about 1 seed in 4 (docs/benchmarks/sa-sync-shekel.md;
that the defaults then converge: tests/test_budget_defaults.py)."""
from __future__ import annotations

import numpy as np
import pytest

import solvers
from solvers.config import RunConfig
from solvers.problems import param_defaults
from solvers.sweep import SweepSpec
from solvers.tune import prepare

SHEKEL = ("shekel_5", "shekel_7", "shekel_10")
SA = "simulated_annealing"


@pytest.mark.parametrize("name", SHEKEL)
def test_shekel_runs_annealing_async_unless_told(name):
    assert param_defaults(name, SA) == {"variant": "async"}
    assert RunConfig.build(SA, name).params.variant == "async"
    assert RunConfig.build(SA, name, params={"variant": "sync"}).params.variant == "sync"
    assert RunConfig.build(SA, name, params={"variant": "hybrid"}).params.variant == "hybrid"


def test_other_functions_keep_the_algorithms_defaults():
    assert RunConfig.build(SA, "rastrigin").params.variant == "sync"
    assert RunConfig.build(SA, "shekel_foxholes").params.variant == "sync"
    assert RunConfig.build(SA, "expr: sum(x[i]**2)", 2).params.variant == "sync"
    assert param_defaults("expr: sum(x[i]**2)", SA) == {}
    assert param_defaults("shekel_5", "particle_swarm") == {}
    pso = solvers.get_algorithm("particle_swarm").Params
    assert RunConfig.build("particle_swarm", "shekel_5").params == solvers.params.make_params(pso)


def test_an_unused_parameter_is_refused_under_the_functions_variant():
    with pytest.raises(solvers.ConfigError, match="no effect under variant async"):
        solvers.run(SA, "shekel_5", max_iters=2, params={"polish_points": 3})
    result = solvers.run(SA, "shekel_5", max_iters=2, params={"variant": "hybrid", "polish_points": 3})
    assert result.params["variant"] == "hybrid"


def test_a_result_gives_its_parameters_back():
    first = solvers.run(SA, "shekel_5", seed=3, max_evals=5_000)
    again = solvers.run(SA, "shekel_5", seed=3, max_evals=5_000, params=first.params)
    assert first.params["variant"] == again.params["variant"] == "async"
    assert again.best_f == first.best_f


def test_grids_and_sweeps_take_the_functions_defaults():
    tuning = prepare(SA, "shekel_5", "alpha=0.5:0.9:2", seeds=1, max_evals=2_000,
                     params={"schedule": "fixed"})
    assert tuning.table.base_params["variant"] == "async"
    assert "variant async: the function's default" in tuning.table.notes
    assert tuning.table.setting_params(0)["variant"] == "async"  # a cell's run is the grid's
    # an axis of the hybrid switches the variant, as it does from the algorithm's own default
    tuning = prepare(SA, "shekel_5", "polish_points=4:8:2", seeds=1, max_evals=2_000)
    assert tuning.table.base_params["variant"] == "hybrid"
    assert not any("the function's default" in note for note in tuning.table.notes)
    tuning = prepare(SA, "shekel_5", "alpha=0.5:0.9:2", seeds=1, max_evals=2_000,
                     params={"schedule": "fixed", "variant": "sync"})
    assert tuning.table.base_params["variant"] == "sync" and tuning.table.notes == ()
    assert SweepSpec.build(SA, "shekel_5").params == {"variant": "async"}
    assert SweepSpec.build(SA, "shekel_5", params={"variant": "sync"}).params == {"variant": "sync"}
    assert SweepSpec.build(SA, "rastrigin").params == {}


def test_list_says_which_functions_have_their_own_defaults(capsys):
    from solvers.cli import main

    assert main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    at = next(i for i, line in enumerate(lines) if line.split()[:1] == ["shekel_5"])
    assert "simulated_annealing defaults to variant=async here" in lines[at + 1]
    assert main(["list", "--json"]) == 0
    import json

    problems = {p["name"]: p for p in json.loads(capsys.readouterr().out)["problems"]}
    assert problems["shekel_7"]["param_defaults"] == {SA: {"variant": "async"}}
    assert problems["rastrigin"]["param_defaults"] == {}


@pytest.mark.gui
def test_the_window_shows_the_functions_defaults(qtbot):
    from gui.config_form import ConfigForm

    form = ConfigForm()
    qtbot.addWidget(form)

    def choose(combo, name):
        combo.setCurrentIndex(combo.findData(name))

    def variant():
        return form.params_form.values()["variant"]

    choose(form.algorithm_combo, SA)
    choose(form.problem_combo, "rastrigin")
    assert variant() == "sync"
    choose(form.problem_combo, "shekel_5")
    assert variant() == "async" and form.dim() == 4
    assert "variant async by default here" in form.problem_info.text()
    assert form.build_config().params.variant == "async"
    choose(form.problem_combo, "rastrigin")
    assert variant() == "sync"  # back to the algorithm's default
    form.params_form.set_values({"variant": "hybrid"})
    choose(form.problem_combo, "shekel_7")
    assert variant() == "hybrid"  # a value the user chose is kept, on any function
    form.params_form.set_values({"variant": "sync"})
    choose(form.problem_combo, "shekel_10")
    assert variant() == "sync"
    # an algorithm chosen on Shekel starts at Shekel's defaults; a saved state comes back as saved
    choose(form.algorithm_combo, "particle_swarm")
    choose(form.problem_combo, "ackley")
    choose(form.problem_combo, "shekel_5")
    choose(form.algorithm_combo, SA)
    assert variant() == "sync"  # left at sync on Shekel 10 by the user
    fresh = ConfigForm()
    qtbot.addWidget(fresh)
    choose(fresh.algorithm_combo, "particle_swarm")
    choose(fresh.problem_combo, "shekel_5")
    choose(fresh.algorithm_combo, SA)
    assert fresh.params_form.values()["variant"] == "async"
    state = form.state()
    assert state["problem"] == "shekel_5" and state["params"][SA]["variant"] == "sync"
    restored = ConfigForm()
    qtbot.addWidget(restored)
    restored.set_state(state)
    assert restored.problem() == "shekel_5" and restored.params_form.values()["variant"] == "sync"
    state["params"][SA]["variant"] = "async"
    restored.set_state(state)
    assert restored.params_form.values()["variant"] == "async"
    np.testing.assert_equal(restored.build_config().params.variant, "async")
