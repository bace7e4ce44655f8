"""The main window: set-up form, landscape and charts, run controls, status bar, settings.

From a click to a repaint (DESIGN.md): the form builds a validated RunConfig (errors beside the
fields); the RunController starts one SolverWorker on a QThread; snapshots arrive as queued signals
and are only recorded when they arrive; the latest one is drawn once the queue is drained (views
call setData, Qt repaints). Nothing here waits on a solver, and closing the window stops and joins
every worker thread.

Panels built elsewhere plug in through ``add_panel`` (a tab beside the landscape) and the File /
Tools menus: the compare panel (gui/compare.py), the sweep panel (gui/sweep.py) and export
(gui/export.py) are wired in ``_install_extensions`` when their modules exist.
"""
from __future__ import annotations

import html

import importlib
import json
import logging
import time
from pathlib import Path

from PyQt6 import QtCore, QtGui, QtWidgets

from solvers import ConfigError, RunConfig
from solvers.engines import gpu_status

from .charts import ConvergenceChart, ExtrasPanel
from .config_form import ConfigForm
from .controller import RunController
from .landscape_view import LandscapeView

log = logging.getLogger(__name__)

MAX_DELAY = 0.5  # seconds between iterations at the slowest teaching speed
SPEED_STEPS = 100
BUSY_STATUSES = ("compiling kernels", "initialising walkers", "warming up")
SETTINGS_VERSION = 1
CHART_INTERVAL = 0.2  # seconds between redraws of each chart panel during a run


def delay_for_speed(value: int) -> float:
    """Slider position (0 slowest .. SPEED_STEPS full speed) -> delay between iterations."""
    slowness = (SPEED_STEPS - value) / SPEED_STEPS
    return MAX_DELAY * slowness ** 2


