"""Issue 17 in the window: closing during a huge iteration, failed saves and loads that say so,
the exception hook's dialog, out-of-range typing and the landscape's memory bound."""
from __future__ import annotations

import errno
import json
import os
import time
import tracemalloc

import numpy as np
import pytest

pytest.importorskip("PyQt6")
pytest.importorskip("pyqtgraph")
from PyQt6 import QtCore, QtWidgets  # noqa: E402

from solvers.problems import get_problem  # noqa: E402


@pytest.fixture
def window(qtbot, tmp_path):
    from gui.main_window import MainWindow

    settings = QtCore.QSettings(str(tmp_path / "s.ini"), QtCore.QSettings.Format.IniFormat)
    win = MainWindow(settings)
    qtbot.addWidget(win)
    win.show()
    yield win
    win.close()


def configure(win, algorithm, problem="sphere", dim=2, budget="30", walkers=None):
    form = win.form
    form.algorithm_combo.setCurrentIndex(form.algorithm_combo.findData(algorithm))
    form.problem_combo.setCurrentIndex(form.problem_combo.findData(problem))
    form.dim_spin.setValue(dim)
    form.budget_kind.setCurrentText("iterations")
    form.budget_edit.setText(budget)
    if walkers is not None:
        form.params_form.editor("walkers").setValue(walkers)


def test_window_closes_within_a_second_during_a_d300_pattern_search(window, qtbot):
    configure(window, "pattern_search", "rastrigin", dim=300, budget="1000", walkers=2048)
    assert window.start()
    qtbot.waitUntil(lambda: window.controller.is_running, timeout=5000)
    time.sleep(1.5)  # well inside the first 1.2 M-evaluation iteration
    t0 = time.perf_counter()
    window.close()
    elapsed = time.perf_counter() - t0
    assert window.controller.thread is None and not window.controller.is_running
    assert elapsed < 1.0, f"closing took {elapsed:.2f} s"


def test_failed_exports_are_reported_not_called_saved(window, tmp_path, monkeypatch):
    from gui import export

    missing = tmp_path / "no-such-folder" / "x.png"
    for target in (window.landscape.plot, window.chart.view, window):
        monkeypatch.setattr(export, "ask_save_path", lambda *a, p=missing: p)
        window.statusBar().clearMessage()
        window._export_png(target, "x.png")
        assert "failed" in window.error_banner.text() and not window.error_banner.isHidden()
        assert not window.status_text().startswith("saved")
    assert not missing.exists()
    window.results.append(type("R", (), {"history": [], "params": {}})())
    monkeypatch.setattr(export, "ask_save_path", lambda *a: tmp_path / "no-such-folder" / "h.csv")
    window._export_csv()
    assert "Export CSV failed" in window.error_banner.text()


def test_deeply_nested_and_huge_setups_show_a_message(window, tmp_path, monkeypatch):
    from gui import export

    shown = []
    monkeypatch.setattr(QtWidgets.QMessageBox, "warning", lambda parent, title, text: shown.append(text))
    for name, text in (("nested.json", "[" * 100_000 + "]" * 100_000),
                       ("huge.json", json.dumps({"format": "multiwalk-run", "version": 1,
                                                 "algorithm": "pattern_search", "problem": "sphere",
                                                 "dim": 10**400}))):
        path = tmp_path / name
        path.write_text(text)
        monkeypatch.setattr(QtWidgets.QFileDialog, "getOpenFileName", lambda *a, p=path: (str(p), ""))
        assert export.load_config_dialog(window) is None
    assert "nested too deeply" in shown[0] and "too large" in shown[1]


def test_exception_hook_shows_a_dialog_with_copy_details(qtbot, monkeypatch):
    from gui import error_dialog

    boxes = []
    monkeypatch.setattr(QtWidgets.QMessageBox, "exec", lambda self: boxes.append(self) or 0)
    try:
        raise RuntimeError("boom in a slot")
    except RuntimeError as exc:
        error_dialog.excepthook(type(exc), exc, exc.__traceback__)
    box = boxes[0]
    assert "boom in a slot" in box.text() and "Traceback" in box.detailedText()
    copy = [b for b in box.buttons() if b.text() == "Copy details"][0]
    copy.click()
    assert "boom in a slot" in QtWidgets.QApplication.clipboard().text()


