"""Landscape grid, contours and drawing; the generated parameter form and the set-up form."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

pytest.importorskip("PyQt6")
pytest.importorskip("pyqtgraph")
from PyQt6 import QtCore, QtGui, QtWidgets  # noqa: E402

import solvers  # noqa: E402
from solvers.params import specs  # noqa: E402
from solvers.problems import base as problem_base  # noqa: E402
from solvers.problems import get_problem  # noqa: E402
from solvers.snapshot import Snapshot  # noqa: E402

from gui.landscape_grid import colour_scale, contour_levels, contour_segments, evaluate_slice  # noqa: E402

pytestmark = pytest.mark.gui


# --- grids and contours (no Qt) -------------------------------------------------------------------
def test_sphere_gets_a_log_scale_and_rastrigin_a_linear_one():
    sphere = evaluate_slice(get_problem("sphere", 2), (0, 1), np.zeros(2))
    rastrigin = evaluate_slice(get_problem("rastrigin", 2), (0, 1), np.zeros(2))
    assert sphere.log_scale and not rastrigin.log_scale
    assert np.all(np.isfinite(sphere.display))
    lo, hi = sphere.levels
    assert lo < hi and np.nanmin(sphere.display) >= lo - 1e-9


def test_colour_scale_survives_nan_and_constant_values():
    display, log, levels = colour_scale(np.full((4, 4), np.nan))
    assert not log and levels == (0.0, 1.0) and np.all(display == 0)
    display, log, levels = colour_scale(np.full((4, 4), 3.0))
    assert not log and levels[1] > levels[0]


def test_slice_along_other_axes_matches_direct_evaluation():
    problem = get_problem("rastrigin", 6)
    point = np.linspace(-1, 1, 6)
    grid = evaluate_slice(problem, (2, 5), point, resolution=16)
    row, col = 7, 11
    x = point.copy()
    x[2], x[5] = grid.xs[col], grid.ys[row]
    assert grid.values[row, col] == pytest.approx(float(problem.evaluate(x[None, :])[0]))
    assert grid.values.shape == (16, 16) and grid.axes == (2, 5)


def test_contours_of_the_sphere_are_closed_circles_of_the_right_radius():
    grid = evaluate_slice(get_problem("sphere", 2), (0, 1), np.zeros(2))
    segments = contour_segments(grid.values, np.array([2500.0]), grid.xs, grid.ys)
    assert len(segments) > 100 and len(segments) % 2 == 0
    radius = np.hypot(segments[:, 0], segments[:, 1])
    np.testing.assert_allclose(radius, 50.0, atol=0.5)
    # a closed curve: every end point is shared by exactly two segments
    ends = Counter(map(tuple, np.round(segments, 9)))
    assert set(ends.values()) == {2}


def test_contours_skip_nan_cells_and_empty_levels():
    z = np.add.outer(np.arange(8.0), np.arange(8.0))
    z[3, 3] = np.nan
    xs = ys = np.arange(8.0)
    seg = contour_segments(z, np.array([6.5]), xs, ys)
    assert len(seg) and np.all(np.isfinite(seg))
    assert len(contour_segments(z, np.array([100.0]), xs, ys)) == 0
    assert len(contour_levels(np.full((3, 3), np.nan))) == 0


# --- drawing --------------------------------------------------------------------------------------
def test_point_cloud_draws_its_points_in_their_class_colours(qtbot):
    import pyqtgraph as pg

    from gui.point_cloud import PointCloudItem

    widget = pg.PlotWidget()
    qtbot.addWidget(widget)
    widget.resize(200, 200)
    widget.setBackground("k")
    item = PointCloudItem(size=9, colors=[(255, 0, 0, 255), (0, 255, 0, 255)], outline=None)
    widget.addItem(item)
    widget.getPlotItem().hideAxis("left")
    widget.getPlotItem().hideAxis("bottom")
    widget.setRange(xRange=(0, 10), yRange=(0, 10), padding=0)
    item.setData(np.array([[2.5, 5.0], [7.5, 5.0], [np.nan, 1.0]]), classes=np.array([0, 1, 0]))
    assert item.points().shape == (2, 2)  # the NaN point is dropped
    widget.show()
    image = widget.grab().toImage()
    view = widget.getPlotItem().getViewBox()

    def colour_at(x, y):
        scene = view.mapViewToScene(QtCore.QPointF(x, y))
        pos = widget.mapFromScene(scene)
        return QtGui.QColor(image.pixel(pos.x(), pos.y()))

    red, green, empty = colour_at(2.5, 5.0), colour_at(7.5, 5.0), colour_at(5.0, 8.0)
    assert red.red() > 200 and red.green() < 60
    assert green.green() > 200 and green.red() < 60
    assert empty.red() < 40 and empty.green() < 40


def _snapshot(problem, positions, **overlays):
    k, dim = positions.shape
    return Snapshot(algorithm="test", problem=problem, engine="numpy", dim=dim, iteration=1, evals=k,
                    seconds=0.1, evals_per_second=10.0 * k, best_x=positions[0].copy(), best_f=1.0,
                    positions=positions, fitness=np.ones(k), sample_index=np.arange(k),
                    walkers=k, overlays=overlays)


@pytest.fixture
def view(qtbot):
    from gui.landscape_view import LandscapeView

    widget = LandscapeView()
    qtbot.addWidget(widget)
    widget.show()
    yield widget
    widget.close()
    assert widget._pool.activeThreadCount() == 0


def _segment_count(curve):
    x, _ = curve.getData()
    return 0 if x is None else len(x) // 2


def test_every_overlay_kind_is_drawn(view, qtbot):
    with qtbot.waitSignal(view.sigLandscapeReady, timeout=5000):
        view.set_problem("rastrigin", 2)
    rng = np.random.default_rng(1)
    pos = rng.uniform(-5, 5, (50, 2))
    view.show_snapshot(_snapshot("rastrigin", pos, steps=np.full(50, 0.01)))
    assert _segment_count(view.segments) == 2 * 50  # a horizontal and a vertical bar each
    view.show_snapshot(_snapshot("rastrigin", pos, simplices=rng.uniform(-5, 5, (3, 3, 2))))
    assert _segment_count(view.segments) == 3 * 3
    view.show_snapshot(_snapshot("rastrigin", pos, velocities=np.ones((50, 2)),
                                 links=np.array([[0, 1], [2, 3], [4, 99]])))
    assert _segment_count(view.segments) == 50 and _segment_count(view.links) == 2  # 99: no such walker
    view.show_snapshot(_snapshot("rastrigin", pos, trials=pos + 0.5))
    assert len(view.trials.points()) == 50
    temperature = np.geomspace(1e3, 1e-2, 50)
    view.show_snapshot(_snapshot("rastrigin", pos, temperature=temperature, accepted=np.arange(50) % 2))
    classes = view.walkers.classes()
    assert classes is not None and classes[0] > classes[-1]  # hotter chains, higher class
    assert view.colour_combo.isVisibleTo(view)
    view.colour_combo.setCurrentText("acceptance")
    assert set(view.walkers.classes()) == {0, len(view.cmap_accept) - 1}
    view.overlay_check.setChecked(False)
    assert _segment_count(view.segments) == 0 and view.walkers.classes() is None


def test_trails_follow_the_same_walkers(view, qtbot):
    with qtbot.waitSignal(view.sigLandscapeReady, timeout=5000):
        view.set_problem("sphere", 2)
    view.trails_check.setChecked(True)
    pos = np.zeros((5, 2))
    for step in range(4):
        view.show_snapshot(_snapshot("sphere", pos + step))
    x, y = view.trails.getData()
    finite = np.isfinite(x)
    assert finite.sum() == 5 * 4  # 4 positions per walker, NaN between walkers
    assert np.array_equal(x[finite][:4], np.arange(4.0))


def test_nd_projection_and_one_dimensional_functions(view, qtbot):
    with qtbot.waitSignal(view.sigLandscapeReady, timeout=5000):
        view.set_problem("rastrigin", 5)
    assert view.axis_x.count() == 5 and view.axis_x.isVisibleTo(view)
    pos = np.arange(20.0).reshape(4, 5) / 10
    view.show_snapshot(_snapshot("rastrigin", pos))
    np.testing.assert_allclose(view.walker_points(), pos[:, [0, 1]])
    view.set_problem("sphere", 1)  # a curve, not a heatmap
    assert not view.image.isVisible() and view.line_1d.isVisible()
    x, _ = view.line_1d.getData()
    assert len(x) > 100
    view.show_snapshot(_snapshot("sphere", np.array([[3.0], [4.0]])))
    assert view.walker_points().shape == (2, 2)


def test_where_f_has_no_finite_value_the_heatmap_is_hatched_not_the_lowest_colour(view, qtbot):
    # log(x1) is undefined for x1 <= 0: that half was painted in the lowest colour (the best)
    with qtbot.waitSignal(view.sigLandscapeReady, timeout=5000):
        view.set_problem("expr: log(x1) + x2**2", 2)
    image = view.image.image
    left = view.grid.xs < 0
    assert np.isnan(image[:, left]).all() and np.isfinite(image[:, ~left]).all()
    assert view.undefined.isVisible() and view.undefined.rect().width() > 0
    assert "hatched: no finite value" in view.info.text()
    with qtbot.waitSignal(view.sigLandscapeReady, timeout=5000):
        view.set_problem("expr: log(-1 - x1**2) + x2", 2)  # nowhere defined: all hatched
    assert np.isnan(view.image.image).all() and view.undefined.isVisible()
    assert "no finite value on this slice" in view.info.text()
    with qtbot.waitSignal(view.sigLandscapeReady, timeout=5000):
        view.set_problem("rastrigin", 2)  # defined everywhere: no hatching, no words
    assert not view.undefined.isVisible() and "finite" not in view.info.text()


def test_a_typed_function_whose_box_changed_is_redrawn_on_its_new_box(view, qtbot):
    from solvers.problems.custom import set_expression_box

    name = "expr: x1**2 + x2**2"
    set_expression_box(name, -5.0, 5.0)
    with qtbot.waitSignal(view.sigLandscapeReady, timeout=5000):
        view.set_problem(name, 2)
    set_expression_box(name, -1.0, 1.0)  # the editor's OK with the same text, another box
    with qtbot.waitSignal(view.sigLandscapeReady, timeout=5000):
        view.set_problem(name, 2)
    np.testing.assert_array_equal(view.problem.lower, [-1.0, -1.0])
    assert (view.grid.xs[0], view.grid.xs[-1]) == (-1.0, 1.0)


# --- the generated parameter form -----------------------------------------------------------------
@pytest.mark.parametrize("algorithm", solvers.list_algorithms())
def test_parameter_form_is_generated_from_the_declared_parameters(qtbot, algorithm):
    from gui.param_form import INT_MAX, LIVE_MARK, ParamForm

    form = ParamForm()
    qtbot.addWidget(form)
    cls = solvers.get_algorithm(algorithm)
    form.set_params_class(cls.Params)
    declared = specs(cls.Params)
    assert [s.name for s in form.specs()] == [s.name for s in declared]
    # the defaults come back unchanged (a spin box must not round them)
    assert form.validate() == {s.name: s.default for s in declared}
    for spec in declared:
        editor = form.editor(spec.name)
        assert spec.tip in editor.toolTip()
        label = form._layout.labelForField(form.row(spec.name))
        assert label.text() == spec.title + (LIVE_MARK if spec.live else "")
        if spec.kind is bool:
            assert isinstance(editor, QtWidgets.QCheckBox)
        elif spec.choices:
            assert isinstance(editor, QtWidgets.QComboBox)
            assert [editor.itemText(i) for i in range(editor.count())] == list(spec.choices)
        elif spec.kind is int:
            assert isinstance(editor, QtWidgets.QSpinBox)
            lo = 0 if spec.auto else spec.lo  # 0 shows "auto"
            assert editor.minimum() == max(-INT_MAX, lo if lo is not None else -INT_MAX)
            assert editor.specialValueText() == ("auto" if spec.auto else "")
            assert editor.maximum() == min(INT_MAX, spec.hi if spec.hi is not None else INT_MAX)
        elif spec.kind is float:
            assert isinstance(editor, QtWidgets.QDoubleSpinBox)
            if spec.lo is not None:
                assert editor.minimum() == pytest.approx(spec.lo)
            if spec.hi is not None:
                assert editor.maximum() == pytest.approx(spec.hi)


def test_set_up_form_lists_the_registries(qtbot):
    from gui.config_form import CUSTOM_ENTRY, NAME_ROLE, ConfigForm

    form = ConfigForm()
    qtbot.addWidget(form)
    algorithms = [form.algorithm_combo.itemData(i) for i in range(form.algorithm_combo.count())]
    assert algorithms == solvers.list_algorithms()
    model = form.problem_combo.model()
    names, headers = [], []
    for row in range(model.rowCount()):
        item = model.item(row)
        if item.data(NAME_ROLE):
            names.append(item.data(NAME_ROLE))
        else:
            headers.append(item.text())
            assert not item.isSelectable() and not item.isEnabled()
    assert names == [n for g in dict.fromkeys(d.group for d in problem_base.problem_definitions())
                     for n in (d.name for d in problem_base.problem_definitions() if d.group == g)] \
        + [CUSTOM_ENTRY]  # the typed-function editor comes last, under its own header
    assert set(headers) == {d.group for d in problem_base.problem_definitions()} | {"Your own"}
    form.problem_combo.setCurrentIndex(form.problem_combo.findData("sphere"))
    assert "known minimum f* = 0" in form.problem_info.text()
    assert "[-100, 100]^2" in form.problem_info.text()


def test_dimension_limited_to_what_the_function_accepts(qtbot, monkeypatch):
    from gui.config_form import ConfigForm

    definition = problem_base.ProblemDef(
        name="test_even_dims", title="Even dimensions (test)", group="Tests", source="test",
        fn=lambda xp, X: xp.sum(X * X, axis=1), bounds=problem_base.box(-1, 1), dims=(2, 4, 8),
        default_dim=4)
    monkeypatch.setitem(problem_base._REGISTRY, definition.name, definition)
    form = ConfigForm()
    qtbot.addWidget(form)
    form.problem_combo.setCurrentIndex(form.problem_combo.findData(definition.name))
    assert (form.dim_spin.minimum(), form.dim_spin.maximum(), form.dim()) == (2, 8, 4)
    form.dim_spin.setValue(5)  # inside the spin range, but not accepted
    assert "accepts dimension 2, 4, 8 only" in form.dim_row.error
    assert form.build_config() is None and set(form.errors()) == {"dimension"}
    form.dim_spin.setValue(8)
    assert form.build_config().dim == 8


def test_state_round_trips_through_a_new_form(qtbot):
    from gui.config_form import ConfigForm

    first, second = ConfigForm(), ConfigForm()
    qtbot.addWidget(first)
    qtbot.addWidget(second)
    first.algorithm_combo.setCurrentIndex(first.algorithm_combo.count() - 1)
    editor = first.params_form.editor(first.params_form.specs()[0].name)
    if isinstance(editor, QtWidgets.QSpinBox):
        editor.setValue(editor.minimum())
    first.seed_spin.setValue(7)
    first.budget_kind.setCurrentText("seconds")
    first.budget_edit.setText("2.5")
    second.set_state(first.state())
    assert second.state() == first.state()
    assert second.build_config() == first.build_config()
    config = first.build_config()
    third = ConfigForm()
    qtbot.addWidget(third)
    third.apply_config(config)
    assert third.build_config() == config
