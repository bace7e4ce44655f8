"""A chart title that never sets the chart's least width: cut with an ellipsis to its room.

pyqtgraph's title (a LabelItem) takes its text's width as its least width, so a long title, or a
short one in a wide font (the GPU machine's fallback font drew "swarm spread" 188 px wide against
114 here), holds the chart wider than its column and the layout runs it past the panel's right edge.
``elide_title(plot)`` puts an ElidedTitle in the PlotItem's title cell instead.
"""
from __future__ import annotations

import html

import pyqtgraph as pg
from PyQt6 import QtCore, QtGui


class ElidedTitle(pg.LabelItem):
    """A LabelItem whose least width is 0: its text is cut with an ellipsis to the width the layout
    gives it, the whole text in its tooltip when cut. `text` stays the whole text (pyqtgraph's
    exporters read it); `shown` is what is drawn."""

    def __init__(self, text: str = "", parent=None, **args):
        self.full = text
        self.shown = None  # the text drawn now
        self._laid_out = False  # whether the layout has given the label a width yet
        super().__init__(text, parent=parent, **args)

    def setText(self, text: str, **args) -> None:  # noqa: N802 - pyqtgraph's name
        """The whole text (PlotItem.setTitle calls this); drawn cut to the room the layout gives."""
        self.full = text
        self.opts.update(args)
        self._draw(self._elided(self.rect().width()))

    def updateMin(self) -> None:  # noqa: N802 - pyqtgraph's name
        super().updateMin()
        height = self._sizeHint[QtCore.Qt.SizeHint.MinimumSize][1]
        self.setMinimumWidth(0)
        self._sizeHint[QtCore.Qt.SizeHint.MinimumSize] = (0, height)
        self._sizeHint[QtCore.Qt.SizeHint.PreferredSize] = (0, height)
        self.updateGeometry()

    def resizeEvent(self, ev) -> None:  # noqa: N802 - Qt's name
        if ev is not None:  # the layout gave a new width: cut the text to it
            self._laid_out = True
            text = self._elided(self.rect().width())
            if text != self.shown:
                self._draw(text)
                return
        super().resizeEvent(ev)

    def _draw(self, text: str) -> None:
        self.shown = text
        self.setToolTip(self.full if text != self.full else "")
        # LabelItem puts the text into an HTML span: a name with '<' or '&' is drawn as written
        super().setText(html.escape(text, quote=False))
        self.text = self.full

    def _elided(self, width: float) -> str:
        """The text cut to `width` pixels in the font LabelItem.setText's span draws it in (the whole
        text before the first layout pass)."""
        if not self._laid_out or not self.full:
            return self.full
        font = QtGui.QFont(self.item.font())
        size = str(self.opts.get("size", ""))
        if size.endswith("pt"):
            font.setPointSizeF(float(size[:-2]))
        elif size.endswith("px"):
            font.setPixelSize(int(float(size[:-2])))
        if "family" in self.opts:
            font.setFamily(self.opts["family"])
        if self.opts.get("bold") in (True, False):
            font.setBold(self.opts["bold"])
        if self.opts.get("italic") in (True, False):
            font.setItalic(self.opts["italic"])
        # the text item's own margin (QTextDocument's, on either side) is part of its width
        room = width - 2 * self.item.document().documentMargin()
        return QtGui.QFontMetricsF(font).elidedText(self.full, QtCore.Qt.TextElideMode.ElideRight, room)


def elide_title(plot: pg.PlotItem) -> ElidedTitle:
    """Replace `plot`'s title with an ElidedTitle (same options, text and visibility)."""
    old = plot.titleLabel
    title = ElidedTitle(old.text, parent=plot, **old.opts)
    title.setVisible(old.isVisible())
    title.setMaximumHeight(old.maximumHeight())
    # pyqtgraph's label stays the plot's child, hidden and out of the layout, and goes with the plot.
    # Taken out of the scene and left to Python's collector, the window tests' process died at a
    # teardown (a segmentation fault in Qt's deferred deletions, after two windows that were never
    # shown) in 2 of 4 runs here and once on the GPU machine; kept, 0 of 8 here
    plot.layout.removeItem(old)
    old.hide()
    plot._pyqtgraph_title = old
    plot.layout.addItem(title, 0, 1)
    plot.titleLabel = title
    return title
