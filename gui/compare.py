"""Live engine comparison: the same RunConfig at once on every chosen engine, charted side by side.

How to wire it (main window; MainWindow.add_panel already does the first three):
    self.compare_panel = ComparePanel()                  # a tab of its own
    self.compare_panel.set_config(config)                # the form's configuration (engine ignored)
    closeEvent: self.compare_panel.shutdown()            # stops and joins every engine's thread
    self.compare_panel.sigSnapshot.connect(...)          # optional: (engine, Snapshot) to draw one run
    self.compare_panel.sigRunningChanged.connect(...)    # optional: e.g. keep the GPU for one thing
Each engine runs on its own gui.controller.RunController (one SolverWorker on one QThread), so
starting, stopping and joining follow the main run's rules exactly. Charts: evaluations per second
per engine over time, each engine's speedup over the chosen CPU baseline (numpy, or numba on every
or one core: the 'Speedup vs' choice; ratio of evaluations per second so far),
and best value against seconds per engine. Those live figures share the interpreter with the
window's repainting, which slows light CPU runs several-fold; so once the race ends, each engine's
rate is measured again, one engine at a time on a worker thread while the charts are still, by the
rule of solvers/measure.py (the benchmark's and the sweep's), and the table shows those numbers. Engines that cannot run (no device, no CuPy, no fused
kernel for this algorithm) are shown disabled with the reason in their tooltip.
"""
from __future__ import annotations

import threading
from typing import Callable

import numpy as np
import pyqtgraph as pg
from PyQt6 import QtCore, QtWidgets

from solvers import measure
from solvers.config import RunConfig
from solvers.engines import get_engine, gpu_status, list_engines
from solvers.problems import list_problems

from .baseline import baseline_combo, baseline_words
from .controller import RunController
from .engine_words import TIMING_NOTE, gpu_notice_label, plain_reason
from .pinned import pinned_legend
from .status_words import cell_words, error_forms, finished_forms, starting_forms, status_forms
from .sweep import engine_color, engine_pen, read_config_source

MAX_POINTS = 20_000  # per engine and series; beyond it every other point is dropped
# The charts need only scalars, so the compared runs copy a single walker per snapshot: less
# device-to-host traffic and less GIL time taken from the other engines' threads.
COMPARE_SAMPLE_SIZE = 1
# The runner's words for a run simply going on: after a slow iteration's warning they must not take
# its place (the window keeps that warning in its banner while the run goes on)
GOING_ON = ("first iteration", "running")
WARNING = "warning: "  # the runner's prefix for a warning (the window's too)


def engine_availability(engine: str, algorithm: str) -> tuple[bool, str]:
    """(available, reason or device) for running `algorithm` on `engine` here."""
    return get_engine(engine).supports(algorithm)


class MeasureWorker(QtCore.QObject):
    """Measures each engine's rate for one configuration by solvers/measure.py's rule, one engine
    after another, on the thread it is moved to; stop() (any thread) ends it between engines."""

    sigStatus = QtCore.pyqtSignal(str, str)  # engine, text
    sigMeasured = QtCore.pyqtSignal(str, object)  # engine, measure.Timing
    sigErrored = QtCore.pyqtSignal(str, str)  # engine, message
    sigFinished = QtCore.pyqtSignal()

    def __init__(self, config: RunConfig, engines: list[str]):
        super().__init__()
        self.config, self.engines = config, list(engines)
        self._cancel = threading.Event()

    def stop(self) -> None:
        self._cancel.set()

    @QtCore.pyqtSlot()
    def run(self) -> None:
        c = self.config
        try:
            for engine in self.engines:
                if self._cancel.is_set():
                    break
                self.sigStatus.emit(engine, "measuring")
                try:
                    timing = measure.measure_rate(engine, c.algorithm, c.make_problem(), c.params,
                                                  dtype=c.dtype, fast_math=c.fast_math, seed=c.seed,
                                                  threads=c.threads)
                except Exception as exc:  # noqa: BLE001 - reported in the engine's row
                    self.sigErrored.emit(engine, f"{type(exc).__name__}: {exc}")
                    continue
                self.sigMeasured.emit(engine, timing)
        finally:
            self.sigFinished.emit()


