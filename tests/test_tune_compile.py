"""A grid's compile is never in its timings (solvers/tune/compiling.py), and Stop during it ends the
grid as it starts. With a cold Numba cache a numba grid's first row read 23.0 s (the others 0.5
ms) and the grid 5.2e3 evals/s; the fake JIT engine (conftest's jit_cupy: the first step sleeps)
stands in for numba and CuPy on either path."""
from __future__ import annotations

import json
import time

import pytest

from solvers.algorithms import get_algorithm
from solvers.tune import prepare

GRID = dict(algorithm="pattern_search", problem="sphere", grid=["delta0=0.05:0.2:3"], seeds=2, dim=2,
            max_iters=5, params={"walkers": 16})


@pytest.fixture(params=["batched", "one at a time"])
def path(request, jit_cupy, monkeypatch):
    """Both paths on the fake JIT cupy: batched, and one run at a time (no per-group delta0)."""
    if request.param == "one at a time":
        monkeypatch.setattr(get_algorithm("pattern_search"), "group_params", ())
    return request.param


def test_rows_and_the_grid_leave_out_compiling(path, jit_cupy):
    tuning = prepare(**GRID, engine="cupy")
    table = tuning.run()
    assert jit_cupy and table.complete and table.stop_reason == "finished"
    assert table.batched == (path == "batched")
    limit = jit_cupy.seconds / 2
    assert sum(r.seconds for r in table.rows) < limit, [r.seconds for r in table.rows]
    assert table.seconds < limit, table.seconds
    assert not tuning.compiles  # compiled once, before the clock


def test_rows_are_those_of_a_grid_that_never_compiled(path, jit_cupy):
    """The warm-up runs on a throwaway state: the rows are the same numbers as on numpy."""
    assert [r.best_f for r in prepare(**GRID, engine="cupy").run().rows] == \
        [r.best_f for r in prepare(**GRID, engine="numpy").run().rows]


def test_stop_during_the_compile_ends_the_grid_as_it_starts(path, jit_cupy):
    """A compile cannot be interrupted: Stop asked inside it ends the grid once it is done, with
    the rows so far (one at a time: none; batched: every run at its initial points)."""
    tuning = prepare(**GRID, engine="cupy")
    table = tuning.run(stop=lambda: bool(jit_cupy))  # asked from the compile's start on
    assert jit_cupy == [True] and table.stop_reason == "stopped"
    if path == "batched":
        assert len(table.rows) == table.grid.groups and {r.evals for r in table.rows} == {16}
    else:
        assert table.rows == []


def test_a_compile_at_build_is_in_prepare_not_in_the_rows(fake_engines, monkeypatch):
    """The cuda engine compiles when a run is built: prepare builds (the probe, the batch)."""
    engines = fake_engines(cuda={"compiles": True})
    build, built = engines["cuda"].build, []

    def compiling_build(*args, **kwargs):
        if not built:
            built.append(True)
            time.sleep(0.5)
        return build(*args, **kwargs)

    monkeypatch.setattr(engines["cuda"], "build", compiling_build)
    tuning = prepare(**GRID, engine="cuda")
    assert built
    table = tuning.run()
    assert table.seconds < 0.25 and sum(r.seconds for r in table.rows) < 0.25


def test_cli_says_it_compiles_and_leaves_it_out(path, jit_cupy, monkeypatch, capsys):
    from solvers import cli as cli_module

    monkeypatch.setattr(cli_module, "COMPILE_NOTICE_S", 0.05)
    args = ["tune", "-a", "pattern_search", "-f", "sphere", "-d", "2", "-g", "delta0=0.05:0.2:3",
            "--seeds", "2", "--max-iters", "5", "-p", "walkers=16", "-e", "cupy"]
    assert cli_module.main([*args, "--json"]) == 0
    out = capsys.readouterr()
    data = json.loads(out.out)
    assert jit_cupy and data["batched"] == (path == "batched")
    assert data["seconds"] < jit_cupy.seconds / 2
    assert sum(r["seconds"] for r in data["rows"]) < jit_cupy.seconds / 2
    assert out.err.splitlines() == ["main.py: compiling kernels, not counted in the grid's time ..."]
