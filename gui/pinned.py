"""Legends and labels pinned to a place in a pyqtgraph view, without pyqtgraph's anchors.

pyqtgraph's GraphicsWidgetAnchor (a LegendItem's offset, LabelItem.anchor, a dragged legend's
autoAnchor) connects the parent's geometryChanged to a method of the item and never disconnects it.
While a window is torn down the parent can still emit that signal after the item's C++ object is
gone: the window tests on the GPU machine crashed there (a segmentation fault right after "wrapped
C/C++ object of type LegendItem has been deleted", docs/benchmarks/h100-issue14-s20.md). A pin keeps
the item in place from a slot that holds the item and its parent by weak reference and does nothing
once either is deleted; a dragged legend moves its pin instead of anchoring itself.
"""
from __future__ import annotations

import weakref

import pyqtgraph as pg
from PyQt6 import sip


class Pin:
    """Keeps point `item_pos` of an item (relative to its size: (0, 0) top left, (1, 1) bottom right)
    at point `parent_pos` of its parent (relative likewise), `offset` pixels away, whenever either
    changes size: GraphicsWidgetAnchor.anchor(item_pos, parent_pos, offset), without its connection."""

    def __init__(self, item, parent, item_pos, parent_pos, offset):
        self.item_pos, self.parent_pos, self.offset = tuple(item_pos), tuple(parent_pos), tuple(offset)
        self._item, self._parent = weakref.ref(item), weakref.ref(parent)
        item.setParentItem(parent)
        # the connections hold the pin (a lambda: PyQt holds a bound method of an object that is not a
        # QObject only weakly, and nothing else would keep the pin); the pin holds neither item alive
        parent.geometryChanged.connect(lambda: self.place())
        item.geometryChanged.connect(lambda: self.place())  # a legend grows and shrinks with its entries
        item.autoAnchor = self.move_to  # a dragged legend (LegendItem.mouseDragEvent) moves the pin
        self.place()

    def _both(self):
        item, parent = self._item(), self._parent()
        if item is None or parent is None or sip.isdeleted(item) or sip.isdeleted(parent):
            return None, None
        return item, parent

    def place(self) -> None:
        """Put the item where the pin says (nothing once the item or its parent is deleted)."""
        item, parent = self._both()
        if item is None:
            return
        mine, theirs = item.boundingRect().bottomRight(), parent.boundingRect().bottomRight()
        item.setPos(self.parent_pos[0] * theirs.x() - self.item_pos[0] * mine.x() + self.offset[0],
                    self.parent_pos[1] * theirs.y() - self.item_pos[1] * mine.y() + self.offset[1])

    def move_to(self, pos, relative: bool = True) -> None:
        """GraphicsWidgetAnchor.autoAnchor's choice for the item at `pos` (its parent's coordinates):
        the item's corner nearest the parent's edges, held at that relative place of the parent
        (relative) or at the parent's same corner with a fixed offset."""
        item, parent = self._both()
        if item is None:
            return
        box = item.mapRectToParent(item.boundingRect()).translated(pg.Point(pos) - item.pos())
        room = parent.boundingRect()
        right = abs(box.left() - room.left()) >= abs(box.right() - room.right())
        bottom = abs(box.top() - room.top()) >= abs(box.bottom() - room.bottom())
        corner = (1 if right else 0, 1 if bottom else 0)
        at = (box.right() if right else box.left(), box.bottom() if bottom else box.top())
        if relative:
            self.item_pos, self.offset = corner, (0.0, 0.0)
            self.parent_pos = ((at[0] - room.left()) / max(room.width(), 1e-9),
                               (at[1] - room.top()) / max(room.height(), 1e-9))
        else:
            self.item_pos = self.parent_pos = corner
            self.offset = (at[0] - (room.right() if right else room.left()),
                           at[1] - (room.bottom() if bottom else room.top()))
        self.place()


def pin(item, parent, corner: tuple[float, float] = (0.0, 0.0), offset: tuple[float, float] = (0.0, 0.0)) -> Pin:
    """Make `item` a child of `parent` and keep its `corner` ((0, 0) top left, (1, 0) top right, ...)
    at the same corner of the parent, `offset` pixels away."""
    return Pin(item, parent, corner, corner, offset)


def pinned_legend(plot_item: pg.PlotItem, corner=(0.0, 0.0), offset=(5.0, 5.0), **options) -> pg.LegendItem:
    """PlotItem.addLegend's legend (curves added with a name enter it; the plot's legend if it has
    one already), pinned instead of anchored. `options`: LegendItem's."""
    if plot_item.legend is None:
        legend = pg.LegendItem(offset=None, **options)
        pin(legend, plot_item.getViewBox(), corner, offset)
        plot_item.legend = legend
    return plot_item.legend
