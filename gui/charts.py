"""Live charts: the best value against evaluations and against seconds (previous runs kept as faded,
labelled curves), and the per-algorithm panel plotting a snapshot's ``extras`` over iterations."""
from __future__ import annotations

import dataclasses
import math

import numpy as np
import pyqtgraph as pg
from PyQt6 import QtCore, QtWidgets

from gui.plot_title import elide_title
from solvers import RunConfig
from solvers.params import specs
from solvers.problems import get_problem

MAX_PREVIOUS = 6  # faded curves kept for comparison
# the least height an extras chart is drawn at (its title, ticks and a readable curve): where the
# panel has less than this for each, it shows one chart and a picker of the quantity. Of 100 px the
# title took 30 and the iteration axis 43: 15 px were left for the curve; 140 leave ~55
PLOT_HEIGHT = 140
LOG_SPAN = 100.0  # extras whose positive values span more than this ratio get a log axis
CURRENT_PEN = pg.mkPen(255, 170, 40, width=2.2)
PREVIOUS_HUES = [(110, 170, 255), (140, 220, 140), (230, 120, 200), (120, 220, 220), (230, 220, 110),
                 (200, 150, 255)]


def quiet_axes(plot: pg.PlotItem) -> None:
    """Ticks outside the plot, so redrawing a curve does not repaint the axes' text as well; no
    SI multiplier ("(x0.001)") beside a label: log axes read as plain powers of ten, and times
    carry their unit in the label."""
    for name in ("left", "bottom"):
        axis = plot.getAxis(name)
        axis.setStyle(tickLength=5)
        axis.enableAutoSIPrefix(False)


# The left axis of a log chart says its scale (the titles name the value): the longest of these
# that fits the axis's height, where the label is drawn turned a quarter.
LOG_LABELS = ("log scale", "log")


def label_width(axis: pg.AxisItem, text: str) -> float:
    """How wide `axis` would draw `text` as its label (the label's font, style and margins)."""
    shown = axis.labelText
    axis.labelText = text  # labelString() formats the axis's own text (units, style, spacing)
    try:
        html = axis.labelString()
    finally:
        axis.labelText = shown
    probe = QtWidgets.QGraphicsTextItem()
    probe.setFont(axis.label.font())
    probe.setHtml(html)
    return probe.boundingRect().width()


def fit_left_label(plot: pg.PlotItem, log: bool) -> None:
    """The left axis's label: the longest of LOG_LABELS that fits its height on a log chart, none
    where even the shortest does not (a chart squeezed short, or a font twice the usual width: the
    offscreen Qt of the GPU machine) nor on a linear chart. pyqtgraph draws a label past its axis
    rather than cropping it, into the chart above or below."""
    axis = plot.getAxis("left")
    height = axis.geometry().height()
    text = next((t for t in LOG_LABELS if log and label_width(axis, t) <= height), None)
    if text is None:
        if axis.label.isVisible():
            axis.showLabel(False)
    elif axis.labelText != text or not axis.label.isVisible():
        plot.setLabel("left", text)


def log_floor(values) -> float:
    """Where exact zeros are drawn on a log axis: a decade below the smallest positive value."""
    positive = [v for v in values if v > 0]
    return min(positive) / 10.0 if positive else 1e-12


def time_unit(seconds) -> tuple[str, float]:
    """("ms", 1000) while every time is below a second, else ("s", 1)."""
    return ("ms", 1000.0) if not seconds or max(seconds) < 1.0 else ("s", 1.0)


def params_label(config: RunConfig) -> str:
    """A short label naming a run by what was chosen: engine, seed and non-default parameters."""
    values = dataclasses.asdict(config.params)
    # an 'auto' count (0) reads 'auto': the legend said 'walkers=0' for a run of 40 particles
    changed = [f"{s.name}={'auto' if s.auto and values[s.name] == 0 else values[s.name]}"
               for s in specs(type(config.params)) if values[s.name] != s.default or s.name == "walkers"]
    return f"{config.algorithm} · {config.engine} · seed {config.seed}" + (
        " · " + ", ".join(changed) if changed else "")


@dataclasses.dataclass
class _Curve:
    label: str
    evals: list
    seconds: list
    best: list


