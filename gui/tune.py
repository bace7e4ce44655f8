"""The Tune tab: a grid of one or two parameters x seeds (solvers.tune), drawn as a map that fills in.

How it is wired (gui/main_window.py):
    panel = TunePanel()                                  # a tab beside Compare engines and Sweep
    panel.config_source = form.build_config              # the main set-up, read at every start
    panel.set_config(config)                             # algorithm, function, dimension, ... shown
    panel.sigLoadSetting.connect(...)                    # (RunConfig, words): a clicked cell's set-up
    panel.sigLoadConfig.connect(...)                     # (RunConfig, words): a loaded tuning set-up
    panel.set_scheduler(scheduler)                       # Tools > Dask cluster...: None runs here
    closeEvent: panel.shutdown()                         # stops and joins its thread
The grid (spec, checks, batched or one-at-a-time path, cells) is solvers.tune's; this panel collects
the axes (gui/tune_axes.py), runs ``prepare(...).run(...)`` in a TuneWorker on its own QThread
(share_gil, so the window stays responsive) and draws what it reports (gui/tune_map.py). With a
Dask scheduler the TuneWorker runs the grid as one job on a cluster worker (solvers/tune/remote.py)
and its items arrive as the same signals, so the map fills in alike; Pause cannot reach the job.
start/toggle_pause/stop, export_csv/png, save_setup/load_setup/apply_setup, cell_text and
load_setting are public for menus and tests.
"""
from __future__ import annotations

import math
import threading
import time
from pathlib import Path
from typing import Callable

import numpy as np
from PyQt6 import QtCore, QtWidgets

from solvers.algorithms import get_algorithm
from solvers.config import Budget, RunConfig
from solvers.engines import get_engine, list_engines
from solvers.errors import ConfigError, EngineUnavailable
from solvers.study.cluster import open_client
from solvers.study.execute import duration_words
from solvers.study.remote import dashboard_link, stream
from solvers.tune import (DEFAULT_TOLERANCE, Progress, TuneSetup, TuneTable, cell_stats, load_setup,
                          prepare, run_arrays, save_setup, setting_config, tune_job)
from solvers.tune.spec import build_axis, build_grid

from .cluster_dialog import ClusterLabel
from .engine_words import plain_reason
from .field_row import ERROR_STYLE, FieldRow
from .panel_thread import PanelThread
from .param_form import CompactDoubleSpinBox
from .tune_axes import AxisRow
from .tune_map import MEASURES, TuneMap, best_setting

MAX_SEEDS = 64
BUDGET_KINDS = {"evaluations": "max_evals", "iterations": "max_iters"}
REDRAW_INTERVAL_MS = 100  # the map redraws at most 10 times a second (progress arrives at ~30 Hz)
SETUP_FILTER = "Multiwalk tuning set-up (*.json)"
PAUSE_TIP = "Pause between chunks (or between runs); paused time is not timed"
CLUSTER_PAUSE_TIP = ("A grid running on the Dask cluster cannot be paused (its worker runs it to the "
                     "end); Stop ends it and keeps the runs so far")


