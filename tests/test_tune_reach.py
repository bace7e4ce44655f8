"""reached_at is a property of the run (solvers/tune/reach.py): the evaluations at the end of the
first iteration whose best is within the tolerance, the same on every path and engine however the
runs were chunked. One run at a time used to read it from the run's history, one entry per
time-sized chunk: a numba run whose iteration's end was 9,640 read 20,000, the end of its chunk."""
from __future__ import annotations

import importlib.util
from types import SimpleNamespace

import numpy as np
import pytest

from solvers import runner as runner_module
from solvers.algorithms import get_algorithm
from solvers.arrays import to_numpy
from solvers.engines import get_engine
from solvers.rng import ArrayRNG
from solvers.runner import Runner
from solvers.tune import execute, prepare, reach

PatternSearch = get_algorithm("pattern_search")

# restarts every 8 iterations and a tolerance that runs reach part-way (tests/test_tune_stop.py)
PS = dict(algorithm="pattern_search", problem="himmelblau",
          grid=["delta0=0.02:0.3:3:log", "tol_halvings=3:12:2"], seeds=3, first_seed=7, dim=2,
          max_evals=1203, tolerance=0.01, params={"walkers": 5, "restart": True, "round_iterations": 8})
MDS = dict(algorithm="multidirectional_search", problem="rastrigin", grid=["edge=0.05:0.5:3"], seeds=2,
           dim=2, max_evals=3000, tolerance=0.01, params={"walkers": 4, "restart": True})


class LaunchEnds(PatternSearch):
    """Pattern search as a fused kernel reports it (the cuda engine's fold_group_best): every
    group's best folded once per step() call, a launch, not at each iteration's end."""

    fused = True

    def update_best(self, state, X, f, reach=True):
        super().update_best(state, X, f, reach=False)

    def init(self, rng):
        state = super().init(rng)
        self._update_group_best(state, state.f)
        return state

    def step(self, state, iterations):
        super().step(state, iterations)
        self._update_group_best(state, state.f)


@pytest.fixture
def fused_engine(fake_engines, monkeypatch):
    """A fake 'cuda' engine running LaunchEnds: a fused kernel on either path, on the CPU."""
    engine = fake_engines(cuda={})["cuda"]
    monkeypatch.setattr(engine, "algorithm_class", lambda name: LaunchEnds)
    return "cuda"


def one_at_a_time(monkeypatch):
    """Pattern search's grids one run per (setting, seed) (no per-group delta0)."""
    monkeypatch.setattr(PatternSearch, "group_params", ())


def runner_chunks(monkeypatch, iterations: int) -> None:
    """Every chunk of a run alone this many iterations (tests/test_chunking.py)."""
    monkeypatch.setattr(Runner, "_clamp_chunk", lambda self, iters: iterations)


def batch_chunks(monkeypatch, grow: bool) -> None:
    """A batch's chunks one iteration each, or growing 4x a chunk (1, 4, 16, ...)."""
    monkeypatch.setattr(execute, "CHUNK_SECONDS", 1e9 if grow else 1e-12)


def reached(table) -> list:
    return [r.reached_at for r in table.rows]


def truth(grid: dict, engine: str = "numpy") -> list:
    """Each run of `grid` alone on `engine`, stepped one iteration at a time, its best read after
    each: the evaluations at the first iteration's end within the tolerance (None: never)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(PatternSearch, "group_params", ())  # one config per (setting, seed)
        tuning = prepare(**grid)
    target, engine, out = tuning.table.f_min + tuning.table.tolerance, get_engine(engine), []
    for config in tuning.plan.configs:
        algo = engine.build(config.algorithm, config.make_problem(), config.params, config.dtype,
                            budget=config.budget)
        state = algo.init(ArrayRNG(engine.xp, config.seed))
        while float(to_numpy(state.best_f)) > target:
            before = state.iteration
            algo.step(state, 1)
            if state.iteration == before:  # budget spent, never within it
                break
        out.append(int(state.evals) if float(to_numpy(state.best_f)) <= target else None)
    return out


def part_way(values: list) -> list:
    """`values`, checked to be a grid whose runs reach the tolerance at various points, or never."""
    assert None in values and len({v for v in values if v is not None}) > 2, values
    return values


# steps too small to move: runs get there only at a restart's fresh points (an iteration's start)
RESTARTS = dict(algorithm="pattern_search", problem="sphere", grid=["delta0=0.0001:0.0002:2"], seeds=4,
                dim=2, max_evals=2000, tolerance=0.02, bounds=(-1.0, 1.0),
                params={"walkers": 5, "restart": True, "round_iterations": 2})


def test_a_restart_within_the_tolerance_counts_at_its_iterations_end():
    """The batch recorded it 20 evaluations early, at the restart's evaluation (1,445, not 1,465)."""
    table = prepare(**RESTARTS).run()
    assert table.batched and reached(table) == part_way(truth(RESTARTS))