class ConvergenceChart(QtWidgets.QWidget):
    """Best value found so far, against evaluations and against compute seconds (log y where
    every value is positive), with the function's known minimum as a dashed line."""

    def __init__(self, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self.view = pg.GraphicsLayoutWidget()
        self.by_evals = self.view.addPlot(row=0, col=0, title="best value vs evaluations")
        self.by_seconds = self.view.addPlot(row=1, col=0, title="best value vs seconds")
        for plot in (self.by_evals, self.by_seconds):
            elide_title(plot)  # in a narrow column or a wide font, cut: not charts past the edge
        self.by_evals.setLabel("bottom", "evaluations")
        self.by_seconds.setLabel("bottom", "compute time (s)")
        self.plots = (self.by_evals, self.by_seconds)
        # no grid lines: they double the cost of repainting a chart (measured, see gui.md)
        for plot in self.plots:
            plot.setMenuEnabled(False)
            quiet_axes(plot)
        self.min_lines = []
        for plot in self.plots:
            dashed = pg.mkPen(255, 255, 255, 160, style=QtCore.Qt.PenStyle.DashLine)
            line = pg.InfiniteLine(angle=0, pen=dashed, label="known minimum",
                                   labelOpts={"position": 0.85, "color": (220, 220, 220)})
            line.setVisible(False)
            plot.addItem(line, ignoreBounds=True)
            self.min_lines.append(line)
        self.current: _Curve | None = None
        self.previous: list[_Curve] = []
        self.f_min: float | None = None
        self._items_current = [plot.plot(pen=CURRENT_PEN) for plot in self.plots]
        self._items_previous: list[list[pg.PlotDataItem]] = []
        self._log = None
        self._labels = None
        self._zero = False  # the log axis draws exact zeros at its floor (said in the legend)
        self._unit = ("s", 1.0)
        # the legend is a label under the plots: run labels are long and would hide the curves
        self.legend = QtWidgets.QLabel()
        self.legend.setWordWrap(True)
        self.legend.setTextFormat(QtCore.Qt.TextFormat.RichText)
        self.clear_button = QtWidgets.QPushButton("Clear previous runs")
        self.clear_button.clicked.connect(self.clear_previous)
        self.clear_button.hide()  # until there are previous runs (_rebuild_previous)
        legend_scroll = QtWidgets.QScrollArea()
        legend_scroll.setWidget(self.legend)
        legend_scroll.setWidgetResizable(True)
        legend_scroll.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        legend_scroll.setMaximumHeight(84)
        bottom = QtWidgets.QHBoxLayout()
        bottom.addWidget(legend_scroll, 1)
        bottom.addWidget(self.clear_button, 0, QtCore.Qt.AlignmentFlag.AlignTop)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view, 1)
        layout.addLayout(bottom)
        # a chart made shorter or taller (a dock dragged, the window resized) fits its label again
        for plot in self.plots:
            plot.getAxis("left").geometryChanged.connect(
                lambda plot=plot: fit_left_label(plot, bool(self._log)))

    # --- feeding -------------------------------------------------------------------------------
    def begin_run(self, config: RunConfig) -> None:
        """Archive the current curve as a faded one and start a new curve for `config`."""
        self._archive_current()
        self.current = _Curve(params_label(config), [], [], [])
        self._set_problem(config.problem, config.dim, config.f_min)
        self._rebuild_previous()
        self.refresh()

    def clear_for(self, problem: str, dim: int, f_min: float | None = None) -> None:
        """A new set-up was loaded: no current run; earlier curves stay (faded) only if they are
        comparable, i.e. on the same function and dimension (`f_min`: a typed function's known
        minimum)."""
        self._archive_current()
        self.current = None
        self._set_problem(problem, dim, f_min)
        self._rebuild_previous()
        self.refresh()

    def note_live_change(self, name: str, value) -> None:
        """A [live] parameter was changed during the run: say so in its curve's label, which named
        only the values it started with (the faded curve then read as a run of the old setting)."""
        if self.current is None:
            return
        head, sep, changes = self.current.label.partition(" · changed live: ")
        done = dict(part.split("→", 1) for part in changes.split(", ") if "→" in part) if sep else {}
        done[name] = str(value)
        self.current.label = head + " · changed live: " + ", ".join(f"{k}→{v}" for k, v in done.items())
        self._rebuild_previous()  # the legend under the plots

    def retire_current(self) -> None:
        """The run was reset: its curve stays as a faded one (same function), not 'this run'."""
        self._archive_current()
        self.current = None
        self._rebuild_previous()
        self.refresh()

    def _archive_current(self) -> None:
        if self.current is not None and len(self.current.best) > 0:
            self.previous.append(self.current)
            del self.previous[:-MAX_PREVIOUS]

    def _set_problem(self, problem: str, dim: int, f_min: float | None = None) -> None:
        if (problem, dim) != getattr(self, "_problem_key", None):
            self.previous.clear()  # curves of another function are not comparable
        self._problem_key = (problem, dim)
        # a typed function's known minimum comes with the set-up (RunConfig.f_min), not the registry
        self.f_min = f_min if f_min is not None else get_problem(problem, dim).f_min
        # Log axis for the whole run when values cannot go below zero (a known minimum >= 0),
        # decided here so that a chart never flips between linear and log mid-run (it is linear
        # only while there is nothing to draw yet).
        self._log_hint = self.f_min is not None and self.f_min >= 0

    def record(self, snap) -> None:
        """Append one snapshot's point (cheap; drawing happens in refresh)."""
        if self.current is None or not math.isfinite(snap.best_f):
            return
        self.current.evals.append(snap.evals)
        self.current.seconds.append(snap.seconds)
        self.current.best.append(snap.best_f)

    def finish(self, result) -> None:
        """Replace the current curve by the run's full history (every chunk, not only snapshots)."""
        if self.current is None or result is None:
            return
        hist = np.asarray(result.history, dtype=np.float64).reshape(-1, 3)
        keep = np.isfinite(hist[:, 2])
        self.current.evals = list(hist[keep, 0])
        self.current.seconds = list(hist[keep, 1])
        self.current.best = list(hist[keep, 2])
        self.refresh()

    def clear_previous(self) -> None:
        self.previous.clear()
        self._rebuild_previous()
        self.refresh()

    # --- drawing -------------------------------------------------------------------------------
    def refresh(self) -> None:
        curves = self.previous + ([self.current] if self.current is not None else [])
        values = [v for c in curves for v in c.best]
        log = getattr(self, "_log_hint", False) or (bool(values) and min(values) > 0 and self.f_min is None)
        # nothing to draw yet: a plain axis (an empty log axis labels its one decade's minor ticks,
        # "2 3 4 ... 9", before any run)
        log = log and bool(values) and not any(v < 0 for v in values)
        if log != self._log:
            for plot in self.plots:
                plot.setLogMode(x=False, y=log)
            self._log = log
        floor = log_floor(values) if log else None
        zero = log and any(v <= 0 for v in values)
        for line in self.min_lines:
            fmin = self.f_min
            drawable = fmin is not None and (not log or fmin > 0)
            line.setVisible(drawable)
            if drawable:
                line.setValue(math.log10(fmin) if log else fmin)
                line.label.setFormat(f"known minimum {fmin:.6g}")
        unit = time_unit([t for c in curves for t in c.seconds])
        # the known minimum is the dashed line's label: in the title it would be cut short in a
        # narrow column (plot_title.ElidedTitle)
        note = ""
        labels = (note, log, zero, unit)
        if labels != self._labels:  # setting a title re-lays out the whole chart: only on change
            self._labels = labels
            self._unit = unit
            self._zero = zero
            for plot, title in zip(self.plots, ("best value vs evaluations", "best value vs time")):
                plot.setTitle(title + note, size="9pt")
                # the titles name the value; the axis says only its scale. "best value (log
                # scale), 0 drawn at the bottom" was longer than a chart is high in the docked
                # column (and at a projector's 1024 x 640): the two charts' labels ran into each
                # other. The note on zeros went to the legend under the charts.
                fit_left_label(plot, log)
            self.by_seconds.setLabel("bottom", f"compute time ({unit[0]})")
            self._rebuild_previous()
        if self.current is not None:
            best = _floored(self.current.best, floor)
            self._items_current[0].setData(self.current.evals, best)
            self._items_current[1].setData(np.asarray(self.current.seconds) * unit[1], best)
        else:
            for item in self._items_current:
                item.setData([], [])

    def _rebuild_previous(self) -> None:
        # The faded curves' items are made once and reused: creating plot items costs tens of
        # milliseconds, too much to pay at every start.
        while len(self._items_previous) < len(self.previous):
            items = [plot.plot() for plot in self.plots]
            for item in items:
                item.setZValue(-1)
            self._items_previous.append(items)
        lines = []
        for k, items in enumerate(self._items_previous):
            if k >= len(self.previous):
                for item in items:
                    item.setData([], [])
                continue
            curve = self.previous[k]
            r, g, b = PREVIOUS_HUES[k % len(PREVIOUS_HUES)]
            pen = pg.mkPen(r, g, b, 120, width=1.4)
            floor = log_floor([v for c in self.previous + [self.current] if c for v in c.best]) \
                if self._log else None
            best = _floored(curve.best, floor)
            items[0].setData(curve.evals, best, pen=pen)
            items[1].setData(np.asarray(curve.seconds) * self._unit[1], best, pen=pen)
            lines.append(_legend_line((r, g, b), curve.label))
        if self.current is not None:
            lines.append(_legend_line(CURRENT_PEN.color().getRgb()[:3], self.current.label + " (this run)"))
        # one line above the runs (the legend shows ~4 lines before it scrolls): a log axis has no
        # 0, so exact zeros are drawn at its floor
        head = ([f"known minimum f* = {self.f_min:.6g}"] if self.f_min is not None else []) + (
            ["exact zeros drawn at the bottom"] if self._zero else [])
        if head:
            lines.insert(0, "<i>" + " · ".join(head) + "</i>")
        self.legend.setText("<br>".join(lines))
        self.legend.setToolTip("Previous runs on this function stay as faded curves")
        # nothing to clear, no button: the legend gets the width (a 1024 x 640 projector's column is
        # ~260 px, and the button took half, wrapping one run's label into four lines)
        self.clear_button.setHidden(not self.previous)


