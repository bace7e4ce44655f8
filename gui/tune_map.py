"""The Tune tab's map: one cell per setting of a grid (one axis: a line with a quartile band).

``TuneMap.draw(table, stats, measure)`` shows a measure of solvers.tune's CellStats (median final
error, success rate, evaluations to the tolerance); errors and evaluations on a log colour scale,
the best cells bright in every measure. Hovering and clicking a cell are reported by index
(sigHovered, sigClicked), in Grid.settings order (axis 1 rows, axis 2 columns).
"""
from __future__ import annotations

import copy
import math

import numpy as np
import pyqtgraph as pg
from PyQt6 import QtCore, QtWidgets

MEASURES = ("median final error", "success rate", "evaluations to tolerance")
LOG_FLOOR = 1e-300
BEST_PEN = pg.mkPen(255, 255, 255, width=2)
HOVER_PEN = pg.mkPen(255, 120, 60, width=2)


def measure_values(stats, measure: str) -> np.ndarray:
    """Per-setting values of `measure` (NaN where unknown yet)."""
    return {MEASURES[0]: stats.median, MEASURES[1]: stats.success_rate,
            MEASURES[2]: stats.evals_to_tolerance}[measure]


def best_setting(stats) -> int | None:
    """The setting with the lowest median final error (ties: the lower upper quartile)."""
    if stats is None or not np.any(stats.runs > 0):
        return None
    median = np.where(np.isnan(stats.median), np.inf, stats.median)
    q3 = np.where(np.isnan(stats.q3), np.inf, stats.q3)
    return int(np.lexsort((q3, median))[0])


class TuneMap(QtWidgets.QWidget):
    """The map (two axes) or line (one axis) of a grid, with colour bar, best and hovered cell."""

    sigHovered = QtCore.pyqtSignal(int)  # setting under the mouse; -1 outside the map
    sigClicked = QtCore.pyqtSignal(int)  # setting clicked with the left button

    def __init__(self, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self.shape: tuple[int, ...] = ()
        self.plot = pg.PlotWidget()
        self.plot.setMenuEnabled(False)
        self.plot.setMinimumHeight(220)
        item = self.plot.getPlotItem()
        item.setMouseEnabled(x=False, y=False)  # a click picks a cell; the map never pans away
        item.hideButtons()
        self.image = pg.ImageItem(axisOrder="row-major")
        item.addItem(self.image)
        viridis = pg.colormap.get("viridis")  # shared through pyqtgraph's cache: never changed here
        # lower is better for errors and evaluations: reversed, so that the best cells are bright
        # as they are for the success rate
        reversed_map = copy.deepcopy(viridis)
        reversed_map.reverse()
        self.maps = {False: viridis, True: reversed_map}
        self.colorbar = pg.ColorBarItem(values=(0, 1), colorMap=reversed_map, interactive=False,
                                        width=14)
        self.colorbar.setImageItem(self.image, insert_in=item)
        self.line = pg.PlotDataItem(pen=pg.mkPen(120, 180, 255, width=2), symbol="o", symbolSize=6,
                                    symbolBrush=(120, 180, 255))
        self.band_lo = pg.PlotDataItem(pen=None)
        self.band_hi = pg.PlotDataItem(pen=None)
        self.band = pg.FillBetweenItem(self.band_lo, self.band_hi, brush=pg.mkBrush(120, 180, 255, 60))
        # outlines a cell wide (sizes in data units: a cell is 1 x 1)
        self.best_mark = pg.ScatterPlotItem(symbol="s", size=0.92, pxMode=False, pen=BEST_PEN, brush=None)
        self.hover_mark = pg.ScatterPlotItem(symbol="s", size=0.92, pxMode=False, pen=HOVER_PEN, brush=None)
        for it in (self.band, self.line, self.best_mark, self.hover_mark):
            item.addItem(it)
        self.plot.scene().sigMouseMoved.connect(self._on_scene_mouse_moved)
        self.plot.scene().sigMouseClicked.connect(self._on_scene_mouse_clicked)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.plot)

    # --- public ----------------------------------------------------------------------------------
    def begin(self, shape: tuple[int, ...]) -> None:
        """A new grid of `shape` settings: empty map, view fitted to it."""
        self.clear()
        self.shape = tuple(shape)
        view = self.plot.getPlotItem().vb
        view.setRange(xRange=(0, self.shape[-1]), yRange=(0, self.shape[0]) if len(self.shape) == 2
                      else None, padding=0.02)
        if len(self.shape) == 1:
            view.enableAutoRange(axis="y")

    def clear(self) -> None:
        self.image.clear()
        for it in (self.line, self.band_lo, self.band_hi, self.best_mark, self.hover_mark):
            it.setData([], [])

    def draw(self, table, stats, measure: str, show_best: bool) -> None:
        """Show `measure` of `stats` for `table`'s grid; mark the best cell when `show_best`."""
        values = measure_values(stats, measure)
        log = measure != MEASURES[1]  # errors and evaluations span decades; a rate does not
        shown, floor = log10_floored(values) if log else (values, None)
        unit = {MEASURES[0]: "best f - f*" if table.f_min is not None else "best f, f* unknown",
                MEASURES[1]: "share of seeds within the tolerance" if table.f_min is not None
                else "needs a known minimum", MEASURES[2]: "median over the seeds that got there"
                if table.f_min is not None else "needs a known minimum"}[measure]
        title = f"{measure} ({unit}" + (", log scale" if log else "") + (
            f", 0 drawn at {floor:.0e}" if floor else "") + ")"
        axes = table.grid.axes
        finite = shown[np.isfinite(shown)]
        lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
        if measure == MEASURES[1]:
            lo, hi = 0.0, 1.0
        if hi <= lo:
            hi = lo + 1.0
        ticks = value_ticks(lo, hi, log, measure == MEASURES[1])
        item = self.plot.getPlotItem()
        if len(axes) == 2:
            grid = shown.reshape(table.grid.shape)  # rows: axis 1, columns: axis 2
            self.colorbar.setColorMap(self.maps[log])
            self.colorbar.setLevels((lo, hi))
            self.image.setImage(grid, autoLevels=False, levels=(lo, hi))
            self.image.setRect(QtCore.QRectF(0, 0, grid.shape[1], grid.shape[0]))
            item.getAxis("left").setTicks(_axis_ticks(axes[0]))
            self.plot.setLabel("left", _axis_words(axes[0]))
            self.plot.setTitle(title + (" · white: best median" if show_best else ""), size="10pt")
            self.colorbar.getAxis("right").setTicks(ticks)
            self.colorbar.show()
            best = best_setting(stats) if show_best else None
            self.best_mark.setData(*([[v] for v in self.cell_center(best)] if best is not None
                                     else ([], [])))
        else:
            x = np.arange(len(axes[0].values), dtype=float) + 0.5
            if np.isfinite(shown).any():
                self.line.setData(x, shown, connect="finite")
            else:  # no run finished yet (a grid stopped at once): nothing to draw, no all-NaN bounds
                self.line.setData([], [])
            band = ([], [], [], [])
            if measure == MEASURES[0]:
                band_lo, _ = log10_floored(stats.q1, floor)
                band_hi, _ = log10_floored(stats.q3, floor)
                keep = np.isfinite(band_lo) & np.isfinite(band_hi)
                band = (x[keep], band_lo[keep], x[keep], band_hi[keep])
            self.band_lo.setData(band[0], band[1])
            self.band_hi.setData(band[2], band[3])
            self.plot.setTitle(title + (" · band: quartiles over the seeds" if measure == MEASURES[0]
                                        else ""), size="10pt")
            self.plot.setLabel("left", measure)
            item.getAxis("left").setTicks(ticks)
            self.colorbar.hide()
        item.getAxis("bottom").setTicks(_axis_ticks(axes[-1]))
        self.plot.setLabel("bottom", _axis_words(axes[-1]))

    def index_at(self, x: float, y: float) -> int | None:
        """The setting under view coordinates (x, y), or None outside the map."""
        shape = self.shape
        if not shape or not (math.isfinite(x) and math.isfinite(y)):
            return None
        col = math.floor(x)
        if len(shape) == 2:
            row = math.floor(y)
            return row * shape[1] + col if 0 <= row < shape[0] and 0 <= col < shape[1] else None
        return col if 0 <= col < shape[0] else None

    def cell_center(self, index: int) -> tuple[float, float]:
        """View coordinates of setting `index`'s centre (on the x axis for one axis)."""
        if len(self.shape) == 2:
            return index % self.shape[1] + 0.5, index // self.shape[1] + 0.5
        return index + 0.5, 0.0

    def mark_hovered(self, index: int | None) -> None:
        if index is None or len(self.shape) != 2:
            self.hover_mark.setData([], [])
        else:
            self.hover_mark.setData(*[[v] for v in self.cell_center(index)])

    # --- slots ------------------------------------------------------------------------------------
    def _on_scene_mouse_moved(self, pos) -> None:
        point = self.plot.getPlotItem().vb.mapSceneToView(pos)
        index = self.index_at(point.x(), point.y())
        self.mark_hovered(index)
        self.sigHovered.emit(-1 if index is None else index)

    def _on_scene_mouse_clicked(self, event) -> None:
        if event.button() != QtCore.Qt.MouseButton.LeftButton:
            return
        point = self.plot.getPlotItem().vb.mapSceneToView(event.scenePos())
        index = self.index_at(point.x(), point.y())
        if index is not None:
            self.sigClicked.emit(index)


