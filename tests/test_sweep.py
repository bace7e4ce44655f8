"""The speedup sweep (solvers/sweep.py): numpy only, tiny ranges; GPU engines faked where needed."""
from __future__ import annotations

import csv
import threading
import time

import numpy as np
import pytest

from solvers import sweep as sweep_mod
from solvers.errors import ConfigError, DeviceMemoryError
from solvers.sweep import SweepSpec, run_sweep, write_csv


def tiny(**kw):
    args = dict(iterations=3, engines=["numpy"], min_exp=4, max_exp=6, point_cap_s=30.0)
    args.update(kw)
    return SweepSpec.build("pattern_search", "sphere", 3, **args)


@pytest.fixture
def fake_gpu(fake_engines):
    """Make 'cupy' an available engine that runs the numpy code, so two engines can be compared."""
    fake_engines(cupy={})


def test_tiny_numpy_sweep_times_every_count_and_counts_every_evaluation():
    spec = tiny()
    records = list(run_sweep(spec))
    assert [r.walkers for r in records] == [16, 32, 64]
    assert all(r.ok and r.engine == "numpy" for r in records)
    for r in records:
        # pattern search: 2 d evaluations per walker per iteration, timed iterations only
        assert r.evals == 2 * 3 * r.walkers * spec.iterations
        assert r.seconds > 0
        assert r.evals_per_second == pytest.approx(r.evals / r.seconds)
        assert r.speedup == pytest.approx(1.0)
    assert [r.progress for r in records] == pytest.approx([1 / 3, 2 / 3, 1.0])


def test_speedup_is_numpy_time_over_engine_time_at_the_same_count(fake_gpu):
    records = list(run_sweep(tiny(engines=["cupy", "numpy"])))
    assert [(r.walkers, r.engine) for r in records] == [
        (16, "numpy"), (16, "cupy"), (32, "numpy"), (32, "cupy"), (64, "numpy"), (64, "cupy")]
    by_key = {(r.walkers, r.engine): r for r in records}
    for n in (16, 32, 64):
        base, other = by_key[(n, "numpy")], by_key[(n, "cupy")]
        assert other.speedup == pytest.approx(base.seconds / other.seconds)
        assert other.evals == base.evals  # the same work on both engines


def test_unavailable_engine_is_reported_once_and_numpy_goes_on(fake_engines):
    fake_engines(cuda={"status": (False, "no device here")})
    records = list(run_sweep(tiny(engines=["numpy", "cuda"])))
    cuda = [r for r in records if r.engine == "cuda"]
    assert len(cuda) == 1 and cuda[0].status == "stopped"
    assert "no device here" in cuda[0].note
    assert [r.walkers for r in records if r.engine == "numpy" and r.ok] == [16, 32, 64]


def test_out_of_memory_stops_that_engine_cleanly(monkeypatch, fake_gpu):
    real_build = sweep_mod._build

    def build(spec, engine, walkers):
        if engine == "cupy" and walkers >= 32:
            raise DeviceMemoryError("needs 9.0 GiB, 1.0 GiB free")
        return real_build(spec, engine, walkers)

    monkeypatch.setattr(sweep_mod, "_build", build)
    records = list(run_sweep(tiny(engines=["numpy", "cupy"])))
    cupy = [r for r in records if r.engine == "cupy"]
    assert [r.status for r in cupy] == ["ok", "stopped"]
    assert cupy[1].walkers == 32 and cupy[1].note.startswith("out of memory")
    assert "9.0 GiB" in cupy[1].note
    assert [r.walkers for r in records if r.engine == "numpy"] == [16, 32, 64]


def test_unexpected_failure_is_an_error_record_not_a_crash(monkeypatch):
    def build(spec, engine, walkers):
        raise RuntimeError("CUDA_ERROR_ILLEGAL_ADDRESS\nmore text")

    monkeypatch.setattr(sweep_mod, "_build", build)
    records = list(run_sweep(tiny()))
    assert len(records) == 1
    assert records[0].status == "error"
    assert records[0].note == "RuntimeError: CUDA_ERROR_ILLEGAL_ADDRESS"


def test_time_cap_stops_the_engine_before_running_past_it():
    records = list(run_sweep(tiny(point_cap_s=1e-9)))
    assert len(records) == 1
    assert records[0].status == "stopped" and records[0].note.startswith("time cap")


def test_cap_predicted_from_the_previous_point(monkeypatch):
    # fake the timing of each point: 0.4 s per 16 walkers
    monkeypatch.setattr(sweep_mod, "_time_point", lambda spec, e, n, c: (n / 16 * 0.4, n))
    records = list(run_sweep(tiny(point_cap_s=1.0)))
    # 16 -> 0.4 s, 32 -> 0.8 s, 64 predicted 1.6 s > 1 s: stopped without running
    assert [(r.walkers, r.status) for r in records] == [(16, "ok"), (32, "ok"), (64, "stopped")]
    assert "predicted 1.6 s" in records[-1].note


