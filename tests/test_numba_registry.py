"""The numba engine in the engine registry: both entries, threads through the API and the CLI."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

import solvers  # noqa: E402
from solvers.cli import main as cli_main  # noqa: E402
from solvers.engines import ENGINES, get_engine  # noqa: E402
from solvers.errors import ConfigError  # noqa: E402


def test_numba_engines_are_registered_and_describe_the_cpu():
    assert {"numba", "numba1"} <= set(ENGINES)
    every, one = get_engine("numba"), get_engine("numba1")
    assert every.available and one.available
    assert every.compiles and "compiling the numba engine" in every.compile_message
    assert one.status()[1].endswith("1 thread") and one.threads == 1 and every.threads is None


def test_api_threads_do_not_change_the_result():
    runs = [solvers.run("simulated_annealing", "rastrigin", "numba", dim=3, max_iters=40, seed=3,
                        params={"walkers": 64}, threads=t) for t in (1, 2)]
    assert runs[0].best_f == runs[1].best_f and runs[0].evals == runs[1].evals
    assert np.array_equal(runs[0].best_x, runs[1].best_x)


def test_bad_thread_counts_are_one_line_errors(capsys):
    with pytest.raises(ConfigError, match="threads"):
        solvers.run("pattern_search", "sphere", "numba", max_iters=2, threads=0)
    assert cli_main(["run", "-a", "pattern_search", "-f", "sphere", "-e", "numba", "--threads", "9999",
                     "--max-iters", "2", "-n", "8"]) == 2
    err = capsys.readouterr().err
    assert "threads" in err and len(err.strip().splitlines()) == 1
