"""The main window: set-up form, landscape and charts, run controls, status bar, settings.

From a click to a repaint (DESIGN.md): the form builds a validated RunConfig (errors beside the
fields); the RunController starts one SolverWorker on a QThread; snapshots arrive as queued signals
and are only recorded when they arrive; the latest one is drawn once the queue is drained (views
call setData, Qt repaints). Nothing here waits on a solver, and closing the window stops and joins
every worker thread.

Panels built elsewhere plug in through ``add_panel`` (a tab beside the landscape) and the File /
Tools menus: the compare panel (gui/compare.py), the sweep panel (gui/sweep.py), the tune panel
(gui/tune.py) and export (gui/export.py) are wired in ``_install_extensions``.
"""
from __future__ import annotations

import html

import json
import logging
import math
import time
from pathlib import Path

from PyQt6 import QtCore, QtGui, QtWidgets

from solvers import ConfigError, RunConfig
from solvers.engines import engine_status, gpu_status
from solvers.study.cluster import check_scheduler

from . import compare, export, sweep, tune
from .charts import ConvergenceChart, ExtrasPanel
from .config_form import ConfigForm
from .controller import ALREADY_RUNNING, RunController
from .landscape_view import LandscapeView
from .status_words import error_forms, finished_forms, starting_forms, status_forms

log = logging.getLogger(__name__)

# The speed slider is a pace in iterations per second, on a log scale from MIN_PACE to MAX_PACE;
# its last position is full speed. A pace is a pause between iterations, never counted in timings.
MIN_PACE, MAX_PACE = 1.0, 1000.0
MAX_DELAY = 1.0 / MIN_PACE  # seconds between iterations at the slowest teaching speed
SPEED_STEPS = 100
SETTINGS_VERSION = 2  # 2: the slider became a pace; version-1 layouts may hold a squashed chart column
CHART_INTERVAL = 0.2  # seconds between redraws of each chart panel during a run
FIRST_LAUNCH_PRESET = "class_pattern_search_ackley_2d"  # what a class sees on the very first start
MIN_SIZE = (1000, 600)  # fits a 1024 x 640 projector with the window frame
DEFAULT_SIZE = (1400, 860)
FORM_WIDTH, CHART_WIDTH = 330, 430


def short_device_name(description: str) -> str:
    """'NVIDIA H100 80GB HBM3, 79 GiB (78.7 GiB free)' -> 'H100 80GB HBM3': the name without its
    maker and memory, for the status bar (the whole description is in its tooltip)."""
    name = description.split(",")[0].strip()
    return name[len("NVIDIA "):] if name.startswith("NVIDIA ") else name


def pace_for_speed(value: int) -> float | None:
    """Slider position -> iterations per second; None at the last position (full speed)."""
    if value >= SPEED_STEPS:
        return None
    return MIN_PACE * (MAX_PACE / MIN_PACE) ** (max(0, value) / (SPEED_STEPS - 1))


def speed_for_pace(pace: float | None) -> int:
    """The slider position closest to `pace` iterations per second (None: full speed)."""
    if pace is None:
        return SPEED_STEPS
    fraction = math.log(max(MIN_PACE, min(MAX_PACE, pace)) / MIN_PACE) / math.log(MAX_PACE / MIN_PACE)
    return round(fraction * (SPEED_STEPS - 1))


