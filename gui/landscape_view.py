"""The landscape view: the function as a heatmap with contours, and the walkers moving over it.

A 2-D function is drawn once per problem. An N-D function is drawn as the 2-D slice through the
current best point along two axes the user picks; walkers are projected onto those axes and the
slice is recomputed when the best point moves (at most every SLICE_INTERVAL seconds). Grids are
computed on the view's own one-thread pool so a 30-D slice never stalls the window. Walkers are
drawn by PointCloudItem (fast for tens of thousands). What makes each algorithm itself is drawn from the
snapshot's overlays (keys documented in solvers/snapshot.py).
"""
from __future__ import annotations

import time

import numpy as np
import pyqtgraph as pg
from PyQt6 import QtCore, QtGui, QtWidgets

from solvers.problems import get_problem
from solvers.problems.base import Problem
from solvers.snapshot import Snapshot

from .landscape_grid import (RESOLUTION, LandscapeGrid, SliceCancelled, contour_levels, contour_segments,
                             evaluate_slice, landscape_limit)
from .pinned import pin
from .point_cloud import PointCloudItem

SLICE_INTERVAL = 0.5  # seconds between N-D slice refreshes while the best point moves
TRAIL_LENGTH = 30  # snapshots kept per trail
TRAIL_WALKERS = 48  # walkers that get a trail (the first of the fixed sample)
OVERLAY_WALKERS = 200  # walkers that get step crosses (short, so many stay readable)
ARROW_WALKERS = 80  # walkers that get velocity or trial segments (long lines clutter fast)
OVERLAY_LINKS = 400  # informant links drawn at most
CLASS_COLOURS = 8  # colour classes for annealing chains
TEMPERATURE_DECADES = 5.0
COLORMAP = "viridis"
MAX_CONTOUR_POINTS = 24_000  # segment end points drawn per slice at most
WALKER_COLOUR = [(240, 240, 240, 230)]


class _SliceEmitter(QtCore.QObject):
    """Carries one grid computation's result from the pool thread to the view (queued)."""

    sigDone = QtCore.pyqtSignal(int, object, object)  # token, LandscapeGrid, contour segments
    sigFailed = QtCore.pyqtSignal(int, str)


def compute_slice(problem: Problem, axes, point, cancelled=None,
                  scale=None) -> tuple[LandscapeGrid, np.ndarray]:
    """The grid through `point` along `axes` and its contour segments (run off the GUI thread);
    SliceCancelled between evaluation chunks once `cancelled()` is true; `scale`: the colour
    scale to keep (see evaluate_slice)."""
    grid = evaluate_slice(problem, axes, point, cancelled=cancelled, scale=scale)
    levels = contour_levels(grid.display)
    segments = contour_segments(grid.display, levels, grid.xs, grid.ys)
    if len(segments) > MAX_CONTOUR_POINTS:
        # Very multimodal functions (Rastrigin: 80,000 points for 12 levels) would cost tens of
        # milliseconds to rasterise on each new slice; fewer levels say the same there.
        keep = levels[::int(np.ceil(len(segments) / MAX_CONTOUR_POINTS))]
        segments = contour_segments(grid.display, keep, grid.xs, grid.ys)
    return grid, segments


