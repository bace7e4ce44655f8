"""solvers.run (and RunConfig.build, tune) given a Problem object runs that object: its function, box,
f_min and x_min (RunConfig.problem_object). The run used to keep only the object's name and find the
function again by it: an older callable ran the newest one of its name, a Problem named like an
expression ran the expression, and an expression's f_min and per-coordinate box were lost.

Callables stay registered for the rest of the test process: every test names its own."""
from __future__ import annotations

import copy
import importlib.util
import dataclasses

import numpy as np
import pytest

import solvers
from solvers import ConfigError, Problem
from solvers.config import RunConfig
from solvers.problems import ProblemDef, get_problem
from solvers.problems.base import box
from solvers.sweep import SweepSpec

PS = "pattern_search"


def _bowl(X):
    return (X ** 2).sum(axis=1)


def _bowl_plus_100(X):
    return (X ** 2).sum(axis=1) + 100.0


def _one_line(exc: pytest.ExceptionInfo) -> str:
    text = str(exc.value)
    assert "\n" not in text and len(text) < 200 and "ProblemDef(" not in text, text
    return text


def test_an_older_callable_runs_its_own_function_after_its_name_is_taken():
    # observed: best_f 100 for `old`, the function registered last under its name
    old = Problem.from_callable(_bowl, [-1] * 2, [1] * 2, name="identity-stale")
    new = Problem.from_callable(_bowl_plus_100, [-1] * 2, [1] * 2, name="identity-stale")
    assert old.name == new.name == "callable: identity-stale"
    assert solvers.run(PS, old, max_evals=2000).best_f < 1e-6
    assert solvers.run(PS, new, max_evals=2000).best_f >= 100.0
    assert solvers.run(PS, old, max_evals=2000).best_f < 1e-6  # and again, after the new one ran
    # the name finds the newest: a notebook cell that redefines f and runs again gets the new f
    assert solvers.run(PS, "callable: identity-stale", max_evals=2000).best_f >= 100.0


def test_redefining_a_callable_and_running_again_runs_the_new_function():
    def f(X):
        return ((X - 0.5) ** 2).sum(axis=1)

    cell = Problem.from_callable(f, [-1] * 2, [1] * 2, name="identity-cell")
    first = solvers.run(PS, cell, max_evals=2000)

    def f(X):  # noqa: F811 - the cell, edited and run again
        return ((X + 0.5) ** 2).sum(axis=1)

    cell = Problem.from_callable(f, [-1] * 2, [1] * 2, name="identity-cell")
    second = solvers.run(PS, cell, max_evals=2000)
    np.testing.assert_allclose(first.best_x, [0.5, 0.5], atol=1e-3)
    np.testing.assert_allclose(second.best_x, [-0.5, -0.5], atol=1e-3)


def _hand_built(name: str, fn, dim: int = 2) -> Problem:
    definition = ProblemDef(name=name, title="mine", group="Custom", source="the user", fn=fn,
                            bounds=box(-1, 1), default_dim=dim)
    return Problem(definition=definition, dim=dim, lower=np.full(dim, -1.0), upper=np.full(dim, 1.0),
                   f_min=None, x_min=None)


def test_a_problem_of_ones_own_under_an_expressions_name_is_refused():
    # observed: best_f -1.0, the expression x1's, for the object's x1 + 5
    mine = _hand_built("expr: x1", lambda xp, X: X[:, 0] + 5)
    other = Problem.from_expression("x1 + x2", 2)
    renamed = dataclasses.replace(other, definition=dataclasses.replace(other.definition, name="expr: x1"))
    for problem in (mine, renamed):
        with pytest.raises(ConfigError) as exc:
            solvers.run(PS, problem, max_evals=500)
        assert _one_line(exc).startswith("'expr: x1' is a typed expression's name")
        with pytest.raises(ConfigError, match="typed expression's name"):
            RunConfig.build(PS, problem)
    # the same function under a name of its own runs itself
    assert solvers.run(PS, _hand_built("mine: x1 + 5", lambda xp, X: X[:, 0] + 5), max_evals=500).best_f \
        == pytest.approx(4.0)