class _Series:
    """Growing chart data of one engine, bounded by dropping every other point when full."""

    def __init__(self):
        self.seconds: list[float] = []
        self.evals: list[int] = []
        self.best: list[float] = []
        self.rate: list[float] = []  # evaluations per second over the last snapshot interval
        self.rate_t: list[float] = []

    def add(self, seconds: float, evals: int, best: float) -> None:
        if self.seconds and seconds > self.seconds[-1] and evals >= self.evals[-1]:
            self.rate.append((evals - self.evals[-1]) / (seconds - self.seconds[-1]))
            self.rate_t.append(seconds)
        self.seconds.append(seconds)
        self.evals.append(evals)
        self.best.append(best)
        for name in ("seconds", "evals", "best", "rate", "rate_t"):
            values = getattr(self, name)
            if len(values) > MAX_POINTS:
                keep = values[::2]
                if (len(values) - 1) % 2:
                    keep.append(values[-1])  # the latest point always stays
                setattr(self, name, keep)

    def evals_per_second(self) -> float | None:
        """Average so far (evaluations / seconds), the fair long-run rate."""
        if not self.seconds or self.seconds[-1] <= 0:
            return None
        return self.evals[-1] / self.seconds[-1]


class _EngineRow:
    """The widgets of one engine in the panel's table."""

    def __init__(self, engine: str, grid: QtWidgets.QGridLayout, row: int):
        self.check = QtWidgets.QCheckBox(engine)
        r, g, b = engine_color(engine)
        self.check.setStyleSheet(f"QCheckBox {{ color: rgb({r},{g},{b}); font-weight: bold; }}")
        self.busy = QtWidgets.QProgressBar()
        self.busy.setRange(0, 0)  # indeterminate: compiling, initialising
        self.busy.setMaximumWidth(60)
        self.busy.setTextVisible(False)
        self.busy.hide()
        self.status = QtWidgets.QLabel("idle")
        self.note: str | None = None  # this race's slow-iteration warning, kept to its end
        self.rate = QtWidgets.QLabel("")
        self.best = QtWidgets.QLabel("")
        self.speedup = QtWidgets.QLabel("")
        for col, w in enumerate((self.check, self.busy, self.status, self.rate, self.best,
                                 self.speedup)):
            grid.addWidget(w, row, col)

    def clear(self) -> None:
        for label in (self.rate, self.best, self.speedup):
            label.setText("")
        self.note = None

    def say(self, forms: tuple[str, ...]) -> None:
        """The status in the window's words (gui/status_words.py): a few in the narrow cell, the
        whole sentence in its tooltip."""
        self.status.setText(cell_words(forms))
        whole = forms[0]
        if self.note and self.note not in whole:  # the warning under what replaced it
            whole = f"{whole}\nNote: {self.note}"
        self.status.setToolTip(whole)