class MainWindow(QtWidgets.QMainWindow):
    """Multiwalk's window; `settings` defaults to the application's QSettings."""

    sigRendered = QtCore.pyqtSignal()  # a snapshot was drawn (for tests and benchmarks)

    def __init__(self, settings: QtCore.QSettings | None = None):
        super().__init__()
        self.setWindowTitle("Multiwalk: GPU-parallel derivative-free optimisation")
        self.settings = settings if settings is not None else QtCore.QSettings()
        self.controller = RunController(self)
        self.results: list = []  # RunResults of finished runs, newest last (for export)
        self.last_snapshot = None
        self._pending_snapshot = None
        self._render_scheduled = False
        self._last_chart_refresh = -1.0
        self._chart_turn = True
        self._panels: list[QtWidgets.QWidget] = []

        self.form = ConfigForm()
        self.landscape = LandscapeView()
        self.chart = ConvergenceChart()
        self.extras = ExtrasPanel()
        self._build_central()
        self._build_docks()
        self._build_actions()
        self._build_status_bar()
        self._connect()
        self._install_extensions()
        self._restore_settings()
        self.landscape.set_problem(self.form.problem(), self.form.dim())
        self._update_actions()

    # --- layout --------------------------------------------------------------------------------
    def _build_central(self) -> None:
        central = QtWidgets.QWidget()
        layout = QtWidgets.QVBoxLayout(central)
        layout.setContentsMargins(2, 2, 2, 2)
        self.error_banner = QtWidgets.QLabel()
        self.error_banner.setWordWrap(True)
        self.error_banner.setStyleSheet("background: #5a1d1a; color: #ffd9d4; padding: 6px;")
        self.error_banner.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error_banner.hide()
        # Hook: other panels (compare, sweep) become tabs beside the landscape via add_panel().
        self.panels = QtWidgets.QTabWidget()
        self.panels.addTab(self.landscape, "Landscape")
        layout.addWidget(self.error_banner)
        layout.addWidget(self.panels, 1)
        self.setCentralWidget(central)

    def _build_docks(self) -> None:
        scroll = QtWidgets.QScrollArea()
        scroll.setWidget(self.form)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setMinimumWidth(340)
        self.form_dock = self._dock("Set-up", scroll, QtCore.Qt.DockWidgetArea.LeftDockWidgetArea)
        self.chart_dock = self._dock("Best value", self.chart, QtCore.Qt.DockWidgetArea.RightDockWidgetArea)
        self.extras_dock = self._dock("Algorithm", self.extras, QtCore.Qt.DockWidgetArea.RightDockWidgetArea)
        self.resize(1500, 900)
        self.resizeDocks([self.chart_dock, self.extras_dock], [560, 300], QtCore.Qt.Orientation.Vertical)
        self.resizeDocks([self.form_dock, self.chart_dock], [340, 440], QtCore.Qt.Orientation.Horizontal)

    def _dock(self, title: str, widget: QtWidgets.QWidget, area) -> QtWidgets.QDockWidget:
        dock = QtWidgets.QDockWidget(title, self)
        dock.setObjectName(f"dock_{title.lower().replace(' ', '_').replace('-', '_')}")
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        return dock

    def _build_actions(self) -> None:
        def action(text, shortcuts, slot, tip, icon=None):
            act = QtGui.QAction(text, self)
            act.setShortcuts([QtGui.QKeySequence(s) for s in shortcuts])
            act.setToolTip(f"{tip} ({', '.join(shortcuts)})" if shortcuts else tip)
            if icon is not None:
                act.setIcon(self.style().standardIcon(icon))
            act.triggered.connect(slot)
            return act

        pix = QtWidgets.QStyle.StandardPixmap
        self.start_action = action("Start", ["Ctrl+Return", "F5"], self.start,
                                   "Start a run with the set-up on the left", pix.SP_MediaPlay)
        self.pause_action = action("Pause", ["Space"], self.toggle_pause,
                                   "Pause or resume the run", pix.SP_MediaPause)
        self.step_action = action("Step", ["S"], self.step, "Run one iteration (pauses a running run)",
                                  pix.SP_MediaSeekForward)
        self.stop_action = action("Stop", ["Esc"], self.stop, "Stop the run", pix.SP_MediaStop)
        self.reset_action = action("Reset", ["R"], self.reset,
                                   "Stop and clear the walkers; changed parameters apply to the next run",
                                   pix.SP_BrowserReload)
        toolbar = self.addToolBar("Run")
        toolbar.setObjectName("toolbar_run")
        toolbar.setToolButtonStyle(QtCore.Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        for act in (self.start_action, self.pause_action, self.step_action, self.stop_action,
                    self.reset_action):
            toolbar.addAction(act)
        toolbar.addSeparator()
        toolbar.addWidget(QtWidgets.QLabel(" Speed "))
        self.speed_slider = QtWidgets.QSlider(QtCore.Qt.Orientation.Horizontal)
        self.speed_slider.setRange(0, SPEED_STEPS)
        self.speed_slider.setValue(SPEED_STEPS)
        self.speed_slider.setFixedWidth(160)
        self.speed_slider.setToolTip("Slows the animation for teaching: a pause between iterations "
                                     "(not counted in the timings)")
        self.speed_label = QtWidgets.QLabel("full speed")
        self.speed_label.setMinimumWidth(110)
        toolbar.addWidget(self.speed_slider)
        toolbar.addWidget(self.speed_label)

        bar = self.menuBar()
        self.file_menu = bar.addMenu("&File")
        self.presets_menu = self.file_menu.addMenu("Presets")  # filled from assets/presets
        self.file_menu.addSeparator()
        # Hooks for gui/export.py: configuration files and exports go here.
        self.export_menu = self.file_menu.addMenu("Export")
        self.file_menu.addSeparator()
        quit_action = QtGui.QAction("Quit", self)
        quit_action.setShortcut(QtGui.QKeySequence.StandardKey.Quit)
        quit_action.triggered.connect(self.close)
        self.file_menu.addAction(quit_action)
        self.run_menu = bar.addMenu("&Run")
        for act in (self.start_action, self.pause_action, self.step_action, self.stop_action,
                    self.reset_action):
            self.run_menu.addAction(act)
        self.view_menu = bar.addMenu("&View")
        for dock in (self.form_dock, self.chart_dock, self.extras_dock):
            self.view_menu.addAction(dock.toggleViewAction())
        self.view_menu.addSeparator()
        self.view_menu.addAction(_check_action(self, "Trails", self.landscape.trails_check))
        self.view_menu.addAction(_check_action(self, "Algorithm overlay", self.landscape.overlay_check))
        # Hook: the compare and sweep panels add their entries here.
        self.tools_menu = bar.addMenu("&Tools")

    def _build_status_bar(self) -> None:
        bar = self.statusBar()
        usable, text = gpu_status()
        self.device_label = QtWidgets.QLabel()
        self.device_label.setToolTip(("GPU: " if usable else "no GPU engine: ") + text)
        self._device_text = f"GPU: {text}" if usable else "GPU: none"
        self.device_label.setText(f"engine numpy · {self._device_text}")
        self.busy = QtWidgets.QProgressBar()
        self.busy.setRange(0, 0)  # indeterminate: moves while kernels compile
        self.busy.setMaximumWidth(120)
        self.busy.setMaximumHeight(14)
        self.busy.hide()
        self.rate_label = QtWidgets.QLabel()
        self.iter_label = QtWidgets.QLabel()
        self.evals_label = QtWidgets.QLabel()
        self.time_label = QtWidgets.QLabel()
        self.best_label = QtWidgets.QLabel()
        for widget in (self.busy, self.best_label, self.rate_label, self.iter_label,
                       self.evals_label, self.time_label, self.device_label):
            bar.addPermanentWidget(widget)
        self._show_numbers(None)

    def _connect(self) -> None:
        c = self.controller
        c.sigStarted.connect(self._on_controller_started)
        c.sigSnapshot.connect(self._on_controller_snapshot)
        c.sigStatus.connect(self._on_controller_status)
        c.sigErrored.connect(self._on_controller_errored)
        c.sigFinished.connect(self._on_controller_finished)
        c.sigRunningChanged.connect(self._on_controller_running_changed)
        c.sigPausedChanged.connect(lambda _paused: self._update_actions())
        self.form.sigProblemChanged.connect(self._on_form_problem_changed)
        self.form.sigParamChanged.connect(self._on_form_param_changed)
        self.speed_slider.valueChanged.connect(self._on_speed_slider_changed)

    # --- hooks for panels built elsewhere ------------------------------------------------------
    def add_panel(self, title: str, widget: QtWidgets.QWidget) -> int:
        """Add `widget` as a tab beside the landscape; its ``shutdown()`` (if any) runs on close,
        and its ``set_config(RunConfig)`` (if any) receives the form's configuration."""
        self._panels.append(widget)
        return self.panels.addTab(widget, title)

    def current_config(self) -> RunConfig | None:
        """The form's configuration, validated (errors shown beside the fields), or None."""
        return self.form.build_config()

    def _install_extensions(self) -> None:
        """Wire the compare, sweep and export modules in when they are present."""
        compare = _optional_module("gui.compare")
        if compare is not None and hasattr(compare, "ComparePanel"):
            self.compare_panel = compare.ComparePanel()
            self.add_panel("Compare engines", self.compare_panel)
            self._tool_action("Compare engines", lambda: self._show_panel(self.compare_panel))
        sweep = _optional_module("gui.sweep")
        if sweep is not None and hasattr(sweep, "SweepPanel"):
            self.sweep_panel = sweep.SweepPanel()
            self.add_panel("Speedup sweep", self.sweep_panel)
            self._tool_action("Speedup sweep", lambda: self._show_panel(self.sweep_panel))
        self.panels.currentChanged.connect(self._push_config_to_panels)
        export = _optional_module("gui.export")
        if export is not None:
            self._install_export(export)
        self._fill_presets()

    def _tool_action(self, text: str, slot) -> None:
        act = QtGui.QAction(text, self)
        act.triggered.connect(slot)
        self.tools_menu.addAction(act)

    def _show_panel(self, widget: QtWidgets.QWidget) -> None:
        self.panels.setCurrentWidget(widget)

    def _push_config_to_panels(self, *_args) -> None:
        current = self.panels.currentWidget()
        if current is self.landscape or not hasattr(current, "set_config"):
            return
        config = self.form.build_config()
        if config is not None:
            current.set_config(config)

    def _install_export(self, export) -> None:
        self.export_module = export
        menu = self.export_menu
        entries = [("Landscape as PNG…", lambda: self._export_png(self.landscape.plot, "landscape.png")),
                   ("Charts as PNG…", lambda: self._export_png(self.chart.view, "convergence.png")),
                   ("Window as PNG…", lambda: self._export_png(self, "multiwalk.png")),
                   ("Convergence histories as CSV…", self._export_csv)]
        for text, slot in entries:
            act = QtGui.QAction(text, self)
            act.triggered.connect(slot)
            menu.addAction(act)
        if hasattr(export, "Recorder"):
            self.recorder = export.Recorder(self.landscape)
            self.record_action = QtGui.QAction("Record landscape as GIF", self)
            self.record_action.setCheckable(True)
            self.record_action.toggled.connect(self._on_record_toggled)
            self.recorder.sigFrames.connect(
                lambda n: self.statusBar().showMessage(f"recording: {n} frames", 1500))
            menu.addSeparator()
            menu.addAction(self.record_action)
        save = QtGui.QAction("Save configuration…", self)
        save.setShortcut(QtGui.QKeySequence.StandardKey.Save)
        save.triggered.connect(self._save_config)
        load = QtGui.QAction("Load configuration…", self)
        load.setShortcut(QtGui.QKeySequence.StandardKey.Open)
        load.triggered.connect(self._load_config)
        first = self.file_menu.actions()[0]
        self.file_menu.insertAction(first, save)
        self.file_menu.insertAction(first, load)

    def _export_png(self, target, default_name: str) -> None:
        path = self.export_module.ask_save_path(self, "Export PNG", default_name,
                                                self.export_module.PNG_FILTER)
        if path:
            self._save_reported("Export PNG", path, lambda: self.export_module.save_png(target, path))

    def _export_csv(self) -> None:
        if not self.results:
            self.statusBar().showMessage("no finished run to export yet", 4000)
            return
        path = self.export_module.ask_save_path(self, "Export histories", "histories.csv",
                                                self.export_module.CSV_FILTER)
        if path:
            self._save_reported("Export CSV", path,
                                lambda: self.export_module.write_histories_csv(path, self.results))

    def _on_record_toggled(self, on: bool) -> None:
        if on:
            self.recorder.start()
            return
        path = self.export_module.ask_save_path(self, "Save recording", "multiwalk.gif",
                                                self.export_module.GIF_FILTER)
        self.recorder.stop()
        if path:
            self._save_reported("Save recording", path, lambda: self.recorder.save(path))

    def _save_reported(self, action: str, path, save) -> bool:
        """Run a saver; "saved" only when the file was written, else the reason in the banner
        (the savers are atomic, so a failure leaves any previous file as it was)."""
        try:
            save()
        except (ConfigError, OSError, ValueError, TypeError) as exc:
            self.report_failure(action, str(exc) or type(exc).__name__)
            return False
        self.statusBar().showMessage(f"saved {path}", 4000)
        return True

    def report_failure(self, action: str, message: str) -> None:
        """A user action that failed: its reason in the banner above the views and the status bar."""
        self.error_banner.setText(f"<b>{action} failed:</b> {html.escape(message)}")
        self.error_banner.show()
        self.statusBar().showMessage(f"{action} failed: {message}", 10000)

    def _save_config(self) -> None:
        config = self.form.build_config()
        if config is not None:
            self.export_module.save_config_dialog(self, config)

    def _load_config(self) -> None:
        config = self.export_module.load_config_dialog(self)
        if config is not None:
            self.form.apply_config(config)

    def _fill_presets(self) -> None:
        try:
            from solvers import config_io  # noqa: PLC0415 - written by another issue
        except ImportError:
            self.presets_menu.setEnabled(False)
            return
        presets = config_io.list_presets()
        for name, path, description in presets:
            act = QtGui.QAction(name, self)
            act.setToolTip(description)
            act.setStatusTip(description)
            act.triggered.connect(lambda _checked=False, p=path: self.load_preset(p))
            self.presets_menu.addAction(act)
        self.presets_menu.setToolTipsVisible(True)
        self.presets_menu.setEnabled(bool(presets))

    def load_preset(self, path: str | Path) -> bool:
        """Show a preset's configuration in the form; a bad file is reported in the banner."""
        from solvers import config_io  # noqa: PLC0415

        try:
            config = config_io.load_config(path)
        except ConfigError as exc:
            self._show_error(str(exc))
            return False
        self.form.apply_config(config)
        self.statusBar().showMessage(f"preset loaded: {Path(path).stem}", 4000)
        return True

    # --- run control ---------------------------------------------------------------------------
    def start(self) -> bool:
        """Start a run from the form (or resume a paused one); False if nothing started."""
        c = self.controller
        if c.is_running:
            if c.is_paused and not c.is_stopping:
                c.resume()
                return True
            return False
        config = self.form.build_config()
        if config is None:
            self.statusBar().showMessage("fix the fields marked in red", 5000)
            return False
        return c.start(config)

    def toggle_pause(self) -> None:
        c = self.controller
        if not c.is_running:
            self.start()
        elif not c.is_stopping:
            c.toggle_pause()

    def step(self) -> None:
        """One iteration: starts a paused run if none is on, pauses a running one."""
        c = self.controller
        if not c.is_running:
            config = self.form.build_config()
            if config is None or not c.start(config, paused=True):
                return
        c.step_once()

    def stop(self) -> None:
        self.controller.stop()

    def reset(self) -> None:
        """Stop the run and clear the walkers; the next Start uses every field of the form."""
        self.controller.stop()
        self.landscape.clear_run()
        self.extras.begin_run()
        self.form.set_running(self.controller.is_running)
        self.landscape.set_problem(self.form.problem(), self.form.dim())
        self._show_numbers(None)
        self.statusBar().showMessage("reset", 3000)

    # --- controller slots ----------------------------------------------------------------------
    def _on_controller_started(self, config: RunConfig) -> None:
        self.error_banner.hide()
        self.last_snapshot = None
        self.landscape.begin_run(config)
        self.chart.begin_run(config)
        self.extras.begin_run(config)
        self.device_label.setText(f"engine {config.engine} · {self._device_text}")
        self.statusBar().showMessage(f"running {config.algorithm} on {config.problem} "
                                     f"({config.dim}-D, {config.engine})")
        for panel in self._panels:
            if hasattr(panel, "set_config"):
                panel.set_config(config)

    def _on_controller_snapshot(self, snap) -> None:
        # Record every snapshot (cheap), draw only the newest once the queue is drained, so a
        # slow repaint can never make snapshots pile up.
        self.chart.record(snap)
        self.extras.record(snap)
        self._pending_snapshot = snap
        if not self._render_scheduled:
            self._render_scheduled = True
            QtCore.QTimer.singleShot(0, self._render)

    def _render(self) -> None:
        self._render_scheduled = False
        snap, self._pending_snapshot = self._pending_snapshot, None
        if snap is None:
            return
        self.last_snapshot = snap
        self.landscape.show_snapshot(snap)
        now = time.monotonic()
        # Charts redraw their axes whenever their ranges move; 5 redraws a second read the same
        # to the eye and leave the frame budget to the walkers.
        # The two panels take turns, so no single frame carries both redraws.
        if snap.finished:
            self.chart.refresh()
            self.extras.refresh()
        elif now - self._last_chart_refresh >= CHART_INTERVAL / 2:
            self._last_chart_refresh = now
            panel = self.chart if self._chart_turn else self.extras
            self._chart_turn = not self._chart_turn
            panel.refresh()
        self._show_numbers(snap)
        self.sigRendered.emit()

    def _on_controller_status(self, text: str) -> None:
        self.busy.setVisible(text in BUSY_STATUSES)
        self.busy.setToolTip(text)
        if text in BUSY_STATUSES:
            self.statusBar().showMessage(text + "…")

    def _on_controller_errored(self, message: str) -> None:
        self._show_error(message)

    def _show_error(self, message: str) -> None:
        self.error_banner.setText(f"<b>The run stopped with an error:</b> {message}")
        self.error_banner.show()
        self.statusBar().showMessage(message, 10000)

    def _on_controller_finished(self, result) -> None:
        self.busy.hide()
        self._render()  # the final snapshot, if it is still waiting
        if result is not None:
            self.results.append(result)
            self.chart.finish(result)
            self.statusBar().showMessage(
                f"finished ({result.stop_reason}): best {result.best_f:.6g} after "
                f"{result.evals:,} evaluations in {result.seconds:.3g} s", 10000)

    def _on_controller_running_changed(self, running: bool) -> None:
        self.form.set_running(running)
        self._update_actions()

    def _update_actions(self) -> None:
        c = self.controller
        running, paused, stopping = c.is_running, c.is_paused, c.is_stopping
        self.start_action.setEnabled(not running or (paused and not stopping))
        self.start_action.setText("Resume" if running and paused else "Start")
        self.pause_action.setEnabled(not stopping)
        self.pause_action.setText("Resume" if running and paused else "Pause")
        self.step_action.setEnabled(not stopping)
        self.stop_action.setEnabled(running and not stopping)

    # --- form slots ----------------------------------------------------------------------------
    def _on_form_problem_changed(self, name: str, dim: int) -> None:
        if not self.controller.is_running:
            try:
                self.landscape.set_problem(name, dim)
            except ConfigError:
                pass  # the form shows the error beside the dimension

    def _on_form_param_changed(self, name: str, value, live: bool) -> None:
        c = self.controller
        if not (live and c.is_running) or c.is_stopping:
            return
        try:
            c.update_params({name: value})
        except ConfigError as exc:
            self.form.show_param_error(str(exc))
        else:
            self.statusBar().showMessage(f"{name} = {value}: applies at the next chunk", 3000)

    def _on_speed_slider_changed(self, value: int) -> None:
        delay = delay_for_speed(value)
        self.controller.set_delay(delay)
        self.speed_label.setText("full speed" if delay == 0 else f"{delay * 1000:.0f} ms / iteration")

    # --- status numbers ------------------------------------------------------------------------
    def _show_numbers(self, snap) -> None:
        if snap is None:
            for label in (self.rate_label, self.iter_label, self.evals_label, self.time_label,
                          self.best_label):
                label.setText("")
            return
        self.best_label.setText(f"best {snap.best_f:.6g}")
        self.rate_label.setText(f"{snap.evals_per_second:,.0f} evals/s")
        self.iter_label.setText(f"iteration {snap.iteration:,}")
        self.evals_label.setText(f"{snap.evals:,} evaluations")
        self.time_label.setText(f"{snap.seconds:.2f} s")
        for label in (self.best_label, self.rate_label, self.iter_label, self.evals_label,
                      self.time_label):
            # only grow: a long status message must not squeeze the numbers unreadable
            label.setMinimumWidth(max(label.minimumWidth(), label.sizeHint().width()))

    # --- settings and closing ------------------------------------------------------------------
    def _restore_settings(self) -> None:
        s = self.settings
        if s.value("version", 0, type=int) != SETTINGS_VERSION:
            return
        geometry = s.value("window/geometry")
        if isinstance(geometry, QtCore.QByteArray) and not geometry.isEmpty():
            self.restoreGeometry(geometry)
        state = s.value("window/state")
        if isinstance(state, QtCore.QByteArray) and not state.isEmpty():
            self.restoreState(state)
        try:
            form_state = json.loads(s.value("form/state", "{}", type=str))
        except (TypeError, ValueError):
            form_state = {}
        self.form.set_state(form_state)
        self.speed_slider.setValue(s.value("view/speed", SPEED_STEPS, type=int))
        self.landscape.trails_check.setChecked(s.value("view/trails", False, type=bool))
        self.landscape.overlay_check.setChecked(s.value("view/overlay", True, type=bool))

    def save_settings(self) -> None:
        s = self.settings
        s.setValue("version", SETTINGS_VERSION)
        s.setValue("window/geometry", self.saveGeometry())
        s.setValue("window/state", self.saveState())
        s.setValue("form/state", json.dumps(self.form.state()))
        s.setValue("view/speed", self.speed_slider.value())
        s.setValue("view/trails", self.landscape.trails_check.isChecked())
        s.setValue("view/overlay", self.landscape.overlay_check.isChecked())
        s.sync()

    def shutdown(self) -> None:
        """Stop and join every worker thread (runs, landscape slices, panels)."""
        if getattr(self, "recorder", None) is not None:
            self.recorder.stop()
        self.controller.shutdown()
        for panel in self._panels:
            if hasattr(panel, "shutdown"):
                panel.shutdown()
        self.landscape.shutdown()

    def closeEvent(self, event: QtGui.QCloseEvent) -> None:  # noqa: N802 - Qt override
        self.save_settings()
        self.shutdown()
        super().closeEvent(event)


def _check_action(parent: QtCore.QObject, text: str, box: QtWidgets.QCheckBox) -> QtGui.QAction:
    """A checkable menu entry mirroring a check box."""
    act = QtGui.QAction(text, parent)
    act.setCheckable(True)
    act.setChecked(box.isChecked())
    act.toggled.connect(box.setChecked)
    box.toggled.connect(act.setChecked)
    return act


def _optional_module(name: str):
    """Import `name` if it exists; a module that exists but fails to import still raises."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name == name:
            return None
        raise