def _floored(values, floor: float | None) -> np.ndarray:
    """Values for a log axis: exact zeros (a minimum reached) drawn at `floor`, not dropped."""
    y = np.asarray(values, dtype=np.float64)
    return y if floor is None else np.where(y > 0, y, floor)


def _legend_line(rgb, label: str) -> str:
    r, g, b = rgb
    escaped = label.replace("&", "&amp;").replace("<", "&lt;")
    return f"<span style='color: rgb({r},{g},{b}); font-size: large;'>&#9632;</span> {escaped}"


class ExtrasPanel(QtWidgets.QWidget):
    """One small chart per scalar the algorithm publishes in Snapshot.extras, against iteration.

    Where the panel is too short for every chart at PLOT_HEIGHT (a 1024 x 640 projector: room for
    one, PSO publishes four or five), it shows one chart, filling the panel, and a picker of the
    quantity above it, instead of a scrolled column whose charts are cut."""

    def __init__(self, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self.placeholder = QtWidgets.QLabel("The algorithm's own quantities (step size, temperature, "
                                            "acceptance, spread...) appear here during a run.")
        self.placeholder.setWordWrap(True)
        self.placeholder.setStyleSheet("color: #8a8a8a;")
        self.phase_label = QtWidgets.QLabel()
        self.phase_label.setStyleSheet("font-weight: bold; color: #ffc864;")
        self.phase_label.setToolTip("The phase the algorithm is in (the hybrid anneals, then "
                                    "polishes the best points with Nelder-Mead)")
        self.phase_label.hide()
        self.picker = QtWidgets.QComboBox()
        self.picker.setToolTip("The panel is too short for every chart: the one shown (make the panel "
                               "taller, or undock it, to see them all)")
        self.picker.setSizeAdjustPolicy(QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.picker.setMinimumContentsLength(12)
        self.picker.hide()
        self.picker.textActivated.connect(self._pick)
        self.view = pg.GraphicsLayoutWidget()
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.placeholder)
        layout.addWidget(self.phase_label)
        layout.addWidget(self.picker)
        layout.addWidget(self.view, 1)
        self.series: dict[str, tuple[list, list]] = {}
        self._plots: dict[str, tuple[pg.PlotItem, pg.PlotDataItem]] = {}
        self._log: dict[str, bool] = {}
        self._sticky_log: set[str] = set()
        self._shown: list[str] = []  # the charts in the view, in order
        self.chosen = ""  # the quantity picked when only one chart fits ("": the first)
        self.phase = ""  # the algorithm's phase in words, when it publishes one

    def fits_all(self) -> bool:
        """Whether every chart gets PLOT_HEIGHT pixels (the picker's row not counted, so that
        showing it cannot change the answer; nor the placeholder's, shown only before a run's first
        quantities, when there is no picker)."""
        room = self.height() - (self.phase_label.sizeHint().height() if self.phase else 0)
        return room >= PLOT_HEIGHT * max(1, len(self._plots))

    def shown(self) -> list[str]:
        """The quantities whose charts are in the view now."""
        return list(self._shown)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self._show_fitting()

    def _pick(self, key: str) -> None:
        """The user picked the quantity to chart (kept across runs that publish it)."""
        self.chosen = key
        self._show_fitting()

    def _show_fitting(self) -> None:
        """Every chart where they fit, else the picked one alone under the picker."""
        keys = list(self._plots)
        fits = self.fits_all() or len(keys) <= 1 or not self.series  # no picker before the quantities come
        wanted = keys if fits else [self.chosen if self.chosen in keys else keys[0]]
        self.picker.setHidden(fits)
        if not fits:
            if [self.picker.itemText(i) for i in range(self.picker.count())] != keys:
                self.picker.clear()
                self.picker.addItems(keys)
            self.picker.setCurrentText(wanted[0])
        if wanted != self._shown:
            for key in self._shown:
                self.view.ci.removeItem(self._plots[key][0])
            for row, key in enumerate(wanted):
                self.view.ci.addItem(self._plots[key][0], row=row, col=0)
            self._shown = wanted
        for key in wanted:
            self._plots[key][0].setTitle(key if fits else None)  # alone, the picker names it
        # the charts just taken out held the layout at their summed minimum height (the view was
        # resized before this panel's resizeEvent): fit the layout to the view again, its hints first
        # (cached until Qt's next layout pass), or the one chart left runs past the panel's bottom
        for key in wanted:
            self._plots[key][0].layout.invalidate()
        self.view.ci.layout.invalidate()
        self.view.ci.updateGeometry()
        self.view.ci.setGeometry(self.view.range)

    def begin_run(self, config: RunConfig | None = None) -> None:
        # keep the charts (same algorithm, same quantities, usually); refresh() rebuilds them
        # only when the set of quantities changes
        self.series = {}
        self.phase = ""
        self._sticky_log = set()
        for plot, curve in self._plots.values():
            curve.setData([], [])
            plot.setLogMode(x=False, y=False)
        self._log = {key: False for key in self._plots}

    def record(self, snap) -> None:
        for key, value in snap.extras.items():
            if isinstance(value, str):  # a phase name ("annealing", "polishing..."): not charted
                self.phase = value
                continue
            try:
                number = float(value)
            except (TypeError, ValueError):
                continue  # only scalars are charted
            xs, ys = self.series.setdefault(key, ([], []))
            xs.append(snap.iteration)
            ys.append(number)

    def refresh(self) -> None:
        if self.series and list(self.series) != list(self._plots):
            self.view.clear()
            self._plots, self._log, self._shown = {}, {}, []
            for key in self.series:
                self._add_plot(key)
            self._show_fitting()
        for key, (xs, ys) in self.series.items():
            plot, curve = self._plots[key]
            y = np.asarray(ys, dtype=np.float64)
            finite = y[np.isfinite(y)]
            # linear until positive values span LOG_SPAN, then log for the rest of the run (a
            # reheat or a zero must not flip the axis back and forth)
            if finite.size > 1 and finite.min() > 0 and finite.max() / finite.min() > LOG_SPAN:
                self._sticky_log.add(key)
            log = key in self._sticky_log
            if self._log.get(key) != log:
                plot.setLogMode(x=False, y=log)
                self._log[key] = log
            if log:
                y = _floored(y, log_floor(finite))
            if finite.size and finite.max() == finite.min():
                # a constant series: a small fixed band around it, not an autoscale on nothing
                v = float(finite[0])
                pad = abs(v) * 0.1 or 1.0
                lo, hi = (math.log10(v) - 0.5, math.log10(v) + 0.5) if log and v > 0 else (v - pad, v + pad)
                plot.setYRange(lo, hi, padding=0)
            else:
                plot.enableAutoRange(axis="y")
            curve.setData(xs, y)
        self.placeholder.setVisible(not self.series)
        self.phase_label.setText(f"phase: {self.phase}")
        self.phase_label.setVisible(bool(self.phase))
        self._show_fitting()  # a phase line takes room

    def _add_plot(self, key: str) -> None:
        """A chart for `key`, not yet in the view (_show_fitting places it)."""
        plot = pg.PlotItem(title=key)
        elide_title(plot)  # a long name is cut, not a chart wider than the panel
        plot.setMenuEnabled(False)
        quiet_axes(plot)
        if self._plots:
            plot.setXLink(next(iter(self._plots.values()))[0])
        plot.setLabel("bottom", "iteration")
        curve = plot.plot(pen=pg.mkPen(120, 200, 255, width=1.8))
        self._plots[key] = (plot, curve)
