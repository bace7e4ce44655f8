"""The window's "Custom..." function: the editor shows errors as you type (message and column), OK
selects the typed function with its box, and a set-up with it saves and loads unchanged."""
from __future__ import annotations

import numpy as np
import pytest
from PyQt6 import QtWidgets

from gui.config_form import CUSTOM_ENTRY, ConfigForm
from gui.expression_dialog import CustomFunction
from solvers.config_io import load_config, save_config



@pytest.fixture
def form(qtbot):
    widget = ConfigForm()
    qtbot.addWidget(widget)
    return widget


def _ok(dialog):
    return dialog.buttons.button(QtWidgets.QDialogButtonBox.StandardButton.Ok)


def test_custom_entry_opens_the_editor_and_shows_errors_live(qtbot, form):
    before = form.problem()
    form.problem_combo.setCurrentIndex(form.problem_combo.findData(CUSTOM_ENTRY))
    dialog = form.custom_dialog
    assert dialog is not None and dialog.isVisible()
    dialog.text_edit.setText("x1**2 + y")
    assert "column 9: unknown name 'y'" in dialog.error()
    assert dialog.caret.text() == " " * 8 + "^" and not _ok(dialog).isEnabled()
    dialog.text_edit.setText("x1**2 + x3")
    dialog.dim_spin.setValue(2)
    assert "x3 is out of range for dimension 2" in dialog.error()
    dialog.dim_spin.setValue(3)
    assert dialog.error() == "" and _ok(dialog).isEnabled()
    dialog.lower_edit.setText("4")
    dialog.upper_edit.setText("1")
    assert "inverted" in dialog.box_error() and not _ok(dialog).isEnabled()
    dialog.reject()
    assert form.problem() == before  # cancel returns to the function chosen before


@pytest.mark.parametrize("dtype, side", [("float64", "1e308"), ("float32", "1e38")])
def test_a_box_the_precision_cannot_hold_is_refused_in_the_editor(qtbot, form, dtype, side):
    # the editor let it through and Start refused it at the bottom of the form ("... overflow float64")
    form.dtype_combo.setCurrentText(dtype)
    form.problem_combo.setCurrentIndex(form.problem_combo.findData(CUSTOM_ENTRY))
    dialog = form.custom_dialog
    dialog.lower_edit.setText("-" + side)
    dialog.upper_edit.setText(side)
    assert f"overflow {dtype}" in dialog.box_error() and not _ok(dialog).isEnabled()
    assert dialog.value() is None
    dialog.upper_edit.setText("1")
    dialog.lower_edit.setText("-1")
    assert dialog.box_error() == "" and _ok(dialog).isEnabled()


def test_accepted_function_is_selected_with_its_box(qtbot, form):
    form.problem_combo.setCurrentIndex(form.problem_combo.findData(CUSTOM_ENTRY))
    dialog = form.custom_dialog
    dialog.text_edit.setText("sum(abs(x[i] - 1))")
    dialog.dim_spin.setValue(4)
    dialog.lower_edit.setText("-3")
    dialog.upper_edit.setText("3")
    _ok(dialog).click()
    assert form.problem() == "expr: sum(abs(x[i] - 1))" and form.dim() == 4
    form.budget_edit.setText("5")
    config = form.build_config()
    assert config is not None and config.bounds == (-3.0, 3.0) and config.problem == form.problem()
    assert config.make_problem().upper[0] == 3.0


def test_set_up_with_an_expression_saves_and_loads(qtbot, form, tmp_path):
    form.set_custom_function(CustomFunction("where(x1 > 0, x1, -2*x1) + x2**2", 2, -4.0, 6.0))
    form.budget_edit.setText("7")
    config = form.build_config()
    path = save_config(config, tmp_path / "custom.json")
    loaded = load_config(path)
    assert loaded == config
    other = ConfigForm()
    qtbot.addWidget(other)
    other.apply_config(loaded)
    assert other.problem() == config.problem and other.dim() == 2
    assert other.build_config() == config


