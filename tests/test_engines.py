"""The engine registry (solvers/engines/) and the one measuring rule (solvers/measure.py)."""
from __future__ import annotations

import numpy as np
import pytest

import solvers.engines.base as engine_base
from solvers import measure
from solvers.engines import (ENGINES, algorithm_class, engine_status, get_engine, list_engines,
                             reference_engine)
from solvers.errors import ConfigError, EngineUnavailable
from solvers.params import make_params
from solvers.problems import get_problem


def test_registry_lists_every_engine_and_the_old_names_agree():
    assert list_engines()[:3] == ["numpy", "cupy", "cuda"] and tuple(list_engines()) == ENGINES
    assert reference_engine().name == "numpy"
    for name in list_engines():
        engine = get_engine(name)
        assert engine.name == name and engine.title
        assert engine.status() == engine_status(name)
        ok, reason = engine.status()
        assert isinstance(ok, bool) and reason
    with pytest.raises(ConfigError, match="unknown engine 'tpu'"):
        get_engine("tpu")


def test_unavailable_engine_says_why_instead_of_a_traceback(fake_engines):
    fake_engines(cupy={"status": (False, "no CUDA device found")})
    engine = get_engine("cupy")
    assert not engine.available and engine.devices() == []
    with pytest.raises(EngineUnavailable, match="no CUDA device found"):
        engine.xp


def test_build_checks_memory_before_allocating_on_the_array_engines(monkeypatch):
    engine = get_engine("numpy")
    cls = algorithm_class("pattern_search", "numpy")
    params = make_params(cls.Params, {"walkers": 4096})
    monkeypatch.setattr(engine_base, "host_available_bytes", lambda: 1024)
    with pytest.raises(ConfigError, match="GiB of memory"):
        engine.build("pattern_search", get_problem("sphere", 8), params, "float64")


def test_fast_math_is_only_honoured_where_the_engine_has_it():
    assert get_engine("cuda").effective_fast_math(True)
    assert not get_engine("numpy").effective_fast_math(True)
    assert get_engine("cuda").compiles and get_engine("cuda").is_gpu
    assert not get_engine("numpy").is_gpu


def test_measure_rate_counts_exact_evaluations_of_the_median_repeat():
    cls = algorithm_class("pattern_search", "numpy")
    params = make_params(cls.Params, {"walkers": 64})
    t = measure.measure_rate("numpy", "pattern_search", get_problem("sphere", 3), params, iterations=5)
    assert t.iterations == 5 and t.evals == 64 * 2 * 3 * 5  # 2 d evaluations per walker and iteration
    assert 1 <= t.repeats <= measure.REPEATS and len(t.rates) == t.repeats
    assert t.evals_per_second == pytest.approx(t.rates[t.index])
    assert sorted(t.rates)[(t.repeats - 1) // 2] == t.rates[t.index]  # the (low) median


def test_fresh_repeats_time_the_same_first_iterations_of_a_new_run():
    """time_steps(fresh=True): every repeat starts a new run (seeded alike), so each times the run's
    first iterations whatever the warm-up reached; without it the repeats continue one run."""
    from solvers.rng import ArrayRNG

    cls = algorithm_class("simulated_annealing", "numpy")
    params = make_params(cls.Params, {"walkers": 32, "variant": "hybrid", "t0": 10.0, "t_min": 0.01})
    algo = cls(get_problem("sphere", 3), params)
    engine = get_engine("numpy")
    warmed = algo.init(ArrayRNG(algo.xp, 0))
    algo.step(warmed, 7)  # a warm-up that went further than the timed window
    fresh = measure.time_steps(algo, engine, warmed, 3, repeats=3, fresh=True)
    assert warmed.iteration == 7  # the warmed-up run was left alone
    assert fresh.repeats == 3 and fresh.evals == 32 * 3  # one evaluation per chain and iteration
    reference = algo.init(ArrayRNG(algo.xp, 0))
    algo.step(reference, 3)
    assert fresh.best_f == pytest.approx(float(reference.best_f))  # the same first three iterations
    measure.time_steps(algo, engine, warmed, 3, repeats=2)
    assert warmed.iteration == 7 + 2 * 3  # not fresh: the repeats continue the given run


@pytest.mark.parametrize("compiles", [False, True])
def test_a_fresh_case_on_a_compiling_engine_runs_one_untimed_window_first(monkeypatch, compiles):
    """measure_rate(fresh=True) on an engine that compiles at first use: one whole window untimed
    before the timed repeats, so a kernel that only its later phase uses (SA hybrid's polishing)
    compiles outside them; an engine that does not compile goes straight to the timed repeats."""
    engine = get_engine("numpy")
    monkeypatch.setattr(type(engine), "compiles_when_run", compiles)
    calls = []
    real = measure.time_steps

    def recording(*args, **kwargs):
        calls.append((kwargs["repeats"], kwargs["fresh"]))
        return real(*args, **kwargs)

    monkeypatch.setattr(measure, "time_steps", recording)
    cls = algorithm_class("simulated_annealing", "numpy")
    params = make_params(cls.Params, {"walkers": 32, "variant": "hybrid", "t0": 10.0, "t_min": 0.01})
    t = measure.measure_rate("numpy", "simulated_annealing", get_problem("sphere", 3), params, iterations=3,
                             repeats=2, fresh=True)
    assert calls == ([(1, True)] if compiles else []) + [(2, True)]
    assert t.evals == 32 * 3  # the timed repeats only


def test_time_runs_warms_up_then_keeps_the_median():
    calls = []
    samples = iter([(3.0e-3, 30, 1.0), (1.0e-3, 30, 1.0), (2.0e-3, 30, 1.0)])
    t = measure.time_runs(lambda: next(samples), get_engine("numpy"),
                          warm=lambda: calls.append("warm"))
    assert calls == ["warm"] and t.repeats == 3 and t.seconds == pytest.approx(2.0e-3)


def test_no_engine_name_is_compared_outside_the_engine_package():
    """Callers ask the engine (solvers/engines/); only data may name one."""
    import pathlib
    import re

    root = pathlib.Path(__file__).resolve().parents[1]
    pattern = re.compile(r"""(==|!=|\bin)\s*\(?["'](numpy|cupy|cuda)["']|["'](numpy|cupy|cuda)["']\s*(==|!=|in\b)""")
    offenders = []
    for folder in ("solvers", "gui", "scripts"):
        for path in (root / folder).rglob("*.py"):
            if "engines" in path.relative_to(root).parts[:2]:
                continue
            for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if pattern.search(line):
                    offenders.append(f"{path.relative_to(root)}:{no}: {line.strip()}")
    assert not offenders, "\n".join(offenders)


def test_numpy_is_the_array_module_of_the_reference_engine():
    assert get_engine("numpy").xp is np
