"""The annealing's auto schedule stays within the declared parameter limits, so a result's params
go back as they are: through make_params, a configuration file, the window's form and a second run.

Each case left a limit before the fit respected them (numpy engine, default walkers):
alpha 1e-3 (hybrid 3e-5) < 0.01 under max_iters=3, 5.6e-3 under max_evals=20; t_min 3e-15 < 1e-12
on easom (4 chains, seed 3); t0 2.1e17 > 1e12 and 2.1e-10 < 1e-9 on a sphere scaled by 1e15 or
1e-12; alpha 0.999998 > 0.99999 under max_iters=1e9 (a time-limited run).
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import solvers
from solvers import config_io
from solvers.algorithms.simulated_annealing import VARIANTS, SimulatedAnnealing
from solvers.config import Budget, RunConfig
from solvers.params import make_params, specs
from solvers.rng import ArrayRNG
from solvers.runner import Runner

SCALED = "expr:{}*(x1**2+x2**2)"
# (function, run() keywords): budgets and functions that gave params out of their limits
CASES = [
    ("sphere", dict(max_iters=3)),
    ("sphere", dict(max_evals=20)),
    ("easom", dict(max_evals=2000, seed=3)),
    (SCALED.format("1e15"), dict(max_evals=20_000, dim=2, bounds=(-10.0, 10.0))),
    (SCALED.format("1e-12"), dict(max_evals=20_000, dim=2, bounds=(-10.0, 10.0))),
]
IDS = ["max_iters-3", "max_evals-20", "easom-flat", "scale-1e15", "scale-1e-12"]


def run(function, variant, **kwargs):
    return solvers.run("simulated_annealing", function, engine="numpy", params={"variant": variant},
                       **kwargs)


def outside_limits(params: dict) -> dict:
    """The numeric params outside their declared limits ("auto" 0 aside): name -> (value, lo, hi)."""
    out = {}
    for s in specs(SimulatedAnnealing.Params):
        value = params[s.name]
        if s.kind not in (int, float) or (s.auto and value == 0):
            continue
        if (s.lo is not None and value < s.lo) or (s.hi is not None and value > s.hi):
            out[s.name] = (value, s.lo, s.hi)
    return out


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("function, kwargs", CASES, ids=IDS)
def test_result_params_are_within_limits_and_go_back(function, variant, kwargs):
    result = run(function, variant, **kwargs)
    assert outside_limits(result.params) == {}
    again = make_params(SimulatedAnnealing.Params, result.params)
    assert dataclasses.asdict(again) == result.params


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("function, kwargs", CASES, ids=IDS)
def test_result_params_round_trip_through_a_file_to_the_same_run(function, variant, kwargs, tmp_path):
    result = run(function, variant, **kwargs)
    options = {k: kwargs[k] for k in ("dim", "bounds", "seed") if k in kwargs}
    budget = {k: kwargs[k] for k in ("max_evals", "max_iters") if k in kwargs}
    config = RunConfig.build("simulated_annealing", function, options.pop("dim", None),
                             params=result.params, engine="numpy", sample_size=1, **options, **budget)
    loaded = config_io.load_config(config_io.save_config(config, tmp_path / "run.json"))
    assert dataclasses.asdict(loaded.params) == result.params
    second = Runner(loaded, compile_first=True).run()
    assert second.params == result.params
    assert (second.best_f, second.evals, second.iterations) == (
        result.best_f, result.evals, result.iterations)
    assert np.array_equal(second.best_x, result.best_x)


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_long_budget_keeps_alpha_within_limits(variant):
    # 1e9 iterations (time-limited here) would need alpha 0.999998: the levels grow instead
    result = run("sphere", variant, max_iters=10**9, max_seconds=0.05)
    assert outside_limits(result.params) == {}
    make_params(SimulatedAnnealing.Params, result.params)


def fitted(budget, variant="sync", base=None, problem="sphere"):
    """The auto schedule one run fits (plan and init, no iteration)."""
    params = base or make_params(SimulatedAnnealing.Params, {"variant": variant, "walkers": 64})
    algo = SimulatedAnnealing(solvers.get_problem(problem, 2), params)
    algo.plan(budget)
    algo.init(ArrayRNG(np, 0))
    return algo.params


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("max_iters", [3 * 10**8, 10**15, 10**300], ids=["3e8", "1e15", "1e300"])
def test_huge_budgets_fit_a_schedule_within_limits_that_refits_the_same(variant, max_iters):
    p = fitted(Budget(max_iters=max_iters), variant)
    assert outside_limits(dataclasses.asdict(p)) == {}
    assert p.alpha < 1.0 and p.t_min < p.t0
    # given back (a result's params), the fit is the same: the level length it chose stays
    assert fitted(Budget(max_iters=max_iters), variant, base=make_params(type(p), dataclasses.asdict(p))) == p


def test_ordinary_budgets_fit_as_before():
    # within the limits nothing changed: T0 / 1e9 over the budget's levels of 100 proposals
    p = fitted(Budget(max_iters=100_000), "sync")
    levels = 100_000 // 100
    assert (p.chain_length, p.alpha) == (100, 1e-9 ** (1.0 / levels))
    assert p.t_min == p.t0 * 1e-9 * p.alpha ** 0.5


@pytest.mark.parametrize("variant", ["async", "sync"])
def test_a_tiny_budget_cools_without_a_reheat(variant):
    # alpha held at 0.01 over 3 levels: T falls 1e-6, T_min stays half a level past the end
    result = run("rastrigin", variant, max_iters=3)
    assert result.params["alpha"] == 0.01
    assert result.params["t_min"] < result.params["t0"] * 0.01 ** 3


def test_the_hybrid_polishes_after_a_tiny_budget():
    params = make_params(SimulatedAnnealing.Params, {"variant": "hybrid", "walkers": 64})
    algo = SimulatedAnnealing(solvers.get_problem("rastrigin", 2), params)
    algo.plan(Budget(max_iters=4))
    state = algo.init(ArrayRNG(np, 0))
    # 70% of 4 iterations: 2 levels of one proposal at alpha 0.01, then Nelder-Mead
    algo.step(state, 1)
    assert state.phase == "anneal"
    algo.step(state, 1)
    assert state.phase == "polish" and state.rounds == 0


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("function, kwargs", [c for c in CASES if "max_evals" in c[1]],
                         ids=[i for i, c in zip(IDS, CASES) if "max_evals" in c[1]])
def test_a_bent_schedule_still_spans_the_budget(function, variant, kwargs):
    # held to the limits, the schedule still ends with the budget: no reheat, the hybrid polishes
    problem = solvers.get_problem(function, kwargs.get("dim"), bounds=kwargs.get("bounds"))
    algo = SimulatedAnnealing(problem, make_params(SimulatedAnnealing.Params, {"variant": variant}))
    algo.plan(Budget(max_evals=kwargs["max_evals"]))
    state = algo.init(ArrayRNG(np, kwargs.get("seed", 0)))
    while state.evals < kwargs["max_evals"] and not state.done:
        algo.step(state, 1)
    assert state.rounds == 0
    assert state.phase == ("polish" if variant == "hybrid" else "anneal")


@pytest.mark.parametrize("function, kwargs", CASES, ids=IDS)
def test_the_window_form_takes_a_results_params_back(qtbot, function, kwargs):
    pytest.importorskip("PyQt6")
    from gui.param_form import ParamForm

    result = run(function, "hybrid", **kwargs)
    form = ParamForm()
    qtbot.addWidget(form)
    form.set_params_class(SimulatedAnnealing.Params, values=result.params,
                          fitted=SimulatedAnnealing.fitted_params)
    shown = form.validate()  # None: a field refused its value
    assert shown is not None
    # as the result holds them: a spin box clamps a value beyond its limits without a word, and
    # shows at most 15 decimals (t_min near 1e-12 loses digits there, which the run fits again)
    numbers = [name for name, value in result.params.items() if isinstance(value, float)]
    assert {k: v for k, v in shown.items() if k not in numbers} == {
        k: v for k, v in result.params.items() if k not in numbers}
    assert [shown[k] for k in numbers] == pytest.approx([result.params[k] for k in numbers],
                                                        rel=1e-12, abs=1e-15)
    second = solvers.run("simulated_annealing", function, engine="numpy", params=shown, **kwargs)
    assert second.params == result.params and second.best_f == result.best_f
