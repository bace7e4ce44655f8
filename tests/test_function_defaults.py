"""A function's own defaults for an algorithm's parameters (ProblemDef.param_defaults): simulated
annealing runs its chains independently (variant async, and the hybrid's annealing stage async) on
the Shekel functions, Salomon, Schaffer F7 and Griewank, and the hybrid with async annealing on
Rosenbrock, where sync, the algorithm's default, misses the global minimum at the default budget
(docs/benchmarks/sa-sync-shekel.md, docs/benchmarks/sa-default-seeds.md; that the defaults then
converge: tests/test_budget_defaults.py)."""
from __future__ import annotations

import numpy as np
import pytest

import solvers
from solvers.config import RunConfig
from solvers.problems import param_defaults
from solvers.sweep import SweepSpec
from solvers.tune import prepare

SHEKEL = ("shekel_5", "shekel_7", "shekel_10")
ASYNC = SHEKEL + ("salomon", "schaffer_f7", "griewank")
SA = "simulated_annealing"


@pytest.mark.parametrize("name", ASYNC)
def test_annealing_runs_async_unless_told(name):
    assert param_defaults(name, SA) == {"variant": "async", "hybrid_base": "async"}
    assert RunConfig.build(SA, name).params.variant == "async"
    assert RunConfig.build(SA, name, params={"variant": "sync"}).params.variant == "sync"
    hybrid = RunConfig.build(SA, name, params={"variant": "hybrid"}).params
    assert (hybrid.variant, hybrid.hybrid_base) == ("hybrid", "async")
    hybrid = RunConfig.build(SA, name, params={"variant": "hybrid", "hybrid_base": "sync"}).params
    assert (hybrid.variant, hybrid.hybrid_base) == ("hybrid", "sync")


def test_rosenbrock_runs_the_hybrid_with_async_annealing_unless_told():
    assert param_defaults("rosenbrock", SA) == {"variant": "hybrid", "hybrid_base": "async"}
    params = RunConfig.build(SA, "rosenbrock").params
    assert (params.variant, params.hybrid_base) == ("hybrid", "async")
    assert RunConfig.build(SA, "rosenbrock", params={"variant": "sync"}).params.variant == "sync"


@pytest.mark.parametrize("name, variant, base", [("rosenbrock", "hybrid", "async"), ("salomon", "async", "async"),
                                                 ("shekel_5", "async", "async"), ("rastrigin", "sync", "sync")])
def test_the_solver_runs_the_functions_defaults(name, variant, base, monkeypatch):
    # what the algorithm object is built with, not only the config: its variant and whether it
    # broadcasts the best point (sync, or the hybrid's annealing on a sync base)
    from solvers.algorithms import simulated_annealing as sa

    seen = []
    fit = sa.SimulatedAnnealing.fit_schedule

    def spy(self, f0):
        seen.append((self.params.variant, self.params.hybrid_base, self.synchronous))
        return fit(self, f0)

    monkeypatch.setattr(sa.SimulatedAnnealing, "fit_schedule", spy)
    result = solvers.run(SA, name, seed=0, max_evals=3_000)
    assert seen == [(variant, base, variant == "sync" or (variant == "hybrid" and base == "sync"))]
    assert (result.params["variant"], result.params["hybrid_base"]) == (variant, base)


def test_other_functions_keep_the_algorithms_defaults():
    assert RunConfig.build(SA, "rastrigin").params.variant == "sync"
    assert RunConfig.build(SA, "portfolio_variance").params.variant == "sync"  # async misses it
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


@pytest.mark.parametrize("name", ["shekel_5", "rosenbrock"])
def test_a_result_gives_its_parameters_back(name):
    # hybrid_base=async is in the result's params under variant async: the function's default,
    # which passes as the algorithm's default does (params.refuse_unused)
    first = solvers.run(SA, name, seed=3, max_evals=5_000)
    again = solvers.run(SA, name, seed=3, max_evals=5_000, params=first.params)
    assert first.params["hybrid_base"] == again.params["hybrid_base"] == "async"
    assert first.params["variant"] == again.params["variant"]
    assert again.best_f == first.best_f


