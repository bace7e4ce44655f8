"""The headless command line: good input works, bad input is one line on stderr and exit code 2."""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import solvers

ROOT = Path(__file__).resolve().parents[1]


def cli(*args, timeout=120, env=None):
    return subprocess.run([sys.executable, "main.py", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, env=env)


def test_list_names_every_algorithm_and_function():
    out = cli("list")
    assert out.returncode == 0, out.stderr
    for name in solvers.list_algorithms() + solvers.list_problems():
        assert name in out.stdout
    data = json.loads(cli("list", "--json").stdout)
    assert [a["name"] for a in data["algorithms"]] == solvers.list_algorithms()
    from solvers.engines import list_engines

    assert [e["name"] for e in data["engines"]] == list_engines()


def test_run_prints_result_and_json_matches_api():
    args = ["run", "--algorithm", "pattern_search", "--function", "sphere", "--dim", "3",
            "--walkers", "40", "--seed", "5", "--max-iters", "12"]
    human = cli(*args)
    assert human.returncode == 0 and "best f" in human.stdout and human.stderr == ""
    out = cli(*args, "--json")
    data = json.loads(out.stdout)
    direct = solvers.run("pattern_search", "sphere", dim=3, seed=5, max_iters=12, params={"walkers": 40})
    assert data["best_f"] == direct.best_f and data["evals"] == direct.evals
    assert data["evals"] == 40 + 12 * 2 * 3 * 40 and data["stop_reason"] == "max_iters"


def test_run_time_leaves_out_compiling(jit_cupy, monkeypatch, capsys):
    """`run -e numba` on a cold cache reported 22.044 s and 4.25e+04 evals/s, numba's compile in
    the run's time (warm: 0.232 s, 4.04e+06). An engine that compiles at its first iteration
    (numba, cupy) now compiles before the clock starts, and `run` says so once that takes long."""
    from solvers import cli as cli_module

    compiled, compile_seconds = jit_cupy, jit_cupy.seconds
    monkeypatch.setattr(cli_module, "COMPILE_NOTICE_S", 0.05, raising=False)
    args = ["run", "-a", "pattern_search", "-f", "sphere", "-d", "2", "-n", "16", "--max-iters", "5",
            "-e", "cupy"]
    assert cli_module.main([*args, "--json"]) == 0
    out = capsys.readouterr()
    data = json.loads(out.out)
    assert compiled and data["iterations"] == 5
    assert data["seconds"] < compile_seconds / 2, data["seconds"]
    assert data["evals_per_second"] == data["evals"] / data["seconds"]
    assert data["history"][-1][1] == data["seconds"]  # the history's clock is the same
    assert out.err.splitlines() == ["main.py: compiling kernels, not counted in the run's time ..."]
    assert cli_module.main(args) == 0  # compiled by now: nothing said, the text's time as the JSON's
    out = capsys.readouterr()
    assert out.err == "" and " s   " in out.out


def test_run_with_param_and_evals_budget():
    out = cli("run", "-a", "pattern_search", "-f", "rastrigin", "-d", "2", "-n", "30",
              "--param", "delta0=0.1", "--param", "restart=true", "--max-evals", "5000", "--json")
    data = json.loads(out.stdout)
    assert data["params"]["delta0"] == 0.1 and data["params"]["restart"] is True
    # one iteration costs 2*d*n evaluations, plus n when a restart round begins in it
    assert 5000 <= data["evals"] < 5000 + 2 * 2 * 30 + 30


@pytest.mark.parametrize("args, fragment", [
    (["run", "-a", "nope", "-f", "sphere"], "unknown algorithm 'nope'"),
    (["run", "-a", "pattern_search", "-f", "nope"], "unknown function 'nope'"),
    (["run", "-a", "pattern_search", "-f", "sphere", "-d", "0"], "dimension >= 1"),
    (["run", "-a", "pattern_search", "-f", "sphere", "-d", "two"], "invalid int value"),
    (["run", "-a", "pattern_search", "-f", "sphere", "-n", "-1"], "walkers"),  # 0 is "auto"
    (["run", "-a", "pattern_search", "-f", "sphere", "-p", "delta0=abc"], "must be a number"),
    (["run", "-a", "pattern_search", "-f", "sphere", "-p", "delta0=nan"], "finite"),
    (["run", "-a", "pattern_search", "-f", "sphere", "-p", "delta0"], "NAME=VALUE"),
    (["run", "-a", "pattern_search", "-f", "sphere", "-p", "bogus=1"], "unknown parameter"),
    (["run", "-a", "pattern_search", "-f", "sphere", "--max-evals", "0"], "max_evals must be > 0"),
    (["run", "-a", "pattern_search", "-f", "sphere", "--max-iters", "-5"], "max_iters must be > 0"),
    (["run", "-a", "pattern_search", "-f", "sphere", "--max-seconds", "nan"], "max_seconds"),
    (["run", "-a", "pattern_search", "-f", "sphere", "--max-iters", "3", "--max-evals", "4"], "not allowed"),
    (["run", "-a", "pattern_search", "-f", "sphere", "--bounds", "3,1"], "inverted"),
    (["run", "-a", "pattern_search", "-f", "sphere", "--bounds", "nan,1"], "finite"),
    (["run", "-a", "pattern_search", "-f", "sphere", "--engine", "tpu"], "invalid choice"),
    (["run", "-f", "sphere"], "required"),
    # ~3 TB of walkers: refused before allocating, on any machine
    (["run", "-a", "pattern_search", "-f", "sphere", "-d", "4096", "-n", "16777216"], "GiB of memory"),
    (["frobnicate"], "invalid choice"),
])
def test_bad_input_is_one_line_exit_2(args, fragment):
    out = cli(*args)
    assert out.returncode == 2, (out.stdout, out.stderr)
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert fragment in lines[0] and "Traceback" not in out.stderr


def test_fixed_dimension_function_rejects_other_dimensions():
    fixed = [n for n in solvers.list_problems() if solvers.problems.get_definition(n).dims]
    if not fixed:
        pytest.skip("no fixed-dimension function registered")
    name = fixed[0]
    dims = solvers.problems.get_definition(name).dims
    bad = max(dims) + 1
    out = cli("run", "-a", "pattern_search", "-f", name, "-d", str(bad))
    assert out.returncode == 2 and "accepts dimension" in out.stderr


def test_unavailable_gpu_engine_is_a_clear_message():
    # the GPU is hidden from the child, so the test means the same on a GPU machine
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": ""}
    out = cli("run", "-a", "pattern_search", "-f", "sphere", "-e", "cuda", "--max-iters", "1", env=env)
    assert out.returncode == 2 and "not available" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_warmup_without_a_gpu_is_one_clear_line(fake_engines, capsys):
    """Forced (the cuda engine reported unavailable), so the test means the same on a GPU machine."""
    from solvers import cli as cli_module

    missing = {"status": (False, "Numba is not installed"), "compiles": True}
    no_gpu = {"status": (False, "no CUDA device found")}
    fake_engines(cuda=dict(no_gpu, compiles=True), cupy=dict(no_gpu, compiles_when_run=True),
                 numba=missing, numba1=missing)
    assert cli_module.main(["warmup"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert "cuda engine is not available here (no CUDA device found)" in err


def test_warmup_names_the_gpu_engines_it_skips(fake_engines, monkeypatch, capsys):
    """numba compiles, cuda and cupy are unavailable: warmup says so instead of skipping them silently."""
    from solvers import cli as cli_module
    from solvers import warmup

    no_gpu = {"status": (False, "no CUDA device found")}
    fake_engines(cuda=dict(no_gpu, compiles=True), cupy=dict(no_gpu, compiles_when_run=True),
                 numba={"compiles": True}, numba1={"compiles": True})
    monkeypatch.setattr(warmup, "warm_targets", lambda all_functions, engine=None: [])
    monkeypatch.setattr(warmup, "_compile", lambda engine, pairs: 0)
    assert cli_module.main(["warmup"]) == 0
    out, err = capsys.readouterr()
    assert "skipped: the cuda engine is not available here (no CUDA device found)" in err
    assert "skipped: the cupy engine is not available here (no CUDA device found)" in err
    assert "numba engine's kernels" in out and "skipped: the numba" not in err


def test_warmup_targets_the_classroom_functions_or_all():
    from solvers.warmup import CLASSROOM_FUNCTIONS, cache_dir, warm_targets

    few, every = warm_targets(False), warm_targets(True)
    assert {f for _a, f in few} <= set(CLASSROOM_FUNCTIONS) and set(few) < set(every)
    assert "kernel_cache" in str(cache_dir()) or "CUPY_CACHE_DIR" in __import__("os").environ


def test_problem_and_precision_are_other_names_for_function_and_dtype(capsys):
    from solvers import cli as cli_module

    assert cli_module.main(["run", "-a", "pattern_search", "--problem", "sphere", "-d", "2",
                            "--precision", "float32", "-n", "16", "--max-iters", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["problem"] == "sphere" and out["dtype"] == "float32"
    assert out["nonfinite_evals"] == 0 and out["points_per_iteration"] == 16
    r = solvers.run("pattern_search", "sphere", dim=2, precision="float32", max_iters=1,
                    params={"walkers": 8})
    assert r.dtype == "float32"


@pytest.mark.parametrize("dtype", [np.float32, np.dtype("float32"), np.float64])
def test_api_takes_numpy_float_types_as_the_precision(dtype):
    # np.float32 was refused: "dtype must be float32 or float64, got '<class 'numpy.float32'>'"
    r = solvers.run("pattern_search", "sphere", dim=2, dtype=dtype, max_iters=1, params={"walkers": 8})
    assert r.dtype == np.dtype(dtype).name
    with pytest.raises(solvers.ConfigError, match="got 'float16'"):
        solvers.run("pattern_search", "sphere", dim=2, dtype=np.float16, max_iters=1)


def test_a_broken_command_module_fails_loudly(monkeypatch):
    """cli.py imports its command modules directly: an ImportError is not swallowed."""
    import sys

    from solvers import cli as cli_module

    monkeypatch.setitem(sys.modules, "solvers.warmup", None)  # import of it raises ImportError
    with pytest.raises(ImportError):
        cli_module.build_parser()


def test_warmup_runs_an_iteration_where_only_running_compiles(fake_engines, monkeypatch):
    """CuPy compiles its element-wise kernels at their first call: the cupy engine is warmed by a
    one-iteration run, the cuda engine by building the run (its kernels compile then)."""
    from solvers import warmup
    from solvers.runner import Runner

    fake_engines(cupy={"compiles_when_run": True}, cuda={"compiles": True})
    ran, built = [], []
    monkeypatch.setattr(Runner, "run", lambda self: ran.append(self.config.engine))
    monkeypatch.setattr(Runner, "prepare", lambda self: built.append(self.config.engine))
    assert {e.name for e in warmup.compiling_engines()} >= {"cupy", "cuda"}
    assert warmup._compile("cupy", [("pattern_search", "sphere")]) == 0
    assert warmup._compile("cuda", [("pattern_search", "sphere")]) == 0
    assert ran == ["cupy", "cupy"] and built == ["cuda", "cuda"]  # float64 and float32 each


def test_api_run_time_leaves_out_compiling(jit_cupy):
    """solvers.run(engine='numba') on a cold cache reported seconds=9.6 for max_seconds=1.0 and 0
    iterations (the JIT's compile in the run's time and budget), where `main.py run` compiles first."""
    import solvers

    compiled, compile_seconds = jit_cupy, jit_cupy.seconds
    r = solvers.run("pattern_search", "sphere", engine="cupy", dim=2, max_seconds=compile_seconds / 5,
                    params={"walkers": 16})
    assert compiled and r.iterations > 0 and r.stop_reason == "max_seconds"
    assert r.seconds < compile_seconds / 2, r.seconds