def test_app_installs_the_hook_and_a_slot_exception_does_not_abort(tmp_path):
    import subprocess
    import sys

    code = ("import sys; sys.argv=['main.py']; from gui import app; "
            "from PyQt6 import QtCore, QtWidgets; from gui import error_dialog; "
            "QtWidgets.QMessageBox.exec = lambda self: print('DIALOG', self.text().splitlines()[0]); "
            "a = QtWidgets.QApplication([]); error_dialog.install_excepthook(); "
            "QtCore.QTimer.singleShot(0, lambda: 1/0); QtCore.QTimer.singleShot(100, a.quit); "
            "print('rc', a.exec())")
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          timeout=60, cwd=os.path.dirname(os.path.dirname(__file__)))
    assert "DIALOG An unexpected error happened: ZeroDivisionError" in proc.stdout, proc.stderr
    assert "rc 0" in proc.stdout and proc.returncode == 0


def test_typed_out_of_range_values_are_said_beside_the_field(window, qtbot):
    configure(window, "pattern_search")
    editor = window.form.params_form.editor("delta0")
    editor.lineEdit().setText("1e999")
    editor.interpretText()
    editor.fixup(editor.lineEdit().text())
    assert "out of range" in window.form.params_form.row("delta0").error
    walkers = window.form.params_form.editor("walkers")
    walkers.fixup("999999999999")
    assert "out of range" in window.form.params_form.row("walkers").error
    window.form.dim_spin.fixup("5000000")
    assert "out of range" in window.form.dim_row.error


def _type_without_enter(qtbot, spin, text):
    """Replace a spin box's text by typing, leaving the focus there (nothing confirms it)."""
    spin.lineEdit().selectAll()
    qtbot.keyClick(spin.lineEdit(), QtCore.Qt.Key.Key_Delete)
    if text:
        qtbot.keyClicks(spin.lineEdit(), text)


def test_start_from_the_toolbar_runs_the_typed_values_not_the_previous_ones(window, qtbot):
    configure(window, "pattern_search", "sphere", budget="3", walkers=24)
    # the toolbar's Start takes no focus, so the fields were never left: their text must count
    _type_without_enter(qtbot, window.form.params_form.editor("walkers"), "50")
    _type_without_enter(qtbot, window.form.dim_spin, "3")
    started = []
    window.controller.sigStarted.connect(started.append)
    with qtbot.waitSignal(window.controller.sigFinished, timeout=20000):
        window.start_action.trigger()
    assert started[0].params.walkers == 50 and started[0].dim == 3


def test_seed_and_walkers_drawn_say_refused_typing_and_run_what_is_typed(window, qtbot):
    # they were plain spin boxes: -5 typed in Seed showed and ran 5 without a word, and a value
    # typed without Enter before the toolbar's Start was not the one that ran
    configure(window, "pattern_search", "sphere", budget="3", walkers=24)
    form = window.form
    _type_without_enter(qtbot, form.seed_spin, "-5")
    assert form.seed_spin.text() == "5" and form.seed_row.error.startswith("'-' refused: the field takes")
    _type_without_enter(qtbot, form.seed_spin, "7")
    _type_without_enter(qtbot, form.sample_spin, "9")
    started = []
    window.controller.sigStarted.connect(started.append)
    with qtbot.waitSignal(window.controller.sigFinished, timeout=20000):
        window.start_action.trigger()
    assert (started[0].seed, started[0].sample_size) == (7, 9) and "seed" not in form.errors()
    _type_without_enter(qtbot, form.sample_spin, "")
    assert not window.start() and form.errors()["sample_size"].startswith("enter a number")


def test_unconfirmed_bad_typing_refuses_the_start_and_says_what_the_field_keeps(window, qtbot):
    configure(window, "pattern_search", "sphere", budget="3", walkers=24)
    editor = window.form.params_form.editor("walkers")
    row = window.form.params_form.row("walkers")
    _type_without_enter(qtbot, editor, "99999999999")
    assert not window.start() and not window.controller.is_running
    assert row.error.startswith("99999999999 is out of range") and row.error.endswith("the field keeps 24")
    assert editor.text() == "24"  # shown again: the next Start runs what is shown
    _type_without_enter(qtbot, editor, "")
    assert not window.start()
    assert row.error == "enter a number; the field keeps 24"
    delta = window.form.params_form.editor("delta0")
    _type_without_enter(qtbot, delta, "0.9")
    delta.interpretText()
    delta.fixup(delta.lineEdit().text())  # what Enter does with an out-of-range value
    assert window.form.params_form.row("delta0").error.endswith("the field keeps 0.1")