def test_a_hybrid_base_given_under_another_variant_is_still_refused_elsewhere():
    with pytest.raises(solvers.ConfigError, match="no effect under variant sync"):
        solvers.run(SA, "rastrigin", max_iters=2, params={"hybrid_base": "async"})
    with pytest.raises(solvers.ConfigError, match="no effect under variant sync"):
        solvers.run(SA, "shekel_5", max_iters=2, params={"variant": "sync", "hybrid_base": "sync",
                                                          "polish_points": 3})


def test_grids_and_sweeps_take_the_functions_defaults():
    tuning = prepare(SA, "shekel_5", "alpha=0.5:0.9:2", seeds=1, max_evals=2_000,
                     params={"schedule": "fixed"})
    assert tuning.table.base_params["variant"] == "async"
    assert "variant async: the function's default" in tuning.table.notes
    assert tuning.table.setting_params(0)["variant"] == "async"  # a cell's run is the grid's
    # an axis of the hybrid switches the variant, as it does from the algorithm's own default
    tuning = prepare(SA, "shekel_5", "polish_points=4:8:2", seeds=1, max_evals=2_000)
    assert tuning.table.base_params["variant"] == "hybrid"
    assert "variant async: the function's default" not in tuning.table.notes
    # ... and its annealing stage is the function's (hybrid_base async), said as such
    assert tuning.table.base_params["hybrid_base"] == "async"
    assert "hybrid_base async: the function's default" in tuning.table.notes
    tuning = prepare(SA, "shekel_5", "alpha=0.5:0.9:2", seeds=1, max_evals=2_000,
                     params={"schedule": "fixed", "variant": "sync"})
    assert tuning.table.base_params["variant"] == "sync" and tuning.table.notes == ()
    assert SweepSpec.build(SA, "shekel_5").params == {"variant": "async", "hybrid_base": "async"}
    assert SweepSpec.build(SA, "shekel_5", params={"variant": "sync"}).params == {"variant": "sync",
                                                                                  "hybrid_base": "async"}
    assert SweepSpec.build(SA, "rastrigin").params == {}


def test_list_says_which_functions_have_their_own_defaults(capsys):
    from solvers.cli import main

    assert main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    at = next(i for i, line in enumerate(lines) if line.split()[:1] == ["shekel_5"])
    assert "simulated_annealing defaults to variant=async, hybrid_base=async here" in lines[at + 1]
    assert main(["list", "--json"]) == 0
    import json

    problems = {p["name"]: p for p in json.loads(capsys.readouterr().out)["problems"]}
    assert problems["shekel_7"]["param_defaults"] == {SA: {"variant": "async", "hybrid_base": "async"}}
    assert problems["rosenbrock"]["param_defaults"] == {SA: {"variant": "hybrid", "hybrid_base": "async"}}
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
    assert "variant async, hybrid_base async by default here" in form.problem_info.text()
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


# --- a function of the user's own is never a built-in, whatever its name ---------------------------

def _sphere(xp, X):
    return (X ** 2).sum(axis=1)


def _named_like(name: str, dim: int = 4) -> solvers.Problem:
    """A Problem built by hand (solvers.Problem, ProblemDef) under a built-in's name."""
    from solvers.problems import ProblemDef
    from solvers.problems.base import box

    definition = ProblemDef(name=name, title="mine", group="Custom", source="the user", fn=_sphere,
                            bounds=box(-1, 1), default_dim=dim)
    return solvers.Problem(definition=definition, dim=dim, lower=np.full(dim, -1.0),
                           upper=np.full(dim, 1.0), f_min=0.0, x_min=np.zeros(dim))


