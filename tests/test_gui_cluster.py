"""Tools > Dask cluster...: the address dialog, the setting kept by the window, a speedup sweep and a
tuning grid each run as one job on a Dask worker with their items streamed back into the panel.
One local cluster of one worker process for the module."""
from __future__ import annotations

import re

import numpy as np
import pytest

pytest.importorskip("PyQt6")
pytest.importorskip("pyqtgraph")
distributed = pytest.importorskip("distributed")

from PyQt6 import QtCore, QtWidgets  # noqa: E402

import gui.sweep as gui_sweep  # noqa: E402
import gui.tune as gui_tune  # noqa: E402
from gui.cluster_dialog import ClusterDialog  # noqa: E402
from gui.main_window import MainWindow  # noqa: E402
from solvers.config import RunConfig  # noqa: E402
from solvers.errors import ConfigError  # noqa: E402
from test_gui_sweep import make_panel  # noqa: E402
from test_gui_tune import make_panel as make_tune_panel  # noqa: E402
from test_gui_tune import run_to_end  # noqa: E402

pytestmark = pytest.mark.gui

PSO = RunConfig.build("particle_swarm", "rastrigin", 2, params={"variant": "classic"}, seed=0)
PSO_AXES = ("omega=0.3:0.9:2", "phi_g=1.0:2.0:2")


def refuse(scheduler, **_kw):
    """open_client of a scheduler that cannot be reached."""
    raise ConfigError(f"cannot reach the Dask scheduler at {scheduler}: refused")


def _ok(dialog):
    return dialog.buttons.button(QtWidgets.QDialogButtonBox.StandardButton.Ok)


def test_dialog_checks_the_address_as_typed(qtbot):
    dialog = ClusterDialog(None)
    qtbot.addWidget(dialog)
    assert _ok(dialog).isEnabled() and dialog.scheduler() is None  # empty: this machine
    dialog.edit.setText("my server")
    assert not _ok(dialog).isEnabled() and "not a Dask scheduler address" in dialog.row.error
    dialog.edit.setText("tcp://gpu-box:8786")
    assert _ok(dialog).isEnabled() and dialog.row.error == ""
    assert dialog.scheduler() == "tcp://gpu-box:8786"
    dialog.edit.setText(" LOCAL ")
    assert dialog.scheduler() == "local"
    for port in ("99999", "0"):  # said as typed, not after a 10 s timeout of the first job
        dialog.edit.setText(f"tcp://gpu-box:{port}")
        assert not _ok(dialog).isEnabled() and "the port must be 1 to 65535" in dialog.row.error


def test_window_keeps_the_scheduler_and_gives_it_to_the_sweep(qtbot, tmp_path):
    settings = QtCore.QSettings(str(tmp_path / "s.ini"), QtCore.QSettings.Format.IniFormat)
    window = MainWindow(settings)
    qtbot.addWidget(window)
    panel = window.sweep_panel
    assert panel.cluster_label.scheduler is None and not panel.cluster_label.isVisibleTo(panel)
    window.set_scheduler("tcp://gpu-box:8786")
    assert panel.cluster_label.isVisibleTo(panel) and "gpu-box:8786" in panel.cluster_label.text()
    assert all(box.isEnabled() for box in panel.engine_boxes.values())  # the worker's engines count
    window.save_settings()
    again = MainWindow(settings)
    qtbot.addWidget(again)
    assert again.scheduler == "tcp://gpu-box:8786"
    again.set_scheduler(None)
    assert not again.sweep_panel.cluster_label.isVisibleTo(again.sweep_panel)
    assert settings.value("cluster/scheduler") == ""


def test_sweep_runs_on_the_cluster_and_streams_its_records(qtbot, dask_cluster):
    panel = make_panel(qtbot, lo=4, hi=5)
    panel.set_scheduler(dask_cluster.scheduler_address)
    with qtbot.waitSignal(panel.sigFinished, timeout=60000):
        assert panel.start()
    records = panel.records
    assert [(r.walkers, r.engine, r.status) for r in records] == [(16, "numpy", "ok"), (32, "numpy", "ok")]
    assert panel.table.rowCount() == 2 and panel.status_label.text() == "done"
    assert "Dashboard:" in panel.cluster_label.text() and "href" in panel.cluster_label.text()