def _axis_ticks(axis):
    step = max(1, math.ceil(len(axis.values) / 8))
    return [[(i + 0.5, f"{v:.3g}") for i, v in enumerate(axis.values) if i % step == 0]]


def _axis_words(axis) -> str:
    return axis.name + (" (log spacing)" if axis.log else "")


def log10_floored(values: np.ndarray, floor: float | None = None) -> tuple[np.ndarray, float | None]:
    """log10 of `values` with zeros (exact hits) drawn at a floor: a decade below the smallest
    positive value; returns the floor used (None when nothing was floored)."""
    values = np.asarray(values, dtype=np.float64)
    positive = values[np.isfinite(values) & (values > 0)]
    if floor is None:
        floor = float(positive.min()) / 10 if positive.size else 1e-16
    floored = bool(np.any(np.isfinite(values) & (values <= 0)))
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.log10(np.maximum(values, max(floor, LOG_FLOOR)))
    return np.where(np.isnan(values), np.nan, out), (floor if floored else None)


def value_ticks(lo: float, hi: float, log: bool, percent: bool):
    """Tick labels for the colour bar or the line's axis: powers of ten on a log scale."""
    if percent:
        return [[(v, f"{v:.0%}") for v in np.linspace(0, 1, 5)]]
    if not log:
        return None
    first, last = math.ceil(lo), math.floor(hi)
    if last - first >= 1:
        step = max(1, math.ceil((last - first + 1) / 8))
        return [[(k, f"1e{k}") for k in range(first, last + 1, step)]]
    return [[(v, f"{10 ** v:.3g}") for v in np.linspace(lo, hi, 4)]]