class LandscapeView(QtWidgets.QWidget):
    """Heatmap, contours, known minimiser, walkers, best point, trails and overlays."""

    sigLandscapeReady = QtCore.pyqtSignal()  # a grid was drawn

    def __init__(self, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self.problem: Problem | None = None
        self.grid: LandscapeGrid | None = None
        self.axes = (0, 1)
        self.last_error = ""
        self._algorithm = ""
        self._token = 0
        self._problem_token = 0  # results of requests older than this are for another function
        self._in_flight = False
        self._queued: tuple | None = None
        self._last_slice_time = -1e9
        self._last_snapshot: Snapshot | None = None
        self._trail: list[np.ndarray] = []
        self.frames = 0  # snapshots drawn, for the benchmark
        self._temperature_seen: tuple[float, float] | None = None
        self._scale = None  # the held colour scale of N-D slices (None: each slice its own)
        self._class_palettes()

        # --- controls --------------------------------------------------------------------------
        controls = QtWidgets.QHBoxLayout()
        self.axis_x = QtWidgets.QComboBox()
        self.axis_y = QtWidgets.QComboBox()
        self.axis_x.setToolTip("Coordinate shown horizontally (N-D functions: slice axis)")
        self.axis_y.setToolTip("Coordinate shown vertically (N-D functions: slice axis)")
        self.axis_label = QtWidgets.QLabel("slice axes")
        self.trails_check = QtWidgets.QCheckBox("Trails")
        self.trails_check.setToolTip(f"Last {TRAIL_LENGTH} positions of {TRAIL_WALKERS} walkers")
        self.overlay_check = QtWidgets.QCheckBox("Algorithm overlay")
        self.overlay_check.setChecked(True)
        self.overlay_check.setToolTip("Step crosses, simplices, chains, velocities, links or trials")
        self.hold_check = QtWidgets.QCheckBox("Hold colours")
        self.hold_check.setToolTip(
            "N-D functions: keep the colour scale of the slice now shown, so one colour keeps one "
            "value as the slice moves with the best point (values outside it take the end colours). "
            "Unchecked, each slice is coloured over its own range.")
        self.hold_check.toggled.connect(self._on_hold_toggled)
        self.colour_combo = QtWidgets.QComboBox()
        self.colour_combo.addItems(["temperature", "acceptance"])
        self.colour_label = QtWidgets.QLabel("chains by")
        self.info = QtWidgets.QLabel()
        self.info.setStyleSheet("color: #8a8a8a;")
        # long texts must never widen the tool row (and squeeze the charts beside it)
        self.info.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored,
                                QtWidgets.QSizePolicy.Policy.Preferred)
        self.info.setMinimumWidth(40)
        for widget in (self.axis_label, self.axis_x, self.axis_y, self.hold_check, self.trails_check,
                       self.overlay_check, self.colour_label, self.colour_combo):
            controls.addWidget(widget)
        controls.addStretch(1)
        controls.addWidget(self.info)

        # --- plot ------------------------------------------------------------------------------
        self.plot = pg.PlotWidget()
        self.plot.setMenuEnabled(False)
        item = self.plot.getPlotItem()
        item.hideButtons()
        for name in ("left", "bottom"):
            # Ticks outside the plot: inward ticks put the axes inside the walkers' dirty region,
            # and repainting the axes' text every frame cost more than the walkers themselves.
            item.getAxis(name).setStyle(tickLength=5)
        self.cmap = pg.colormap.get(COLORMAP)
        self.image = pg.ImageItem(axisOrder="row-major")
        self.image.setZValue(-10)
        item.addItem(self.image)
        # Where f has no finite value (NaN or inf; the solvers count it as +inf) the heatmap is
        # transparent (pyqtgraph draws NaN so) over this hatching: painted in the lowest colour,
        # an undefined region would read as the best one.
        self.undefined = QtWidgets.QGraphicsRectItem()
        self.undefined.setPen(pg.mkPen(None))
        self.undefined.setBrush(QtGui.QBrush(QtGui.QColor(150, 150, 150),
                                             QtCore.Qt.BrushStyle.BDiagPattern))
        self.undefined.setZValue(-11)
        self.undefined.setVisible(False)
        item.addItem(self.undefined)
        self.colorbar = pg.ColorBarItem(values=(0, 1), colorMap=self.cmap, interactive=False, width=14)
        self.colorbar.setImageItem(self.image, insert_in=item)
        self.contours = pg.PlotCurveItem(pen=pg.mkPen(255, 255, 255, 70, width=1), connect="pairs")
        self.contours.setZValue(-5)
        self.line_1d = pg.PlotCurveItem(pen=pg.mkPen(120, 180, 255, width=2))
        self.trails = pg.PlotCurveItem(pen=pg.mkPen(255, 255, 255, 90, width=1), connect="finite")
        self.links = pg.PlotCurveItem(pen=pg.mkPen(120, 200, 255, 70, width=1), connect="pairs")
        self.segments = pg.PlotCurveItem(pen=pg.mkPen(255, 190, 60, 170, width=1.2), connect="pairs")
        self.walkers = PointCloudItem(size=5)
        self.trials = PointCloudItem(size=4, colors=((255, 200, 60, 220),), outline=None)
        self.best = pg.ScatterPlotItem(symbol="star", size=20, pen=pg.mkPen("w", width=1.2),
                                       brush=pg.mkBrush(255, 60, 40))
        self.minimiser = pg.ScatterPlotItem(symbol="x", size=15, pen=pg.mkPen(0, 0, 0, 200),
                                            brush=pg.mkBrush(255, 255, 255))
        # what the two markers mean, in the plot itself (the README shows the same legend)
        self.legend = pg.LegendItem(brush=pg.mkBrush(20, 20, 20, 170), labelTextColor=(235, 235, 235))
        pin(self.legend, item.getViewBox(), corner=(1, 0), offset=(-8, 8))  # top right (gui/pinned.py: why)
        self.legend.addItem(self.best, "best point found")
        self.legend.addItem(self.minimiser, "known global minimum")
        self.legend.setZValue(50)
        for z, graphic in enumerate((self.contours, self.line_1d, self.trails, self.links,
                                     self.segments, self.walkers, self.trials, self.minimiser,
                                     self.best)):
            graphic.setZValue(z - 5)
            item.addItem(graphic)
        # The heatmap and the contours change only with the slice: caching their rendering at
        # device resolution saves about a third of each frame (measured with 10,000 walkers).
        for static in (self.image, self.contours):
            static.setCacheMode(QtWidgets.QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.message = pg.TextItem(color=(255, 120, 100), anchor=(0, 0))
        item.addItem(self.message, ignoreBounds=True)
        # the algorithm's phase ("annealing", "polishing with Nelder-Mead"), top left of the view
        self.phase = pg.LabelItem("", color=(255, 200, 100), size="11pt")
        pin(self.phase, item.getViewBox(), corner=(0, 0), offset=(8, 4))

        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(controls)
        layout.addWidget(self.plot, 1)

        # --- the grid thread ---------------------------------------------------------------------
        # A pool of one thread owned by this view: its destructor waits for a computation in
        # flight, so dropping the view can never destroy a running thread.
        self._closing = False
        self._pool = QtCore.QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        self._pool.setExpiryTimeout(1000)
        self._emitters: dict[int, _SliceEmitter] = {}

        self.axis_x.currentIndexChanged.connect(self._on_axis_changed)
        self.axis_y.currentIndexChanged.connect(self._on_axis_changed)
        self.trails_check.toggled.connect(self._on_display_option_changed)
        self.overlay_check.toggled.connect(self._on_display_option_changed)
        self.colour_combo.currentIndexChanged.connect(self._on_display_option_changed)
        self._show_colour_choice(False)
        self._set_axis_controls(2)

    # --- public --------------------------------------------------------------------------------
    def set_problem(self, name: str, dim: int) -> None:
        """Show function `name` in dimension `dim` (clears walkers)."""
        problem = get_problem(name, dim)
        # the box too: a typed function keeps its name when only its box is edited
        if (self.problem is not None and (self.problem.name, self.problem.dim) == (name, dim)
                and np.array_equal(self.problem.lower, problem.lower)
                and np.array_equal(self.problem.upper, problem.upper)):
            return
        self.problem = problem
        self.grid = None
        self._scale = None
        self._problem_token = self._token + 1
        self._queued = None
        self.clear_run()
        self._set_axis_controls(dim)
        self._draw_minimiser()
        self._fit_range()
        self._request_slice(self._initial_point(), force=True)

    def begin_run(self, config) -> None:
        """A new run of `config` starts: show its function, forget the previous walkers."""
        self._algorithm = config.algorithm
        self.set_problem(config.problem, config.dim)
        self.clear_run()

    def clear_run(self) -> None:
        self._last_snapshot = None
        self._trail = []
        self._temperature_seen = None
        for graphic in (self.walkers, self.trials):
            graphic.setData(np.zeros((0, 2)))
        for curve in (self.trails, self.links, self.segments):
            curve.setData([], [])
        self.best.setData([], [])
        self._show_colour_choice(False)
        self.phase.setText("")

    def show_snapshot(self, snap: Snapshot) -> None:
        """Draw one snapshot (called at display rate with the latest one)."""
        if self.problem is None or (snap.problem, snap.dim) != (self.problem.name, self.problem.dim):
            return
        self._last_snapshot = snap
        self.frames += 1
        if self.problem.dim == 1:
            self._draw_1d(snap)
            return
        ax, ay = self.axes
        pos = np.asarray(snap.positions, dtype=np.float64)
        xy = pos[:, [ax, ay]] if len(pos) else np.zeros((0, 2))
        phase = snap.extras.get("phase")
        self.phase.setText(phase if isinstance(phase, str) else "")
        self._record_trail(xy)
        classes = self._chain_classes(snap)
        self.walkers.setData(xy, classes)
        best = np.asarray(snap.best_x, dtype=np.float64)
        if np.all(np.isfinite(best)):
            self.best.setData([best[ax]], [best[ay]])
        self._draw_trails()
        self._draw_overlays(snap, xy)
        if self.problem.dim > 2 and np.all(np.isfinite(best)):
            self._request_slice(best, force=snap.finished)

    def walker_points(self) -> np.ndarray:
        return self.walkers.points()

    def shutdown(self) -> None:
        """Cancel a grid computation in flight and wait for it (at most one evaluation chunk);
        the window calls this when it closes."""
        self._closing = True
        self._pool.waitForDone()

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt override
        self.shutdown()
        super().closeEvent(event)

    # --- slices --------------------------------------------------------------------------------
    def _initial_point(self) -> np.ndarray:
        p = self.problem
        if p.x_min is not None and np.all(p.x_min >= p.lower) and np.all(p.x_min <= p.upper):
            return p.x_min.copy()
        return (p.lower + p.upper) / 2.0

    def _request_slice(self, point: np.ndarray, force: bool = False) -> None:
        """Ask for the slice through `point`; throttled, and skipped when it would not change."""
        if self.problem is None or self.problem.dim == 1:
            if self.problem is not None:
                self._draw_line_1d()
            return
        if not force:
            if time.monotonic() - self._last_slice_time < SLICE_INTERVAL:
                return
            if self.grid is not None and self._same_slice(point):
                return
        self._last_slice_time = time.monotonic()
        request = (self.problem, self.axes, np.array(point, dtype=np.float64), self._scale)
        if self._in_flight:
            self._queued = request  # only the newest waiting request matters
            return
        self._send(request)

    def _same_slice(self, point: np.ndarray) -> bool:
        if self.grid.axes != self.axes:
            return False
        others = np.ones(self.problem.dim, dtype=bool)
        others[list(self.axes)] = False
        return bool(np.array_equal(self.grid.point[others], np.asarray(point)[others]))

    def _send(self, request) -> None:
        self._token += 1
        self._in_flight = True
        token, (problem, axes, point, scale) = self._token, request
        emitter = _SliceEmitter()
        emitter.sigDone.connect(self._on_slicer_done)
        emitter.sigFailed.connect(self._on_slicer_failed)
        self._emitters[token] = emitter  # alive until its result has been delivered

        def cancelled() -> bool:  # read on the pool thread: plain attributes, no widgets
            return self._closing or token < self._problem_token  # closing, or another function

        def job() -> None:
            try:
                grid, segments = compute_slice(problem, axes, point, cancelled, scale)
            except SliceCancelled:
                emitter.sigFailed.emit(token, "")
                return
            except Exception as exc:  # noqa: BLE001 - a broken function must not kill the view
                emitter.sigFailed.emit(token, f"{type(exc).__name__}: {exc}")
                return
            emitter.sigDone.emit(token, grid, segments)

        self._pool.start(job)

    @QtCore.pyqtSlot(int, object, object)
    def _on_slicer_done(self, token: int, grid: LandscapeGrid, segments: np.ndarray) -> None:
        self._emitters.pop(token, None)
        self._in_flight = False
        if self._queued is not None:
            request, self._queued = self._queued, None
            self._send(request)
        if token < self._problem_token or self.problem is None or grid.axes != self.axes:
            return  # computed for a previous function or other axes
        self.grid = grid
        if self.hold_check.isChecked() and self._scale is None:
            self._scale = grid.scale  # held while the box is checked and the function and axes stay
        self.last_error = ""
        self.message.setText("")
        undefined = np.isnan(grid.values)  # (an all-NaN slice has a display of zeros)
        display = np.where(undefined, np.nan, grid.display)  # NaN: transparent
        self.image.setImage(display, levels=grid.levels, autoLevels=False)
        x0, x1, y0, y1 = grid.xs[0], grid.xs[-1], grid.ys[0], grid.ys[-1]
        self.image.setRect(QtCore.QRectF(x0, y0, x1 - x0, y1 - y0))
        self.undefined.setRect(QtCore.QRectF(x0, y0, x1 - x0, y1 - y0))
        self.undefined.setVisible(bool(undefined.any()))
        self.colorbar.setLevels(grid.levels)
        self.colorbar.axis.setLabel("log10(f - min)" if grid.log_scale else "f")
        self.image.setVisible(True)
        if len(segments):
            self.contours.setData(segments[:, 0], segments[:, 1], connect="pairs")
        else:
            self.contours.setData([], [])
        self._update_info()
        self.sigLandscapeReady.emit()

    @QtCore.pyqtSlot(int, str)
    def _on_slicer_failed(self, token: int, message: str) -> None:
        self._emitters.pop(token, None)
        self._in_flight = False
        if self._queued is not None:
            request, self._queued = self._queued, None
            self._send(request)
        if not message:  # cancelled: nothing to report
            return
        self.last_error = message
        self.message.setText(f"landscape could not be drawn: {message}")
        if self.problem is not None:
            self.message.setPos(self.problem.lower[self.axes[0]], self.problem.upper[self.axes[1]])

    # --- 1-D functions -------------------------------------------------------------------------
    def _draw_line_1d(self) -> None:
        p = self.problem
        xs = np.linspace(p.lower[0], p.upper[0], 4 * RESOLUTION)
        try:
            with np.errstate(all="ignore"):
                f = np.asarray(p.evaluate(xs[:, None]), dtype=np.float64)
        except Exception as exc:  # noqa: BLE001
            self.last_error = str(exc)
            return
        self.line_1d.setData(xs, np.where(np.isfinite(f), f, np.nan), connect="finite")
        self.image.setVisible(False)
        self.undefined.setVisible(False)
        self.contours.setData([], [])
        self.plot.getPlotItem().enableAutoRange()
        self.sigLandscapeReady.emit()

    def _draw_1d(self, snap: Snapshot) -> None:
        pos = np.asarray(snap.positions, dtype=np.float64).reshape(-1, 1)
        xy = np.column_stack([pos[:, 0], np.asarray(snap.fitness, dtype=np.float64)])
        self.walkers.setData(xy)
        if np.isfinite(snap.best_f):
            self.best.setData([float(snap.best_x[0])], [snap.best_f])

    # --- drawing helpers ------------------------------------------------------------------------
    def _set_axis_controls(self, dim: int) -> None:
        for combo, default in ((self.axis_x, 0), (self.axis_y, 1)):
            combo.blockSignals(True)
            combo.clear()
            combo.addItems([f"x{i + 1}" for i in range(dim)])
            combo.setCurrentIndex(min(default, dim - 1))
            combo.blockSignals(False)
        many = dim > 2
        for widget in (self.axis_label, self.axis_x, self.axis_y, self.hold_check):
            widget.setVisible(many)
        self.axes = (0, min(1, dim - 1))
        self.line_1d.setData([], [])
        self.line_1d.setVisible(dim == 1)
        self.contours.setVisible(dim > 1)
        self.colorbar.setVisible(dim > 1)

    def _fit_range(self) -> None:
        p, (ax, ay) = self.problem, self.axes
        item = self.plot.getPlotItem()
        item.setLabel("bottom", f"x{ax + 1}")
        item.setLabel("left", f"x{ay + 1}" if p.dim > 1 else "f")
        view = item.getViewBox()
        if p.dim == 1:
            view.setAspectLocked(False)
            item.enableAutoRange()
            return
        # one unit is as long across as up (sphere's circles stay circles), unless the box is
        # so elongated that a locked aspect would leave a thin strip
        ratio = (p.upper[ay] - p.lower[ay]) / (p.upper[ax] - p.lower[ax])
        view.setAspectLocked(0.25 <= ratio <= 4.0, ratio=1.0)
        item.disableAutoRange()
        item.setRange(xRange=(p.lower[ax], p.upper[ax]), yRange=(p.lower[ay], p.upper[ay]),
                      padding=0.02)

    def _draw_minimiser(self) -> None:
        """Mark every known global minimiser (Himmelblau's four), projected on the axes."""
        p = self.problem
        points = p.x_mins
        if not points or p.dim == 1:
            self.minimiser.setData([], [])
            if points and p.f_min is not None:
                self.minimiser.setData([float(x[0]) for x in points], [p.f_min] * len(points))
            return
        ax, ay = self.axes
        self.minimiser.setData([float(x[ax]) for x in points], [float(x[ay]) for x in points])
        label = "known global minima" if len(points) > 1 else "known global minimum"
        self.legend.removeItem(self.minimiser)
        self.legend.addItem(self.minimiser, label)

    def _update_info(self) -> None:
        p = self.problem
        scale = "log colour scale" if self.grid is not None and self.grid.log_scale else "linear colours"
        if self.grid is not None and np.isnan(self.grid.values).any():
            scale += ("; no finite value on this slice" if np.isnan(self.grid.values).all() else
                      "; hatched: no finite value (NaN or inf)")
        if p.dim > 2:
            self.info.setText(f"{p.dim}-D slice; {scale}")
            tip = (f"{p.dim}-D function: the colours are f on the 2-D slice through the best point "
                   "found (every other coordinate fixed at the best point's); 'Hold colours' keeps "
                   "one colour scale while the slice moves. Walkers, their crosses (+) and the known minimiser "
                   "are projected onto the two slice axes: a walker drawn on a low colour may be "
                   "far from the slice in the other coordinates.")
        else:
            self.info.setText(scale)
            tip = "Colours: f over the search box; contour lines at evenly spaced levels"
        self.info.setToolTip(tip)
        self.plot.setToolTip(tip)

    def _record_trail(self, xy: np.ndarray) -> None:
        if not self.trails_check.isChecked():
            self._trail = []
            return
        head = xy[:TRAIL_WALKERS]
        if self._trail and self._trail[-1].shape != head.shape:
            self._trail = []
        self._trail.append(head.copy())
        del self._trail[:-TRAIL_LENGTH]

    def _draw_trails(self) -> None:
        if not self._trail or len(self._trail) < 2:
            self.trails.setData([], [])
            return
        stack = np.stack(self._trail, axis=1)  # (walkers, time, 2)
        padded = np.concatenate([stack, np.full((stack.shape[0], 1, 2), np.nan)], axis=1)
        flat = padded.reshape(-1, 2)
        self.trails.setData(flat[:, 0], flat[:, 1], connect="finite")

    def _chain_classes(self, snap: Snapshot) -> np.ndarray | None:
        """Annealing chains: colour classes by temperature (log) or by acceptance."""
        overlays = snap.overlays
        has_chains = "temperature" in overlays or "accepted" in overlays
        self._show_colour_choice(has_chains)
        if not has_chains or not self.overlay_check.isChecked():
            self.walkers.setColors(WALKER_COLOUR)
            return None
        key = "accepted" if self.colour_combo.currentText() == "acceptance" else "temperature"
        if key not in overlays:
            key = "temperature" if "temperature" in overlays else "accepted"
        values = np.asarray(overlays[key], dtype=np.float64)
        if len(values) != len(snap.positions):
            self.walkers.setColors(WALKER_COLOUR)
            return None
        if key == "temperature":
            with np.errstate(all="ignore"):
                values = np.log10(np.maximum(values, 1e-300))
            colours = self.cmap_hot
        else:
            colours = self.cmap_accept
        self.walkers.setColors(colours)
        finite = values[np.isfinite(values)]
        if key == "accepted":
            lo, hi = 0.0, 1.0
        elif finite.size:
            # Hottest = the highest temperature seen this run; the colours cool over at least
            # TEMPERATURE_DECADES decades below it (one global temperature is common).
            seen_lo, seen_hi = self._temperature_seen or (np.inf, -np.inf)
            seen_lo, seen_hi = min(seen_lo, float(finite.min())), max(seen_hi, float(finite.max()))
            self._temperature_seen = (seen_lo, seen_hi)
            lo, hi = min(seen_lo, seen_hi - TEMPERATURE_DECADES), seen_hi
        else:
            lo, hi = 0.0, 1.0
        span = hi - lo if hi > lo else 1.0
        return np.clip(((values - lo) / span * CLASS_COLOURS).astype(np.int64), 0, CLASS_COLOURS - 1)

    def _class_palettes(self) -> None:
        # cold cyan -> hot red: both stand out on the viridis landscape (plasma's yellow would not)
        def ramp(a, b):
            a, b = np.array(a, dtype=float), np.array(b, dtype=float)
            return [tuple(int(v) for v in a + (b - a) * k / (CLASS_COLOURS - 1)) + (235,)
                    for k in range(CLASS_COLOURS)]

        self.cmap_hot = ramp((90, 220, 255), (255, 50, 40))
        self.cmap_accept = ramp((255, 70, 60), (110, 255, 120))

    def _show_colour_choice(self, visible: bool) -> None:
        self.colour_label.setVisible(visible)
        self.colour_combo.setVisible(visible)

    def _draw_overlays(self, snap: Snapshot, xy: np.ndarray) -> None:
        """Segments (pairs) for steps, simplices, velocities and trials; links apart."""
        empty = np.zeros((0, 2))
        if not self.overlay_check.isChecked() or self.problem is None:
            self.segments.setData([], [])
            self.links.setData([], [])
            self.trials.setData(empty)
            return
        ov, (ax, ay), p = snap.overlays, self.axes, self.problem
        parts = []
        k = min(len(xy), OVERLAY_WALKERS)
        if "steps" in ov and k:
            steps = np.asarray(ov["steps"], dtype=np.float64)[:k]
            dx = steps * (p.upper[ax] - p.lower[ax])
            dy = steps * (p.upper[ay] - p.lower[ay])
            cx, cy = xy[:k, 0], xy[:k, 1]
            horizontal = np.stack([np.stack([cx - dx, cy], 1), np.stack([cx + dx, cy], 1)], 1)
            vertical = np.stack([np.stack([cx, cy - dy], 1), np.stack([cx, cy + dy], 1)], 1)
            parts += [horizontal.reshape(-1, 2), vertical.reshape(-1, 2)]
        if "simplices" in ov:
            simplices = np.asarray(ov["simplices"], dtype=np.float64)  # (m, d+1, d)
            if simplices.ndim == 3 and simplices.shape[1] >= 2:
                i, j = np.triu_indices(simplices.shape[1], k=1)
                proj = simplices[:, :, [ax, ay]]
                edges = np.stack([proj[:, i], proj[:, j]], axis=2)  # (m, e, 2, 2)
                parts.append(edges.reshape(-1, 2))
        m = min(len(xy), ARROW_WALKERS)
        if "velocities" in ov and m:
            vel = np.asarray(ov["velocities"], dtype=np.float64)[:m][:, [ax, ay]]
            parts.append(np.stack([xy[:m], xy[:m] + vel], 1).reshape(-1, 2))
        trial_points = empty
        if "trials" in ov and m:
            trials = np.asarray(ov["trials"], dtype=np.float64)[:m][:, [ax, ay]]
            parts.append(np.stack([xy[:m], trials], 1).reshape(-1, 2))
            trial_points = trials
        self.trials.setData(trial_points)
        if parts:
            seg = np.concatenate(parts)
            self.segments.setData(seg[:, 0], seg[:, 1], connect="pairs")
        else:
            self.segments.setData([], [])
        links = ov.get("links")
        if links is not None and len(links) and len(xy):
            links = np.asarray(links, dtype=np.int64)[:OVERLAY_LINKS]
            links = links[(links >= 0).all(axis=1) & (links < len(xy)).all(axis=1)]
            seg = np.stack([xy[links[:, 0]], xy[links[:, 1]]], 1).reshape(-1, 2)
            self.links.setData(seg[:, 0], seg[:, 1], connect="pairs")
        else:
            self.links.setData([], [])

    # --- slots ---------------------------------------------------------------------------------
    def _on_axis_changed(self, *_args) -> None:
        if self.problem is None or self.problem.dim < 2:
            return
        ax, ay = self.axis_x.currentIndex(), self.axis_y.currentIndex()
        if ax == ay:  # keep two distinct axes: move the other combo out of the way
            other = self.axis_y if self.sender() is self.axis_x else self.axis_x
            other.blockSignals(True)
            other.setCurrentIndex((ax + 1) % self.problem.dim)
            other.blockSignals(False)
            ax, ay = self.axis_x.currentIndex(), self.axis_y.currentIndex()
        self.axes = (ax, ay)
        self._scale = None  # another plane: held again from its first slice
        self._trail = []
        self._draw_minimiser()
        self._fit_range()
        snap = self._last_snapshot
        point = snap.best_x if snap is not None else (
            self.grid.point if self.grid is not None else self._initial_point())
        self._request_slice(point, force=True)
        if snap is not None:
            self.show_snapshot(snap)

    def _on_hold_toggled(self, held: bool) -> None:
        self._scale = self.grid.scale if held and self.grid is not None else None

    def _on_display_option_changed(self, *_args) -> None:
        if self._last_snapshot is not None:
            self.show_snapshot(self._last_snapshot)