def test_cancel_from_another_thread_ends_the_sweep_promptly():
    spec = SweepSpec.build("pattern_search", "sphere", 10, iterations=50, engines=["numpy"],
                           min_exp=4, max_exp=20, point_cap_s=60.0)
    cancel = threading.Event()
    setter = threading.Thread(target=lambda: (time.sleep(0.3), cancel.set()))
    setter.start()
    t0 = time.perf_counter()
    records = list(run_sweep(spec, cancel))
    elapsed = time.perf_counter() - t0
    setter.join()
    assert cancel.is_set()
    assert elapsed < 5.0  # the full range would take minutes on numpy
    assert records and records[-1].walkers < 2**20
    assert all(r.ok for r in records)  # a point cut short by the cancel is not reported


def test_cancel_before_start_yields_nothing():
    cancel = threading.Event()
    cancel.set()
    assert list(run_sweep(tiny(), cancel)) == []


@pytest.mark.parametrize("kw, words", [
    (dict(engines=["numpy", "tpu"]), "unknown engine 'tpu'"),
    (dict(engines=[]), "at least one engine"),
    (dict(min_exp=7, max_exp=6), "above the largest"),
    (dict(max_exp=40), "max_exp"),
    (dict(iterations=0), "iterations"),
    (dict(point_cap_s=0), "time cap"),
    (dict(params={"no_such": 1}), "unknown parameter 'no_such'"),
    (dict(dtype="float16"), "dtype"),
])
def test_bad_specs_are_one_line_config_errors(kw, words):
    with pytest.raises(ConfigError, match=words) as info:
        tiny(**kw)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("algorithm, first", [("differential_evolution", 2), ("particle_swarm", 1)])
def test_counts_below_the_algorithms_least_are_refused_before_the_sweep(algorithm, first):
    # DE from 2^0: the first point (1 walker) failed, and a failed point ends the sweep, so not
    # one count was measured
    with pytest.raises(ConfigError, match=rf"2\^0 = 1 is below .* start at 2\^{first}"):
        SweepSpec.build(algorithm, "sphere", 2, iterations=2, min_exp=0, max_exp=3)
    spec = SweepSpec.build(algorithm, "sphere", 2, iterations=1, min_exp=first, max_exp=first + 1)
    assert [r.status for r in run_sweep(spec)] == ["ok", "ok"]


def test_walkers_in_params_is_ignored_and_numpy_goes_first():
    spec = tiny(engines=["cuda", "numpy"], params={"walkers": 5, "delta0": 0.1})
    assert spec.engines == ("numpy", "cuda")
    assert dict(spec.params) == {"delta0": 0.1}


def test_csv_round_trips(tmp_path):
    spec = tiny()
    records = list(run_sweep(spec))
    path = write_csv(records, tmp_path / "sweep.csv", spec)
    lines = path.read_text().splitlines()
    comments = [l for l in lines if l.startswith("#")]
    assert "# algorithm=pattern_search" in comments and "# problem=sphere" in comments
    rows = list(csv.DictReader(l for l in lines if not l.startswith("#")))
    assert [int(r["walkers"]) for r in rows] == [16, 32, 64]
    assert [int(r["evals"]) for r in rows] == [r.evals for r in records]
    assert float(rows[0]["seconds"]) == pytest.approx(records[0].seconds, rel=1e-5)


def test_csv_of_a_typed_function_over_two_lines_keeps_its_comment_lines(tmp_path):
    # '# problem=expr: x1**2 +' then '  x2**2 + x3**2' on a line of its own, read as the header
    spec = SweepSpec.build("pattern_search", "expr: x1**2 +\n  x2**2 + x3**2", 3, iterations=2,
                           min_exp=4, max_exp=4, engines=("numpy",))
    path = write_csv(list(run_sweep(spec)), tmp_path / "sweep.csv", spec)
    lines = path.read_text().splitlines()
    assert "# problem=expr: x1**2 +   x2**2 + x3**2" in lines
    rows = list(csv.DictReader(l for l in lines if not l.startswith("#")))
    assert list(rows[0]) == list(sweep_mod.CSV_COLUMNS) and len(rows) == 1


def test_point_start_callback_announces_each_point_before_its_record():
    events = []
    for record in run_sweep(tiny(), on_point_start=lambda n, e: events.append(("start", n, e))):
        events.append(("record", record.walkers, record.engine))
    assert events == [("start", 16, "numpy"), ("record", 16, "numpy"),
                      ("start", 32, "numpy"), ("record", 32, "numpy"),
                      ("start", 64, "numpy"), ("record", 64, "numpy")]