def delay_for_speed(value: int) -> float:
    """Slider position (0 slowest .. SPEED_STEPS full speed) -> pause between iterations."""
    pace = pace_for_speed(value)
    return 0.0 if pace is None else 1.0 / pace


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
        self._drawing = True  # False once the run on the views was reset or replaced by a set-up
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
        self._default_state = self.saveState()
        self._restore_settings()
        self.form.install_focus_return(self._return_focus)
        self.landscape.set_problem(self.form.problem(), self.form.dim())
        self._update_actions()
        # keys start as run controls: a focused field would take Space and S as typing
        self.landscape.plot.setFocus(QtCore.Qt.FocusReason.OtherFocusReason)

    # --- layout --------------------------------------------------------------------------------
    def _build_central(self) -> None:
        central = QtWidgets.QWidget()
        layout = QtWidgets.QVBoxLayout(central)
        layout.setContentsMargins(2, 2, 2, 2)
        self.error_banner = QtWidgets.QLabel()
        self.error_banner.setWordWrap(True)
        self.error_banner.setStyleSheet(ERROR_BANNER_STYLE)
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
        scroll.setMinimumWidth(300)
        self.form_dock = self._dock("Set-up", scroll, QtCore.Qt.DockWidgetArea.LeftDockWidgetArea)
        self.chart_dock = self._dock("Best value", self.chart, QtCore.Qt.DockWidgetArea.RightDockWidgetArea)
        self.extras_dock = self._dock("Algorithm", self.extras, QtCore.Qt.DockWidgetArea.RightDockWidgetArea)
        self.chart.setMinimumWidth(260)  # a chart column squashed narrower than this says nothing
        self.setMinimumSize(*MIN_SIZE)
        self.resize(*DEFAULT_SIZE)
        self._default_state = None  # the dock layout as built, for View > Reset layout
        self._size_docks()

    def _size_docks(self) -> None:
        """Give the docks their default share of the window (at start and on Reset layout)."""
        self.resizeDocks([self.chart_dock, self.extras_dock], [560, 300], QtCore.Qt.Orientation.Vertical)
        self.resizeDocks([self.form_dock, self.chart_dock], [FORM_WIDTH, CHART_WIDTH],
                         QtCore.Qt.Orientation.Horizontal)

    def reset_layout(self) -> None:
        """Every dock back in its place and size, visible (View > Reset layout)."""
        if self._default_state is not None:
            self.restoreState(self._default_state)
        for dock in (self.form_dock, self.chart_dock, self.extras_dock):
            dock.setFloating(False)
            dock.show()
        if self.width() < MIN_SIZE[0] or self.height() < MIN_SIZE[1]:
            self.resize(*DEFAULT_SIZE)
        self._size_docks()

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
        # Single keys act wherever focus is except while typing in a field (there they type);
        # the F keys act everywhere, and Enter in a field commits it and hands the keys back.
        self.pause_action = action("Pause", ["Space", "F6"], self.toggle_pause,
                                   "Pause or resume the run", pix.SP_MediaPause)
        self.step_action = action("Step", ["S", "F7"], self.step,
                                  "Run one iteration (pauses a running run)", pix.SP_MediaSeekForward)
        self.stop_action = action("Stop", ["Esc", "F8"], self.stop, "Stop the run", pix.SP_MediaStop)
        self.reset_action = action("Reset", ["R", "F9"], self.reset,
                                   "Stop and clear the walkers; changed parameters apply to the next run",
                                   pix.SP_BrowserReload)
        for act in (self.start_action, self.pause_action, self.step_action, self.stop_action,
                    self.reset_action):
            act.setShortcutContext(QtCore.Qt.ShortcutContext.WindowShortcut)
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
        self.speed_slider.setToolTip("Pace for teaching, in iterations per second: a pause between "
                                     "iterations (never counted in the timings); far right = full speed")
        self.speed_slider.setFocusPolicy(QtCore.Qt.FocusPolicy.NoFocus)  # keys stay run controls
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
        self.reset_layout_action = QtGui.QAction("Reset layout", self)
        self.reset_layout_action.setToolTip("Put every panel back in its place and size")
        self.reset_layout_action.triggered.connect(self.reset_layout)
        self.view_menu.addAction(self.reset_layout_action)
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
        # the device's name alone (its memory is in the tooltip): 'NVIDIA H100 80GB HBM3, 79 GiB
        # (78.7 GiB free)' took the status message's whole room at 1024 x 640 on a GPU machine
        self._device_text = f"GPU: {short_device_name(text)}" if usable else "GPU: none"
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
        self._permanent = (self.busy, self.best_label, self.rate_label, self.iter_label,
                           self.evals_label, self.time_label, self.device_label)
        for widget in self._permanent:
            bar.addPermanentWidget(widget)
        # the numbers the bar gives up, in this order, where the message's shortest form has no room
        # beside them (a large font: at 14 pt and 1024 x 640 the numbers took the whole bar and ran
        # past its edge): each is shown elsewhere too (the evaluations and the compute time on the
        # best-value charts' axes, the engine in the set-up panel). Back where there is room again
        self._spare = (self.evals_label, self.time_label, self.device_label)
        self._given_up: list[QtWidgets.QWidget] = []
        self._hovered = False  # the message shown is a hovered entry's tip
        # (full, shorter forms, deadline or None, shown) of the message show_fitted_message shows
        self._fitted: tuple[str, tuple[str, ...], float | None, str] | None = None
        # the last lasting message (its forms): back in the bar when a transient message or a
        # menu's hover tip has cleared it, so 'finished: ...' does not vanish after 'saved x.csv'
        self._lasting: tuple[str, ...] | None = None
        bar.messageChanged.connect(self._on_status_message_changed)
        # the message's whole text is the bar's tooltip (QStatusBar paints the message itself, it
        # has no widget of its own): shown over the message only, so a number with no tooltip of
        # its own, hovered, shows none instead of the message's (Qt hands its hover to the bar)
        bar.installEventFilter(_MessageTip(self))
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
        """Wire the compare and sweep panels and the export menu in."""
        self.compare_panel = compare.ComparePanel()
        self.compare_panel.config_source = self.form.build_config  # read afresh at every start
        self.add_panel("Compare engines", self.compare_panel)
        self._tool_action("Compare engines", lambda: self._show_panel(self.compare_panel))
        self.sweep_panel = sweep.SweepPanel()
        self.sweep_panel.config_source = self.form.build_config
        self.add_panel("Speedup sweep", self.sweep_panel)
        self._tool_action("Speedup sweep", lambda: self._show_panel(self.sweep_panel))
        self.tune_panel = tune.TunePanel()
        self.tune_panel.config_source = self.form.build_config  # read afresh at every grid start
        self.add_panel("Tune", self.tune_panel)
        self._tool_action("Tune parameters", lambda: self._show_panel(self.tune_panel))
        self.tune_panel.sigLoadSetting.connect(self._on_tune_panel_load_setting)
        self.tune_panel.sigLoadConfig.connect(self._on_tune_panel_load_config)
        self.tools_menu.addSeparator()
        self._tool_action("Dask cluster...", self._choose_cluster)
        self.scheduler: str | None = None  # where the sweep and tune jobs run (None: here)
        self.panels.currentChanged.connect(self._push_config_to_panels)
        # the tab shown beside the form follows it (what a grid or sweep would run); deferred, so
        # a set-up being loaded field by field is read once it is complete
        # (a timer the window owns: it dies with the window, never firing into a closed one)
        self._push_timer = QtCore.QTimer(self)
        self._push_timer.setSingleShot(True)
        self._push_timer.setInterval(0)
        self._push_timer.timeout.connect(self._push_config_to_panels)
        self.form.sigAlgorithmChanged.connect(self._push_timer.start)  # a slot of the timer: Qt
        self.form.sigProblemChanged.connect(self._push_timer.start)  # disconnects it as the window goes
        self._install_export(export)
        self._fill_presets()

    def _choose_cluster(self) -> None:
        from .cluster_dialog import ClusterDialog  # noqa: PLC0415

        dialog = ClusterDialog(self.scheduler, self)
        if dialog.exec() == QtWidgets.QDialog.DialogCode.Accepted:
            self.set_scheduler(dialog.scheduler())

    def set_scheduler(self, scheduler: str | None) -> None:
        """Run the Speedup sweep and Tune jobs here (None) or on a Dask cluster (saved)."""
        self.scheduler = scheduler
        for panel in self._panels:
            if hasattr(panel, "set_scheduler"):
                panel.set_scheduler(scheduler)
        self.settings.setValue("cluster/scheduler", scheduler or "")

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
        self.recorder = export.Recorder(self.landscape)
        self.record_action = QtGui.QAction("Record landscape (MP4 or GIF)", self)
        self.record_action.setCheckable(True)
        self.record_action.toggled.connect(self._on_record_toggled)
        self.recorder.sigFrames.connect(
            lambda n: self.show_fitted_message(f"recording: {n:,} frames", timeout=1500))
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
            self.show_fitted_message("no finished run to export yet", "no run to export yet",
                                     timeout=4000)
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
        self.recorder.stop()
        self._save_recording()

    def _save_recording(self) -> None:
        """Ask where to save the frames just recorded, until they are saved or knowingly dropped.
        A cancelled dialog or a failed save (read-only folder) lost the recording: the frames are
        dropped by the next start, and nothing else could save them."""
        export = self.export_module
        while self.recorder.frame_count:
            path = export.ask_save_path(self, "Save recording", "multiwalk.mp4",
                                        getattr(export, "RECORDING_FILTER", export.GIF_FILTER))
            if path and self._save_reported("Save recording", path, lambda: self.recorder.save(path)):
                return
            frames = self.recorder.frame_count
            answer = QtWidgets.QMessageBox.question(
                self, "Save recording",
                f"The recording ({frames:,} frames) is not saved. Discard it?",
                QtWidgets.QMessageBox.StandardButton.Discard | QtWidgets.QMessageBox.StandardButton.Save,
                QtWidgets.QMessageBox.StandardButton.Save)
            if answer == QtWidgets.QMessageBox.StandardButton.Discard:
                return

    def _save_reported(self, action: str, path, save) -> bool:
        """Run a saver; "saved" only when the file was written, else the reason in the banner
        (the savers are atomic, so a failure leaves any previous file as it was)."""
        try:
            save()
        except (ConfigError, OSError, ValueError, TypeError) as exc:
            self.report_failure(action, str(exc) or type(exc).__name__)
            return False
        self._say_saved(path)
        return True

    def report_failure(self, action: str, message: str) -> None:
        """A user action that failed: its reason in the banner above the views and the status bar."""
        # the error colours: after a notice (a set-up that fell back to another engine) the banner
        # kept the notice's calm blue, and a failed save read as information
        self.error_banner.setStyleSheet(ERROR_BANNER_STYLE)
        self.error_banner.setText(f"<b>{action} failed:</b> {html.escape(message)}")
        self.error_banner.show()
        # the whole reason stays in the banner and the status bar's tooltip
        self.show_fitted_message(f"{action} failed: {message}", timeout=10000)

    def _say_saved(self, path) -> None:
        """'saved PATH', or the file's name alone where the folders leave no room beside the numbers."""
        self.show_fitted_message(f"saved {path}", f"saved {Path(path).name}", timeout=4000)

    def _save_config(self) -> None:
        config = self._form_config()
        path = self.export_module.save_config_dialog(self, config) if config is not None else None
        if path is not None:  # said as the other exports say it (a failure has its message box)
            self._say_saved(path)

    def _load_config(self) -> None:
        config = self.export_module.load_config_dialog(self)
        if config is not None:
            self.apply_loaded_config(config)

    def _fill_presets(self) -> None:
        try:
            from solvers import config_io  # noqa: PLC0415 - written by another issue
        except ImportError:
            self.presets_menu.setEnabled(False)
            return
        from solvers.tune.setup import list_presets  # noqa: PLC0415

        presets = config_io.list_presets()
        self._add_preset_actions(self.presets_menu, presets, self.load_preset)
        grids = list_presets()
        if grids:  # one tuning grid per seed paper: opens the Tune tab with its axes
            self.presets_menu.addSeparator()
            self.tune_presets_menu = self.presets_menu.addMenu("Tuning grids")
            self._add_preset_actions(self.tune_presets_menu, grids, self.load_tune_preset)
        self.presets_menu.setEnabled(bool(presets or grids))

    def _add_preset_actions(self, menu: QtWidgets.QMenu, presets, load) -> None:
        """One entry per (name, path, description), its description as tooltip; `load(path)`."""
        for name, path, description in presets:
            act = QtGui.QAction(name, self)
            act.setToolTip(description)
            act.setStatusTip(description)
            act.triggered.connect(lambda _checked=False, p=path: load(p))
            menu.addAction(act)
        menu.setToolTipsVisible(True)

    def load_preset(self, path: str | Path) -> bool:
        """Show a preset's configuration in the form and set its pace; a bad file is reported in
        the banner (nothing else changes)."""
        from solvers import config_io  # noqa: PLC0415

        try:
            config = config_io.load_config(path)
            meta = config_io.read_meta(path)
        except ConfigError as exc:
            self._show_error(str(exc), title="This preset could not be loaded:",
                             short="preset not loaded")
            return False
        if not self._show_loaded(config, f"preset loaded: {meta['name']}"):
            return False
        self.speed_slider.setValue(speed_for_pace(meta["pace"]))
        return True

    def load_tune_preset(self, path: str | Path) -> bool:
        """A tuning set-up (preset or file): its run set-up in the form, its grid in the Tune tab,
        which is shown; a bad file is reported in the banner (nothing else changes)."""
        from solvers.tune.setup import load_setup  # noqa: PLC0415

        if self.tune_panel.is_running:
            self._show_notice("A tuning grid is running: stop it before loading another one.")
            return False
        try:
            setup = load_setup(path)
        except ConfigError as exc:
            self._show_error(str(exc), title="This tuning set-up could not be loaded:",
                             short="tuning set-up not loaded")
            return False
        if not self._show_loaded(setup.config, f"tuning preset loaded: {setup.name}"):
            return False
        self.tune_panel.apply_setup(setup)
        self._show_panel(self.tune_panel)
        return True

    def _on_tune_panel_load_setting(self, config: RunConfig, words: str) -> None:
        """A clicked cell: its setting in the form, ready to run on the landscape; the last run's
        curve stays in the charts as a faded one (same function and dimension)."""
        if self._show_loaded(config, f"setting from the tuning map: {words}; press Start to watch it",
                             "tuning map setting loaded: press Start"):
            self._show_panel(self.landscape)

    def _on_tune_panel_load_config(self, config: RunConfig, name: str) -> None:
        self._show_loaded(config, f"tuning set-up loaded: {name}")

    def first_launch(self) -> None:
        """The very first start (no saved settings): a classroom preset at its pace, so what the
        class sees tells its story in about 15 s; the slider's far right is full speed."""
        from solvers import config_io  # noqa: PLC0415

        path = config_io.PRESETS_DIR / f"{FIRST_LAUNCH_PRESET}.json"
        if path.exists():
            self.load_preset(path)

    def apply_loaded_config(self, config: RunConfig, source: str = "set-up") -> bool:
        """Show a loaded set-up (file or preset) in the form, with a clean slate; False (said in
        the banner) when the form cannot hold it."""
        return self._show_loaded(config, f"{source} loaded")

    def _show_loaded(self, config: RunConfig, message: str, *shorter: str) -> bool:
        """A new set-up: stop, clear the walkers, panel and numbers; keep earlier curves (faded)
        only when they are comparable (same function and dimension); say if the engine fell back.
        A set-up the form cannot hold is refused with what and why, the form left as it was."""
        unshown = self.form.unshown(config)
        if unshown:
            self._show_error("; ".join(unshown) + ". Nothing was changed.",
                             title="This set-up cannot be shown in the window:", short="set-up not shown")
            return False
        if self.controller.is_running:
            self.controller.stop()
            self._forget_run()
        self.form.apply_config(config)
        self.error_banner.hide()
        self.landscape.clear_run()
        self.extras.begin_run()
        self.extras.refresh()
        self.chart.clear_for(config.problem, config.dim, config.f_min)
        self.last_snapshot = None
        self._show_numbers(None)
        try:
            self.landscape.set_problem(self.form.problem(), self.form.dim())
        except ConfigError:
            pass  # the form shows the error beside the dimension
        if self.form.engine() != config.engine:
            available, reason = engine_status(config.engine)
            self._show_notice(f"This set-up asks for the {config.engine} engine, which is not "
                              f"available here ({_plain_reason(reason)}); it will run on "
                              f"{self.form.engine()} instead.")
        self.show_fitted_message(message, *shorter, timeout=6000)
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
        config = self._form_config()
        return config is not None and c.start(config)

    def _form_config(self) -> RunConfig | None:
        """The form's RunConfig; None when a field is refused, the status line then pointing at the
        red fields (Start, Step and Save alike: a message far down the form is easy to miss)."""
        config = self.form.build_config()
        if config is None:
            self.show_fitted_message("fix the fields marked in red", "fix the red fields", timeout=5000)
        return config

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
            config = self._form_config()
            if config is None or not c.start(config, paused=True):
                return
        c.step_once()

    def stop(self) -> None:
        self.controller.stop()

    def reset(self) -> None:
        """Stop the run and clear the walkers; the next Start uses every field of the form."""
        if self.controller.is_running:
            self.controller.stop()
            self._forget_run()
        self.landscape.clear_run()
        self.extras.begin_run()
        self.chart.retire_current()
        self.form.set_running(self.controller.is_running)
        self.landscape.set_problem(self.form.problem(), self.form.dim())
        self._show_numbers(None)
        self._lasting = None  # the run it spoke of is gone
        self.show_fitted_message("reset", timeout=3000)

    def _forget_run(self) -> None:
        """The stopping run's views were cleared (Reset, a loaded set-up): its last snapshots and
        its end, still on their way, must not draw it back; its result is still kept for export."""
        self._drawing = False
        self._pending_snapshot = None

    # --- controller slots ----------------------------------------------------------------------
    def _on_controller_started(self, config: RunConfig) -> None:
        self._drawing = True
        self.error_banner.hide()
        self._run_config = config
        self.last_snapshot = None
        self.landscape.begin_run(config)
        self.chart.begin_run(config)
        self.extras.begin_run(config)
        self.device_label.setText(f"engine {config.engine} · {self._device_text}")
        self.show_fitted_message(*starting_forms(config))
        for panel in self._panels:
            if hasattr(panel, "set_config"):
                panel.set_config(config)

    def _on_controller_snapshot(self, snap) -> None:
        # Record every snapshot (cheap), draw only the newest once the queue is drained, so a
        # slow repaint can never make snapshots pile up.
        if not self._drawing:
            return
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
        """The runner's phases in plain words; a busy bar while nothing can be drawn yet."""
        if text == ALREADY_RUNNING:
            # the controller refused a second start: a passing word, not a phase of the run (the
            # busy bar stays as it is, and the run's own message comes back after it)
            self.show_fitted_message(*status_forms(text), timeout=5000)
            return
        config = getattr(self, "_run_config", None)
        if config is None:
            return
        # (the whole sentence, shorter forms for a status bar beside the numbers at 1024 x 640)
        forms = status_forms(text, config)
        busy = text != "running"
        self.busy.setVisible(busy)  # before the message is fitted: the bar takes its room
        self.busy.setToolTip(forms[0])
        if text.startswith("warning: "):
            # a slow iteration's warning came just before 'running', which replaced it at once:
            # it stays in the banner while the run goes on (and with the result at its end)
            self._show_notice("Note: " + text[len("warning: "):])
        self.show_fitted_message(*forms)

    def _on_controller_errored(self, message: str) -> None:
        self._show_error(message)

    def _show_error(self, message: str, title: str = "The run stopped with an error:",
                    short: str = "error") -> None:
        """The banner says it all; the status bar `short: message`, cut with a mark where it must
        be (the whole of it in its tooltip)."""
        self.error_banner.setStyleSheet(ERROR_BANNER_STYLE)
        self.error_banner.setText(f"<b>{title}</b> {_escape(message)}")
        self.error_banner.show()
        self.show_fitted_message(*error_forms(message, title, short), timeout=10000)

    def _show_notice(self, message: str) -> None:
        """A banner that informs without alarming (a loaded set-up changed to fit this machine)."""
        self.error_banner.setStyleSheet(NOTICE_BANNER_STYLE)
        self.error_banner.setText(_escape(message))
        self.error_banner.show()

    def _on_controller_finished(self, result) -> None:
        self.busy.hide()
        self._refit_message()  # the busy bar's room is the message's again
        if not self._drawing:  # reset or replaced while it stopped: keep it for export only
            if result is not None:
                self.results.append(result)
            return
        self._render()  # the final snapshot, if it is still waiting
        if result is not None:
            self.results.append(result)
            self.chart.finish(result)
            budget = self.form.budget_edit.text().strip()
            self.show_fitted_message(*finished_forms(result.stop_reason, budget))
            if result.warnings:
                # the run's own warnings (a budget of a few iterations for these walkers, an
                # iteration of minutes) reached the CLI and the API only: a run that ended after
                # 0 iterations said nothing of why here
                self._show_notice("Note: " + "; ".join(result.warnings))

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
            self.chart.note_live_change(name, value)
            self.show_fitted_message(f"{name} = {value}: applies from the next iteration",
                                     f"{name} = {value} from the next iteration", f"{name} = {value}",
                                     timeout=3000)

    def _on_speed_slider_changed(self, value: int) -> None:
        self.controller.set_delay(delay_for_speed(value))
        pace = pace_for_speed(value)
        self.speed_label.setText("full speed" if pace is None else
                                 f"{pace:.3g} iteration{'' if f'{pace:.3g}' == '1' else 's'}/s")

    def _return_focus(self) -> None:
        """A field was committed with Enter: give the keys back to the run controls."""
        self.landscape.plot.setFocus(QtCore.Qt.FocusReason.ShortcutFocusReason)

    # --- status numbers ------------------------------------------------------------------------
    def _show_numbers(self, snap) -> None:
        if snap is None:
            for label in (self.rate_label, self.iter_label, self.evals_label, self.time_label,
                          self.best_label):
                label.setText("")
            return
        self.best_label.setText(f"best {snap.best_f:.6g}")
        self.rate_label.setText(f"{snap.evals_per_second:,.0f} evals/s")
        # the points one iteration moves (walkers x swarms/populations): the number a user predicts
        self.iter_label.setText(f"iteration {snap.iteration:,} x {snap.walkers:,} points")
        nonfinite = snap.nonfinite_evals
        self.evals_label.setToolTip("" if not nonfinite else
                                    f"{nonfinite:,} evaluations gave NaN or inf (treated as +inf)")
        self.evals_label.setText(f"{snap.evals:,} evaluations")
        self.time_label.setText(_seconds_words(snap.seconds))
        grew = False
        for label in (self.best_label, self.rate_label, self.iter_label, self.evals_label,
                      self.time_label):
            # only grow: a long status message must not squeeze the numbers unreadable
            width = label.sizeHint().width()
            if width > label.minimumWidth():
                label.setMinimumWidth(width)
                grew = True
        if grew:  # less room for the message shown beside them (the first numbers of a run)
            self._refit_message()

    # --- a status message that fits ----------------------------------------------------------
    def show_fitted_message(self, full: str, *shorter: str, timeout: int = 0,
                            hover: bool = False) -> None:
        """Show `full` in the status bar if it fits beside the numbers, else the first of `shorter`
        that fits, else the last one (or `full`) elided with its mark; `full` stays in the status
        bar's tooltip while it is shown. `timeout` in ms, as QStatusBar.showMessage's (0: lasting).
        `hover`: a hovered entry's status tip, shown until Qt clears it, then the lasting message
        comes back. Every status message goes through here: QStatusBar clips a message at the
        numbers without a mark, so at 1024 x 640 'running ...' or an error lost its end."""
        deadline = time.monotonic() + timeout / 1000 if timeout > 0 else None
        if deadline is None and not hover:
            self._lasting = (full, *shorter)
        self._fitted = (full, shorter or (full,), deadline, "")
        # a hovered entry's tip (no shorter form) only elided: the numbers are not given up for it,
        # or they would flicker as the pointer crosses a menu
        self._hovered = hover
        self._refit_message()

    def _refit_message(self) -> None:
        """Fit the message shown by show_fitted_message again (resized window, numbers grown, the
        busy bar shown or hidden): the whole text where it fits, else a shorter form."""
        if self._fitted is None:
            self._make_room(0)  # no message: every number back
            return
        full, shorter, deadline, _shown = self._fitted
        remaining = 0
        if deadline is not None:  # a transient message keeps its end
            remaining = round((deadline - time.monotonic()) * 1000)
            if remaining <= 0:
                return  # the status bar's own timer clears it
        bar = self.statusBar()
        metrics = bar.fontMetrics()
        self._make_room(0 if self._hovered else metrics.horizontalAdvance(shorter[-1]))
        width = self.status_message_width()
        shown = next((text for text in (full, *shorter) if metrics.horizontalAdvance(text) <= width),
                     None)
        if shown is None:
            shown = metrics.elidedText(shorter[-1], QtCore.Qt.TextElideMode.ElideRight, width)
            if len(shown) <= 1:  # no room even for a word and its mark: the shortest form, clipped
                shown = shorter[-1]
        self._fitted = (full, shorter, deadline, shown)
        bar.setToolTip(full)
        bar.showMessage(shown, remaining)

    def _make_room(self, needed: int) -> None:
        """Give up spare numbers (self._spare, in order) until the message has `needed` pixels, and
        take back those given up (the last first) that leave it that room."""
        while self._given_up:
            label = self._given_up.pop()
            label.show()
            if self.status_message_width() < needed:
                label.hide()
                self._given_up.append(label)
                break
        for label in self._spare:
            if self.status_message_width() >= needed:
                break
            if label.isVisible():
                label.hide()
                self._given_up.append(label)

    def status_text(self) -> str:
        """The whole text of the status bar's message (what its tooltip says while a shorter form is
        shown; the message itself otherwise)."""
        shown = self.statusBar().currentMessage()
        if self._fitted is not None and shown and shown == self._fitted[3]:
            return self._fitted[0]
        return shown

    def status_tip(self) -> str:
        """The message's hover tip: its whole text, then the numbers given up to make it room (in
        the bar's order, their current values: a run goes on under a long message)."""
        given = [label.text() for label in self._spare if label in self._given_up]
        return "\n".join([self.statusBar().toolTip(), *given])  # a line each: the engine's has a '·' itself

    def status_message_width(self) -> int:
        """Pixels the status bar has for its message: left of the numbers (QStatusBar's own rule)."""
        return self.status_message_rect().width()

    def status_message_rect(self) -> QtCore.QRect:
        """Where the status bar paints its message, in its coordinates: from 6 px to the left of the
        numbers (QStatusBar's own rule); the message's tooltip is shown over it only."""
        bar = self.statusBar()
        if bar.layout() is not None:
            bar.layout().activate()  # the numbers may have just grown: place them first
        right = bar.width() - 12
        grip = bar.findChild(QtWidgets.QSizeGrip)
        if grip is not None and grip.isVisible():
            right = min(right, grip.x())
        for widget in self._permanent:
            if widget.isVisible():
                right = min(right, widget.x() - 2)
        return QtCore.QRect(6, 0, max(0, right - 6), bar.height())

    def _on_status_message_changed(self, text: str) -> None:
        if self._fitted is not None and text != self._fitted[3]:
            self._fitted = None  # another message replaced it: its tooltip goes with it
            self.statusBar().setToolTip("")
            self._make_room(0)  # and the numbers it had taken the room of come back
        if not text and self._lasting is not None:  # a timeout or a menu's hover cleared the bar
            QtCore.QTimer.singleShot(0, self._restore_lasting)

    def _restore_lasting(self) -> None:
        if self._lasting is not None and not self.statusBar().currentMessage():
            self.show_fitted_message(*self._lasting)

    # --- settings and closing ------------------------------------------------------------------
    def _restore_settings(self) -> None:
        s = self.settings
        self.restored_settings = s.value("version", 0, type=int) == SETTINGS_VERSION
        if not self.restored_settings:
            return
        geometry = s.value("window/geometry")
        if isinstance(geometry, QtCore.QByteArray) and not geometry.isEmpty():
            self.restoreGeometry(geometry)
        state = s.value("window/state")
        if isinstance(state, QtCore.QByteArray) and not state.isEmpty():
            self.restoreState(state)
        # a remembered window smaller than the minimum or a squashed chart column is not kept
        if self.width() < MIN_SIZE[0] or self.height() < MIN_SIZE[1]:
            self.resize(*DEFAULT_SIZE)
        if self.chart_dock.isVisible() and self.chart_dock.width() < self.chart.minimumWidth():
            self._size_docks()
        try:
            form_state = json.loads(s.value("form/state", "{}", type=str))
        except (TypeError, ValueError):
            form_state = {}
        self.form.set_state(form_state)
        try:  # before the Tune tab's state: an engine only the cluster has stays chosen there
            self.set_scheduler(check_scheduler(s.value("cluster/scheduler", "", type=str)))
        except ConfigError:
            self.set_scheduler(None)  # a bad remembered address is dropped, not fatal
        try:  # the Tune tab's controls; its axes appear once it is shown the set-up's algorithm
            self.tune_panel.set_state(json.loads(s.value("tune/state", "{}", type=str)))
        except (TypeError, ValueError):
            pass
        self.speed_slider.setValue(s.value("view/speed", SPEED_STEPS, type=int))
        self.landscape.trails_check.setChecked(s.value("view/trails", False, type=bool))
        self.landscape.overlay_check.setChecked(s.value("view/overlay", True, type=bool))

    def save_settings(self) -> None:
        s = self.settings
        s.setValue("version", SETTINGS_VERSION)
        s.setValue("window/geometry", self.saveGeometry())
        s.setValue("window/state", self.saveState())
        s.setValue("form/state", json.dumps(self.form.state()))
        s.setValue("tune/state", json.dumps(self.tune_panel.state()))
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

    def event(self, event: QtCore.QEvent) -> bool:  # Qt override
        if event.type() == QtCore.QEvent.Type.StatusTip and event.tip():
            # a hovered preset's description: QMainWindow showed it clipped at the numbers. Only
            # while hovered: kept as the lasting message, it came back after the menu closed in
            # place of the run's 'finished, ...' (Qt's empty tip at the hover's end clears it)
            self.show_fitted_message(event.tip(), hover=True)
            return True
        return super().event(event)

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        if getattr(self, "_fitted", None) is not None or getattr(self, "_given_up", None):
            # more or less room: full text or short, numbers given up or back
            QtCore.QTimer.singleShot(0, self._refit_message)
        # Qt gives a growing window's width to the centre only: a chart column squeezed on a
        # small screen would stay squeezed on a large one. Give it back its width when there is room.
        if (event.oldSize().width() > 0 and event.size().width() > event.oldSize().width()
                and event.size().width() >= 1300 and self.chart_dock.isVisible()
                and not self.chart_dock.isFloating() and self.chart_dock.width() < 0.8 * CHART_WIDTH):
            QtCore.QTimer.singleShot(0, lambda: self.resizeDocks(
                [self.chart_dock], [CHART_WIDTH], QtCore.Qt.Orientation.Horizontal))

    def closeEvent(self, event: QtGui.QCloseEvent) -> None:  # noqa: N802 - Qt override
        if getattr(self, "recorder", None) is not None and self.recorder.recording:
            # closing while recording dropped the recording without a word: offer to save it first
            self.record_action.setChecked(False)
        self.save_settings()
        self.shutdown()
        super().closeEvent(event)