class ComparePanel(QtWidgets.QWidget):
    """Runs one configuration on several engines at once and charts their race."""

    sigRunningChanged = QtCore.pyqtSignal(bool)
    sigSnapshot = QtCore.pyqtSignal(str, object)  # engine, Snapshot
    sigFinished = QtCore.pyqtSignal()  # every engine's thread has been joined

    def __init__(self, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self._config = _default_config()
        # the last race's configuration, its rows' words said of it: set_config may change
        # _config meanwhile (the window gives it each of its own runs)
        self._race_config: RunConfig | None = None
        # the Set-up panel's configuration, read at every start (None: the one set_config gave)
        self.config_source: Callable[[], RunConfig | None] | None = None
        self._controllers: dict[str, RunController] = {}
        self._series: dict[str, _Series] = {}
        self._curves: dict[tuple[pg.PlotWidget, str], pg.PlotDataItem] = {}
        self._results: dict[str, object] = {}
        self._errors: dict[str, str] = {}
        self._usable: set[str] = set()  # engines that can run the current algorithm here
        self._measured: dict[str, measure.Timing] = {}
        self._measure_thread: QtCore.QThread | None = None
        self._measure_worker: MeasureWorker | None = None
        self._stopped = False
        self._build_ui()
        self.set_config(self._config)

    # --- public ----------------------------------------------------------------------------------
    def set_config(self, config: RunConfig) -> None:
        """The configuration to compare (its engine is replaced by each engine in turn)."""
        self._config = config
        c = config
        self.config_label.setText(f"<b>{c.algorithm}</b> on <b>{c.problem}</b>, {c.dim}-D, "
                                  f"{c.dtype}, seed {c.seed}, budget {_budget_text(c)}")
        if not self.is_running:
            self._refresh_engines()
            self._show_baseline()

    def baseline(self) -> str:
        """The CPU engine the speedups are against (the 'Speedup vs' choice)."""
        return self.baseline_combo.currentData()

    @property
    def is_running(self) -> bool:
        return self._measure_thread is not None or any(c.is_running for c in self._controllers.values())

    @property
    def measured(self) -> dict:
        """engine -> measure.Timing of the last comparison (the rates the table shows)."""
        return dict(self._measured)

    @property
    def results(self) -> dict:
        """engine -> RunResult of the last comparison (None for an engine that failed)."""
        return dict(self._results)

    @property
    def errors(self) -> dict:
        return dict(self._errors)

    def selected_engines(self) -> list[str]:
        return [e for e, row in self._rows.items() if e in self._usable and row.check.isChecked()]

    def start(self) -> bool:
        """Start every chosen engine; False (reason in the status line) if refused."""
        if self.is_running:
            return False
        if not read_config_source(self):
            return False
        self._refresh_engines()
        engines = self.selected_engines()
        if not engines:
            self.status_label.setText("choose at least one available engine")
            return False
        self._clear()
        self._stopped = False
        for engine in engines:
            controller = RunController(self)
            controller.sigStatus.connect(lambda text, e=engine: self._on_controller_status(e, text))
            controller.sigSnapshot.connect(lambda snap, e=engine: self._on_controller_snapshot(e, snap))
            controller.sigErrored.connect(lambda msg, e=engine: self._on_controller_errored(e, msg))
            controller.sigFinished.connect(lambda res, e=engine: self._on_controller_finished(e, res))
            self._controllers[engine] = controller
        config = self._race_config = self._config
        for engine, controller in self._controllers.items():
            row = self._rows[engine]
            row.say(starting_forms(config.replace(engine=engine)))
            controller.start(config.replace(engine=engine, sample_size=COMPARE_SAMPLE_SIZE))
            self._show_busy(engine)
        self.status_label.setText(f"comparing {', '.join(engines)}")
        self._set_running(True)
        return True

    def stop(self) -> None:
        """Ask every engine to stop at its next chunk; the panel is idle once all have joined."""
        self._stopped = True
        for controller in self._controllers.values():
            controller.stop()
        if self._measure_worker is not None:
            self._measure_worker.stop()

    def shutdown(self) -> None:
        """Stop and join every engine's thread now (window close); safe to call twice."""
        self._stopped = True
        for controller in list(self._controllers.values()):
            controller.shutdown()  # emits sigFinished synchronously once joined
        if self._measure_thread is not None:
            self._measure_worker.stop()
            self._measure_thread.quit()
            self._measure_thread.wait()
            self._on_measure_finished()

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        self.shutdown()
        super().closeEvent(event)

    # --- building ---------------------------------------------------------------------------------
    def _build_ui(self) -> None:
        self.config_label = QtWidgets.QLabel()
        self.config_label.setWordWrap(True)
        grid = QtWidgets.QGridLayout()
        for col, title in enumerate(("engine", "", "status", "evaluations / s", "best", "speedup")):
            label = QtWidgets.QLabel(f"<i>{title}</i>")
            grid.addWidget(label, 0, col)
        self.speedup_header = grid.itemAtPosition(0, 5).widget()
        grid.itemAtPosition(0, 3).widget().setToolTip(
            "Live during the race; once it ends, measured one engine at a time (build and warm-up "
            "excluded, median of timed repeats), like the benchmark and the sweep")
        self._rows = {engine: _EngineRow(engine, grid, i + 1)
                      for i, engine in enumerate(list_engines())}
        grid.setColumnStretch(2, 1)
        self.start_button = QtWidgets.QPushButton("Compare")
        self.start_button.setToolTip("Run the form's configuration on every checked engine at once")
        self.start_button.clicked.connect(self._on_start_clicked)
        self.stop_button = QtWidgets.QPushButton("Stop")
        self.stop_button.setEnabled(False)
        self.stop_button.clicked.connect(self._on_stop_clicked)
        self.status_label = QtWidgets.QLabel("idle")
        self.baseline_combo = baseline_combo()
        self.baseline_combo.currentIndexChanged.connect(self._on_baseline_combo_changed)
        buttons = QtWidgets.QHBoxLayout()
        buttons.addWidget(self.start_button)
        buttons.addWidget(self.stop_button)
        buttons.addWidget(QtWidgets.QLabel("Speedup vs"))
        buttons.addWidget(self.baseline_combo)
        buttons.addWidget(self.status_label, 1)

        self.rate_plot = pg.PlotWidget(title="Evaluations per second")
        self.speedup_plot = pg.PlotWidget(title="Speedup")
        self.best_plot = pg.PlotWidget(title="Best value")
        for plot, ylabel, logy in ((self.rate_plot, "evaluations / s", True),
                                   (self.speedup_plot, "x the baseline's evaluations / s so far", False),
                                   (self.best_plot, "best f", True)):
            plot.setLogMode(x=False, y=logy)
            plot.showGrid(x=True, y=True, alpha=0.3)
            plot.setLabel("bottom", "seconds since start")
            plot.setLabel("left", ylabel)
            pinned_legend(plot.getPlotItem())  # top left, 5 px in (gui/pinned.py)
        self.speedup_plot.addItem(pg.InfiniteLine(pos=1.0, angle=0, pen=pg.mkPen(
            (150, 150, 150), style=QtCore.Qt.PenStyle.DashLine)))
        self.best_plot.setXLink(self.rate_plot)
        self.speedup_plot.setXLink(self.rate_plot)
        charts = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        top = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        top.addWidget(self.rate_plot)
        top.addWidget(self.speedup_plot)
        charts.addWidget(top)
        charts.addWidget(self.best_plot)

        gpu = gpu_status()
        self.gpu_note = gpu_notice_label(gpu)
        self.timing_note = QtWidgets.QLabel(TIMING_NOTE)
        self.timing_note.setWordWrap(True)
        self.timing_note.setStyleSheet("color: #8a8a8a;")
        self._speedup_empty = None
        if not gpu[0]:
            # an empty chart must say why it is empty (until a CPU engine's curve is drawn)
            empty = self._speedup_empty = pg.TextItem("no GPU engine here:\nCPU engines only",
                                                      color=(200, 200, 200), anchor=(0.5, 0.5))
            self.speedup_plot.addItem(empty, ignoreBounds=True)
            empty.setPos(0.5, 1.0)
            self.speedup_plot.setXRange(0, 1)
            self.speedup_plot.setYRange(0, 2)
        for plot in (self.rate_plot, self.speedup_plot, self.best_plot):
            plot.getPlotItem().getAxis("left").enableAutoSIPrefix(False)
            plot.setMinimumWidth(140)

        layout = QtWidgets.QVBoxLayout(self)
        layout.addWidget(self.gpu_note)
        layout.addWidget(self.config_label)
        layout.addLayout(grid)
        layout.addLayout(buttons)
        layout.addWidget(self.timing_note)
        layout.addWidget(charts, 1)

    def _refresh_engines(self) -> None:
        """Enable the engines that can run this algorithm here; a newly usable one starts checked,
        otherwise the user's choice is kept."""
        running = self.is_running
        for engine, row in self._rows.items():
            ok, reason = engine_availability(engine, self._config.algorithm)
            if ok and engine not in self._usable:
                row.check.setChecked(True)
            elif not ok:
                row.check.setChecked(False)
            # a row keeps the last race's outcome beside its rate (the window sets its set-up here
            # whenever it starts a run) until the next race clears both
            kept = engine in self._results or engine in self._errors
            if ok != (engine in self._usable) or (not running and not kept):
                row.status.setText("idle" if ok else "unavailable")
            if ok:
                self._usable.add(engine)
            else:
                self._usable.discard(engine)
            row.check.setEnabled(ok and not running)
            row.check.setToolTip(reason if ok else f"unavailable: {plain_reason(reason)} ({reason})")
            if not ok or not kept:
                row.status.setToolTip("" if ok else f"{plain_reason(reason)} ({reason})")

    def _clear(self) -> None:
        for (plot, _engine), curve in self._curves.items():
            plot.removeItem(curve)  # also takes it out of the legend
        self._curves.clear()
        self._series.clear()
        self._results.clear()
        self._errors.clear()
        self._measured.clear()
        for engine, row in self._rows.items():
            row.clear()
            if engine in self._usable:  # the last race's outcome goes with its rate
                row.status.setText("idle")
                row.status.setToolTip("")

    def _show_baseline(self) -> None:
        """Name the chosen baseline (and its threads) in the speedup chart and column titles."""
        label, tip = baseline_words(self.baseline(), self._config.threads)
        self.speedup_plot.setTitle(f"x vs {label}")
        self.speedup_plot.setLabel("left", f"x {self.baseline()}'s evaluations / s so far")
        self.speedup_header.setText(f"<i>x vs {label}</i>")
        self.speedup_header.setToolTip(tip)

    def _set_running(self, running: bool) -> None:
        self.start_button.setEnabled(not running)
        self.stop_button.setEnabled(running)
        self.baseline_combo.setEnabled(not running)
        for engine, row in self._rows.items():
            row.check.setEnabled(not running and engine in self._usable)
        self.sigRunningChanged.emit(running)

    def _curve(self, plot: pg.PlotWidget, engine: str) -> pg.PlotDataItem:
        key = (plot, engine)
        if plot is self.speedup_plot and self._speedup_empty is not None:
            plot.removeItem(self._speedup_empty)  # a real curve now: no empty-chart note
            self._speedup_empty = None
            plot.enableAutoRange()
        if key not in self._curves:
            self._curves[key] = plot.plot([], [], pen=engine_pen(engine), name=engine)
        return self._curves[key]

    # --- slots (GUI thread; the controllers relay their workers' queued signals) ----------------
    def _on_start_clicked(self) -> None:
        self.start()

    def _on_stop_clicked(self) -> None:
        self.stop()
        self.status_label.setText("stopping")

    def _on_controller_status(self, engine: str, text: str) -> None:
        row = self._rows[engine]
        self._show_busy(engine)
        if text.startswith(WARNING):
            row.note = text[len(WARNING):]
        elif row.note and text in GOING_ON:
            return  # the runner says 'running' right after its warning: the warning stays
        row.say(status_forms(text, self._race_config.replace(engine=engine)))

    def _show_busy(self, engine: str) -> None:
        """The row's busy bar, from its run's state: on while the run is live and nothing else
        shows it working (no snapshot drawn yet: compiling, placing the walkers) or it is stopping
        (a long iteration may hold the stop for a while); off once its thread has ended."""
        controller = self._controllers.get(engine)
        live = controller is not None and controller.is_running
        waiting = live and (engine not in self._series or controller.is_stopping)
        # not while snapshots flow: the rate and best show it working, and the bar's repaints
        # take the interpreter from the CPU engines racing (as from the measuring, 00373b3)
        self._rows[engine].busy.setVisible(waiting)

    def _on_controller_snapshot(self, engine: str, snap) -> None:
        series = self._series.setdefault(engine, _Series())
        series.add(float(snap.seconds), int(snap.evals), float(snap.best_f))
        row = self._rows[engine]
        self._show_busy(engine)
        rate = series.evals_per_second()
        row.rate.setText("" if rate is None else f"{rate:,.0f}")
        row.best.setText(f"{snap.best_f:.6g}")
        if series.rate:
            self._curve(self.rate_plot, engine).setData(
                np.asarray(series.rate_t), np.maximum(np.asarray(series.rate), 1e-300))
        finite = np.isfinite(series.best)
        if finite.any():
            best = np.asarray(series.best)[finite]
            # log axis: a best of exactly 0 (a minimum reached) is drawn at the smallest double
            self._curve(self.best_plot, engine).setData(
                np.asarray(series.seconds)[finite], np.maximum(best, 1e-300))
        self._update_speedups()
        self.sigSnapshot.emit(engine, snap)

    def _on_baseline_combo_changed(self, *_args) -> None:
        self._show_baseline()
        for (plot, engine), curve in list(self._curves.items()):
            if plot is self.speedup_plot:
                plot.removeItem(curve)
                del self._curves[(plot, engine)]
        for row in self._rows.values():
            row.speedup.setText("")
        self._update_speedups()
        self._show_measured_speedups()

    def _update_speedups(self) -> None:
        reference = self.baseline()
        base = self._series.get(reference)
        if base is None or len(base.seconds) < 2:
            return
        t0 = np.asarray(base.seconds)
        rate0 = np.asarray(base.evals, float) / np.where(t0 > 0, t0, np.nan)
        now_rate0 = base.evals_per_second()
        for engine, series in self._series.items():
            if engine == reference or len(series.seconds) < 2:
                continue
            t = np.asarray(series.seconds)
            rate = np.asarray(series.evals, float) / np.where(t > 0, t, np.nan)
            # numpy's rate so far, at the same moments (held at its last value once it has ended)
            ref = np.interp(t, t0[1:], rate0[1:])
            ratio = rate / ref
            keep = np.isfinite(ratio) & (ratio > 0)
            if keep.any():
                self._curve(self.speedup_plot, engine).setData(t[keep], ratio[keep])
            current = series.evals_per_second()
            if current and now_rate0:
                self._rows[engine].speedup.setText(f"{current / now_rate0:.3g}x")
        self._rows[reference].speedup.setText("1x")

    def _on_controller_errored(self, engine: str, message: str) -> None:
        self._errors[engine] = message
        row = self._rows[engine]
        row.note = None  # as in the window, whose error banner replaces the warning's
        row.say(error_forms(message))
        self._show_busy(engine)

    def _on_controller_finished(self, engine: str, result) -> None:
        self._results[engine] = result
        controller = self._controllers.pop(engine, None)
        if controller is not None:
            controller.deleteLater()
        row = self._rows[engine]
        self._show_busy(engine)  # its thread has been joined: off
        if result is not None:
            row.say(self._finished_forms(result))
        if not self._controllers:
            done = [e for e, r in self._results.items() if r is not None]
            if done and not self._stopped:
                self._start_measuring(done)
            else:
                self._finish()

    def _finished_forms(self, result) -> tuple[str, ...]:
        """The window's words for a run's end, with its seconds (the race's budget, as written)."""
        budget = self._race_config.budget
        value = {"max_iters": budget.max_iters, "max_evals": budget.max_evals,
                 "max_seconds": budget.max_seconds}.get(result.stop_reason)
        # a count as written ('1000000', not '1e+06'); seconds as the form shows them ('2.5')
        written = "" if value is None else f"{value:g}" if isinstance(value, float) else str(value)
        full, *shorter = finished_forms(result.stop_reason, written)
        return (f"{full} ({result.seconds:.3g} s)", *shorter)

    def _finish(self) -> None:
        # in the rows' order, not the order the runs happened to end in
        done = [e for e in self._rows if self._results.get(e) is not None]
        self.status_label.setText(f"finished: {', '.join(done) or 'none'}"
                                  + (f"; failed: {', '.join(self._errors)}" if self._errors else ""))
        self._set_running(False)
        self.sigFinished.emit()

    # --- measuring after the race (solvers/measure.py's rule) ------------------------------------
    def _start_measuring(self, engines: list[str]) -> None:
        self.status_label.setText("measuring each engine's rate, one at a time")
        # the race's set-up: the window may have set another (its own run) since the race started
        worker = MeasureWorker(self._race_config.replace(sample_size=COMPARE_SAMPLE_SIZE), engines)
        thread = QtCore.QThread()
        thread.setObjectName("compare-measure")
        worker.moveToThread(thread)
        worker.sigStatus.connect(self._on_measure_status)
        worker.sigMeasured.connect(self._on_measure_measured)
        worker.sigErrored.connect(self._on_measure_errored)
        worker.sigFinished.connect(thread.quit)
        thread.started.connect(worker.run)
        thread.finished.connect(self._on_measure_finished)
        self._measure_worker, self._measure_thread = worker, thread
        thread.start()

    def _on_measure_status(self, engine: str, text: str) -> None:
        # no busy animation here: its repaints would take the interpreter from the measurement
        words = {"measuring": ("measuring its rate alone (build and warm-up excluded)",
                               "measuring")}.get(text, (text,))
        self._rows[engine].say(words)

    def _on_measure_measured(self, engine: str, timing) -> None:
        self._measured[engine] = timing
        row = self._rows[engine]
        row.busy.hide()
        rate = timing.evals_per_second
        row.rate.setText("" if rate is None else f"{rate:,.0f}")
        result = self._results.get(engine)
        done = f"{self._finished_forms(result)[0]}; " if result is not None else ""
        row.say((f"{done}rate measured: median of {timing.repeats} x {timing.iterations:,} "
                 "iterations", "rate measured"))
        self._show_measured_speedups()

    def _show_measured_speedups(self) -> None:
        """Each measured rate over the baseline's measured rate (same run, same rule)."""
        base = self._measured.get(self.baseline())
        for name, t in self._measured.items():
            if base is not None and base.evals_per_second and t.evals_per_second:
                self._rows[name].speedup.setText(f"{t.evals_per_second / base.evals_per_second:.3g}x")

    def _on_measure_errored(self, engine: str, message: str) -> None:
        row = self._rows[engine]
        row.busy.hide()
        row.say((f"rate not measured: {message}", "not measured"))

    def _on_measure_finished(self) -> None:
        thread, self._measure_thread = self._measure_thread, None
        if thread is None:
            return  # already joined by shutdown()
        thread.wait()
        self._measure_worker = None
        for row in self._rows.values():
            row.busy.hide()
        self._finish()


def _budget_text(config: RunConfig) -> str:
    b = config.budget
    parts = []
    if b.max_evals is not None:
        parts.append(f"{b.max_evals:,} evaluations")
    if b.max_iters is not None:
        parts.append(f"{b.max_iters:,} iterations")
    if b.max_seconds is not None:
        parts.append(f"{b.max_seconds:g} s")
    return " or ".join(parts)


def _default_config() -> RunConfig:
    """A 2-D classroom setting until the main window calls set_config."""
    problems = list_problems()
    problem = "rastrigin" if "rastrigin" in problems else problems[0]
    return RunConfig.build("pattern_search", problem, 2, params={"walkers": 4096}, max_seconds=10.0)