def test_an_expression_runs_with_its_own_minimum_box_and_minimiser():
    # README's example: r.f_min was None (RunConfig.build was not given the object's f_min)
    p = Problem.from_expression("sum(x[i]**2)", 3, -2, 2, f_min=0.0, x_min=[0.0] * 3, name="bowl, typed")
    r = solvers.run(PS, p, max_evals=3000)
    assert r.f_min == 0.0 and r.problem == "expr: sum(x[i]**2)" and r.best_f < 1e-6
    assert RunConfig.build(PS, p).make_problem() is p
    # a box per coordinate was dropped for the expression's default [-5, 5]: best_x ran to (0, 0)
    q = Problem.from_expression("x1**2 + x2**2", 2, [-1, 3], [1, 4], f_min=9.0, x_min=[0, 3])
    r = solvers.run(PS, q, max_evals=3000)
    assert r.f_min == 9.0 and r.best_f == pytest.approx(9.0) and 3 <= r.best_x[1] <= 4
    # a box given with the object is searched instead (the minimum kept where its minimiser is inside)
    assert solvers.run(PS, p, bounds=(-1, 1), max_evals=500).f_min == 0.0
    assert solvers.run(PS, p, bounds=(1, 2), max_evals=500).f_min is None


def test_a_builtin_object_runs_its_own_box():
    rastrigin = get_problem("rastrigin", 2).with_bounds([2, -1], [3, 1])
    r = solvers.run(PS, rastrigin, max_evals=2000)
    assert 2 <= r.best_x[0] <= 3 and r.f_min is None
    assert solvers.run(PS, get_problem("rastrigin", 2), max_evals=2000).f_min == 0.0


def test_run_config_and_tune_take_the_object():
    p = Problem.from_callable(_bowl, [-1] * 3, [1] * 3, f_min=0.0, name="identity-tune")
    Problem.from_callable(_bowl_plus_100, [-1] * 3, [1] * 3, name="identity-tune")  # takes the name
    config = RunConfig.build(PS, p, max_evals=500)
    assert config.problem == "callable: identity-tune" and config.dim == 3 and config.make_problem() is p
    assert "problem_object" not in repr(config)
    with pytest.raises(ConfigError, match=r"^dim=2 differs from the problem object's dimension 3"):
        RunConfig.build(PS, p, 2)
    table = solvers.tune(PS, p, "delta0=0.1:0.5:2", seeds=1, max_evals=500)
    assert table.problem == p.name and table.f_min == 0.0


def test_where_a_name_is_needed_an_object_is_refused_in_one_line():
    # observed: "unknown function 'Problem(definition=ProblemDef(name=..., fn=<function ...>, ...'"
    p = Problem.from_callable(_bowl, [-1] * 2, [1] * 2, name="identity-sweep")
    for call in (lambda: get_problem(p), lambda: get_problem(p, 2, (0, 1))):
        with pytest.raises(ConfigError) as exc:
            call()
        assert _one_line(exc).startswith("expected a function's name, got a Problem object "
                                         "('callable: identity-sweep')")
    # a file names its function: the object's own would be lost on loading
    from solvers import config_io

    with pytest.raises(ConfigError) as exc:
        config_io.config_to_dict(RunConfig.build(PS, p))
    assert "cannot be written to a file" in _one_line(exc)
    assert config_io.config_to_dict(RunConfig.build(PS, "rastrigin"))["problem"] == "rastrigin"


def test_replace_keeps_the_object_drops_it_for_another_name_and_refuses_another_dimension():
    p = Problem.from_callable(_bowl, [-1] * 3, [1] * 3, name="identity-replace")
    config = RunConfig.build(PS, p, max_evals=500)
    assert config.replace(seed=7).make_problem() is p
    other = config.replace(problem="rastrigin", dim=2)
    assert other.problem_object is None and other.make_problem().name == "rastrigin"
    with pytest.raises(ConfigError, match=r"^dim=2: callable: identity-replace is a Problem object of dimension 3"):
        config.replace(dim=2)


def test_a_grid_started_from_an_objects_setup_runs_the_object():
    from solvers.tune.setup import tune_arguments

    p = Problem.from_callable(_bowl, [-1] * 2, [1] * 2, f_min=0.0, name="identity-grid")
    Problem.from_callable(_bowl_plus_100, [-1] * 2, [1] * 2, name="identity-grid")  # takes the name
    arguments = tune_arguments(RunConfig.build(PS, p, max_evals=500), ["delta0=0.1:0.5:2"], seeds=1)
    assert arguments["problem"] is p
    table = solvers.tune(**arguments)
    assert table.f_min == 0.0 and min(row.best_f for row in table.rows) < 1.0  # the bowl, not the bowl + 100


def _rastrigin_with(fn, name: str = "my rastrigin") -> Problem:
    """Rastrigin copied under `name` with another Python fn (its cuda_functor kept)."""
    builtin = get_problem("rastrigin", 5)
    return dataclasses.replace(builtin, definition=dataclasses.replace(builtin.definition, name=name, fn=fn))


def _sphere_fn():
    return get_problem("sphere", 5).definition.fn


