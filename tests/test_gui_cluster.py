"""Tools > Dask cluster...: the address dialog, the setting kept by the window, and a speedup sweep
run as one job on a Dask worker with its records streamed back into the panel."""
from __future__ import annotations

import pytest

pytest.importorskip("PyQt6")
pytest.importorskip("pyqtgraph")
distributed = pytest.importorskip("distributed")

from PyQt6 import QtCore, QtWidgets  # noqa: E402

import gui.sweep as gui_sweep  # noqa: E402
from gui.cluster_dialog import ClusterDialog  # noqa: E402
from gui.main_window import MainWindow  # noqa: E402
from solvers.errors import ConfigError  # noqa: E402
from test_gui_sweep import make_panel  # noqa: E402

pytestmark = pytest.mark.gui


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


def test_sweep_runs_on_the_cluster_and_streams_its_records(qtbot):
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=":0", silence_logs=40) as cluster:
        panel = make_panel(qtbot, lo=4, hi=5)
        panel.set_scheduler(cluster.scheduler_address)
        with qtbot.waitSignal(panel.sigFinished, timeout=60000):
            assert panel.start()
        records = panel.records
        assert [(r.walkers, r.engine, r.status) for r in records] == [(16, "numpy", "ok"), (32, "numpy", "ok")]
        assert panel.table.rowCount() == 2 and panel.status_label.text() == "done"
        assert "Dashboard:" in panel.cluster_label.text() and "href" in panel.cluster_label.text()


def test_an_unreachable_cluster_is_said_in_the_status_line(qtbot, monkeypatch):
    def refuse(scheduler, **_kw):
        raise ConfigError(f"cannot reach the Dask scheduler at {scheduler}: refused")

    monkeypatch.setattr(gui_sweep, "open_client", refuse)
    warned = []
    monkeypatch.setattr(QtWidgets.QMessageBox, "warning", lambda _parent, _title, text: warned.append(text))
    panel = make_panel(qtbot, lo=4, hi=4)
    panel.set_scheduler("tcp://nowhere:8786")
    with qtbot.waitSignal(panel.sigFinished, timeout=30000):
        assert panel.start()
    assert warned == ["cannot reach the Dask scheduler at tcp://nowhere:8786: refused"]  # one line
    assert not panel.is_running and panel.records == []