def test_refused_keystrokes_are_said_beside_the_field_and_valid_typing_is_unchanged(window, qtbot):
    # Qt's validator drops a '-' where the minimum is 0 and an 'e': -5 showed as 5, 1e999 as 1999,
    # without a word; 0.5 in a whole-number field kept the old value without a word
    configure(window, "pattern_search", walkers=24)
    params = window.form.params_form
    fields = {"walkers": (params.editor("walkers"), params.row("walkers")),
              "delta0": (params.editor("delta0"), params.row("delta0")),
              "dim": (window.form.dim_spin, window.form.dim_row)}
    for name, typed, shown, said in (
            ("walkers", "-5", "5", "'-' refused: the field takes a whole number from 0"),
            ("walkers", "1e999", "1999", "'e' refused: the field takes a whole number"),
            ("dim", "-5", "5", "'-' refused: the field takes a whole number from 1"),
            ("delta0", "1e3", "13", "'e' refused: the field takes a decimal number")):
        editor, row = fields[name]
        row.clear()
        _type_without_enter(qtbot, editor, typed)
        assert editor.text() == shown and row.error.startswith(said), (name, typed, row.error)
    editor, row = fields["walkers"]
    _type_without_enter(qtbot, editor, "0.5")
    qtbot.keyClick(editor.lineEdit(), QtCore.Qt.Key.Key_Return)
    assert row.error == "0.5 is not a whole number from 0 to 16777216; the field keeps 24"
    for name, typed, value in (("walkers", "50", 50), ("delta0", "0.25", 0.25), ("dim", "3", 3)):
        editor, row = fields[name]
        row.clear()
        _type_without_enter(qtbot, editor, typed)
        assert row.error == ""  # no message while valid characters are typed
        qtbot.keyClick(editor.lineEdit(), QtCore.Qt.Key.Key_Return)
        assert editor.value() == value and editor.text() == typed and row.error == ""


def test_a_field_showing_auto_is_not_a_refused_keystroke(window):
    # the special text 'auto' is Invalid to Qt's validator; taking the form must not call it refused
    configure(window, "pattern_search")
    editor, row = window.form.params_form.editor("walkers"), window.form.params_form.row("walkers")
    assert editor.text() == "auto"
    assert window.form.build_config() is not None and row.error == ""


def test_annealing_values_the_auto_schedule_replaces_do_not_block_the_start(window, qtbot):
    # T_min above T0 is refused under the fixed schedule; switching to auto greys both fields out
    # (fitted by the run), so they must no longer stop the start with a message nobody can act on
    configure(window, "simulated_annealing", "sphere", budget="3", walkers=16)
    params = window.form.params_form
    params.editor("schedule").setCurrentText("fixed")
    params.editor("t_min").setValue(5000.0)
    assert not window.start() and "must be smaller than 't0'" in params.row("t_min").error
    params.editor("schedule").setCurrentText("auto")
    assert not params.editor("t_min").isEnabled()
    with qtbot.waitSignal(window.controller.sigFinished, timeout=20000) as finished:
        assert window.start(), window.form.errors()
    assert finished.args[0] is not None and finished.args[0].stop_reason == "max_iters"


def test_dimension_that_cannot_be_drawn_is_refused_beside_the_field(window):
    from gui.landscape_grid import MAX_DRAWN_DIM

    configure(window, "pattern_search", "sphere", dim=MAX_DRAWN_DIM + 1)
    assert "draws landscapes up to" in window.form.dim_row.error
    assert window.form.build_config() is None


def test_landscape_memory_is_bounded_at_high_dimension():
    from gui.landscape_grid import CHUNK_ELEMENTS, evaluate_slice, slice_resolution

    problem = get_problem("sphere", 20_000)
    tracemalloc.start()
    try:
        grid = evaluate_slice(problem, (0, 1), np.zeros(20_000))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert grid.values.shape == (slice_resolution(20_000),) * 2
    assert peak < 4 * CHUNK_ELEMENTS * 8, peak  # a few chunks, not 256 x 256 x d (10 GB)


def test_landscape_slice_stops_when_cancelled():
    from gui.landscape_grid import SliceCancelled, evaluate_slice

    calls = []
    with pytest.raises(SliceCancelled):
        evaluate_slice(get_problem("sphere", 5000), (0, 1), np.zeros(5000),
                       cancelled=lambda: calls.append(1) or len(calls) > 2)
    assert len(calls) == 3
