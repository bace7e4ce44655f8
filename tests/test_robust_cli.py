"""Regression tests of issue 17 for the command line, run as real subprocesses: exit code 2 (130
for Ctrl+C), exactly one line on stderr, never a traceback."""
from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def cli(*args, env=None, timeout=120):
    return subprocess.run([sys.executable, "main.py", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, env=env)


def assert_one_line_error(proc, fragment: str, code: int = 2) -> None:
    lines = proc.stderr.splitlines()
    assert proc.returncode == code, proc.stderr
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert fragment in lines[0], lines[0]


@pytest.mark.parametrize("args, fragment", [
    (["run", "-a", "pattern_search", "-f", "sphere", "--bounds=-1e308,1e308", "--json"], "overflow float64"),
    (["run", "-a", "pattern_search", "-f", "sphere", "--bounds=-1e300,1e300", "--dtype", "float32"],
     "overflow float32"),
    (["run", "-a", "pattern_search", "-f", "sphere", "-d", "1000000000"], "too large"),
    (["run", "-a", "pattern_search", "-f", "sphere", "-n", "5", "-p", "walkers=7"], "give one of them"),
    (["bench", "--seed", "-1", "-a", "pattern_search"], "--seed"),
    (["bench", "--numpy-iterations", "-3", "-a", "pattern_search"], "--numpy-iterations"),
    (["bench", "-a", "pattern_search", "--json", "/proc/bench.json"], "cannot write"),
    (["bench", "-a", "pattern_search", "--md", "/proc/bench.md"], "cannot write"),
    (["reproduce", "000", "--quick", "--out", "/proc"], "cannot write to the output folder"),
], ids=["bounds-f64", "bounds-f32", "dim-1e9", "n-and-p-walkers", "bench-seed", "bench-numpy-iters",
        "bench-json-unwritable", "bench-md-unwritable", "reproduce-out-unwritable"])
def test_cli_defect_is_one_line_exit_2(args, fragment):
    assert_one_line_error(cli(*args), fragment)


def test_reproduce_cuda_without_gpu_exits_2_with_the_reason():
    from solvers.engines import engine_status

    if engine_status("cuda")[0]:
        pytest.skip("a GPU is present: the cuda engine can run")
    assert_one_line_error(cli("reproduce", "000", "--quick", "--engine", "cuda", "--out", "/tmp/unused-mw"),
                          "no requested engine can run here (cuda:")
    assert not Path("/tmp/unused-mw").exists()  # refused before creating anything


def test_bench_with_no_engine_that_can_run_exits_2_and_writes_nothing(tmp_path):
    from solvers.engines import engine_status

    if engine_status("cuda")[0] or engine_status("cupy")[0]:
        pytest.skip("a GPU is present: the GPU engines can run")
    out = tmp_path / "b.json"  # was exit 0, a table of "not run" and a JSON without one measurement
    assert_one_line_error(cli("bench", "-a", "pattern_search", "--engines", "cuda,cupy", "-n", "64", "-d", "3",
                              "-i", "2", "--json", str(out)), "no requested engine can run here (cupy:")
    assert not out.exists()


def test_bench_fast_math_on_without_an_engine_that_has_it_exits_2_and_writes_nothing(tmp_path):
    # fast math is measured on the cuda engine only: 'on' with numpy and numba skipped every
    # measurement and printed an empty table with exit code 0
    out = tmp_path / "b.json"
    assert_one_line_error(cli("bench", "-a", "pattern_search", "--engines", "numpy,numba", "-n", "64",
                              "-d", "2", "-i", "2", "--fast-math", "on", "--json", str(out)),
                          "--fast-math on: no engine of numpy, numba has a fast-math switch")
    assert not out.exists()


@pytest.mark.parametrize("args, fragment", [
    (["--suite", "quick", "-a", "differential_evolution"], "the suite 'quick' has no case of it"),
    (["-a", ",", "-d", "2"], "bench needs --suite or --algorithm"),
    (["-a", "pattern_search", "-d", "2", "--precision", ""], "--precision: give float32"),
    (["-a", "pattern_search", "-d", "2", "--engines", ","], "--engines: no engine named")],
    ids=["suite-without-the-algorithm", "no-algorithm-named", "no-precision", "no-engine-named"])
def test_bench_that_would_measure_nothing_exits_2(tmp_path, args, fragment):
    # each printed the table's header alone and exit code 0 ('--engines ,': 'no requested engine
    # can run here ()')
    out = tmp_path / "b.json"
    engines = [] if "--engines" in args else ["--engines", "numpy"]
    assert_one_line_error(cli("bench", *args, *engines, "-n", "64", "-i", "2", "--json", str(out)),
                          fragment)
    assert not out.exists()


def test_reproduce_default_out_is_not_the_committed_docs():
    from solvers.reproduce import DEFAULT_OUT

    assert Path(DEFAULT_OUT).resolve() != (ROOT / "docs" / "reproduction").resolve()
    assert "reproduction-out" in (ROOT / ".gitignore").read_text()


def test_control_characters_in_a_name_are_escaped():
    proc = cli("run", "-a", "bad\nname\x1b[31m", "-f", "sphere")
    assert_one_line_error(proc, "bad\\nname\\x1b[31m")
    assert "\x1b" not in proc.stderr


def test_json_output_is_valid_when_the_best_is_infinite(tmp_path):
    # sphere over +/-1e200: every x^2 overflows, so the best f is +inf; the output stays JSON
    proc = cli("run", "-a", "pattern_search", "-f", "sphere", "-d", "2", "--bounds=-1e200,-1e199",
               "--max-iters", "2", "-n", "4", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout, parse_constant=lambda c: pytest.fail(f"non-JSON constant {c}"))
    assert data["best_f"] == "inf"


def test_no_display_is_one_line_with_the_way_out():
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    proc = cli(env=env)
    assert_one_line_error(proc, "no display was found")
    assert "QT_QPA_PLATFORM=offscreen" in proc.stderr and "main.py run" in proc.stderr


@pytest.mark.parametrize("args, delay", [
    (["list"], 0.05),  # during the first imports
    (["bench", "-a", "pattern_search", "--engines", "numpy", "-n", "64", "-d", "5", "-i", "100000",
      "--numpy-iterations", "100000", "--dtype", "float64"], 2.5),  # during a measurement
    (["run", "-a", "pattern_search", "-f", "sphere", "--max-seconds", "60"], 2.5),
], ids=["early", "bench", "run"])
def test_sigint_is_one_line_exit_130(args, delay):
    # An interrupt during the interpreter's own start-up (before main.py runs a line) ends in
    # CPython's "Fatal Python error: init_import_site", which no program can catch; that start-up
    # took longer than 50 ms on the GPU machine (site-packages on PYTHONPATH), so the delay counts
    # from the end of a bare interpreter's start-up, measured here.
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    delay += time.perf_counter() - started
    proc = subprocess.Popen([sys.executable, "main.py", *args], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    time.sleep(delay)
    if proc.poll() is not None:
        pytest.skip("finished before the interrupt")
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert err.splitlines() == ["main.py: interrupted"], err


def test_sigint_inside_a_c_callback_still_ends_the_run():
    # numba's first compile runs Python inside llvmlite's ctypes callbacks; a Ctrl+C landing there
    # was printed as "Exception ignored ... KeyboardInterrupt" and the run went on to its budget
    # (seen: `timeout -s INT 19 main.py run -e numba ...` on a cold cache finished with exit 0)
    script = (
        "import ctypes, os, signal, time\n"
        "import main\n"
        "main.install_interrupt_handlers()\n"
        "ctypes.CFUNCTYPE(None)(lambda: os.kill(os.getpid(), signal.SIGINT))()\n"
        "time.sleep(2)\n"
        "print('kept running')\n")
    proc = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 130, proc.stderr
    assert proc.stderr.splitlines() == ["main.py: interrupted"], proc.stderr
    assert "kept running" not in proc.stdout


def test_a_reader_that_leaves_early_is_not_an_internal_error():
    # `main.py list | head -c 10`: the pipe closes before the output is written. It printed
    # "internal error: BrokenPipeError"; now nothing on stderr and the shell's SIGPIPE status
    proc = subprocess.Popen([sys.executable, "main.py", "list"], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    proc.stdout.close()  # no reader before the first write: deterministic, unlike `head`
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 141 and err.decode() == ""


# main.py run as `python main.py ...`, with every progress report of a tune grid printed to stderr
# ("progress DONE"), so a test can interrupt it once runs have finished instead of guessing a delay
TUNE_WITH_PROGRESS = (
    "import runpy, sys\n"
    "from solvers.tune import Tuning\n"
    "run = Tuning.run\n"
    "def reporting(self, stop=None, on_progress=None, **kw):\n"
    "    report = lambda p: print(f'progress {p.done}', file=sys.stderr, flush=True)\n"
    "    return run(self, stop=stop, on_progress=report, **kw)\n"
    "Tuning.run = reporting\n"
    "sys.argv = ['main.py', *sys.argv[1:]]\n"
    "runpy.run_path('main.py', run_name='__main__')\n")


@pytest.mark.parametrize("args, batched", [
    (["-a", "multidirectional_search", "-f", "sphere", "-d", "5", "-g", "edge=0.1:0.5:4", "--seeds", "50",
      "--max-evals", "1e5"], False),  # one run after another: the finished runs are kept
    (["-a", "pattern_search", "-f", "sphere", "-d", "5", "-g", "delta0=0.05:0.5:2", "--seeds", "2",
      "-p", "walkers=64", "--max-iters", "1e9"], True),  # one batched run: every run's best so far
], ids=["one-by-one", "batched"])
def test_sigint_during_tune_keeps_the_finished_runs(tmp_path, args, batched):
    # Ctrl+C exited 130 without writing the CSV: the stop flag the grid polls was never set
    out = tmp_path / "grid.csv"
    proc = subprocess.Popen([sys.executable, "-c", TUNE_WITH_PROGRESS, "tune", *args, "-e", "numpy",
                             "--csv", str(out)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    seen = []
    for line in proc.stderr:  # the batched grid reports after each chunk, one by one after each run
        seen.append(line)
        if line.startswith("progress ") and (batched or int(line.split()[1]) >= 2):
            break
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    stderr = "".join(seen) + stderr
    assert proc.returncode == 130, stderr
    lines = [line for line in stderr.splitlines() if not line.startswith("progress ")]
    assert len(lines) == 1 and lines[0].startswith("main.py: interrupted; "), stderr
    assert f"written to {out}" in lines[0] and "Traceback" not in stderr
    with open(out, newline="") as fh:
        rows = list(csv.DictReader(fh))
    total = 4 if batched else 200
    assert f"stopped {len(rows)} of {total} runs in" in stdout
    if batched:  # every run's row, none of them at its budget
        assert len(rows) == total and "all 4 runs stopped part-way" in lines[0]
        assert all(0 < float(r["best_f"]) < float("inf") for r in rows)
    else:
        assert 2 <= len(rows) < total and f"{len(rows)} of {total} runs finished" in lines[0]
        assert all(r["evals"] == "100000" for r in rows)