@pytest.mark.parametrize("chunk", [1, 1000])
def test_one_at_a_time_reports_the_iteration_whatever_the_runs_chunks(monkeypatch, chunk):
    """The array code records it per iteration (pattern search's restarts at the iteration's end,
    multi-directional search's slices of an iteration at its last)."""
    expected = part_way(truth(PS)), part_way(truth(MDS))
    one_at_a_time(monkeypatch)
    runner_chunks(monkeypatch, chunk)
    assert reached(prepare(**PS).run()) == expected[0]
    monkeypatch.setattr(runner_module, "SLICE_WORK", 1 if chunk == 1 else 10**12)  # a start a slice
    assert reached(prepare(**MDS).run()) == expected[1]


@pytest.mark.parametrize("grow", [False, True])
def test_batched_grid_reports_the_iteration_whatever_its_chunks(monkeypatch, grow):
    batch_chunks(monkeypatch, grow)
    table = prepare(**PS).run()
    assert table.batched and reached(table) == truth(PS)


@pytest.mark.parametrize("path", ["batched", "one at a time"])
@pytest.mark.parametrize("grow", [False, True])
def test_a_fused_kernel_finds_the_iteration_in_its_chunk(fused_engine, monkeypatch, path, grow):
    """A kernel that sees its best at launch ends (numba, cuda) runs the chunk again."""
    if path == "one at a time":
        one_at_a_time(monkeypatch)
        runner_chunks(monkeypatch, 4 ** 5 if grow else 1)
    batch_chunks(monkeypatch, grow)
    table = prepare(**PS, engine=fused_engine).run()
    assert table.batched == (path == "batched") and table.stop_reason == "finished"
    assert reached(table) == truth(PS)


def test_stop_while_a_batch_seeks_them_keeps_the_rows_without_guesses(fused_engine, monkeypatch):
    """Stop during the search: the grid is stopped, its rows kept, reached_at only where exact."""
    batch_chunks(monkeypatch, grow=True)
    seeking = []
    refine = reach.GroupBrackets.refine
    monkeypatch.setattr(reach.GroupBrackets, "refine",
                        lambda self, *args: seeking.append(1) or refine(self, *args))
    table = prepare(**PS, engine=fused_engine).run(stop=lambda: bool(seeking))
    assert seeking and table.stop_reason == "stopped" and len(table.rows) == table.grid.groups
    expected = truth(PS)
    got = reached(table)
    assert all(g is None or g == e for g, e in zip(got, expected))
    assert any(g is None and e is not None for g, e in zip(got, expected))


def test_the_search_takes_few_launches_not_one_an_iteration():
    """A chunk of 10,000 iterations of a run (the evaluations 10 a step, got there at 6,789):
    found exactly in 4 replays of at most 16 launches and their fast-forwards."""
    launches = []

    class Run:
        def step(self, state, iterations):
            launches.append(iterations)
            state.iteration += iterations
            state.evals = 10 * state.iteration

    engine = SimpleNamespace(synchronize=lambda: None)
    fresh = lambda: (Run(), SimpleNamespace(iteration=0, evals=0))  # noqa: E731
    out, complete = reach.search(engine, fresh, [0], [10_000],
                                 lambda s: np.array([s.iteration >= 6789]), lambda s: np.array([s.evals]),
                                 stop=lambda: False)
    assert complete and out.tolist() == [67_890]
    assert len(launches) < 100 and 1 in launches


@pytest.mark.skipif(importlib.util.find_spec("numba") is None, reason="numba is not installed")
@pytest.mark.parametrize("chunk", [1, 1000])
def test_numba_grid_reports_the_iteration_whatever_the_runs_chunks(monkeypatch, chunk):
    """The issue's case: the numba run read 20,000 (its chunk's end), its iteration's end 9,640."""
    grid = dict(algorithm="pattern_search", problem="rastrigin", grid=["delta0=0.05:0.5:3"], seeds=2,
                dim=5, max_evals=20000)
    runner_chunks(monkeypatch, chunk)
    table = prepare(**grid, engine="numba").run()
    assert not table.batched and reached(table)[2] == 9640
    one_at_a_time(monkeypatch)
    assert reached(prepare(**grid, engine="numpy").run()) == truth(grid) != reached(table)