def test_defaults_follow_the_registrys_definition_not_the_name():
    import dataclasses

    from solvers.problems import get_definition, get_problem, is_builtin

    shekel = get_problem("shekel_5")
    assert is_builtin("shekel_5") and is_builtin(shekel) and is_builtin(shekel.definition)
    assert param_defaults(shekel, SA) == param_defaults(shekel.with_bounds(0, 5), SA) == \
        {"variant": "async", "hybrid_base": "async"}
    # the same name over another function: not the built-in, so none of its defaults
    mine = dataclasses.replace(get_definition("shekel_5"), fn=_sphere)
    for impostor in (mine, _named_like("shekel_5"), dataclasses.replace(shekel, definition=mine)):
        assert not is_builtin(impostor) and param_defaults(impostor, SA) == {}
    assert not is_builtin("expr: sum(x[i]**2)") and not is_builtin("callable: shekel_5")


@pytest.mark.parametrize("name", ["shekel_5", "rastrigin"])
def test_a_problem_of_ones_own_under_a_builtins_name_is_refused(name):
    # solvers.run goes by the name: it ran the built-in Shekel (and its async defaults) in place of
    # the user's sphere, without a word
    with pytest.raises(solvers.ConfigError, match=f"^'{name}' is a built-in function's name; give your "
                                                 "own function another name$"):
        solvers.run(SA, _named_like(name), max_evals=500)
    import dataclasses

    from solvers.problems import get_problem

    shekel = get_problem("shekel_5")
    with pytest.raises(solvers.ConfigError, match="built-in function's name"):
        solvers.run(SA, dataclasses.replace(shekel, definition=dataclasses.replace(shekel.definition,
                                                                                   fn=_sphere)),
                    max_evals=500)
    # the built-in's own object still runs, with its defaults
    assert solvers.run(SA, shekel, max_evals=500).params["variant"] == "async"
    assert solvers.run(SA, shekel.with_bounds(0, 10), max_evals=500).params["variant"] == "async"


def test_registering_a_callable_under_a_builtins_name_is_refused():
    from solvers.problems.base import register_custom

    with pytest.raises(solvers.ConfigError, match="^'shekel_5' is a built-in function's name"):
        register_custom(_named_like("shekel_5").definition)


def test_ones_own_functions_titled_like_a_builtin_take_the_algorithms_defaults():
    from solvers.tune import prepare as prepare_grid

    bowl = solvers.Problem.from_callable(lambda X: (X ** 2).sum(axis=1), [-1] * 4, [1] * 4, name="shekel_5")
    typed = solvers.Problem.from_expression("sum(x[i]**2)", 4, -1, 1, name="shekel_5")
    for problem in (bowl, typed):
        assert problem.name != "shekel_5" and param_defaults(problem, SA) == {}
        assert param_defaults(problem.name, SA) == {}
        assert RunConfig.build(SA, problem.name, 4).params.variant == "sync"
        result = solvers.run(SA, problem, max_evals=500)
        assert result.problem == problem.name  # the report names the user's function ...
        assert (result.params["variant"], result.params["hybrid_base"]) == ("sync", "sync")  # ... and its defaults
        # Shekel's hybrid_base=async passes refuse_unused there (its default): not here, under sync
        with pytest.raises(solvers.ConfigError, match="no effect under variant sync"):
            solvers.run(SA, problem, max_evals=500, params={"hybrid_base": "async"})
        assert SweepSpec.build(SA, problem.name, 4).params == {}
        tuning = prepare_grid(SA, problem.name, "alpha=0.5:0.9:2", seeds=1, dim=4, max_evals=500,
                              params={"schedule": "fixed"})
        assert tuning.table.base_params["variant"] == "sync" and tuning.table.notes == ()


def test_a_copy_of_a_builtin_is_the_builtin():
    """A deep copy (or a trip through cloudpickle to a worker) holds the same function: it runs, with
    the function's defaults, where a function of one's own under the name is refused."""
    import copy

    from solvers.problems import get_problem, is_builtin, param_defaults

    for name in ("rastrigin", "shekel_5"):
        copied = copy.deepcopy(get_problem(name))
        assert copied.definition is not get_problem(name).definition
        assert is_builtin(copied)
        assert param_defaults(copied, "simulated_annealing") == param_defaults(name, "simulated_annealing")
    r = solvers.run("pattern_search", copy.deepcopy(get_problem("rastrigin", 3)), max_iters=2,
                    params={"walkers": 32})
    assert r.evals > 0