def test_known_minimum_is_optional_checked_and_kept_with_the_set_up(qtbot, form, tmp_path):
    form.problem_combo.setCurrentIndex(form.problem_combo.findData(CUSTOM_ENTRY))
    dialog = form.custom_dialog
    dialog.text_edit.setText("(x1 - 1)**2 + x2**2 + 3")
    assert dialog.f_min_error() == "" and _ok(dialog).isEnabled()  # empty: unknown
    dialog.f_min_edit.setText("three")
    assert "finite number" in dialog.f_min_error() and not _ok(dialog).isEnabled()
    dialog.f_min_edit.setText("inf")
    assert "finite number" in dialog.f_min_error() and not _ok(dialog).isEnabled()
    dialog.f_min_edit.setText("3")
    _ok(dialog).click()
    form.budget_edit.setText("5")
    config = form.build_config()
    assert config.f_min == 3.0 and config.make_problem().f_min == 3.0
    loaded = load_config(save_config(config, tmp_path / "known.json"))
    assert loaded == config
    other = ConfigForm()
    qtbot.addWidget(other)
    other.apply_config(loaded)
    assert other.build_config().f_min == 3.0
    other.set_custom_function(CustomFunction("x1**2 + x2**2", 2, -1.0, 1.0))  # no minimum given
    assert other.build_config().f_min is None


def test_the_charts_draw_a_typed_function_s_known_minimum_as_for_a_built_in(qtbot, form):
    # the README: with a known minimum "the charts show the error ... as for a built-in"; the
    # chart read the minimum from the registry, where a typed function has none
    from gui.charts import ConvergenceChart

    form.set_custom_function(CustomFunction("(x1 - 1)**2 + x2**2 - 3", 2, -5.0, 5.0, -3.0))
    form.budget_edit.setText("5")
    config = form.build_config()
    chart = ConvergenceChart()
    qtbot.addWidget(chart)
    for begin in (lambda: chart.begin_run(config), lambda: chart.clear_for(config.problem, config.dim,
                                                                         config.f_min)):
        begin()
        assert chart.f_min == -3.0 and all(line.isVisible() for line in chart.min_lines)
        assert chart.min_lines[0].value() == -3.0 and "known minimum f* = -3" in chart.legend.text()


def test_typed_function_runs_on_the_numba_engine(qtbot, form):
    """The window's worker runs a typed function on numba (the engine compiles it) like a built-in."""
    pytest.importorskip("numba")
    from PyQt6 import QtCore

    from gui.worker import SolverWorker

    form.set_custom_function(CustomFunction("sum((x[i] - 1)**2) + where(x1 > 1, 0, 0.5)", 3, -4.0, 4.0))
    form.engine_combo.setCurrentText("numba")
    assert form.engine() == "numba"
    form.budget_edit.setText("6")
    config = form.build_config()
    worker = SolverWorker(config)
    thread = QtCore.QThread()
    worker.moveToThread(thread)
    errors, results = [], []
    worker.sigErrored.connect(errors.append)
    worker.sigFinished.connect(results.append)
    thread.started.connect(worker.run)
    worker.sigFinished.connect(thread.quit)
    with qtbot.waitSignal(thread.finished, timeout=120_000):
        thread.start()
    thread.wait()
    assert errors == [] and results and results[0] is not None
    assert results[0].engine == "numba" and np.isfinite(results[0].best_f)


def test_the_reopened_editor_keeps_every_digit_of_the_box_and_minimum(qtbot, form):
    # the box was shown with '{:g}': [0, 3.14159265358979] read 3.14159, and OK on the reopened
    # editor (to change only the expression) shrank the box; the minimum read 0.39788700000000002
    typed = CustomFunction("sum(sin(x[i])*sin(i*x[i]**2/pi)**20)", 2, -1e-7, 3.14159265358979, 0.397887)
    form.set_custom_function(typed)
    dialog = form.open_custom_editor()
    assert (dialog.lower_edit.text(), dialog.upper_edit.text(), dialog.f_min_edit.text()) == \
        ("-1e-07", "3.14159265358979", "0.397887")
    assert dialog.value() == typed
    dialog.accept()
    assert form.build_config().bounds == (-1e-7, 3.14159265358979)


def test_a_pasted_text_over_the_limit_is_refused_by_its_length_not_cut(qtbot, form):
    # the field cut a pasted text at 2,000 characters without a word: the message was the cut
    # text's ('nested deeper than 64 levels'), and a cut that still parsed was another function
    form.problem_combo.setCurrentIndex(form.problem_combo.findData(CUSTOM_ENTRY))
    dialog = form.custom_dialog
    text = "x1**2 + " + " + ".join(f"0.{i:04d}*x2**2" for i in range(200))
    assert len(text) > 2000
    dialog.text_edit.setText(text)
    assert dialog.text_edit.text() == text
    assert "characters long; at most 2,000 are allowed" in dialog.error()
    assert not _ok(dialog).isEnabled()
