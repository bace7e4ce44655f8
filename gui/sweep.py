"""The speedup-sweep panel: time fixed work on each engine for 2^lo ... 2^hi walkers, plot and tabulate.

How to wire it (main window):
    self.sweep_panel = SweepPanel()                      # a tab or dock of its own
    self.sweep_panel.set_config(config)                  # on every form change: algorithm, problem,
                                                         # dim, params, dtype and seed come from here
    self.sweep_panel.sigRunningChanged.connect(...)      # e.g. disable Start while a sweep holds the GPU
    closeEvent: self.sweep_panel.shutdown()              # cancels and joins its thread (never terminates)
The panel owns its range, iteration count, time cap per point and engine choice. The sweep itself is
solvers.sweep.run_sweep, run by a SweepWorker on the panel's own QThread; records arrive by queued
signals, so the GUI thread never waits on a measurement. start()/stop()/export_csv(path) are public
for menus and tests.
"""
from __future__ import annotations

import math
import threading
from pathlib import Path
from typing import Callable

import numpy as np
import pyqtgraph as pg
from PyQt6 import QtCore, QtWidgets

from solvers.config import RunConfig
from solvers.engines import get_engine, gpu_status, list_engines
from solvers.errors import ConfigError
from solvers.problems import list_problems
from solvers.study.cluster import open_client
from solvers.study.remote import dashboard_link, stream
from solvers.sweep import (DEFAULT_ITERATIONS, DEFAULT_MAX_EXP, DEFAULT_MIN_EXP, DEFAULT_POINT_CAP_S, MAX_EXP,
                           SweepRecord, SweepSpec, run_sweep, sweep_job, write_csv)

from .baseline import baseline_combo, baseline_words
from .cluster_dialog import ClusterLabel
from .engine_words import TIMING_NOTE, gpu_notice_label, plain_reason
from .pinned import pinned_legend
from .panel_thread import PanelThread

TABLE_COLUMNS = ("walkers", "engine", "seconds", "evals", "evals/s", "speedup", "note")


def engine_color(engine: str) -> tuple[int, int, int]:
    """The engine's colour, shared by the sweep and compare panels."""
    return get_engine(engine).color


def engine_pen(engine: str, width: float = 2.0):
    return pg.mkPen(engine_color(engine), width=width)


class SweepWorker(QtCore.QObject):
    """Runs one sweep on the thread it is moved to; stop() may be called from any thread."""

    sigStatus = QtCore.pyqtSignal(str)
    sigRecord = QtCore.pyqtSignal(object)  # SweepRecord
    sigErrored = QtCore.pyqtSignal(str)
    sigFinished = QtCore.pyqtSignal(bool)  # True when cancelled
    sigDashboard = QtCore.pyqtSignal(str)  # the cluster's dashboard link, once connected

    def __init__(self, spec: SweepSpec, scheduler: str | None = None):
        super().__init__()
        self.spec = spec
        self.scheduler = scheduler  # None: here; else the whole sweep is one job on a Dask worker
        self._cancel = threading.Event()

    def stop(self) -> None:
        """Ask the sweep to end at its next check (between points or timed chunks)."""
        self._cancel.set()

    @QtCore.pyqtSlot()
    def run(self) -> None:
        try:
            if self.scheduler is None:
                for record in run_sweep(self.spec, self._cancel, self._on_point_start):
                    self.sigRecord.emit(record)
            else:
                self._run_on_cluster()
        except ConfigError as exc:  # e.g. a scheduler that cannot be reached
            self.sigErrored.emit(str(exc))
        except Exception as exc:  # noqa: BLE001 - reaches the user as a message, never silently
            self.sigErrored.emit(f"{type(exc).__name__}: {exc}")
        finally:
            self.sigFinished.emit(self._cancel.is_set())

    def _run_on_cluster(self) -> None:
        self.sigStatus.emit(f"connecting to the Dask cluster ({self.scheduler})")
        with open_client(self.scheduler) as client:
            self.sigDashboard.emit(dashboard_link(client))
            for item in stream(client, sweep_job, self.spec, cancel=self._cancel):
                if isinstance(item, tuple):  # ("start", walkers, engine)
                    self.sigStatus.emit(f"timing {item[1]:,} walkers on {item[2]} (on the cluster)")
                else:
                    self.sigRecord.emit(item)

    def _on_point_start(self, walkers: int, engine: str) -> None:
        self.sigStatus.emit(f"timing {walkers:,} walkers on {engine}"
                            + (" (compiles on first use)" if get_engine(engine).compiles else ""))