def test_an_unreachable_cluster_is_said_in_the_status_line(qtbot, monkeypatch):
    monkeypatch.setattr(gui_sweep, "open_client", refuse)
    warned = []
    monkeypatch.setattr(QtWidgets.QMessageBox, "warning", lambda _parent, _title, text: warned.append(text))
    panel = make_panel(qtbot, lo=4, hi=4)
    panel.set_scheduler("tcp://nowhere:8786")
    with qtbot.waitSignal(panel.sigFinished, timeout=30000):
        assert panel.start()
    assert warned == ["cannot reach the Dask scheduler at tcp://nowhere:8786: refused"]  # one line
    assert not panel.is_running and panel.records == []


# --- the Tune tab --------------------------------------------------------------------------------
def _rows(table):
    return [(r.setting, r.params, r.seed, r.best_f, r.evals, r.reached_at) for r in table.rows]


def _without_time(status: str) -> str:
    return re.sub(r" in [0-9.e+-]+ s ", " in ... s ", status)


def test_a_grid_runs_on_the_cluster_as_it_runs_here(qtbot, dask_cluster):
    here = make_tune_panel(qtbot, axes=PSO_AXES, seeds=2, evals=200_000, config=PSO)
    run_to_end(qtbot, here, timeout=30000)
    panel = make_tune_panel(qtbot, axes=PSO_AXES, seeds=2, evals=200_000, config=PSO)
    panel.set_scheduler(dask_cluster.scheduler_address)
    assert panel.cluster_label.isVisibleTo(panel) and panel.pause_button.toolTip() == gui_tune.PAUSE_TIP
    live, progress, statuses = [], [], []
    panel.sigRedrawn.connect(lambda: live.append(panel.table.complete if panel.table else None))
    with qtbot.waitSignal(panel.sigFinished, timeout=60000):
        assert panel.start()
        panel._worker.sigProgress.connect(lambda p: progress.append(p.done))
        panel._worker.sigStatus.connect(statuses.append)
        # Pause cannot reach a job on a worker: disabled, and the tooltip says why; Stop stays
        assert not panel.pause_button.isEnabled() and panel.stop_button.isEnabled()
        assert "cannot be paused" in panel.pause_button.toolTip()
        assert "Stop ends it and keeps the runs so far" in panel.pause_button.toolTip()
        panel.toggle_pause()
        assert not panel.is_paused
    assert progress and progress[-1] == 8 and False in live  # the map filled in while it ran
    assert any(s.endswith("(on the cluster)") for s in statuses)
    assert _rows(panel.table) == _rows(here.table) and panel.table.complete
    np.testing.assert_array_equal(panel.map.image.image, here.map.image.image)
    assert panel.status_label.text().startswith("done: 8 of 8 runs")
    assert _without_time(panel.status_label.text()) == _without_time(here.status_label.text())
    assert panel.progress.value() == 1000 and panel.export_csv_button.isEnabled()
    assert "Dashboard:" in panel.cluster_label.text() and "href" in panel.cluster_label.text()
    assert panel.pause_button.toolTip() == gui_tune.PAUSE_TIP  # idle again: a local run may pause


def test_a_grid_refused_on_the_worker_says_why_as_here(qtbot, dask_cluster):
    sa = RunConfig.build("simulated_annealing", "rastrigin", 2, seed=0)
    refused = {}
    for where in (None, dask_cluster.scheduler_address):
        panel = make_tune_panel(qtbot, axes=("t_min=1:5000:2",), seeds=1, evals=1000, config=sa)
        panel.set_scheduler(where)
        run_to_end(qtbot, panel, timeout=60000)
        refused[where] = panel.status_label.text()
        assert panel.table is None and panel.progress.format() == "refused"
    assert refused[None] == "grid refused: grid setting t_min=5000: parameter 't_min' must be smaller than 't0'"
    assert refused[dask_cluster.scheduler_address] == refused[None]


def test_a_grid_of_single_runs_on_the_cluster_says_its_path_and_notes(qtbot, dask_cluster):
    # the annealing hybrid runs one run per (setting, seed); its fitted schedule is switched for the grid
    sa = RunConfig.build("simulated_annealing", "rastrigin", 2, seed=0, params={"variant": "hybrid"})
    panel = make_tune_panel(qtbot, axes=("alpha=0.8:0.95:2",), seeds=2, evals=2000, config=sa)
    panel.set_scheduler(dask_cluster.scheduler_address)
    statuses = []
    with qtbot.waitSignal(panel.sigFinished, timeout=60000):
        assert panel.start()
        panel._worker.sigStatus.connect(statuses.append)
    path = next(s for s in statuses if "(on the cluster)" in s)
    assert path.startswith("one run per (setting, seed)") and "; schedule fixed: " in path
    assert not panel.table.batched and len(panel.table.rows) == 4
    assert panel.status_label.text().startswith("done: 4 of 4 runs")


