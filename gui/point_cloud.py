"""A fast scatter item for many walkers: one pre-rendered symbol per colour, stamped per point.

pyqtgraph's ScatterPlotItem builds a Python-level record per point on every ``setData`` (about
30 ms for 10,000 points here), which alone would cap the window near 30 frames per second. Walkers
need none of its per-point features (hover, per-point symbols), so this item keeps the positions as
one NumPy array and draws them all with a single ``QPainter.drawPixmapFragments`` call from a small
atlas holding one dot per colour class (about 3 ms per frame for 10,000 points).
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PyQt6 import QtCore, QtGui, sip

_FRAGMENT_FIELDS = 10  # x, y, sourceLeft, sourceTop, width, height, scaleX, scaleY, rotation, opacity


class PointCloudItem(pg.GraphicsObject):
    """Round dots of a fixed pixel size at data positions, optionally in a few colour classes.

    ``setData(xy, classes=None)``: xy of shape (n, 2) in data coordinates; ``classes`` (n,) integers
    indexing the colours given to ``setColors`` (one colour when omitted).
    """

    def __init__(self, size: float = 5.0, colors=((240, 240, 240, 230),),
                 outline=(20, 20, 20, 200)):
        super().__init__()
        self._size = float(size)
        self._outline = QtGui.QColor(*outline) if outline is not None else None
        self._colors = [QtGui.QColor(*c) if not isinstance(c, QtGui.QColor) else c for c in colors]
        self._xy = np.zeros((0, 2))
        self._classes = None
        self._atlas: QtGui.QPixmap | None = None
        self._atlas_dpr = 0.0
        self._bounds = QtCore.QRectF()

    # --- data ----------------------------------------------------------------------------------
    def setData(self, xy, classes=None) -> None:
        xy = np.asarray(xy, dtype=np.float64).reshape(-1, 2)
        keep = np.isfinite(xy).all(axis=1)
        if not keep.all():
            xy = xy[keep]
            classes = None if classes is None else np.asarray(classes)[keep]
        self.prepareGeometryChange()
        self._xy = xy
        self._classes = None if classes is None else np.clip(
            np.asarray(classes, dtype=np.int64), 0, len(self._colors) - 1)
        if len(xy):
            lo, hi = xy.min(axis=0), xy.max(axis=0)
            self._bounds = QtCore.QRectF(lo[0], lo[1], hi[0] - lo[0], hi[1] - lo[1])
        else:
            self._bounds = QtCore.QRectF()
        self.update()

    def setColors(self, colors) -> None:
        """Colours of the classes, as (r, g, b, a) tuples or QColors."""
        colors = [QtGui.QColor(*c) if not isinstance(c, QtGui.QColor) else c for c in colors]
        if [c.rgba() for c in colors] == [c.rgba() for c in self._colors]:
            return  # unchanged: keep the rendered atlas
        self._colors = colors
        self._atlas = None
        self.update()

    def points(self) -> np.ndarray:
        """The drawn positions (n, 2), for tests and exports."""
        return self._xy

    def classes(self) -> np.ndarray | None:
        return self._classes

    # --- geometry ------------------------------------------------------------------------------
    def dataBounds(self, ax, frac=1.0, orthoRange=None):
        if not len(self._xy):
            return None, None
        column = self._xy[:, ax]
        return float(column.min()), float(column.max())

    def pixelPadding(self):
        return self._size

    def boundingRect(self):
        if self._bounds.isNull() and not len(self._xy):
            return QtCore.QRectF()
        # pad by the dot radius in data units so partial repaints never cut a dot in half
        px, py = self.pixelWidth() or 0.0, self.pixelHeight() or 0.0
        pad_x, pad_y = px * self._size, py * self._size
        return self._bounds.adjusted(-pad_x, -pad_y, pad_x, pad_y)

    def viewTransformChanged(self):
        self.prepareGeometryChange()

    # --- drawing -------------------------------------------------------------------------------
    def _make_atlas(self, dpr: float) -> QtGui.QPixmap:
        cell = int(np.ceil((self._size + 2) * dpr))
        atlas = QtGui.QPixmap(cell * len(self._colors), cell)
        atlas.fill(QtCore.Qt.GlobalColor.transparent)
        painter = QtGui.QPainter(atlas)
        painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        pen = QtGui.QPen(self._outline, dpr) if self._outline is not None else QtGui.QPen(
            QtCore.Qt.PenStyle.NoPen)
        painter.setPen(pen)
        diameter = self._size * dpr
        for k, colour in enumerate(self._colors):
            painter.setBrush(colour)
            painter.drawEllipse(QtCore.QRectF(k * cell + (cell - diameter) / 2, (cell - diameter) / 2,
                                              diameter, diameter))
        painter.end()
        self._cell = cell
        return atlas

    def paint(self, painter, option, widget=None):
        n = len(self._xy)
        if n == 0:
            return
        dpr = widget.devicePixelRatioF() if widget is not None else 1.0
        if self._atlas is None or dpr != self._atlas_dpr:
            self._atlas = self._make_atlas(dpr)
            self._atlas_dpr = dpr
        device = pg.functions.transformCoordinates(painter.transform(), self._xy.T).T
        device = np.clip(device, -2.0**30, 2.0**30)  # Qt misbehaves on huge coordinates
        painter.resetTransform()
        fragments = sip.array(QtGui.QPainter.PixmapFragment, n)
        view = np.frombuffer(sip.voidptr(fragments, n * _FRAGMENT_FIELDS * 8),
                             dtype=np.float64).reshape(n, _FRAGMENT_FIELDS)
        view[:, 0:2] = device
        view[:, 2] = 0.0 if self._classes is None else self._classes * self._cell
        view[:, 3] = 0.0
        view[:, 4:6] = self._cell
        view[:, 6:8] = 1.0 / dpr
        view[:, 8] = 0.0
        view[:, 9] = 1.0
        painter.drawPixmapFragments(fragments, self._atlas)
