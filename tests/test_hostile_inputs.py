"""A catalogue of hostile inputs (issue 17): every bad input across the command line, the Python
API, set-up files and the window ends in one clear message (CLI: one line on stderr, exit 2), never
a traceback, a hang or a silent acceptance. Add a case here whenever a new bad input is found."""
from __future__ import annotations

import json

import pytest

import solvers
from solvers import ConfigError
from solvers.cli import main as cli_main
from solvers.config_io import load_config
from solvers.problems import get_problem

RUN = ["run", "-a", "pattern_search", "-f", "sphere", "-d", "2", "--max-iters", "1", "-n", "4"]

# --- command line ------------------------------------------------------------------------------
CLI_CASES = {
    "no-command-word": (["frobnicate"], "invalid choice"),
    "unknown-algorithm": (["run", "-a", "nope", "-f", "sphere"], "unknown algorithm"),
    "unknown-function": (["run", "-a", "pattern_search", "-f", "nope"], "unknown"),
    "missing-function": (["run", "-a", "pattern_search"], "required"),
    "dim-zero": (RUN + ["-d", "0"], "dimension"),
    "dim-negative": (RUN + ["-d", "-4"], "dimension"),
    "dim-text": (RUN + ["-d", "two"], "invalid int"),
    "dim-huge": (RUN + ["-d", "1000000000"], "too large"),
    "dim-1e30": (RUN + ["-d", "1" + "0" * 30], "too large"),
    "fixed-dim-function": (["run", "-a", "pattern_search", "-f", "branin", "-d", "3"], "accepts dimension"),
    "engine-unknown": (RUN + ["-e", "tpu"], "invalid choice"),
    "dtype-unknown": (RUN + ["--dtype", "float16"], "invalid choice"),
    "seed-negative": (RUN + ["-s", "-1"], "seed"),
    "seed-huge": (RUN + ["-s", str(2**70)], "seed"),
    "walkers-negative": (RUN + ["-n", "-1"], "walkers"),
    "walkers-text": (RUN[:-2] + ["-n", "many"], "invalid int"),
    "walkers-twice": (RUN[:-2] + ["-n", "5", "-p", "walkers=7"], "give one of them"),
    "param-unknown": (RUN + ["-p", "colour=red"], "unknown parameter"),
    "param-no-equals": (RUN + ["-p", "delta0"], "NAME=VALUE"),
    "param-nan": (RUN + ["-p", "delta0=nan"], "finite"),
    "param-inf": (RUN + ["-p", "delta0=inf"], "finite"),
    "param-out-of-range": (RUN + ["-p", "delta0=1e9"], "must be in"),
    "param-int-fraction": (RUN[:-2] + ["-p", "walkers=2.5"], "integer"),
    "param-bool-word": (RUN + ["-p", "restart=perhaps"], "true or false"),
    "budget-negative": (RUN[:-4] + ["--max-evals", "-5"], "> 0"),
    "budget-nan": (RUN[:-4] + ["--max-seconds", "nan"], "> 0"),
    "budget-inf": (RUN[:-4] + ["--max-seconds", "inf"], "> 0"),
    "budget-fraction-iters": (RUN[:-4] + ["--max-iters", "2.5"], "integer"),
    "budget-two-kinds": (RUN + ["--max-evals", "10"], "not allowed with"),
    "bounds-one-number": (RUN + ["--bounds", "5"], "LOWER,UPPER"),
    "bounds-inverted": (RUN + ["--bounds=5,-5"], "inverted"),
    "bounds-nan": (RUN + ["--bounds=nan,5"], "finite"),
    "bounds-overflow-f64": (RUN + ["--bounds=-1e308,1e308"], "overflow float64"),
    "bounds-overflow-f32": (RUN + ["--bounds=-1e300,1e300", "--dtype", "float32"], "overflow float32"),
    "name-with-newline": (["run", "-a", "a\nb", "-f", "sphere"], "a\\nb"),
    "name-with-escape": (["run", "-a", "\x1b[2J", "-f", "sphere"], "\\x1b[2J"),
    "bench-seed": (["bench", "-a", "pattern_search", "--seed", "-1"], "--seed"),
    "bench-numpy-iterations": (["bench", "-a", "pattern_search", "--numpy-iterations", "-3"], "-iterations"),
    "bench-numpy-iterations-zero": (["bench", "-a", "pattern_search", "--numpy-iterations", "0"], "-iterations"),
    "bench-repeats": (["bench", "-a", "pattern_search", "--repeats", "0"], "--repeats"),
    "bench-engine": (["bench", "-a", "pattern_search", "--engines", "tpu"], "unknown engine"),
    "bench-json-in-proc": (["bench", "-a", "pattern_search", "--json", "/proc/x.json"], "cannot write"),
    # accepted and ignored, contradicted by the table, or clobbering: each was exit 0
    "bench-variant-without-variants": (["bench", "-a", "pattern_search", "--variant", "async"], "no variants"),
    "bench-variant-with-suite": (["bench", "--suite", "quick", "--variant", "async"], "not to a suite"),
    "bench-param-walkers": (["bench", "-a", "pattern_search", "-p", "walkers=7"], "-n/--walkers"),
    "bench-json-md-same-file": (["bench", "-a", "pattern_search", "--json", "/tmp/mw-same.out", "--md",
                                 "/tmp/mw-same.out"], "same file"),
    "run-threads-on-numpy": (["run", "-a", "pattern_search", "-f", "sphere", "-e", "numpy", "--threads", "2"],
                             "no thread count"),
    "run-fast-math-on-numba": (["run", "-a", "pattern_search", "-f", "sphere", "-e", "numba", "--fast-math"],
                               "no fast-math switch"),
    "tune-threads-on-numpy": (["tune", "-a", "particle_swarm", "-f", "sphere", "-g", "omega=0.2:1:3",
                               "--max-evals", "2000", "--threads", "2"], "no thread count"),
    "run-param-of-another-variant": (["run", "-a", "particle_swarm", "-f", "sphere", "--max-iters", "1",
                                      "-p", "omega=0.2"], "no effect under variant spso2011"),
    "tune-param-of-another-variant": (["tune", "-a", "simulated_annealing", "-f", "sphere", "-g", "width=0.5:1:2",
                                       "--max-iters", "1", "-p", "polish_points=4"], "no effect under variant sync"),
    "reproduce-paper": (["reproduce", "999", "--quick"], "unknown paper"),
    "reproduce-out-proc": (["reproduce", "000", "--quick", "--out", "/proc/x"], "cannot write"),
}