class TuneWorker(QtCore.QObject):
    """Checks and runs one grid on the thread it is moved to; stop(), pause() and resume() may
    be called from any thread (pause takes effect between chunks, or between runs).

    With a `scheduler` the grid is one job on a Dask worker (solvers/tune/remote.py): the same
    signals arrive as its items stream back, Stop reaches the job, Pause cannot (the panel disables
    it), and the engine is the worker's."""

    sigStatus = QtCore.pyqtSignal(str)
    sigPrepared = QtCore.pyqtSignal(object)  # TuneTable (no rows yet): axes, path, f_min
    sigProgress = QtCore.pyqtSignal(object)  # Progress
    sigErrored = QtCore.pyqtSignal(str)
    sigFinished = QtCore.pyqtSignal(object)  # TuneTable, or None after an error
    sigDashboard = QtCore.pyqtSignal(str)  # the cluster's dashboard link, once connected

    def __init__(self, arguments: dict, scheduler: str | None = None):
        super().__init__()
        self.arguments = arguments
        self.scheduler = scheduler  # None: here; else one job on a Dask worker
        self._cancel = threading.Event()
        self._running = threading.Event()  # cleared while paused
        self._running.set()

    def stop(self) -> None:
        self._cancel.set()
        self._running.set()

    def pause(self) -> None:
        self._running.clear()

    def resume(self) -> None:
        self._running.set()

    def _hold(self) -> None:
        # blocks without the GIL (Event.wait) while paused; Stop releases it
        while not self._running.wait(0.1):
            if self._cancel.is_set():
                return

    @QtCore.pyqtSlot()
    def run(self) -> None:
        table = None
        try:
            table = self._run_here() if self.scheduler is None else self._run_on_cluster()
        except ConfigError as exc:  # a refused grid (here or on the worker), an unreachable scheduler
            self.sigErrored.emit(str(exc))
        except EngineUnavailable as exc:  # its message names the engine and why
            self.sigErrored.emit(str(exc) + (" (on the cluster's worker)" if self.scheduler else ""))
        except Exception as exc:  # noqa: BLE001 - reaches the user as a message, never silently
            self.sigErrored.emit(f"{type(exc).__name__}: {exc}")
        finally:
            self.sigFinished.emit(table)

    def _run_here(self) -> TuneTable:
        engine = get_engine(self.arguments["engine"])
        self.sigStatus.emit("checking the grid" + (" and compiling kernels (first use)"
                                                   if engine.compiles else ""))
        tuning = prepare(**self.arguments)  # on this thread: a cuda build may compile
        self._prepared(tuning.table, tuning.table.path)
        if tuning.compiles:  # numba's step kernels, CuPy's: before the grid's clock starts
            self.sigStatus.emit(f"{engine.compile_message} (first use; not counted in the grid's time)")
            tuning.compile(stop=self._cancel.is_set)  # Stop waits for the compile under way
            self._say_path(tuning.table, tuning.table.path)
        return tuning.run(stop=self._cancel.is_set, on_progress=self.sigProgress.emit,
                          share_gil=True, hold=self._hold)

    def _run_on_cluster(self) -> TuneTable | None:
        self.sigStatus.emit(f"connecting to the Dask cluster ({self.scheduler})")
        table = None
        with open_client(self.scheduler) as client:
            self.sigDashboard.emit(dashboard_link(client))
            compiles = get_engine(self.arguments["engine"]).compiles
            self.sigStatus.emit("checking the grid on a worker of the cluster"
                                + (" (its kernels compile there on first use)" if compiles else ""))
            for kind, value in stream(client, tune_job, self.arguments, cancel=self._cancel):
                if kind == "prepared":
                    self._prepared(value, f"{value.path} (on the cluster)")
                elif kind == "progress":
                    self.sigProgress.emit(value)
                elif kind == "finished":
                    table = value
        return table

    def _prepared(self, table: TuneTable, path: str) -> None:
        self.sigPrepared.emit(table)
        self._say_path(table, path)

    def _say_path(self, table: TuneTable, path: str) -> None:
        self.sigStatus.emit("; ".join((path, *table.notes)))  # which path runs, and what was switched


def _default_config() -> RunConfig:
    return RunConfig.build("particle_swarm", "rastrigin", 2, params={"variant": "classic"})