def read_config_source(panel) -> bool:
    """Take the Set-up panel's configuration as it is now into `panel` (a field edited since the
    tab was shown counts); False, said in the panel's status line, while the form has errors."""
    if panel.config_source is None:
        return True
    config = panel.config_source()
    if config is None:
        panel.status_label.setText("fix the fields marked in red in the Set-up panel first")
        return False
    panel.set_config(config)
    return True


def _default_config() -> RunConfig:
    """The pattern-search seed's setting where its function exists, until set_config is called."""
    problems = list_problems()
    problem = "ackley" if "ackley" in problems else problems[0]
    return RunConfig.build("pattern_search", problem, 20 if problem == "ackley" else None)


class SweepPanel(QtWidgets.QWidget):
    """Chooses range and engines, runs the sweep on a worker thread, plots and tabulates it."""

    sigRunningChanged = QtCore.pyqtSignal(bool)
    sigFinished = QtCore.pyqtSignal()  # after the thread is joined and the panel is idle again

    def __init__(self, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self._config = _default_config()
        # the Set-up panel's configuration, read at every start (None: the one set_config gave)
        self.config_source: Callable[[], RunConfig | None] | None = None
        self._spec: SweepSpec | None = None
        self._records: list[SweepRecord] = []
        self.runner = PanelThread(self, "sweep")
        self.runner.sigJoined.connect(self._on_runner_joined)
        self._curves_time: dict[str, pg.PlotDataItem] = {}
        self._curves_speedup: dict[str, pg.PlotDataItem] = {}
        self._build_ui()
        self._show_config()

    # --- public ----------------------------------------------------------------------------------
    def set_config(self, config: RunConfig) -> None:
        """Take algorithm, problem, dimension, parameters, dtype and seed from the main form."""
        self._config = config
        self._show_config()

    @property
    def records(self) -> list[SweepRecord]:
        return list(self._records)

    @property
    def is_running(self) -> bool:
        return self.runner.is_running

    @property
    def _thread(self) -> QtCore.QThread | None:
        return self.runner.thread

    def build_spec(self) -> SweepSpec:
        """The sweep the controls describe; ConfigError if they do not make one."""
        c = self._config
        params = {k: v for k, v in c.params_dict().items() if k != "walkers"}
        # the set-up's own problem: its box override, a typed function's box per coordinate (by
        # name alone the sweep timed the function over its default box)
        return SweepSpec.build(c.algorithm, c.make_problem(), c.dim, iterations=self.iterations_box.value(),
                               engines=self.selected_engines(), min_exp=self.min_exp_box.value(),
                               max_exp=self.max_exp_box.value(), params=params, dtype=c.dtype,
                               seed=c.seed, fast_math=c.fast_math,
                               point_cap_s=self.cap_box.value(), baseline=self.baseline(),
                               threads=c.threads)

    def baseline(self) -> str:
        """The CPU engine the speedups are against (the 'Speedup vs' choice)."""
        return self.baseline_combo.currentData()

    def selected_engines(self) -> list[str]:
        return [e for e, box in self.engine_boxes.items() if box.isEnabled() and box.isChecked()]

    def set_scheduler(self, scheduler: str | None) -> None:
        """Run the next sweeps here (None) or as one job on a Dask worker (solvers/study/remote.py).
        On a cluster every engine may be chosen: the worker's engines count, not this machine's."""
        self.cluster_label.set_scheduler(scheduler)
        for engine, box in self.engine_boxes.items():
            ok = get_engine(engine).status()[0]
            box.setEnabled(ok or scheduler is not None)

    def start(self) -> bool:
        """Start a sweep with the current controls; False (reason in the status line) if refused."""
        if self.is_running:
            return False
        if not read_config_source(self):
            return False
        try:
            spec = self.build_spec()
        except ConfigError as exc:
            self.status_label.setText(str(exc))
            return False
        self._spec = spec
        self._clear_results()
        self._set_baseline_titles(*baseline_words(spec.baseline, spec.threads))
        self.progress.setValue(0)
        worker = SweepWorker(spec, self.cluster_label.scheduler)
        worker.sigDashboard.connect(self.cluster_label.set_dashboard)
        worker.sigRecord.connect(self._on_worker_record)
        worker.sigStatus.connect(self.status_label.setText)
        worker.sigErrored.connect(self._on_worker_errored)
        worker.sigFinished.connect(self._on_worker_finished)
        self.status_label.setText("starting")
        self._set_running(True)
        self.runner.start(worker)
        return True

    def stop(self) -> None:
        """Ask the running sweep to end soon; the panel turns idle when its thread has finished."""
        if self.is_running:
            self.runner.stop()
            self.status_label.setText("stopping")

    def shutdown(self) -> None:
        """Stop and wait for the worker thread (for closing the window); safe to call twice."""
        self.runner.shutdown()

    def export_csv(self, path: str | Path) -> Path:
        """Write the table as CSV with the sweep's setting in '#' header lines."""
        return write_csv(self._records, path, self._spec)

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        self.shutdown()
        super().closeEvent(event)

    # --- building ---------------------------------------------------------------------------------
    def _build_ui(self) -> None:
        self.config_label = QtWidgets.QLabel()
        self.config_label.setWordWrap(True)
        self.iterations_box = QtWidgets.QSpinBox()
        self.iterations_box.setRange(1, 1_000_000)
        self.iterations_box.setValue(DEFAULT_ITERATIONS)
        self.iterations_box.setToolTip("Iterations timed at every walker count (the seed's Table 1: 20)")
        self.min_exp_box = QtWidgets.QSpinBox()
        self.max_exp_box = QtWidgets.QSpinBox()
        for box, value in ((self.min_exp_box, DEFAULT_MIN_EXP), (self.max_exp_box, DEFAULT_MAX_EXP)):
            box.setRange(0, MAX_EXP)
            box.setPrefix("2^")
            box.setValue(value)
        self.min_exp_box.setToolTip("Smallest walker count")
        self.max_exp_box.setToolTip("Largest walker count (an engine stops earlier on memory or time)")
        self.cap_box = QtWidgets.QDoubleSpinBox()
        self.cap_box.setRange(0.1, 3600.0)
        self.cap_box.setValue(DEFAULT_POINT_CAP_S)
        self.cap_box.setSuffix(" s")
        self.cap_box.setToolTip("An engine stops growing once one point would take longer than this")

        self.engine_boxes: dict[str, QtWidgets.QCheckBox] = {}
        engines_row = QtWidgets.QHBoxLayout()
        for engine in list_engines():
            ok, reason = get_engine(engine).status()
            box = QtWidgets.QCheckBox(engine)
            box.setChecked(ok)
            box.setEnabled(ok)
            box.setToolTip(reason if ok else f"unavailable: {plain_reason(reason)} ({reason})")
            self.engine_boxes[engine] = box
            engines_row.addWidget(box)
        engines_row.addStretch(1)
        self.baseline_combo = baseline_combo()
        self.baseline_combo.currentIndexChanged.connect(self._show_baseline)

        self.start_button = QtWidgets.QPushButton("Run sweep")
        self.start_button.clicked.connect(self._on_start_clicked)
        self.stop_button = QtWidgets.QPushButton("Stop")
        self.stop_button.setEnabled(False)
        self.stop_button.clicked.connect(self._on_stop_clicked)
        self.export_button = QtWidgets.QPushButton("Export CSV...")
        self.export_button.setEnabled(False)
        self.export_button.clicked.connect(self._on_export_clicked)
        self.progress = QtWidgets.QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setTextVisible(False)
        self.status_label = QtWidgets.QLabel("idle")
        self.cluster_label = ClusterLabel()

        form = QtWidgets.QFormLayout()
        form.addRow(self.config_label)
        form.addRow("Iterations", self.iterations_box)
        range_row = QtWidgets.QHBoxLayout()
        range_row.addWidget(self.min_exp_box)
        range_row.addWidget(QtWidgets.QLabel("to"))
        range_row.addWidget(self.max_exp_box)
        range_row.addStretch(1)
        form.addRow("Walkers", range_row)
        form.addRow("Cap per point", self.cap_box)
        form.addRow("Engines", engines_row)
        form.addRow("Speedup vs", self.baseline_combo)
        buttons = QtWidgets.QHBoxLayout()
        for w in (self.start_button, self.stop_button, self.export_button):
            buttons.addWidget(w)
        buttons.addWidget(self.progress, 1)

        self.time_plot = pg.PlotWidget(title="Time for the fixed iterations")
        gpu = gpu_status()
        self.gpu_note = gpu_notice_label(gpu)
        self.timing_note = QtWidgets.QLabel(TIMING_NOTE)
        self.timing_note.setWordWrap(True)
        self.timing_note.setStyleSheet("color: #8a8a8a;")
        self.speedup_plot = pg.PlotWidget(title="Speedup")
        for plot, ylabel in ((self.time_plot, "seconds"), (self.speedup_plot, "speedup (x)")):
            plot.setLogMode(x=True, y=True)
            plot.showGrid(x=True, y=True, alpha=0.3)
            plot.setLabel("bottom", "walkers")
            plot.setLabel("left", ylabel)
            pinned_legend(plot.getPlotItem())  # top left, 5 px in (gui/pinned.py)
        for plot in (self.time_plot, self.speedup_plot):
            plot.getPlotItem().getAxis("left").enableAutoSIPrefix(False)
            plot.getPlotItem().getAxis("bottom").enableAutoSIPrefix(False)
            plot.setMinimumWidth(140)
        self.speedup_empty = None
        if not gpu[0]:
            # an empty chart must say why it is empty (until a CPU engine's curve is drawn)
            self.speedup_empty = pg.TextItem("no GPU engine here:\nCPU engines only",
                                             color=(200, 200, 200), anchor=(0.5, 0.5))
            self.speedup_plot.addItem(self.speedup_empty, ignoreBounds=True)
            self.speedup_empty.setPos(3.0, 0.0)
            self.speedup_plot.setXRange(2, 4)
            self.speedup_plot.setYRange(-1, 1)
        # speedup 1 (log10 = 0): where a GPU engine starts to pay off
        self.speedup_plot.addItem(pg.InfiniteLine(pos=0.0, angle=0,
                                                  pen=pg.mkPen((150, 150, 150), style=QtCore.Qt.PenStyle.DashLine)))
        self.table = QtWidgets.QTableWidget(0, len(TABLE_COLUMNS))
        self.table.setHorizontalHeaderLabels(TABLE_COLUMNS)
        self.table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.verticalHeader().setVisible(False)

        plots = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        plots.addWidget(self.time_plot)
        plots.addWidget(self.speedup_plot)
        body = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        body.addWidget(plots)
        body.addWidget(self.table)
        body.setStretchFactor(0, 3)
        body.setStretchFactor(1, 1)

        layout = QtWidgets.QVBoxLayout(self)
        layout.addWidget(self.gpu_note)
        layout.addLayout(form)
        layout.addLayout(buttons)
        layout.addWidget(self.cluster_label)
        layout.addWidget(self.status_label)
        layout.addWidget(self.timing_note)
        layout.addWidget(body, 1)

    def _show_config(self) -> None:
        c = self._config
        self.config_label.setText(f"<b>{c.algorithm}</b> on <b>{c.problem}</b>, {c.dim}-D, {c.dtype}, "
                                  f"seed {c.seed}; other parameters from the main form")
        self._show_baseline()

    def _show_baseline(self, *_args) -> None:
        """Name the chosen baseline (and its threads) in the speedup chart and column titles; a
        finished sweep keeps the titles of the baseline it was measured against."""
        if self.is_running or (self._spec is not None and self._records):
            return
        label, tip = baseline_words(self.baseline(), self._config.threads)
        self._set_baseline_titles(label, tip)

    def _set_baseline_titles(self, label: str, tip: str) -> None:
        self.speedup_plot.setTitle(f"x vs {label}")
        header = self.table.horizontalHeaderItem(TABLE_COLUMNS.index("speedup"))
        header.setText(f"x vs {label}")
        header.setToolTip(tip)

    def _clear_results(self) -> None:
        self._records = []
        self.table.setRowCount(0)
        for plot, curves in ((self.time_plot, self._curves_time),
                             (self.speedup_plot, self._curves_speedup)):
            for curve in curves.values():
                plot.removeItem(curve)
            curves.clear()
        self.export_button.setEnabled(False)

    def _set_running(self, running: bool) -> None:
        self.start_button.setEnabled(not running)
        self.stop_button.setEnabled(running)
        for w in (self.iterations_box, self.min_exp_box, self.max_exp_box, self.cap_box):
            w.setEnabled(not running)
        self.baseline_combo.setEnabled(not running)
        self.sigRunningChanged.emit(running)

    def _curve(self, plot: pg.PlotWidget, curves: dict, engine: str) -> pg.PlotDataItem:
        if plot is self.speedup_plot and self.speedup_empty is not None:
            plot.removeItem(self.speedup_empty)  # a real curve now: no empty-chart note
            self.speedup_empty = None
            plot.enableAutoRange()
        if engine not in curves:
            color = engine_color(engine)
            curves[engine] = plot.plot([], [], pen=engine_pen(engine), symbol="o", symbolSize=6,
                                       symbolBrush=color, name=engine)
        return curves[engine]

    def _redraw(self, engine: str) -> None:
        ok = [r for r in self._records if r.engine == engine and r.ok and r.seconds]
        if ok:
            self._curve(self.time_plot, self._curves_time, engine).setData(
                np.array([r.walkers for r in ok], float), np.array([r.seconds for r in ok]))
        fast = [r for r in ok if r.speedup]
        if engine != self._spec.baseline and fast:
            self._curve(self.speedup_plot, self._curves_speedup, engine).setData(
                np.array([r.walkers for r in fast], float), np.array([r.speedup for r in fast]))

    def _append_row(self, r: SweepRecord) -> None:
        row = self.table.rowCount()
        self.table.insertRow(row)
        values = (f"{r.walkers:,}", r.engine, _fmt(r.seconds, ".4g"), f"{r.evals:,}" if r.ok else "",
                  _fmt(r.evals_per_second, ".3g"), _fmt(r.speedup, ".3g", suffix="x"),
                  r.note or ("" if r.ok else r.status))
        for col, text in enumerate(values):
            item = QtWidgets.QTableWidgetItem(text)
            if col in (0, 2, 3, 4, 5):
                item.setTextAlignment(QtCore.Qt.AlignmentFlag.AlignRight
                                      | QtCore.Qt.AlignmentFlag.AlignVCenter)
            if r.note:
                item.setToolTip(r.note)
            self.table.setItem(row, col, item)
        self.table.scrollToBottom()

    # --- slots ------------------------------------------------------------------------------------
    def _on_start_clicked(self) -> None:
        self.start()

    def _on_stop_clicked(self) -> None:
        self.stop()

    def _on_export_clicked(self) -> None:
        from .export import CSV_FILTER, ask_save_path  # noqa: PLC0415 - only when exporting

        spec = self._spec
        name = f"sweep_{spec.algorithm}_{spec.problem}_{spec.dim}d.csv" if spec else "sweep.csv"
        path = ask_save_path(self, "Export sweep", name, CSV_FILTER)
        if path is not None:
            try:
                self.export_csv(path)
            except (OSError, ConfigError) as exc:  # SaveError is a ConfigError: the old file is kept
                QtWidgets.QMessageBox.warning(self, "Export sweep", str(exc))

    def _current_sender(self) -> bool:
        return self.runner.is_current(self.sender())

    def _on_worker_record(self, record: SweepRecord) -> None:
        if not self._current_sender():
            return
        self._records.append(record)
        self._append_row(record)
        self._redraw(record.engine)
        self.progress.setValue(int(round(record.progress * 1000)))
        self.export_button.setEnabled(True)

    def _on_worker_errored(self, message: str) -> None:
        if not self._current_sender():
            return
        self.status_label.setText(f"sweep failed: {message}")
        QtWidgets.QMessageBox.warning(self, "Speedup sweep", message)

    def _on_worker_finished(self, cancelled: bool) -> None:
        if not self._current_sender():
            return
        if cancelled:
            self.status_label.setText(f"stopped after {sum(r.ok for r in self._records)} points")
        elif not self.status_label.text().startswith("sweep failed"):
            self.progress.setValue(1000)
            stops = {r.engine: r.note for r in self._records if not r.ok}
            self.status_label.setText("done" + "".join(f"; {e} stopped: {n}" for e, n in stops.items()))

    def _on_runner_joined(self) -> None:
        self._set_running(False)
        self.sigFinished.emit()


def _fmt(value: float | None, spec: str, suffix: str = "") -> str:
    if value is None or not math.isfinite(value):
        return ""
    return f"{value:{spec}}{suffix}"
