"""The speedup-sweep panel (gui/sweep.py): a tiny numpy sweep completes, plots, stops and exports."""
from __future__ import annotations

import csv

import numpy as np
import pytest

from solvers.engines import get_engine

pytest.importorskip("PyQt6")
pytest.importorskip("pyqtgraph")
from PyQt6 import sip  # noqa: E402

import gui.sweep as gui_sweep  # noqa: E402
import solvers.sweep as solver_sweep  # noqa: E402
from gui.sweep import SweepPanel  # noqa: E402
from solvers.config import RunConfig  # noqa: E402

pytestmark = pytest.mark.gui


def make_panel(qtbot, lo=4, hi=6, iterations=3, dim=3):
    panel = SweepPanel()
    qtbot.addWidget(panel)
    panel.set_config(RunConfig.build("pattern_search", "sphere", dim, params={"delta0": 0.1}, seed=5))
    panel.min_exp_box.setValue(lo)
    panel.max_exp_box.setValue(hi)
    panel.iterations_box.setValue(iterations)
    for engine, box in panel.engine_boxes.items():
        box.setChecked(engine == "numpy")
    panel.baseline_combo.setCurrentIndex(panel.baseline_combo.findData("numpy"))
    return panel


def assert_joined(panel, thread):
    assert not panel.is_running
    assert sip.isdeleted(thread) or thread.isFinished()


def test_tiny_sweep_completes_plots_tabulates_and_exports(qtbot, tmp_path):
    panel = make_panel(qtbot)
    panel.show()
    with qtbot.waitSignal(panel.sigFinished, timeout=30000):
        assert panel.start()
        thread = panel._thread
        assert panel.is_running and not panel.start_button.isEnabled()
    assert_joined(panel, thread)
    records = panel.records
    assert [(r.walkers, r.engine, r.status) for r in records] == [
        (16, "numpy", "ok"), (32, "numpy", "ok"), (64, "numpy", "ok")]
    assert panel.table.rowCount() == 3
    assert panel.table.item(2, 0).text() == "64"
    curve = panel._curves_time["numpy"]
    x, y = curve.xData, curve.yData  # the data given, not the log10 values drawn
    np.testing.assert_allclose(x, [16, 32, 64])
    np.testing.assert_allclose(y, [r.seconds for r in records])
    assert panel.progress.value() == 1000
    assert panel.start_button.isEnabled() and not panel.stop_button.isEnabled()
    assert panel.status_label.text() == "done"
    # the other parameters came from the main form's configuration
    assert dict(panel._spec.params) == {k: v for k, v in panel._config.params_dict().items()
                                        if k != "walkers"}

    path = panel.export_csv(tmp_path / "sweep.csv")
    lines = path.read_text().splitlines()
    assert "# problem=sphere" in lines
    rows = list(csv.DictReader(l for l in lines if not l.startswith("#")))
    assert [int(r["walkers"]) for r in rows] == [16, 32, 64]


def test_stop_ends_a_long_sweep_and_joins_the_thread(qtbot):
    panel = make_panel(qtbot, lo=4, hi=20, iterations=40, dim=10)
    with qtbot.waitSignal(panel.sigFinished, timeout=30000):
        panel.start()
        thread = panel._thread
        qtbot.waitUntil(lambda: len(panel.records) >= 1, timeout=20000)
        panel.stop_button.click()
    assert_joined(panel, thread)
    assert panel.records[-1].walkers < 2**20
    assert panel.status_label.text().startswith("stopped after")


def test_close_while_running_waits_for_the_worker(qtbot):
    panel = make_panel(qtbot, lo=4, hi=20, iterations=40, dim=10)
    panel.show()
    finished = []
    panel.sigFinished.connect(lambda: finished.append(True))
    panel.start()
    thread = panel._thread
    qtbot.waitUntil(lambda: len(panel.records) >= 1, timeout=20000)
    panel.close()  # closeEvent -> shutdown(): cancel and wait, never terminate
    assert finished == [True]
    assert_joined(panel, thread)
    panel.shutdown()  # a second call is harmless


def test_bad_range_is_refused_with_a_message(qtbot):
    panel = make_panel(qtbot, lo=6, hi=4)
    assert panel.start() is False
    assert not panel.is_running
    assert "above the largest" in panel.status_label.text()
    for box in panel.engine_boxes.values():
        box.setChecked(False)
    panel.min_exp_box.setValue(2)
    assert panel.start() is False and "at least one engine" in panel.status_label.text()