ERROR_BANNER_STYLE = "background: #5a1d1a; color: #ffd9d4; padding: 6px;"
NOTICE_BANNER_STYLE = "background: #1d3a5a; color: #d8e8ff; padding: 6px;"


class _MessageTip(QtCore.QObject):
    """The status bar's hover tips: its tooltip (the message's whole text) over the message only,
    with the numbers given up for it (MainWindow._make_room) as they read now; over the numbers, a
    number's own tooltip or none (their gaps, the size grip: none)."""

    def __init__(self, window: MainWindow):
        super().__init__(window)
        self._window = window

    def eventFilter(self, bar, event) -> bool:  # noqa: N802 - Qt override
        if event.type() != QtCore.QEvent.Type.ToolTip:
            return False
        room = self._window.status_message_rect()
        if bar.toolTip() and room.contains(event.pos()):
            # with the room as its rect: hidden as the pointer leaves the message for a number
            QtWidgets.QToolTip.showText(event.globalPos(), self._window.status_tip(), bar, room)
        else:
            QtWidgets.QToolTip.hideText()
        event.accept()  # handled here: not handed on to the window
        return True


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _seconds_words(seconds: float) -> str:
    """Compute time with a unit a class reads at a glance: ms below a second."""
    return f"{seconds * 1000:.0f} ms" if seconds < 1.0 else f"{seconds:.2f} s"


def _plain_reason(reason: str) -> str:
    """An engine's unavailability without a raw driver error (see solvers.engines)."""
    from .engine_words import plain_reason  # noqa: PLC0415

    return plain_reason(reason)


def _check_action(parent: QtCore.QObject, text: str, box: QtWidgets.QCheckBox) -> QtGui.QAction:
    """A checkable menu entry mirroring a check box."""
    act = QtGui.QAction(text, parent)
    act.setCheckable(True)
    act.setChecked(box.isChecked())
    act.toggled.connect(box.setChecked)
    box.toggled.connect(act.setChecked)
    return act

