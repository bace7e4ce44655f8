"""Legends and labels pinned to a corner of a pyqtgraph view, without pyqtgraph's anchors.

pyqtgraph's GraphicsWidgetAnchor (a LegendItem's offset, LabelItem.anchor) connects the parent's
geometryChanged to a method of the item and never disconnects it. While a window is torn down the
parent can still emit that signal after the item's C++ object is gone: the window tests on the GPU
machine crashed there (a segmentation fault right after "wrapped C/C++ object of type LegendItem has
been deleted", docs/benchmarks/h100-issue14-s20.md). pin() keeps an item in place from a slot that
holds the item and its parent by weak reference and does nothing once either is deleted.
"""
from __future__ import annotations

import weakref

import pyqtgraph as pg
from PyQt6 import sip


def pin(item, parent, corner: tuple[float, float] = (0.0, 0.0), offset: tuple[float, float] = (0.0, 0.0)) -> None:
    """Make `item` a child of `parent` and keep its `corner` ((0, 0) top left, (1, 0) top right, ...)
    at the same corner of the parent, `offset` pixels away, whenever either changes size (as
    GraphicsWidgetAnchor.anchor(corner, corner, offset) would)."""
    item.setParentItem(parent)
    item_ref, parent_ref = weakref.ref(item), weakref.ref(parent)

    def place() -> None:
        it, par = item_ref(), parent_ref()
        if it is None or par is None or sip.isdeleted(it) or sip.isdeleted(par):
            return
        mine, theirs = it.boundingRect().bottomRight(), par.boundingRect().bottomRight()
        it.setPos(corner[0] * (theirs.x() - mine.x()) + offset[0], corner[1] * (theirs.y() - mine.y()) + offset[1])

    parent.geometryChanged.connect(place)
    item.geometryChanged.connect(place)  # a legend grows and shrinks with its entries
    place()


def pinned_legend(plot_item: pg.PlotItem, corner=(0.0, 0.0), offset=(5.0, 5.0), **options) -> pg.LegendItem:
    """PlotItem.addLegend's legend (curves added with a name enter it), pinned by pin() instead of
    anchored. `options`: LegendItem's."""
    legend = pg.LegendItem(offset=None, **options)
    pin(legend, plot_item.getViewBox(), corner, offset)
    plot_item.legend = legend
    return legend