def test_an_unreachable_cluster_is_said_in_the_tune_status_line(qtbot, monkeypatch):
    monkeypatch.setattr(gui_tune, "open_client", refuse)
    panel = make_tune_panel(qtbot, axes=PSO_AXES, seeds=2, evals=1000, config=PSO)
    panel.set_scheduler("tcp://nowhere:8786")
    run_to_end(qtbot, panel)
    assert panel.status_label.text() == "grid refused: cannot reach the Dask scheduler at tcp://nowhere:8786: refused"
    assert panel.table is None and not panel.is_running and panel.start_button.isEnabled()


def test_on_a_cluster_every_engine_may_be_chosen_for_a_grid(qtbot, fake_engines):
    from conftest import FakeEngine

    fake_engines(cuda=FakeEngine("cuda", status=(False, "no CUDA driver or device"), compiles=True))
    panel = gui_tune.TunePanel()
    qtbot.addWidget(panel)
    combo = panel.engine_combo
    cuda = combo.findText("cuda")
    assert not combo.model().item(cuda).isEnabled()
    panel.set_scheduler("tcp://gpu-box:8786")
    assert all(combo.model().item(i).isEnabled() for i in range(combo.count()))
    assert "not available on this machine" in combo.model().item(cuda).toolTip()
    combo.setCurrentIndex(cuda)
    combo.activated.emit(cuda)  # the user's choice
    assert panel.build_setup().config.engine == "cuda"  # not checked here: the worker decides
    panel.set_scheduler(None)  # back here: this machine has no cuda, numpy runs the grid
    assert not combo.model().item(cuda).isEnabled() and combo.currentText() == "numpy"
    assert combo.model().item(cuda).toolTip().startswith("unavailable")


def test_a_cluster_engine_on_a_worker_without_it_is_one_line(qtbot, dask_cluster):
    from solvers.engines import get_engine

    if get_engine("cuda").status()[0]:
        pytest.skip("this machine's worker has the cuda engine")
    panel = make_tune_panel(qtbot, axes=PSO_AXES, seeds=2, evals=1000, config=PSO)
    panel.set_scheduler(dask_cluster.scheduler_address)
    panel.engine_combo.setCurrentText("cuda")
    run_to_end(qtbot, panel, timeout=60000)
    text = panel.status_label.text()
    assert text.startswith("grid refused: engine 'cuda' is not available: ")
    assert text.endswith(" (on the cluster's worker)") and "EngineUnavailable" not in text


def test_the_window_gives_the_scheduler_to_the_tune_tab_and_keeps_its_engine(qtbot, tmp_path):
    settings = QtCore.QSettings(str(tmp_path / "s.ini"), QtCore.QSettings.Format.IniFormat)
    window = MainWindow(settings)
    qtbot.addWidget(window)
    try:
        panel = window.tune_panel
        assert not panel.cluster_label.isVisibleTo(panel)
        window.set_scheduler("tcp://gpu-box:8786")
        assert panel.cluster_label.isVisibleTo(panel) and "gpu-box:8786" in panel.cluster_label.text()
        cuda = panel.engine_combo.findText("cuda")
        assert panel.engine_combo.model().item(cuda).isEnabled()  # the worker's engines count
        panel.engine_combo.setCurrentIndex(cuda)
        panel.engine_combo.activated.emit(cuda)
        window.save_settings()
        window.set_scheduler(None)
        expected = "cuda" if panel.engine_combo.model().item(cuda).isEnabled() else "numpy"
        assert panel.engine_combo.currentText() == expected
        settings.setValue("cluster/scheduler", "tcp://gpu-box:8786")  # as the session saved it
        window._restore_settings()  # the next session: the scheduler first, so cuda stays chosen
        assert window.scheduler == "tcp://gpu-box:8786" and panel.engine_combo.currentText() == "cuda"
    finally:
        window.close()