class TunePanel(QtWidgets.QWidget):
    """Chooses the axes, runs the grid on a worker thread and draws the map as it fills in."""

    sigRunningChanged = QtCore.pyqtSignal(bool)
    sigFinished = QtCore.pyqtSignal()  # after the thread is joined and the panel is idle again
    sigLoadSetting = QtCore.pyqtSignal(object, str)  # RunConfig of a clicked cell, words for it
    sigLoadConfig = QtCore.pyqtSignal(object, str)  # RunConfig of a loaded tuning set-up, its name
    sigRedrawn = QtCore.pyqtSignal()  # the map was redrawn (for tests)

    def __init__(self, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self.config_source: Callable[[], RunConfig | None] | None = None
        self._config = _default_config()
        self._filled_for: str | None = None
        self._engine_chosen = False  # the user picked the grid's engine here: keep it
        self.runner = PanelThread(self, "tune")
        self.runner.sigJoined.connect(self._on_runner_joined)
        self._paused = False
        self._on_cluster = False  # the running grid is a job on a Dask worker (no Pause there)
        self.table: TuneTable | None = None  # the grid being run or last run
        self.run_config: RunConfig | None = None  # the set-up it started from (its engine, budget)
        self._stats = None  # CellStats of what the map shows
        self._last_redraw = 0.0
        self._pending_state: dict | None = None  # remembered controls, for their algorithm
        self._build_ui()
        self.set_config(self._config)

    # --- public ----------------------------------------------------------------------------------
    def set_config(self, config: RunConfig) -> None:
        """Take algorithm, function, dimension, precision, first seed and the other parameters
        from the main set-up (and its engine, unless one was chosen here)."""
        if self.is_running:
            return
        self._config = config
        if config.algorithm != self._filled_for:
            keep = [row.name() for row in self.axes]
            for row, name in zip(self.axes, keep):
                row.fill(config.algorithm, name)
            self._filled_for = config.algorithm
            if self.table is not None and self.table.algorithm != config.algorithm:
                # the map stays (it can still be exported), but its axes are no longer the ones
                # above it, and its "Best median" was another algorithm's: say which grid it is
                self.status_label.setStyleSheet("")
                self.status_label.setText(
                    f"The map shows the last grid, of {_title(self.table.algorithm)} on "
                    f"{self.table.problem}; Start runs a grid of {_title(config.algorithm)}.")
        if not self._engine_chosen:
            self._select_engine(config.engine)
        pending = self._pending_state
        if pending is not None and pending.get("algorithm") == config.algorithm:
            self._pending_state = None
            self._apply_state(pending)
        self.config_label.setText(
            f"Grid over <b>{_title(config.algorithm)}</b> on <b>{config.problem}</b>, {config.dim}-D, "
            f"{config.dtype}, seeds from {config.seed}. Function, dimension and the other parameters "
            "come from the Set-up panel.")

    def set_scheduler(self, scheduler: str | None) -> None:
        """Run the next grids here (None) or as one job on a Dask worker (solvers/tune/remote.py).
        On a cluster every engine may be chosen: the worker's engines count, not this machine's;
        back here, an engine this machine lacks falls back to numpy."""
        self.cluster_label.set_scheduler(scheduler)
        model = self.engine_combo.model()
        for index in range(self.engine_combo.count()):
            ok, reason = self._local_engines[self.engine_combo.itemText(index)]
            item = model.item(index)
            item.setEnabled(ok or scheduler is not None)
            if ok:
                item.setToolTip(reason)
            elif scheduler is None:
                item.setToolTip(f"unavailable: {plain_reason(reason)}")
            else:
                item.setToolTip(f"not available on this machine ({plain_reason(reason)}); "
                                "the cluster's worker checks it when the grid starts")
        if scheduler is None and not model.item(self.engine_combo.currentIndex()).isEnabled():
            self._select_engine(self.engine_combo.currentText())  # numpy

    def state(self) -> dict:
        """The controls as plain JSON-able values (the window keeps them between sessions)."""
        return {"algorithm": self._config.algorithm, "axes": self.axis_texts(),
                "seeds": self.seeds_box.value(), "budget_kind": self.budget_kind.currentText(),
                "budget": self.budget_box.value(), "tolerance": self.tolerance_box.value(),
                "engine": self.engine_combo.currentText() if self._engine_chosen else None,
                "measure": self.measure_combo.currentText()}

    def set_state(self, state) -> None:
        """Restore state(); the axes once the set-up shows their algorithm. Bad values are skipped."""
        if not isinstance(state, dict):
            return
        if state.get("algorithm") == self._filled_for:
            self._apply_state(state)
        else:
            self._pending_state = state

    def _apply_state(self, state: dict) -> None:
        axes = state.get("axes")
        if isinstance(axes, list) and 1 <= len(axes) <= 2 and all(isinstance(a, str) for a in axes):
            try:
                for row, text in zip(self.axes, axes + [None]):
                    row.set_axis(text)
            except ConfigError:
                pass  # an axis no longer valid: the rows keep what they show
        for key, box in (("seeds", self.seeds_box), ("budget", self.budget_box)):
            value = state.get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                box.setValue(value)  # clamped to the box's range
        tolerance = state.get("tolerance")
        if isinstance(tolerance, (int, float)) and not isinstance(tolerance, bool) \
                and math.isfinite(tolerance) and tolerance >= 0:
            self.tolerance_box.setValue(tolerance)
        for key, combo, allowed in (("budget_kind", self.budget_kind, BUDGET_KINDS),
                                    ("measure", self.measure_combo, MEASURES)):
            if state.get(key) in allowed:
                combo.setCurrentText(state[key])
        engine = state.get("engine")
        if isinstance(engine, str) and self.engine_combo.findText(engine) >= 0:
            self._select_engine(engine)
            self._engine_chosen = True

    @property
    def is_running(self) -> bool:
        return self.runner.is_running

    @property
    def is_paused(self) -> bool:
        return self._paused

    @property
    def _worker(self) -> TuneWorker | None:
        return self.runner.worker

    @property
    def _thread(self) -> QtCore.QThread | None:
        return self.runner.thread

    def axis_texts(self) -> list[str]:
        return [t for t in (row.spec_text() for row in self.axes) if t]

    def build_setup(self) -> TuneSetup | None:
        """The grid the controls describe, checked (messages beside the fields), or None."""
        for row in (*[a.row for a in self.axes], self.budget_row):
            row.clear()
        self.status_label.setStyleSheet("")
        if self.config_source is not None:
            config = self.config_source()
            if config is None:
                self._refuse("fix the fields marked in red in the Set-up panel first")
                return None
            self.set_config(config)
        config = self._config
        cls = get_algorithm(config.algorithm)
        ok = True
        for row in self.axes:
            text = row.spec_text()
            if text is None:
                continue
            try:
                build_axis(text, cls)
            except ConfigError as exc:
                row.row.show_error(_without_spec(str(exc), text))
                ok = False
        texts = self.axis_texts()
        if ok:
            try:
                build_grid(texts, cls, self.seeds_box.value(), config.seed)
            except ConfigError as exc:
                self.axes[1].row.show_error(str(exc))
                ok = False
        if not ok:
            self._refuse("fix the axes marked in red")
            return None
        try:
            budget = Budget.build(**{BUDGET_KINDS[self.budget_kind.currentText()]: self.budget_box.value()})
        except ConfigError as exc:
            self.budget_row.show_error(str(exc))
            self._refuse("fix the budget marked in red")
            return None
        # a grid runs on one device: the form's split over several is not carried into its runs
        run = config.replace(engine=self.engine_combo.currentText(), budget=budget, devices=None)
        return TuneSetup(config=run, axes=tuple(texts), seeds=self.seeds_box.value(),
                         tolerance=self.tolerance_box.value())

    def start(self) -> bool:
        """Start the grid with the current controls; False (reason beside the field) if refused."""
        if self.is_running:
            return False
        setup = self.build_setup()
        if setup is None:
            return False
        self.run_config = setup.config
        self.table, self._stats = None, None
        self.map.clear()
        for button in (self.export_csv_button, self.export_png_button):
            button.setEnabled(False)
        self.progress.setValue(0)
        self.progress.setFormat("starting")
        scheduler = self.cluster_label.scheduler
        self._on_cluster = scheduler is not None
        worker = TuneWorker(setup.arguments(), scheduler)
        worker.sigDashboard.connect(self.cluster_label.set_dashboard)
        worker.sigStatus.connect(self._on_worker_status)
        worker.sigPrepared.connect(self._on_worker_prepared)
        worker.sigProgress.connect(self._on_worker_progress)
        worker.sigErrored.connect(self._on_worker_errored)
        worker.sigFinished.connect(self._on_worker_finished)
        self.status_label.setText("starting")
        self._set_running(True)
        self.runner.start(worker)
        return True

    def toggle_pause(self) -> None:
        """Pause a running grid between chunks (or runs), or resume it; pauses are not timed."""
        worker = self.runner.worker
        if worker is None or self._on_cluster:  # a job on a Dask worker cannot wait for us
            return
        self._paused = not self._paused
        (worker.pause if self._paused else worker.resume)()
        self.pause_button.setText("Resume" if self._paused else "Pause")
        if self._paused:
            self.progress.setFormat("paused · " + self.progress.format())

    def stop(self) -> None:
        if self.is_running:
            self.runner.stop()
            self.status_label.setText("stopping")

    def shutdown(self) -> None:
        """Stop and wait for the worker thread (for closing the window); safe to call twice."""
        self.runner.shutdown()

    def export_csv(self, path: str | Path) -> Path:
        """One row per run: the axes' values, seed, final best, evaluations, seconds, reached_at."""
        if self.table is None or not self.table.rows:
            raise ConfigError("no finished grid to export")
        self.table.save_csv(path)
        return Path(path)

    def export_png(self, path: str | Path) -> Path:
        """The map (or line) with its axes and colour bar as a PNG image."""
        from .export import save_png  # noqa: PLC0415 - only when exporting

        if self.table is None:
            raise ConfigError("no grid to export yet")
        return save_png(self.map.plot, path)

    def save_setup(self, path: str | Path) -> bool:
        """Write the tuning set-up (the main set-up, axes, seeds, budget, engine) as JSON."""
        setup = self.build_setup()
        if setup is None:
            return False
        try:
            save_setup(setup, path)
        except ConfigError as exc:
            self._refuse(str(exc))
            return False
        self.status_label.setText(f"saved {path}")
        return True

    def load_setup(self, path: str | Path) -> bool:
        """Read a tuning set-up: its run set-up goes to the main form (sigLoadConfig), its axes,
        seeds, budget and engine to this panel; a bad file is refused with one line."""
        try:
            setup = load_setup(path)
        except ConfigError as exc:
            self._refuse(str(exc))
            return False
        self.apply_setup(setup)
        self.sigLoadConfig.emit(setup.config, setup.name)
        return True

    def apply_setup(self, setup: TuneSetup) -> None:
        """Show a tuning set-up in the controls (not while a grid runs)."""
        if self.is_running:
            return
        config = setup.config
        self.set_config(config)
        for row, text in zip(self.axes, list(setup.axes) + [None]):
            row.set_axis(text)
        self.seeds_box.setValue(setup.seeds)
        kind = "evaluations" if config.budget.max_evals is not None else "iterations"
        self.budget_kind.setCurrentText(kind)
        self.budget_box.setValue(int(getattr(config.budget, BUDGET_KINDS[kind])))
        self.tolerance_box.setValue(setup.tolerance)
        self._select_engine(config.engine)
        self._engine_chosen = True  # the set-up's choice: a form change does not undo it
        self.status_label.setStyleSheet("")
        self.status_label.setText(f"set-up loaded: {setup.name}" if setup.name else "set-up loaded")

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        self.shutdown()
        super().closeEvent(event)

    # --- what the map shows ---------------------------------------------------------------------
    def cell_text(self, index: int) -> str:
        """Hover text of setting `index`: exact parameter values, median, quartiles, best, worst."""
        table, stats = self.table, self._stats
        if table is None or not 0 <= index < math.prod(table.grid.shape):
            return ""
        head = ", ".join(f"{k} = {v!r}" for k, v in table.grid.settings[index].items())
        if stats is None or stats.runs[index] == 0:
            return f"{head}: not run yet"
        so_far = "" if table.complete else " so far"
        text = (f"{head}: median{so_far} {stats.median[index]:.4g}, quartiles [{stats.q1[index]:.4g}, "
                f"{stats.q3[index]:.4g}], best {stats.best[index]:.4g}, worst {stats.worst[index]:.4g}"
                f" over {int(stats.runs[index])} of {len(table.grid.seeds)} seeds")
        if not np.isnan(stats.success_rate[index]):
            text += f"; success {stats.success_rate[index]:.0%}"
        if not np.isnan(stats.evals_to_tolerance[index]):
            text += f"; {stats.evals_to_tolerance[index]:,.0f} evals to tolerance (median)"
        return text

    def best_index(self) -> int | None:
        """The setting with the lowest median final error (ties: the lower upper quartile)."""
        return best_setting(self._stats)

    def cell_center(self, index: int) -> tuple[float, float]:
        return self.map.cell_center(index)

    def load_setting(self, index: int) -> bool:
        """Send setting `index` to the main set-up (sigLoadSetting): the grid's set-up with the
        cell's parameters, its budget per run and the first seed."""
        if self.table is None or self.run_config is None:
            return False
        try:
            config = setting_config(self.run_config, self.table, index)
        except ConfigError as exc:  # cannot happen for a checked grid; said, never raised
            self._refuse(str(exc))
            return False
        words = ", ".join(f"{k} = {v:.6g}" if isinstance(v, float) else f"{k} = {v}"
                          for k, v in self.table.grid.settings[index].items())
        self.sigLoadSetting.emit(config, words)
        self.status_label.setStyleSheet("")
        self.status_label.setText(f"loaded into the set-up: {words} (seed {config.seed}); "
                                  "press Start to watch it")
        return True

    # --- building ---------------------------------------------------------------------------------
    def _build_ui(self) -> None:
        self.config_label = QtWidgets.QLabel()
        self.config_label.setWordWrap(True)
        self.axes = (AxisRow(optional=False), AxisRow(optional=True))
        self.seeds_box = QtWidgets.QSpinBox()
        self.seeds_box.setRange(1, MAX_SEEDS)
        self.seeds_box.setValue(4)
        self.seeds_box.setToolTip(f"Runs per setting, 1 to {MAX_SEEDS} (seeds from the set-up's seed on)")
        self.budget_kind = QtWidgets.QComboBox()
        self.budget_kind.addItems(list(BUDGET_KINDS))
        self.budget_box = QtWidgets.QSpinBox()
        self.budget_box.setRange(1, 2_000_000_000)
        self.budget_box.setValue(20_000)
        self.budget_box.setSingleStep(1000)
        self.budget_box.setGroupSeparatorShown(True)
        self.budget_box.setToolTip("The budget of every run of the grid")
        budget = QtWidgets.QWidget()
        line = QtWidgets.QHBoxLayout(budget)
        line.setContentsMargins(0, 0, 0, 0)
        line.addWidget(self.budget_box)
        line.addWidget(self.budget_kind)
        line.addStretch(1)
        self.budget_row = FieldRow(budget)
        self.engine_combo = QtWidgets.QComboBox()
        self._local_engines: dict[str, tuple[bool, str]] = {}  # this machine's (ok, reason) of each
        for engine in list_engines():
            ok, reason = get_engine(engine).status()
            self._local_engines[engine] = (ok, reason)
            self.engine_combo.addItem(engine)
            item = self.engine_combo.model().item(self.engine_combo.count() - 1)
            item.setToolTip(reason if ok else f"unavailable: {plain_reason(reason)}")
            item.setEnabled(ok)
        self.engine_combo.setToolTip("Where the grid runs; a GPU engine runs many settings at once")
        self.engine_combo.activated.connect(self._on_engine_combo_activated)
        self.tolerance_box = CompactDoubleSpinBox()
        self.tolerance_box.setDecimals(12)
        self.tolerance_box.setRange(0.0, 1e12)
        self.tolerance_box.setValue(DEFAULT_TOLERANCE)
        self.tolerance_box.setToolTip("Success: a run's final best within this of the known minimum")
        self.measure_combo = QtWidgets.QComboBox()
        self.measure_combo.addItems(MEASURES)
        self.measure_combo.setToolTip("What each cell's colour shows, over its seeds")
        self.measure_combo.currentIndexChanged.connect(self._redraw)

        self.start_button = QtWidgets.QPushButton("Run grid")
        self.start_button.clicked.connect(self.start)
        self.pause_button = QtWidgets.QPushButton("Pause")
        self.pause_button.setEnabled(False)
        self.pause_button.setToolTip(PAUSE_TIP)
        self.pause_button.clicked.connect(self.toggle_pause)
        self.stop_button = QtWidgets.QPushButton("Stop")
        self.stop_button.setEnabled(False)
        self.stop_button.setToolTip("End the grid; the runs so far stay on the map and can be exported")
        self.stop_button.clicked.connect(self.stop)
        self.export_csv_button = QtWidgets.QPushButton("Export CSV…")
        self.export_csv_button.setToolTip("One row per run: parameters, seed, final best, evaluations, time")
        self.export_png_button = QtWidgets.QPushButton("Export PNG…")
        self.export_png_button.setToolTip("The map with its axes and colour bar")
        for button in (self.export_csv_button, self.export_png_button):
            button.setEnabled(False)
        self.export_csv_button.clicked.connect(self._on_export_csv_clicked)
        self.export_png_button.clicked.connect(self._on_export_png_clicked)
        self.save_button = QtWidgets.QPushButton("Save set-up…")
        self.save_button.setToolTip("The main set-up with these axes, seeds, budget and engine, as JSON")
        self.save_button.clicked.connect(self._on_save_clicked)
        self.load_button = QtWidgets.QPushButton("Load set-up…")
        self.load_button.setToolTip("A saved tuning set-up or a preset (File > Presets > Tuning grids)")
        self.load_button.clicked.connect(self._on_load_clicked)
        self.progress = QtWidgets.QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setFormat("idle")
        self.progress.setTextVisible(True)
        self.status_label = QtWidgets.QLabel("idle")
        self.status_label.setWordWrap(True)
        self.status_label.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.cluster_label = ClusterLabel()
        self.hover_label = QtWidgets.QLabel("Hover a cell for its seeds' spread; click it to load "
                                            "its setting into the set-up.")
        self.hover_label.setWordWrap(True)
        # two lines kept: a wrapped label under a stretching plot is otherwise given one
        self.hover_label.setMinimumHeight(2 * self.hover_label.fontMetrics().lineSpacing() + 4)
        self.hover_label.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)

        form = QtWidgets.QFormLayout()
        form.addRow(self.config_label)
        form.addRow("Axis 1", self.axes[0].row)
        form.addRow("Axis 2", self.axes[1].row)
        runs = QtWidgets.QHBoxLayout()
        for label, w in (("Seeds", self.seeds_box), ("Engine", self.engine_combo),
                         ("Tolerance", self.tolerance_box)):
            runs.addWidget(QtWidgets.QLabel(label))
            runs.addWidget(w)
        runs.addStretch(1)
        form.addRow("Budget per run", self.budget_row)
        form.addRow(runs)
        buttons = QtWidgets.QHBoxLayout()
        for w in (self.start_button, self.pause_button, self.stop_button):
            buttons.addWidget(w)
        buttons.addWidget(self.progress, 1)
        files = QtWidgets.QHBoxLayout()
        files.addWidget(QtWidgets.QLabel("Show"))
        files.addWidget(self.measure_combo)
        files.addStretch(1)
        for w in (self.export_csv_button, self.export_png_button, self.save_button, self.load_button):
            files.addWidget(w)

        self.map = TuneMap()
        self.map.sigHovered.connect(self._on_map_hovered)
        self.map.sigClicked.connect(self.load_setting)
        self.plot = self.map.plot  # for PNG export and tests
        self._redraw_timer = QtCore.QTimer(self)
        self._redraw_timer.setSingleShot(True)
        self._redraw_timer.timeout.connect(self._redraw)

        layout = QtWidgets.QVBoxLayout(self)
        layout.addLayout(form)
        layout.addLayout(buttons)
        layout.addWidget(self.cluster_label)
        layout.addWidget(self.status_label)
        layout.addLayout(files)
        layout.addWidget(self.map, 1)
        layout.addWidget(self.hover_label)

    def _select_engine(self, engine: str) -> None:
        index = self.engine_combo.findText(engine)
        if index >= 0 and self.engine_combo.model().item(index).isEnabled():
            self.engine_combo.setCurrentIndex(index)
        else:  # the set-up's engine is not available here: the reference engine runs the grid
            self.engine_combo.setCurrentIndex(self.engine_combo.findText("numpy"))

    def _refuse(self, message: str) -> None:
        self.status_label.setStyleSheet(ERROR_STYLE)
        self.status_label.setText(message)

    def _set_running(self, running: bool) -> None:
        self.start_button.setEnabled(not running)
        cluster = running and self._on_cluster
        self.pause_button.setEnabled(running and not cluster)
        self.pause_button.setToolTip(CLUSTER_PAUSE_TIP if cluster else PAUSE_TIP)
        self.pause_button.setText("Pause")
        self.stop_button.setEnabled(running)
        for row in self.axes:
            row.set_enabled(not running)
        for w in (self.seeds_box, self.budget_box, self.budget_kind, self.engine_combo,
                  self.tolerance_box, self.save_button, self.load_button):
            w.setEnabled(not running)
        self.sigRunningChanged.emit(running)

    def _schedule_redraw(self) -> None:
        if self._redraw_timer.isActive():
            return
        wait = REDRAW_INTERVAL_MS - (time.monotonic() - self._last_redraw) * 1000
        self._redraw_timer.start(max(0, int(wait)))

    def _redraw(self, *_args) -> None:
        self._last_redraw = time.monotonic()
        if self.table is None or self._stats is None:
            return
        self.map.draw(self.table, self._stats, self.measure_combo.currentText(),
                      show_best=self.table.complete)
        self.sigRedrawn.emit()

    def _show_progress(self, progress: Progress) -> None:
        total, fraction = progress.total, progress.fraction
        if self.table is not None and self.table.batched and progress.done < total:
            words = f"all {total:,} runs at once, {fraction:.0%} of the budget"
        else:
            words = f"{progress.done:,} of {total:,} runs"
        if 0.02 <= fraction < 1.0 and progress.seconds > 0.2:
            words += f" · about {duration_words(progress.seconds * (1.0 - fraction) / fraction)} left"
        elif fraction < 1.0:
            words += " · estimating the time left"
        self.progress.setValue(int(round(fraction * 1000)))
        self.progress.setFormat(("paused · " if self._paused else "") + words)

    # --- slots ------------------------------------------------------------------------------------
    def _on_engine_combo_activated(self, *_args) -> None:
        self._engine_chosen = True

    def _on_map_hovered(self, index: int) -> None:
        if index >= 0:
            self.hover_label.setText(self.cell_text(index))

    def _on_export_csv_clicked(self) -> None:
        self._ask_and_export("Export grid as CSV", "csv", self.export_csv)

    def _on_export_png_clicked(self) -> None:
        self._ask_and_export("Export map as PNG", "png", self.export_png)

    def _ask_and_export(self, title: str, suffix: str, save) -> None:
        from . import export  # noqa: PLC0415 - only when exporting

        t = self.table
        file_filter = export.CSV_FILTER if suffix == "csv" else export.PNG_FILTER
        path = export.ask_save_path(self, title, f"tune_{t.algorithm}_{t.problem}_{t.dim}d.{suffix}",
                                    file_filter)
        if path is None:
            return
        try:
            save(path)
        except (OSError, ConfigError) as exc:  # SaveError is a ConfigError: the old file is kept
            self._refuse(f"export failed: {exc}")
            QtWidgets.QMessageBox.warning(self, title, str(exc))
        else:
            self.status_label.setStyleSheet("")
            self.status_label.setText(f"saved {path}")

    def _on_save_clicked(self) -> None:
        from .export import ask_save_path  # noqa: PLC0415 - only when saving

        c = self._config
        path = ask_save_path(self, "Save tuning set-up", f"tune_{c.algorithm}_{c.problem}.json",
                             SETUP_FILTER)
        if path is not None:
            self.save_setup(path)

    def _on_load_clicked(self) -> None:
        name, _ = QtWidgets.QFileDialog.getOpenFileName(self, "Load tuning set-up", "", SETUP_FILTER)
        if name:
            self.load_setup(name)

    def _current_sender(self) -> bool:
        return self.runner.is_current(self.sender())

    def _on_worker_status(self, text: str) -> None:
        if self._current_sender():
            self.status_label.setStyleSheet("")
            self.status_label.setText(text)

    def _on_worker_prepared(self, table: TuneTable) -> None:
        if not self._current_sender():
            return
        self.table = table
        self.map.begin(table.grid.shape)

    def _on_worker_progress(self, progress: Progress) -> None:
        if not self._current_sender() or self.table is None:
            return
        table = self.table
        errors = np.asarray(progress.best, dtype=np.float64)
        if table.f_min is not None:
            errors = np.maximum(0.0, errors - table.f_min)
        shape = (math.prod(table.grid.shape), len(table.grid.seeds))
        reached = progress.reached if progress.reached is not None else np.full(len(errors), np.nan)
        self._stats = cell_stats(errors.reshape(shape), np.asarray(reached, float).reshape(shape),
                                 table.tolerance, table.f_min is not None)
        self._show_progress(progress)
        self._schedule_redraw()

    def _on_worker_errored(self, message: str) -> None:
        if self._current_sender():
            self._refuse(f"grid refused: {message}")

    def _on_worker_finished(self, table) -> None:
        if not self._current_sender():
            return
        if table is None:
            self.progress.setFormat("refused")
            return
        self.table = table
        self._stats = cell_stats(*run_arrays(table.rows, table.grid, table.f_min), table.tolerance,
                                 table.f_min is not None)
        for button in (self.export_csv_button, self.export_png_button):
            button.setEnabled(bool(table.rows))
        self._redraw_timer.stop()
        self._redraw()
        stopped = table.stop_reason == "stopped"
        if stopped and table.batched and table.rows:  # every run has a row, cut short together
            runs = f"all {table.grid.groups:,} runs cut short at {table.rows[0].evals:,} evaluations each"
        else:
            runs = f"{len(table.rows):,} of {table.grid.groups:,} runs"
        if not stopped:
            self.progress.setValue(1000)
        self.progress.setFormat(runs + (" (stopped)" if stopped else ""))
        how = "batched" if table.batched else "one run per setting and seed"
        text = (("stopped: " if stopped else "done: ") +
                f"{runs} in {table.seconds:.3g} s ({how}, {table.engine})")
        best = self.best_index()
        if best is not None:
            text += f". Best median: {self.cell_text(best)}"
        self.status_label.setStyleSheet("")
        self.status_label.setText(text)

    def _on_runner_joined(self) -> None:
        self._paused = False
        self._on_cluster = False
        self._set_running(False)
        self.sigFinished.emit()


def _title(algorithm: str) -> str:
    return getattr(get_algorithm(algorithm), "title", algorithm)


def _without_spec(message: str, text: str) -> str:
    """An axis error without the "grid 'name=...': " prefix (the row shows the axis already)."""
    prefix = f"grid '{text}': "
    return message[len(prefix):] if message.startswith(prefix) else message