def test_a_builtins_copy_with_another_fn_is_refused_on_numba_and_runs_its_own_on_numpy():
    # observed: numba ran the compiled Rastrigin (best_f 7e-9) for a fn of X**2 + 1000 (best 1000)
    pytest.importorskip("numba")
    from solvers.errors import EngineUnavailable

    mine = _rastrigin_with(lambda xp, X: (X ** 2).sum(axis=1) + 1000.0)
    with pytest.raises(EngineUnavailable) as exc:
        solvers.run(PS, mine, engine="numba", max_evals=500)
    text = _one_line(exc)
    assert text.startswith("function 'my rastrigin' has a Python function of its own, not built-in "
                           "'rastrigin''s compiled one") and "numpy or cupy" in text
    assert solvers.run(PS, mine, engine="numpy", max_evals=2000).best_f >= 1000.0
    # sphere's fn under Rastrigin's functor: numba's id would name Rastrigin's code
    with pytest.raises(EngineUnavailable, match="not built-in 'rastrigin''s compiled one"):
        solvers.run(PS, _rastrigin_with(_sphere_fn(), "sphere, mine"), engine="numba", max_evals=500)


def test_the_numba_engine_decides_by_the_function_not_the_name():
    pytest.importorskip("numba")
    from solvers.errors import EngineUnavailable
    from solvers.numba import functions

    builtin = get_problem("rastrigin", 5)
    # the built-in's own name with another fn, given to the engine past RunConfig's refuse_impostor
    with pytest.raises(EngineUnavailable, match="^function 'rastrigin' has a Python function of its own"):
        functions.function_id(_rastrigin_with(_sphere_fn(), "rastrigin"))
    # the built-in's own fn is the built-in however it is copied or named: its compiled code runs
    renamed = _rastrigin_with(builtin.definition.fn)
    for same in (renamed, copy.deepcopy(builtin)):
        assert functions.function_id(same) == functions.function_id(builtin)
    assert solvers.run(PS, renamed, engine="numba", max_evals=500).problem == "my rastrigin"


def test_the_cuda_engine_refuses_a_builtins_copy_with_another_fn_before_the_device():
    from solvers.cuda import cuda_algorithm
    from solvers.errors import EngineUnavailable

    cls = cuda_algorithm(PS)
    params = RunConfig.build(PS, "rastrigin", 5).params
    # xp=NumPy: the decision is made before the device (and any compile), so no GPU is needed
    with pytest.raises(EngineUnavailable, match="not built-in 'rastrigin''s compiled one"):
        cls(_rastrigin_with(_sphere_fn()), params, xp=np, dtype=np.float64)
    for same in (get_problem("rastrigin", 5), _rastrigin_with(get_problem("rastrigin", 5).definition.fn)):
        with pytest.raises(EngineUnavailable, match="needs CuPy"):  # past the function's check
            cls(same, params, xp=np, dtype=np.float64)


def test_an_expressions_copy_with_another_fn_is_refused_on_numba_and_cuda_and_runs_its_own_on_numpy():
    # observed: numba compiled the expression's text (best ~0) for a fn of X**2 + 1000 (best 1000);
    # the check is the function's tag, not expression_definition's cache (its last 256 texts only)
    from solvers.cuda import cuda_algorithm
    from solvers.errors import EngineUnavailable
    from solvers.problems.custom import evaluates_its_expression, expression_definition

    typed = Problem.from_expression("sum(x[i]**2)", 3)
    mine = dataclasses.replace(typed, definition=dataclasses.replace(
        typed.definition, fn=lambda xp, X: (X ** 2).sum(axis=1) + 1000.0))
    assert evaluates_its_expression(typed.definition) and not evaluates_its_expression(mine.definition)
    params = RunConfig.build(PS, typed).params
    with pytest.raises(EngineUnavailable) as exc:
        cuda_algorithm(PS)(mine, params, xp=np, dtype=np.float64)  # before the device: no GPU needed
    text = _one_line(exc)
    assert text.startswith("function 'expr: sum(x[i]**2)' has a Python function of its own, not its "
                           "expression's compiled one") and "numpy or cupy" in text
    assert solvers.run(PS, mine, engine="numpy", max_evals=2000).best_f >= 1000.0
    if importlib.util.find_spec("numba"):
        with pytest.raises(EngineUnavailable, match="not its expression's"):
            solvers.run(PS, mine, engine="numba", max_evals=500)
    # its own function with another expression's device code: cuda would compile the other's
    other = Problem.from_expression("sum(abs(x[i]))", 3).definition
    foreign = dataclasses.replace(typed, definition=dataclasses.replace(
        typed.definition, cuda_functor=other.cuda_functor, cuda_source=other.cuda_source))
    with pytest.raises(EngineUnavailable, match="carries device code of its own, not its expression's"):
        cuda_algorithm(PS)(foreign, params, xp=np, dtype=np.float64)
    # its own function, however it is copied, and after the cache has forgotten its text
    for text in range(300):
        expression_definition(f"sum(x[i]**2) + {text}")
    for same in (typed, copy.deepcopy(typed), dataclasses.replace(typed, definition=dataclasses.replace(
            typed.definition, title="renamed"))):
        assert evaluates_its_expression(same.definition)
        with pytest.raises(EngineUnavailable, match="needs CuPy"):  # past the function's check
            cuda_algorithm(PS)(same, params, xp=np, dtype=np.float64)