@pytest.mark.parametrize("args, fragment", list(CLI_CASES.values()), ids=list(CLI_CASES))
def test_cli_bad_input(args, fragment, capsys):
    with pytest.raises(SystemExit) as info:
        code = cli_main(args)
        raise SystemExit(code)
    err = capsys.readouterr().err
    assert info.value.code == 2, err
    assert len(err.splitlines()) == 1, err
    assert "Traceback" not in err and "\x1b" not in err
    assert fragment in err, err


# --- Python API ---------------------------------------------------------------------------------
API_CASES = {
    "params-list": (dict(params=[("walkers", 4)]), "params must be a mapping"),
    "params-string": (dict(params="walkers=4"), "params must be a mapping"),
    "fast-math-string": (dict(fast_math="no"), "fast_math"),
    "fast-math-int": (dict(fast_math=2), "fast_math"),
    "dim-float": (dict(dim=2.5), "integer"),
    "dim-bool": (dict(dim=True), "integer"),
    "dim-huge-int": (dict(dim=10**400), "too large"),
    "seed-float": (dict(seed=1.5), "seed"),
    "seed-bool": (dict(seed=True), "seed"),
    "max-evals-string": (dict(max_evals="lots"), "max_evals"),
    "max-evals-huge": (dict(max_evals=10**400), "max_evals"),
    "max-iters-bool": (dict(max_iters=True), "max_iters"),
    "engine-none": (dict(engine=None), "unknown engine"),
    "dtype-numpy-type": (dict(dtype=1), "dtype"),
    "bounds-three": (dict(bounds=(1, 2, 3)), "bounds"),
    "bounds-strings": (dict(bounds=("a", "b")), "bounds"),
    "bounds-overflow": (dict(bounds=(-1e308, 1e308)), "overflow"),
    "param-huge-int": (dict(params={"walkers": 10**400}), "walkers"),
}


@pytest.mark.parametrize("kwargs, fragment", list(API_CASES.values()), ids=list(API_CASES))
def test_api_bad_input(kwargs, fragment):
    kwargs = {"max_iters": 1, **kwargs} if not any(k.startswith("max_") for k in kwargs) else kwargs
    with pytest.raises(ConfigError, match=fragment.replace("(", r"\(")):
        solvers.run("pattern_search", "sphere", **{"dim": 2, **kwargs})


def test_api_problem_object_with_another_dim_is_refused():
    with pytest.raises(ConfigError, match="differs"):
        solvers.run("pattern_search", get_problem("sphere", 3), dim=5, max_iters=1)
    result = solvers.run("pattern_search", get_problem("sphere", 3), dim=3, max_iters=1,
                         params={"walkers": 4})
    assert result.dim == 3


def test_api_parameter_of_another_variant_is_refused():
    """omega applies to classic PSO only: under the default spso2011 the run ignored it while
    result.params listed omega=0.2; run() and tune() now refuse it. A result's full parameter set
    (the unused fields at their defaults) can still be given back."""
    with pytest.raises(ConfigError, match="'omega' has no effect under variant spso2011; it applies to classic"):
        solvers.run("particle_swarm", "sphere", dim=2, max_iters=1, params={"omega": 0.2})
    with pytest.raises(ConfigError, match="'polish_points' has no effect under variant sync"):
        solvers.run("simulated_annealing", "sphere", dim=2, max_iters=1, params={"polish_points": 4})
    with pytest.raises(ConfigError, match="'polish_points' has no effect"):
        solvers.tune("simulated_annealing", "sphere", ["width=0.5:1:2"], seeds=1, dim=2, max_iters=1,
                     params={"polish_points": 4})
    first = solvers.run("particle_swarm", "sphere", dim=2, max_iters=1, params={"walkers": 4})
    again = solvers.run("particle_swarm", "sphere", dim=2, max_iters=1, params=first.params)
    assert again.best_f == first.best_f
    classic = solvers.run("particle_swarm", "sphere", dim=2, max_iters=1,
                          params={"variant": "classic", "omega": 0.2, "walkers": 4})
    assert classic.params["omega"] == 0.2


