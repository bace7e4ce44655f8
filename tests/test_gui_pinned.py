"""gui/pinned.py: legends and labels kept at a corner of a view without pyqtgraph's anchors, and
nothing done once the item or its view is gone (the teardown crash those anchors caused)."""
from __future__ import annotations

import pytest

pytest.importorskip("PyQt6")
pytest.importorskip("pyqtgraph")
import pyqtgraph as pg  # noqa: E402
from PyQt6 import sip  # noqa: E402

from gui.pinned import pin, pinned_legend  # noqa: E402


def _plot(qtbot, width=400, height=300):
    widget = pg.PlotWidget()
    qtbot.addWidget(widget)
    widget.resize(width, height)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def test_a_pinned_legend_follows_its_corner_as_the_view_and_the_legend_change_size(qtbot):
    widget = _plot(qtbot)
    view = widget.getPlotItem().getViewBox()
    legend = pg.LegendItem()
    pin(legend, view, corner=(1, 0), offset=(-8, 8))
    legend.addItem(pg.ScatterPlotItem(), "a marker")

    def right_gap():
        return view.boundingRect().width() - (legend.pos().x() + legend.boundingRect().width())

    assert abs(right_gap() - 8) < 0.5 and abs(legend.pos().y() - 8) < 0.5
    widget.resize(700, 300)
    qtbot.waitUntil(lambda: view.boundingRect().width() > 500)
    assert abs(right_gap() - 8) < 0.5  # the view grew: still 8 px from its right edge
    legend.addItem(pg.ScatterPlotItem(), "a much longer label than the first one")
    assert abs(right_gap() - 8) < 0.5  # the legend grew leftwards


def test_a_pinned_label_stays_at_its_corner(qtbot):
    widget = _plot(qtbot)
    view = widget.getPlotItem().getViewBox()
    top_left, bottom_right = pg.LabelItem("annealing"), pg.LabelItem("polishing")
    pin(top_left, view, corner=(0, 0), offset=(8, 4))
    pin(bottom_right, view, corner=(1, 1), offset=(-6, -3))
    widget.resize(600, 500)
    qtbot.waitUntil(lambda: view.boundingRect().width() > 400)
    assert (top_left.pos().x(), top_left.pos().y()) == (8, 4)
    room, box = view.boundingRect(), bottom_right.mapRectToParent(bottom_right.boundingRect())
    assert abs(room.right() - box.right() - 6) < 0.5 and abs(room.bottom() - box.bottom() - 3) < 0.5


def test_a_dragged_legend_moves_its_pin_and_keeps_its_place_as_the_view_grows(qtbot):
    # LegendItem.mouseDragEvent calls autoAnchor, which would anchor the legend (pyqtgraph's
    # connection again) and fight the pin; the pin takes the drag instead
    widget = _plot(qtbot)
    view = widget.getPlotItem().getViewBox()
    legend = pinned_legend(widget.getPlotItem())
    widget.getPlotItem().plot([1, 2, 3], name="numpy")
    legend.autoAnchor(legend.pos() + pg.Point(100, 60))  # what a drag by (100, 60) does
    assert abs(legend.pos().x() - 105) < 0.5 and abs(legend.pos().y() - 65) < 0.5
    share = (legend.pos().x() / view.boundingRect().width(), legend.pos().y() / view.boundingRect().height())
    widget.resize(800, 600)
    qtbot.waitUntil(lambda: view.boundingRect().width() > 600)
    # held at the same relative place of the view, as pyqtgraph's relative autoAnchor holds it
    assert abs(legend.pos().x() - share[0] * view.boundingRect().width()) < 0.5
    assert abs(legend.pos().y() - share[1] * view.boundingRect().height()) < 0.5


def test_pinned_legend_takes_named_curves_like_add_legend(qtbot):
    widget = _plot(qtbot)  # held: qtbot keeps only a weak reference
    plot = widget.getPlotItem()
    legend = pinned_legend(plot)
    plot.plot([1, 2, 3], name="cuda")
    assert plot.legend is legend and len(legend.items) == 1
    assert (legend.pos().x(), legend.pos().y()) == (5, 5)
    assert pinned_legend(plot) is legend  # the plot's legend, as addLegend gives it


def test_nothing_is_done_for_a_deleted_item_when_its_view_changes_size(qtbot):
    # pyqtgraph's anchor would call the deleted legend's method here: RuntimeError, "wrapped C/C++
    # object of type LegendItem has been deleted" (and on the GPU machine a segmentation fault)
    widget = _plot(qtbot)
    view = widget.getPlotItem().getViewBox()
    legend = pg.LegendItem()
    pin(legend, view, corner=(1, 0), offset=(-8, 8))
    sip.delete(legend)
    widget.resize(650, 420)
    qtbot.waitUntil(lambda: view.boundingRect().width() > 450)  # qtbot fails the test on an exception in a slot