def test_a_known_minimum_the_bounds_override_drops_is_said_with_the_result():
    # f_min without x_min: nothing says the minimum lies in the new box, so the run cannot keep it,
    # but it says so (it used to drop it silently, and the result had no error to report)
    typed = Problem.from_expression("sum(x[i]**2) + 1", 3, f_min=1.0)
    result = solvers.run(PS, typed, bounds=(-1, 2), max_evals=500, seed=1)
    assert result.f_min is None
    assert len(result.warnings) == 1 and "f_min = 1" in result.warnings[0] and "[-1, 2]" in result.warnings[0]
    assert "\n" not in result.warnings[0]
    # where x_min says it lies inside, the minimum is kept and nothing is said
    located = Problem.from_expression("sum(x[i]**2) + 1", 3, f_min=1.0, x_min=[0.0, 0.0, 0.0])
    kept = solvers.run(PS, located, bounds=(-1, 2), max_evals=500, seed=1)
    assert kept.f_min == 1.0 and kept.warnings == ()
    # a built-in whose minimiser leaves the box loses it knowingly (x_min is known): no warning
    assert solvers.run(PS, "sphere", dim=3, bounds=(1, 2), max_evals=500, seed=1).warnings == ()
    # without bounds nothing changes, nor over the problem's own box (its minimum holds there)
    assert solvers.run(PS, typed, max_evals=500, seed=1).warnings == ()
    same = solvers.run(PS, typed, bounds=(-5, 5), max_evals=500, seed=1)
    assert same.f_min == 1.0 and same.warnings == ()
    # a per-coordinate box (a configuration made by hand) is said by its extent, not a traceback
    config = dataclasses.replace(RunConfig.build(PS, typed, max_evals=500),
                                 bounds=(np.array([-1.0, -2.0, -1.0]), np.array([2.0, 2.0, 3.0])))
    assert "[-2, 3]" in config.dropped_minimum()
    # a tuning grid says it too (its success target needs the minimum)
    table = solvers.tune(PS, typed, "delta0=0.1:0.5:2", seeds=1, max_evals=300, bounds=(-1, 2))
    assert table.f_min is None and any("f_min = 1" in note for note in table.notes)


def test_a_sweep_of_an_object_times_the_object_on_every_point():
    # SweepSpec took names only; an object is now run itself at every walker count, as solvers.run
    # runs it: here a callable whose name was taken by a newer one before the sweep ran
    from solvers.sweep import run_sweep

    calls = []

    def counted(X):
        calls.append(X.shape[0])
        return (X ** 2).sum(axis=1)

    p = Problem.from_callable(counted, [-1] * 3, [1] * 3, name="identity-sweep-object")
    Problem.from_callable(_bowl_plus_100, [-1] * 3, [1] * 3, name="identity-sweep-object")
    spec = SweepSpec.build(PS, p, iterations=2, min_exp=2, max_exp=3)
    assert spec.problem == p.name and spec.dim == 3 and spec.problem_object is p
    assert "problem_object" not in repr(spec)
    records = list(run_sweep(spec))
    assert [(r.walkers, r.status) for r in records] == [(4, "ok"), (8, "ok")]
    assert set(calls) >= {4, 8}  # the object's own function ran at both counts
    with pytest.raises(ConfigError) as exc:
        SweepSpec.build(PS, p, 2)
    assert _one_line(exc).startswith("dim=2 differs from the problem object's dimension 3")
    # an engine that cannot run a Python callable stops with its reason, not a traceback
    compiled = list(run_sweep(SweepSpec.build(PS, p, iterations=1, min_exp=2, max_exp=2,
                                              engines=("numpy", "numba"))))
    assert [r.status for r in compiled if r.engine == "numpy"] == ["ok"]
    numba = [r for r in compiled if r.engine == "numba"]
    assert len(numba) == 1 and numba[0].status != "ok" and "numpy and cupy" in numba[0].note