@pytest.mark.parametrize("name, value", [("t0", 1.0), ("t_min", 2.0), ("alpha", 0.9), ("chain_length", 5)])
def test_api_annealing_schedule_value_under_the_default_auto_schedule_is_refused(name, value):
    """The default schedule auto fits T0, T_min, alpha and the chain length to the budget: '-p
    t0=1' was dropped without a word (the result reported t0=1.9e4). Refused where the schedule was
    left at its default; a result's params (schedule auto and the fitted values) go back as they are."""
    with pytest.raises(ConfigError, match=f"'{name}' has no effect under schedule auto, the default"
                                          ".*give schedule=fixed"):
        solvers.run("simulated_annealing", "sphere", dim=2, max_iters=1, params={name: value})
    fixed = solvers.run("simulated_annealing", "sphere", dim=2, max_iters=1,
                        params={"schedule": "fixed", "walkers": 4, name: value, **(
                            {"t0": 10.0} if name == "t_min" else {})})
    assert fixed.params[name] == value
    first = solvers.run("simulated_annealing", "sphere", dim=2, max_evals=400, params={"walkers": 4})
    again = solvers.run("simulated_annealing", "sphere", dim=2, max_evals=400, params=first.params)
    assert again.best_f == first.best_f and first.params["t0"] != 1000.0


def test_cli_annealing_schedule_value_under_the_default_auto_schedule_is_refused(capsys):
    from solvers import cli as cli_module

    assert cli_module.main(["run", "-a", "simulated_annealing", "-f", "sphere", "-p", "t0=1",
                            "--max-iters", "1"]) == 2
    assert "'t0' has no effect under schedule auto" in capsys.readouterr().err


# --- set-up files --------------------------------------------------------------------------------
GOOD = {"format": "multiwalk-run", "version": 1, "algorithm": "pattern_search", "problem": "sphere",
        "dim": 2, "budget": {"max_iters": 1}}
FILE_CASES = {
    "sample-size-fraction": ({"sample_size": 2.7}, "sample size"),
    "sample-size-zero": ({"sample_size": 0}, "sample size"),
    "sample-size-bool": ({"sample_size": True}, "sample_size"),
    "snapshot-hz-tiny": ({"snapshot_hz": 1e-300}, "snapshot rate"),
    "snapshot-hz-huge": ({"snapshot_hz": 1e300}, "snapshot rate"),
    "snapshot-hz-negative": ({"snapshot_hz": -1}, "snapshot rate"),
    "dim-10-400": ({"dim": 10**400}, "too large"),
    "dim-string": ({"dim": "2"}, "integer"),
    "seed-huge": ({"seed": 10**400}, "seed"),
    "fast-math-string": ({"fast_math": "no"}, "fast_math"),
    "params-list": ({"params": [1, 2]}, "params"),
    "param-huge": ({"params": {"delta0": 10**400}}, "delta0"),
    "budget-list": ({"budget": [1]}, "budget"),
    "budget-unknown": ({"budget": {"max_hours": 1}}, "unknown budget field"),
    "budget-huge": ({"budget": {"max_evals": 10**400}}, "max_evals"),
    "unknown-field": ({"colour": "red"}, "unknown field"),
    "version-2": ({"version": 2}, "unsupported version"),
    "format-other": ({"format": "other"}, "not a Multiwalk"),
    "algorithm-number": ({"algorithm": 3}, "must be a string"),
}


@pytest.mark.parametrize("changes, fragment", list(FILE_CASES.values()), ids=list(FILE_CASES))
def test_setup_file_bad_value(changes, fragment, tmp_path):
    path = tmp_path / "setup.json"
    path.write_text(json.dumps({**GOOD, **changes}))
    with pytest.raises(ConfigError, match=fragment) as info:
        load_config(path)
    assert str(info.value).startswith("setup.json: ") and "\n" not in str(info.value)


@pytest.mark.parametrize("text, fragment", [
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ('{"dim": ' + "9" * 5000 + "}", "not a usable JSON"),
    ("{not json", "not valid JSON"),
    ("", "not valid JSON"),
], ids=["deeply-nested", "5000-digit-number", "broken", "empty"])
def test_setup_file_bad_text(text, fragment, tmp_path):
    path = tmp_path / "setup.json"
    path.write_text(text)
    with pytest.raises(ConfigError, match=fragment):
        load_config(path)


def test_setup_file_not_utf8(tmp_path):
    path = tmp_path / "setup.json"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ConfigError, match="not a text file"):
        load_config(path)


def test_setup_file_missing(tmp_path):
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "absent.json")