def test_unavailable_engines_are_disabled_with_the_reason(qtbot, fake_engines):
    fake_engines(cupy={"status": (False, "no CUDA device found")},
                 cuda={"status": (False, "no CUDA device found")})
    panel = SweepPanel()
    qtbot.addWidget(panel)
    assert panel.engine_boxes["numpy"].isEnabled()
    for engine in ("cupy", "cuda"):
        box = panel.engine_boxes[engine]
        assert not box.isEnabled() and not box.isChecked()
        assert "no CUDA device found" in box.toolTip()
    # the compiled CPU rows (numba on every core, on one core) are on where numba is installed
    numba = [e for e in ("numba", "numba1") if get_engine(e).available]
    assert panel.selected_engines() == ["numpy"] + numba


def test_speedup_curve_for_a_second_engine(qtbot, fake_engines):
    # 'cupy' and 'cuda' faked as available and running the numpy code, so the speedup plot gets data
    fake_engines(cupy={}, cuda={})
    panel = make_panel(qtbot)
    panel.engine_boxes["cupy"].setChecked(True)
    with qtbot.waitSignal(panel.sigFinished, timeout=30000):
        panel.start()
    assert "numpy" not in panel._curves_speedup  # numpy is the baseline, not a curve
    curve = panel._curves_speedup["cupy"]
    x, y = curve.xData, curve.yData
    np.testing.assert_allclose(x, [16, 32, 64])
    cupy = [r for r in panel.records if r.engine == "cupy"]
    np.testing.assert_allclose(y, [r.speedup for r in cupy])
    assert panel.table.rowCount() == 6


def test_numba_baseline_is_swept_first_and_named_with_its_threads(qtbot):
    """The speedup baseline defaults to numba; chosen, it is swept (first) even when unchecked and
    every speedup is its seconds over the engine's at the same walker count; titles name it."""
    if not get_engine("numba").available:
        pytest.skip("numba is not installed")
    panel = SweepPanel()
    qtbot.addWidget(panel)
    assert panel.baseline() == "numba"
    panel.set_config(RunConfig.build("pattern_search", "sphere", 3, seed=5, engine="numba", threads=1))
    panel.min_exp_box.setValue(4)
    panel.max_exp_box.setValue(5)
    panel.iterations_box.setValue(3)
    for engine, box in panel.engine_boxes.items():
        box.setChecked(engine == "numpy")
    assert panel.speedup_plot.plotItem.titleLabel.text == "x vs numba, 1 thread"
    with qtbot.waitSignal(panel.sigFinished, timeout=60000):
        assert panel.start()
    records = panel.records
    assert [(r.walkers, r.engine) for r in records] == [(16, "numba"), (16, "numpy"), (32, "numba"),
                                                        (32, "numpy")]
    for base, other in zip(records[::2], records[1::2]):
        assert base.speedup == pytest.approx(1.0)
        assert other.speedup == pytest.approx(base.seconds / other.seconds)
    assert "numba" not in panel._curves_speedup and "numpy" in panel._curves_speedup
    header = panel.table.horizontalHeaderItem(5).text()
    assert header == "x vs numba, 1 thread"
    # a finished sweep keeps the titles of the baseline it was measured against
    panel.baseline_combo.setCurrentIndex(panel.baseline_combo.findData("numpy"))
    assert panel.table.horizontalHeaderItem(5).text() == header


def test_panel_starts_from_the_sweeps_declared_defaults(qtbot):
    """The tab's fields show solvers.sweep's defaults and limits (declared there once)."""
    panel = SweepPanel()
    qtbot.addWidget(panel)
    spec = solver_sweep.SweepSpec.build("pattern_search", "sphere", 3)
    assert panel.iterations_box.value() == spec.iterations == solver_sweep.DEFAULT_ITERATIONS
    assert (panel.min_exp_box.value(), panel.max_exp_box.value()) == (spec.min_exp, spec.max_exp)
    assert panel.cap_box.value() == spec.point_cap_s
    assert panel.max_exp_box.maximum() == solver_sweep.MAX_EXP
    assert 2 ** solver_sweep.MAX_EXP == solver_sweep.MAX_WALKERS


def test_the_sweep_times_the_set_up_s_own_box(qtbot):
    # the tab passed the function's name alone: a box override, or a typed function's box per
    # coordinate, was left out and the sweep timed the function over its default box
    panel = make_panel(qtbot)
    panel.set_config(RunConfig.build("pattern_search", "rastrigin", 3, bounds=(-1.0, 2.0)))
    spec = panel.build_spec()
    assert (spec.problem, spec.dim) == ("rastrigin", 3)
    assert np.all(spec.problem_object.lower == -1.0) and np.all(spec.problem_object.upper == 2.0)
    assert solver_sweep.describe(spec)["box"] == "[-1, 2]"
    typed = RunConfig.build("pattern_search", "expr: sum(x[i]**2)", 2)
    panel.set_config(typed)
    assert solver_sweep.describe(panel.build_spec())["box"] == "[-5, 5]"
