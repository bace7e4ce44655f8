"""The main window, offscreen: every algorithm runs and draws; run controls; refused input; errors;
N-D slices; settings; the smoke start of the application."""
from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("PyQt6")
pytest.importorskip("pyqtgraph")
from PyQt6 import QtCore, QtGui, QtWidgets  # noqa: E402

import solvers  # noqa: E402
from solvers import ConfigError  # noqa: E402
from solvers.problems import base as problem_base  # noqa: E402

pytestmark = pytest.mark.gui
ROOT = Path(__file__).resolve().parents[1]
SMALL_WALKERS = 24
RUN_TIMEOUT_MS = 20_000


# --- helpers ----------------------------------------------------------------------------------
@pytest.fixture
def make_window(qtbot, tmp_path):
    """Factory of shown MainWindows with throw-away settings, all closed (threads joined) at
    teardown; the strong references keep a window from being garbage-collected unclosed."""
    from gui.main_window import MainWindow

    made = []

    def factory(name: str = "settings.ini"):
        settings = QtCore.QSettings(str(tmp_path / name), QtCore.QSettings.Format.IniFormat)
        window = MainWindow(settings)
        qtbot.addWidget(window)
        window.show()
        made.append(window)
        return window

    yield factory
    for window in made:
        window.close()
        assert window.controller.thread is None


def configure(window, algorithm: str, problem: str = "sphere", dim: int = 2, budget: str = "30",
              kind: str = "iterations", walkers: int | None = SMALL_WALKERS) -> None:
    """Fill the form; `walkers` is clipped into the declared limits of the 'walkers' parameter."""
    form = window.form
    form.algorithm_combo.setCurrentIndex(form.algorithm_combo.findData(algorithm))
    assert form.algorithm() == algorithm
    form.problem_combo.setCurrentIndex(form.problem_combo.findData(problem))
    assert form.problem() == problem
    form.dim_spin.setValue(dim)
    assert form.dim() == dim
    form.budget_kind.setCurrentText(kind)
    form.budget_edit.setText(budget)
    editor = form.params_form.editor("walkers")
    if walkers is not None and editor is not None:
        editor.setValue(max(editor.minimum(), min(editor.maximum(), walkers)))


def run_to_end(qtbot, window):
    with qtbot.waitSignal(window.controller.sigFinished, timeout=RUN_TIMEOUT_MS) as blocker:
        assert window.start()
    return blocker.args[0]


def assert_closed_cleanly(window) -> None:
    window.close()
    assert window.controller.thread is None and not window.controller.is_running
    assert window.landscape._pool.activeThreadCount() == 0


def curve_length(curve) -> int:
    x, _y = curve.getData()
    return 0 if x is None else len(x)


# --- every algorithm ---------------------------------------------------------------------------
@pytest.mark.parametrize("algorithm", solvers.list_algorithms())
def test_every_algorithm_runs_draws_and_improves(qtbot, make_window, algorithm):
    window = make_window()
    configure(window, algorithm, problem="rastrigin", budget="30")
    snapshots = []
    window.controller.sigSnapshot.connect(snapshots.append)
    result = run_to_end(qtbot, window)

    assert result is not None, window.controller.last_error
    assert window.error_banner.isHidden()
    assert len(snapshots) >= 2 and snapshots[-1].finished
    assert result.best_f < snapshots[0].best_f, "the best value did not fall"
    # the views received the data
    last = snapshots[-1]
    drawn = window.landscape.walker_points()
    assert drawn.shape == (len(last.positions), 2) and len(drawn) > 0
    np.testing.assert_allclose(drawn, last.positions[:, :2])
    assert window.last_snapshot is last
    assert len(window.chart.current.best) >= 2
    assert window.chart.current.best[-1] == pytest.approx(result.best_f)
    assert window.extras.series, "no per-algorithm quantity was charted"
    assert all(len(xs) >= 1 for xs, _ys in window.extras.series.values())
    # what makes each algorithm itself is drawn
    overlays = last.overlays
    if {"steps", "simplices", "velocities", "trials"} & set(overlays):
        assert curve_length(window.landscape.segments) > 0
    if "links" in overlays and len(overlays["links"]):
        assert curve_length(window.landscape.links) > 0
    if "temperature" in overlays or "accepted" in overlays:
        assert window.landscape.walkers.classes() is not None
    assert "finished" in window.status_text()
    assert window.rate_label.text().endswith("evals/s")
    assert_closed_cleanly(window)


def test_landscape_shows_function_before_any_run(qtbot, make_window):
    window = make_window()
    configure(window, solvers.list_algorithms()[0], problem="sphere")
    qtbot.waitUntil(lambda: window.landscape.grid is not None
                    and window.landscape.problem.name == "sphere", timeout=5000)
    grid = window.landscape.grid
    assert grid.values.shape == (256, 256) and grid.log_scale  # sphere spans decades
    x, y = window.landscape.minimiser.getData()
    assert (x[0], y[0]) == (0.0, 0.0)  # the known minimiser is marked
    configure(window, solvers.list_algorithms()[0], problem="rastrigin")
    qtbot.waitUntil(lambda: window.landscape.problem.name == "rastrigin"
                    and window.landscape.grid is not None, timeout=5000)
    assert not window.landscape.grid.log_scale


# --- run controls ------------------------------------------------------------------------------
def test_pause_step_resume_stop_reset(qtbot, make_window):
    window = make_window()
    configure(window, "pattern_search", budget="100000000")
    snapshots = []
    window.controller.sigSnapshot.connect(snapshots.append)
    assert window.start()
    qtbot.waitUntil(lambda: len(snapshots) >= 2, timeout=5000)
    assert not window.start(), "a second start of a running run must be refused"

    window.pause_action.trigger()
    assert window.controller.is_paused and window.pause_action.text() == "Resume"
    # a chunk in flight at the pause still publishes, and on a loaded 2-core CI machine it took more
    # than the 300 ms once waited here (its snapshot then answered the step below): wait until 300 ms
    # pass without one; a run that never pauses keeps publishing and fails the check below
    deadline = time.monotonic() + 10
    while True:
        seen = len(snapshots)
        qtbot.wait(300)
        if len(snapshots) == seen or time.monotonic() > deadline:
            break
    frozen = snapshots[-1].iteration
    qtbot.wait(300)
    assert snapshots[-1].iteration == frozen, "the run went on while paused"

    with qtbot.waitSignal(window.controller.sigSnapshot, timeout=5000) as step:
        window.step_action.trigger()
    assert step.args[0].iteration == frozen + 1
    with qtbot.waitSignal(window.controller.sigSnapshot, timeout=5000) as step:
        window.step_action.trigger()
    assert step.args[0].iteration == frozen + 2

    window.start_action.trigger()  # Start on a paused run resumes it
    qtbot.waitUntil(lambda: snapshots[-1].iteration > frozen + 5, timeout=5000)
    assert not window.controller.is_paused

    with qtbot.waitSignal(window.controller.sigFinished, timeout=RUN_TIMEOUT_MS) as done:
        window.stop_action.trigger()
    assert done.args[0].stop_reason == "stopped"
    assert len(window.landscape.walker_points()) > 0

    window.reset_action.trigger()
    assert len(window.landscape.walker_points()) == 0
    assert not window.extras.series
    assert window.start_action.isEnabled() and not window.stop_action.isEnabled()
    assert_closed_cleanly(window)


@pytest.mark.parametrize("clear", ["reset", "load"])
def test_reset_or_a_set_up_loaded_during_a_run_is_not_drawn_over_by_its_last_snapshots(
        qtbot, make_window, clear):
    # the stopping run's last snapshot and its end came after the views were cleared: walkers,
    # best star, numbers, algorithm panel and 'finished, stopped' all came back
    window = make_window()
    configure(window, "particle_swarm", problem="rastrigin", budget="100000000")
    window.speed_slider.setValue(60)  # paced: a snapshot per iteration
    assert window.start()
    qtbot.waitUntil(lambda: window.last_snapshot is not None and bool(window.extras.series),
                    timeout=5000)
    with qtbot.waitSignal(window.controller.sigFinished, timeout=RUN_TIMEOUT_MS):
        if clear == "reset":
            window.reset_action.trigger()
        else:
            window.apply_loaded_config(window.form.build_config())
    qtbot.wait(100)  # anything still queued
    assert len(window.landscape.walker_points()) == 0 and window.landscape.best.getData()[0].size == 0
    assert window.best_label.text() == "" and window.iter_label.text() == ""
    assert not window.extras.series and window.chart.current is None
    assert "finished" not in window.status_text()
    assert len(window.chart.previous) == 1  # the run's curve stays, faded, to compare with
    assert window.results and window.results[-1].stop_reason == "stopped"  # still exportable


def test_window_stays_responsive_during_an_unpaced_run_of_few_walkers(qtbot, make_window):
    # 24 walkers in 2-D: the solver is a loop of tiny numpy calls that never release the GIL, and
    # PyQt needs the GIL for every virtual call while it paints (this once froze Stop for minutes)
    import time
    window = make_window()
    configure(window, "pattern_search", budget="100000000")
    ticks = []
    timer = QtCore.QTimer()
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    timer.start(10)
    assert window.start()
    qtbot.wait(2000)
    timer.stop()
    gaps = [b - a for a, b in zip(ticks[20:], ticks[21:])]  # after the first paints
    assert gaps and max(gaps) < 0.5, f"event loop blocked for {max(gaps or [0]):.2f} s"
    started = time.perf_counter()
    with qtbot.waitSignal(window.controller.sigFinished, timeout=5000):
        window.stop_action.trigger()
    assert time.perf_counter() - started < 2.0
    assert_closed_cleanly(window)


def test_step_from_idle_runs_exactly_one_iteration(qtbot, make_window):
    window = make_window()
    configure(window, "pattern_search", budget="1000")
    iterations = []
    window.controller.sigSnapshot.connect(lambda s: iterations.append(s.iteration))
    window.step_action.trigger()
    qtbot.waitUntil(lambda: 1 in iterations, timeout=5000)
    qtbot.wait(200)
    assert iterations == [0, 1] and window.controller.is_paused
    with qtbot.waitSignal(window.controller.sigFinished, timeout=RUN_TIMEOUT_MS):
        window.stop()
    assert_closed_cleanly(window)


def test_shortcuts_are_the_documented_keys(qtbot, make_window):
    window = make_window()
    keys = {window.pause_action: "Space", window.step_action: "S", window.stop_action: "Esc",
            window.reset_action: "R"}
    for action, key in keys.items():
        assert QtGui.QKeySequence(key) in action.shortcuts()
    assert window.start_action.shortcuts()


def test_fifty_rapid_start_stop_cycles_leave_no_thread(qtbot, make_window):
    window = make_window()
    window.hide()  # the threads are the point here, not 50 x the painting
    configure(window, "pattern_search", budget="100000000")
    threads = []
    for _ in range(50):
        assert window.start()
        threads.append(window.controller.thread)
        window.stop()
        qtbot.waitUntil(lambda: not window.controller.is_running, timeout=5000)
    assert all(t is not None for t in threads)
    assert window.controller.thread is None
    assert len(window.results) == 50
    assert all(r.stop_reason in ("stopped", "max_iters") for r in window.results)
    assert_closed_cleanly(window)


def test_closing_during_a_run_stops_and_joins_the_worker(qtbot, make_window):
    window = make_window()
    configure(window, "pattern_search", budget="100000000")
    with qtbot.waitSignal(window.controller.sigSnapshot, timeout=5000):
        assert window.start()
    thread = window.controller.thread
    assert thread.isRunning()
    window.close()
    assert thread.isFinished() and window.controller.thread is None


def test_speed_slider_sets_the_teaching_delay(qtbot, make_window):
    from gui.main_window import MAX_DELAY

    window = make_window()
    configure(window, "pattern_search", budget="100000000")
    window.speed_slider.setValue(0)
    assert window.controller._delay == pytest.approx(MAX_DELAY)
    assert window.speed_label.text() == "1 iteration/s"
    snapshots = []
    window.controller.sigSnapshot.connect(snapshots.append)
    assert window.start()
    qtbot.wait(700)
    slow = len(snapshots)
    assert 1 <= slow <= 4, f"{slow} snapshots in 0.7 s at {MAX_DELAY} s per iteration"
    assert all(s.iteration == k for k, s in enumerate(snapshots))  # one iteration each
    window.speed_slider.setValue(window.speed_slider.maximum())
    assert window.controller._delay == 0.0 and window.speed_label.text() == "full speed"
    qtbot.waitUntil(lambda: snapshots[-1].iteration > 20, timeout=5000)
    with qtbot.waitSignal(window.controller.sigFinished, timeout=RUN_TIMEOUT_MS):
        window.stop()


def test_live_parameter_applies_mid_run_and_others_wait_for_reset(qtbot, make_window):
    window = make_window()
    configure(window, "pattern_search", budget="100000000")
    specs = window.form.params_form.specs()
    live = next(s for s in specs if s.live and s.kind is int)
    frozen = next(s for s in specs if not s.live and s.kind in (int, float) and s.name != "walkers")
    window.step_action.trigger()  # a paused run
    qtbot.waitUntil(lambda: window.last_snapshot is not None and window.last_snapshot.iteration == 1,
                    timeout=5000)
    editor = window.form.params_form.editor(live.name)
    new_value = editor.value() + 1
    editor.setValue(new_value)
    with qtbot.waitSignal(window.controller.sigSnapshot, timeout=5000):
        window.step_action.trigger()
    runner = window.controller._worker.runner
    assert getattr(runner.config.params, live.name) == new_value
    other = window.form.params_form.editor(frozen.name)
    other.setValue(other.maximum())
    assert "on reset" in window.form.params_form.row(frozen.name).note
    assert getattr(runner.config.params, frozen.name) == frozen.default
    with qtbot.waitSignal(window.controller.sigFinished, timeout=RUN_TIMEOUT_MS):
        window.stop()
    assert window.form.params_form.row(frozen.name).note == ""  # the note clears after the run
    config = window.form.build_config()
    assert getattr(config.params, frozen.name) == other.maximum()  # ...and the next run takes it


def test_the_exported_csv_says_what_was_changed_live_and_when(qtbot, make_window, tmp_path,
                                                              monkeypatch):
    # File > Export > CSV named only the values a run ended with: round_iterations changed from 20
    # to 5 after iteration 1 read as a run of 5 throughout
    window = make_window()
    configure(window, "pattern_search", budget="6")
    window.step_action.trigger()  # a paused run
    qtbot.waitUntil(lambda: window.last_snapshot is not None and window.last_snapshot.iteration == 1,
                    timeout=5000)
    window.form.params_form.editor("round_iterations").setValue(5)
    with qtbot.waitSignal(window.controller.sigFinished, timeout=RUN_TIMEOUT_MS) as blocker:
        window.start()  # resume to the end
    run = blocker.args[0]
    target = tmp_path / "histories.csv"
    monkeypatch.setattr(window.export_module, "ask_save_path", lambda *args: target)
    window._export_csv()
    text = target.read_text()
    at = int(run.history[1, 0])
    assert "params at start: walkers=" in text and "round_iterations=20" in text
    assert (f"# run 1: changed live at evals={at} (after iteration 1, " in text
            and "round_iterations 20 -> 5; its rows after" in text), text


def test_the_curve_label_names_auto_counts_and_live_changes(qtbot, make_window):
    # the legend read 'walkers=0' for an auto count and named only the values a run started with:
    # after omega was changed mid-run its faded curve read as a run of the old omega
    window = make_window()
    configure(window, "particle_swarm", problem="rastrigin", budget="100000000", walkers=0)
    window.step_action.trigger()  # a paused run
    qtbot.waitUntil(lambda: window.last_snapshot is not None, timeout=5000)
    assert "walkers=auto" in window.chart.current.label and "walkers=0" not in window.chart.current.label
    editor = window.form.params_form.editor("omega")
    editor.setValue(0.3)
    editor.setValue(0.4)
    assert window.chart.current.label.endswith(" · changed live: omega→0.4")
    assert "changed live: omega→0.4 (this run)" in window.chart.legend.text()
    with qtbot.waitSignal(window.controller.sigFinished, timeout=RUN_TIMEOUT_MS):
        window.stop()
    window.reset()
    assert "changed live: omega→0.4" in window.chart.previous[-1].label  # the faded curve keeps it


def test_the_runs_warnings_are_shown_when_it_ends(qtbot, make_window):
    # r.warnings (here: 100 evaluations for 1,000 walkers) reached the CLI and the API only; the
    # window's run ended after 0 iterations without a word of why
    window = make_window()
    configure(window, "pattern_search", budget="100", kind="evaluations", walkers=1000)
    result = run_to_end(qtbot, window)
    assert result.warnings
    text = window.error_banner.text()
    assert window.error_banner.isVisibleTo(window) and "allows only about" in text
    configure(window, "pattern_search", budget="20", kind="iterations", walkers=16)
    assert run_to_end(qtbot, window).warnings == ()
    assert window.error_banner.isHidden()  # a run without warnings clears it


# --- refused input and errors ------------------------------------------------------------------
@pytest.mark.parametrize("text, expected", [("abc", "must be a number"), ("-5", "must be > 0"),
                                            ("2.5", "must be an integer"), ("", "enter a budget")])
def test_invalid_budget_is_refused_beside_the_field(qtbot, make_window, text, expected):
    window = make_window()
    configure(window, "pattern_search", budget=text, kind="iterations")
    assert not window.start()
    assert not window.controller.is_running
    errors = window.form.errors()
    assert set(errors) == {"budget"} and expected in errors["budget"]
    assert window.form.budget_row.message.isVisibleTo(window.form)
    window.form.budget_edit.setText("5")
    with qtbot.waitSignal(window.controller.sigFinished, timeout=RUN_TIMEOUT_MS):
        assert window.start()
    assert window.form.errors() == {}


@pytest.mark.parametrize("kind", ["iterations", "evaluations", "seconds"])
def test_an_infinite_budget_is_called_too_large_not_negative(make_window, kind):
    # '1e999' reads as inf: "must be > 0, got '1e999'" sent the user looking for a sign
    window = make_window()
    for text, why in (("1e999", "too large"), ("inf", "too large"), ("nan", "not a number")):
        configure(window, "pattern_search", budget=text, kind=kind)
        assert not window.start()
        message = window.form.errors()["budget"]
        assert message.startswith(f"The budget in {kind} must be a finite number > 0, got '{text}'")
        assert why in message and "must be > 0," not in message


def test_step_and_save_with_a_bad_form_point_at_the_red_fields_as_start_does(qtbot, make_window,
                                                                             monkeypatch):
    from gui import export

    window = make_window()
    configure(window, "pattern_search", budget="abc")
    saved = []
    monkeypatch.setattr(export, "save_config_dialog", lambda *a: saved.append(a))
    for action in (window.step, window._save_config):
        window.statusBar().clearMessage()
        action()
        assert "budget" in window.form.errors() and not window.controller.is_running
        assert window.status_text() == "fix the fields marked in red"
    assert saved == []  # nothing is asked or written for a set-up that cannot run


def test_saving_a_configuration_says_where_as_the_other_exports_do(qtbot, make_window, tmp_path,
                                                                   monkeypatch):
    window = make_window()
    configure(window, "pattern_search")
    target = tmp_path / "mine.json"
    monkeypatch.setattr(QtWidgets.QFileDialog, "getSaveFileName",
                        staticmethod(lambda *a, **k: (str(target), "")))
    window._save_config()
    assert target.exists() and window.status_text() == f"saved {target}"


def test_cross_field_rule_is_shown_beside_the_parameter_it_names(qtbot, make_window, monkeypatch):
    cls = solvers.get_algorithm("pattern_search")
    name = solvers.params.specs(cls.Params)[-1].name

    def check(self):
        raise ConfigError(f"parameter '{name}' must be smaller than something else")

    window = make_window()
    configure(window, "pattern_search")
    monkeypatch.setattr(cls.Params, "check", check, raising=False)
    assert not window.start()
    assert list(window.form.errors()) == [name]
    assert window.form.params_form.row(name).message.isVisibleTo(window.form)


def test_unavailable_engines_are_disabled_with_the_reason(qtbot, make_window):
    window = make_window()
    model = window.form.engine_combo.model()
    for row in range(model.rowCount()):
        item = model.item(row)
        available, reason = solvers.engine_status(item.text())
        assert item.isEnabled() == available
        assert reason in item.toolTip()


def _register_nan_problem(monkeypatch):
    definition = problem_base.ProblemDef(
        name="test_nan_everywhere", title="NaN everywhere (test)", group="Tests",
        source="a broken objective", fn=lambda xp, X: xp.full(X.shape[0], xp.nan),
        bounds=problem_base.box(-1, 1))
    monkeypatch.setitem(problem_base._REGISTRY, definition.name, definition)


def test_nan_objective_shows_a_message_and_the_window_stays_usable(qtbot, make_window, monkeypatch):
    _register_nan_problem(monkeypatch)
    window = make_window()
    configure(window, "pattern_search", problem="test_nan_everywhere", budget="50")
    with qtbot.waitSignal(window.controller.sigErrored, timeout=RUN_TIMEOUT_MS) as error:
        assert window.start()
    qtbot.waitUntil(lambda: not window.controller.is_running, timeout=5000)
    assert "NaN" in error.args[0]
    assert not window.error_banner.isHidden() and "NaN" in window.error_banner.text()
    # still usable: the next run works and clears the message
    configure(window, "pattern_search", problem="sphere", budget="5")
    result = run_to_end(qtbot, window)
    assert result is not None and np.isfinite(result.best_f)
    assert window.error_banner.isHidden()
    assert_closed_cleanly(window)


def test_exception_in_the_solver_shows_a_message(qtbot, make_window, monkeypatch):
    cls = solvers.get_algorithm("pattern_search")

    def broken_step(self, state, iterations):
        raise RuntimeError("kernel exploded")

    window = make_window()
    configure(window, "pattern_search", budget="50")
    monkeypatch.setattr(cls, "step", broken_step)
    with qtbot.waitSignal(window.controller.sigErrored, timeout=RUN_TIMEOUT_MS) as error:
        assert window.start()
    assert error.args[0] == "RuntimeError: kernel exploded"
    qtbot.waitUntil(lambda: not window.controller.is_running, timeout=5000)
    assert "kernel exploded" in window.error_banner.text()
    assert window.start_action.isEnabled()
    monkeypatch.undo()
    assert run_to_end(qtbot, window) is not None


# --- N-D -----------------------------------------------------------------------------------------
def test_30d_run_draws_the_slice_through_the_best_point(qtbot, make_window):
    window = make_window()
    configure(window, "pattern_search", problem="rastrigin", dim=30, budget="4")
    assert window.landscape.axis_x.isVisibleTo(window.landscape)
    result = run_to_end(qtbot, window)
    best = result.best_x
    landscape = window.landscape

    def slice_through_best():
        grid = landscape.grid
        return grid is not None and np.array_equal(grid.point[2:], best[2:])

    qtbot.waitUntil(slice_through_best, timeout=5000)
    assert landscape.grid.values.shape == (256, 256)
    assert landscape.grid.axes == (0, 1)
    np.testing.assert_allclose(landscape.walker_points(), window.last_snapshot.positions[:, [0, 1]])
    x, y = landscape.best.getData()
    assert (x[0], y[0]) == (best[0], best[1])
    # other axes: the slice and the projection follow
    landscape.axis_x.setCurrentIndex(4)
    landscape.axis_y.setCurrentIndex(7)
    qtbot.waitUntil(lambda: landscape.grid.axes == (4, 7), timeout=5000)
    assert np.array_equal(np.delete(landscape.grid.point, [4, 7]), np.delete(best, [4, 7]))
    np.testing.assert_allclose(landscape.walker_points(), window.last_snapshot.positions[:, [4, 7]])
    assert_closed_cleanly(window)


# --- panels built elsewhere ----------------------------------------------------------------------
@pytest.mark.parametrize("module, attribute", [("gui.compare", "compare_panel"),
                                               ("gui.sweep", "sweep_panel")])
def test_panels_are_wired_in_and_stopped_on_close(qtbot, make_window, module, attribute):
    pytest.importorskip(module)
    window = make_window()
    panel = getattr(window, attribute)
    assert window.panels.indexOf(panel) > 0
    configure(window, "pattern_search", problem="rastrigin", dim=3, budget="100000000")
    window.panels.setCurrentWidget(panel)  # the panel receives the form's configuration
    pushed = panel._config
    assert (pushed.algorithm, pushed.problem, pushed.dim) == ("pattern_search", "rastrigin", 3)
    if attribute == "compare_panel":
        assert panel.start() and panel.is_running
        window.close()  # must stop and join the panel's workers too
        assert not panel.is_running


# --- settings ----------------------------------------------------------------------------------
def test_configuration_and_layout_are_remembered(qtbot, make_window):
    first = make_window()
    algorithm = solvers.list_algorithms()[-1]
    configure(first, algorithm, problem="rastrigin", dim=7, budget="1234", kind="evaluations")
    first.form.seed_spin.setValue(42)
    first.speed_slider.setValue(30)
    first.chart_dock.hide()
    state = first.form.state()
    first.close()

    second = make_window()
    assert second.form.state() == state
    assert (second.form.algorithm(), second.form.problem(), second.form.dim()) == (algorithm, "rastrigin", 7)
    assert second.form.budget_edit.text() == "1234" and second.form.seed_spin.value() == 42
    assert second.speed_slider.value() == 30
    assert second.chart_dock.isHidden()


def test_broken_settings_are_ignored(qtbot, make_window, tmp_path):
    settings = QtCore.QSettings(str(tmp_path / "settings.ini"), QtCore.QSettings.Format.IniFormat)
    settings.setValue("version", 1)
    settings.setValue("form/state", '{"algorithm": "no_such", "dim": "x", "params": 3, "seed": -4}')
    settings.setValue("window/state", QtCore.QByteArray(b"garbage"))
    settings.sync()
    window = make_window()
    assert window.form.algorithm() == solvers.list_algorithms()[0]
    assert window.form.build_config() is not None


def test_presets_menu_loads_a_preset(qtbot, make_window):
    config_io = pytest.importorskip("solvers.config_io")
    presets = config_io.list_presets()
    if not presets:
        pytest.skip("no presets in assets/presets yet")
    window = make_window()
    runs = [a for a in window.presets_menu.actions() if not a.isSeparator() and a.menu() is None]
    assert len(runs) == len(presets)  # the tuning grids are a submenu of their own (test_gui_tune)
    _name, path, _description = presets[0]
    assert window.load_preset(path)
    expected = config_io.load_config(path)
    built = window.form.build_config()
    assert built is not None
    assert dataclasses.replace(built, sample_size=expected.sample_size,
                               snapshot_hz=expected.snapshot_hz) == expected


def test_a_hovered_preset_description_passes_and_the_run_status_comes_back(qtbot, make_window):
    # a preset's menu description was kept as the bar's lasting message: once the menu closed it
    # came back in place of 'finished, ...', and stayed there
    config_io = pytest.importorskip("solvers.config_io")
    if not config_io.list_presets():
        pytest.skip("no presets in assets/presets yet")
    window = make_window()
    window.resize(1800, 900)  # room for the whole sentence: the bar shows it as it is
    configure(window, "pattern_search", budget="20")
    run_to_end(qtbot, window)
    finished = "finished, the budget of 20 iterations is spent"
    qtbot.waitUntil(lambda: window.status_text() == finished, timeout=2000)
    menu = window.presets_menu
    action = next(a for a in menu.actions() if a.statusTip())
    menu.popup(window.mapToGlobal(QtCore.QPoint(20, 20)))
    qtbot.waitUntil(menu.isVisible, timeout=2000)
    menu.setActiveAction(action)  # hovered: Qt sends the window the entry's status tip
    qtbot.waitUntil(lambda: window.status_text() == action.statusTip(), timeout=2000)
    menu.hide()  # the hover ends: Qt clears the tip, and the run's own status comes back
    qtbot.waitUntil(lambda: window.status_text() == finished, timeout=2000)
    qtbot.wait(50)  # ... and stays (no late restore of the description)
    assert window.status_text() == finished
    # a description hovered while nothing lasting is shown leaves the bar empty after it
    window.reset()
    qtbot.waitUntil(lambda: window.statusBar().currentMessage() == "", timeout=5000)
    QtCore.QCoreApplication.sendEvent(window, QtGui.QStatusTipEvent(action.statusTip()))
    assert window.status_text() == action.statusTip()
    QtCore.QCoreApplication.sendEvent(window, QtGui.QStatusTipEvent(""))
    qtbot.wait(50)
    assert window.statusBar().currentMessage() == ""


def test_compare_and_sweep_tabs_run_the_set_up_as_edited_while_they_are_shown(qtbot, make_window):
    window = make_window()
    configure(window, "pattern_search", "sphere", dim=2, budget="5", walkers=24)
    compare, sweep = window.compare_panel, window.sweep_panel
    window._show_panel(compare)  # the tab takes the set-up as it is now...
    window.form.params_form.editor("walkers").setValue(40)  # ...then fields change beside it
    window.form.seed_spin.setValue(7)
    window.form.budget_edit.setText("6")
    for engine, row in compare._rows.items():
        row.check.setChecked(engine == "numpy")
    with qtbot.waitSignal(compare.sigFinished, timeout=RUN_TIMEOUT_MS):
        compare.start_button.click()
    result = compare.results["numpy"]
    assert (result.params["walkers"], result.seed, result.iterations) == (40, 7, 6)

    window._show_panel(sweep)
    window.form.params_form.editor("delta0").setValue(0.25)
    for engine, box in sweep.engine_boxes.items():
        box.setChecked(engine == "numpy")
    sweep.baseline_combo.setCurrentIndex(sweep.baseline_combo.findData("numpy"))
    sweep.min_exp_box.setValue(2)
    sweep.max_exp_box.setValue(2)
    sweep.iterations_box.setValue(1)
    with qtbot.waitSignal(sweep.sigFinished, timeout=RUN_TIMEOUT_MS):
        assert sweep.start()
    assert sweep._spec.params["delta0"] == 0.25 and sweep._spec.seed == 7

    window.form.budget_edit.setText("many")  # a form with an error starts neither
    for panel in (compare, sweep):
        assert not panel.start() and not panel.is_running
        assert "Set-up panel" in panel.status_label.text()
    assert "must be a number" in window.form.budget_row.error


# --- starting the application ---------------------------------------------------------------------
def _start(args, tmp_path, timeout=60):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(tmp_path),
               HOME=str(tmp_path))
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=timeout)


def test_gui_app_starts_and_quits_by_itself(tmp_path):
    done = _start(["-m", "gui.app", "--quit-after", "1500", "--run"], tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]


def test_main_py_starts_the_window_and_quits_by_itself(tmp_path):
    if not (ROOT / "main.py").exists():
        pytest.skip("main.py does not exist yet")
    done = _start(["main.py", "--quit-after", "1500"], tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]


@pytest.mark.parametrize("budget", [{"max_evals": 1_234_567}, {"max_seconds": 0.123456789}])
def test_a_loaded_budget_keeps_every_digit(qtbot, make_window, budget):
    # the form wrote it with '{:g}': 1234567 became 1.23457e+06 and the run made 1,234,570 evaluations
    from solvers.config import RunConfig

    window = make_window()
    config = RunConfig.build("pattern_search", "sphere", 2, **budget)
    window.form.apply_config(config)
    built = window.form.build_config()
    assert built is not None and built.budget == config.budget


@pytest.mark.parametrize("algorithm, params", [
    ("particle_swarm", {"omega": 0.123456789, "phi_p": 1.2345678901}),
    ("pattern_search", {"delta0": 1.5e-6}),
    ("differential_evolution", {"Cr": 0.123456789012})])
def test_a_loaded_parameter_keeps_every_decimal(qtbot, make_window, algorithm, params):
    # the editor rounded to the decimals its default needs: omega 0.123456789 ran as 0.1235
    from solvers.config import RunConfig

    window = make_window()
    config = RunConfig.build(algorithm, "sphere", 2, params=params)
    window.apply_loaded_config(config)
    built = window.form.build_config()
    assert built is not None and built.params_dict() == config.params_dict()


@pytest.mark.parametrize("changes, words", [
    ({"seed": 2**40}, "seed 1,099,511,627,776"),
    ({"sample_size": 5_000_000}, "walkers drawn 5,000,000"),
    ({"fast_math": True}, "fast math"),
    ({"bounds": (-2.0, 3.0)}, "the box [-2, 3]")])
def test_a_set_up_the_form_cannot_hold_is_refused_whole(qtbot, make_window, changes, words):
    # a seed past a C int raised OverflowError half-way through the form (algorithm and parameters
    # changed, seed and budget not); a larger sample, fast math or a built-in's box were dropped
    from solvers.config import RunConfig

    window = make_window()
    before = window.form.state()
    config = RunConfig.build("differential_evolution", "rastrigin", 3, params={"F": 0.7},
                             max_evals=5000, **changes)
    assert window.apply_loaded_config(config) is False
    assert window.form.state() == before
    text = window.error_banner.text()
    assert window.error_banner.isVisibleTo(window) and "cannot be shown in the window" in text
    assert words in text and "Nothing was changed" in text


def test_a_failed_save_after_a_notice_shows_in_the_error_colours(qtbot, make_window, tmp_path):
    # report_failure changed the banner's text only: after a notice (an engine this machine lacks)
    # a failed export kept the notice's calm colours
    from gui.main_window import ERROR_BANNER_STYLE, NOTICE_BANNER_STYLE

    window = make_window()
    window._show_notice("This set-up asks for the cuda engine, which is not available here")
    assert window.error_banner.styleSheet() == NOTICE_BANNER_STYLE
    target = tmp_path / "no such folder" / "landscape.png"
    assert not window._save_reported("Export PNG", target,
                                     lambda: window.export_module.save_png(window.landscape.plot, target))
    assert "Export PNG failed" in window.error_banner.text()
    assert window.error_banner.styleSheet() == ERROR_BANNER_STYLE


def test_a_recording_is_not_lost_to_a_cancelled_dialog_or_a_close(qtbot, make_window, tmp_path,
                                                                    monkeypatch):
    # unticking Record asked for a file; Cancel (or a failed save) dropped the frames, and closing
    # the window while recording dropped them without a word
    window = make_window()
    answers = iter([("", ""), (str(tmp_path / "lesson.gif"), "")])  # Cancel, then a file
    monkeypatch.setattr(QtWidgets.QFileDialog, "getSaveFileName",
                        staticmethod(lambda *a, **k: next(answers)))
    asked = []
    monkeypatch.setattr(QtWidgets.QMessageBox, "question", staticmethod(
        lambda parent, title, text, *a: asked.append(text) or QtWidgets.QMessageBox.StandardButton.Save))
    window.record_action.setChecked(True)
    qtbot.waitUntil(lambda: window.recorder.frame_count >= 2, timeout=5000)
    window.record_action.setChecked(False)
    assert len(asked) == 1 and "is not saved" in asked[0]
    assert (tmp_path / "lesson.gif").stat().st_size > 0

    # closing while recording offers to save; Discard then drops it, once asked
    monkeypatch.setattr(QtWidgets.QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: ("", "")))
    monkeypatch.setattr(QtWidgets.QMessageBox, "question", staticmethod(
        lambda parent, title, text, *a: asked.append(text) or QtWidgets.QMessageBox.StandardButton.Discard))
    window.record_action.setChecked(True)
    qtbot.waitUntil(lambda: window.recorder.frame_count >= 1, timeout=5000)
    window.close()
    assert len(asked) == 2 and not window.recorder.recording


def _choose_algorithm(form, name: str) -> None:
    form.algorithm_combo.setCurrentIndex(form.algorithm_combo.findData(name))
    assert form.algorithm() == name


def test_a_restore_keeps_the_values_it_restores_for_the_algorithm_it_leaves(qtbot):
    # set_state stored every algorithm's saved values, then chose the saved algorithm: leaving the
    # form's algorithm saved its editors (defaults, or values not saved) over the ones just restored,
    # so switching back after a restart showed pattern search at its defaults, not as saved
    from gui.config_form import ConfigForm

    saved = ConfigForm()
    qtbot.addWidget(saved)
    saved.params_form.set_values({"delta0": 0.25, "round_iterations": 7})
    _choose_algorithm(saved, "particle_swarm")
    saved.params_form.set_values({"omega": 0.5})
    state = saved.state()
    assert state["algorithm"] == "particle_swarm" and state["params"]["pattern_search"]["delta0"] == 0.25

    form = ConfigForm()
    qtbot.addWidget(form)
    assert form.algorithm() == "pattern_search"
    form.params_form.set_values({"delta0": 0.05})  # not saved: the restore replaces it
    shown = []  # (algorithm, its values) as each algorithm is chosen during the restore
    form.sigAlgorithmChanged.connect(lambda name: shown.append((name, form.params_form.values())))
    form.set_state(state)
    assert form.algorithm() == "particle_swarm"  # the restore sets the algorithm ...
    assert form.params_form.values()["omega"] == 0.5  # ... and then its values show
    assert [name for name, _values in shown] == ["particle_swarm"]
    assert form.state()["params"]["pattern_search"]["delta0"] == 0.25
    _choose_algorithm(form, "pattern_search")  # the one the form showed before the restore
    assert form.params_form.values()["delta0"] == 0.25 and form.params_form.values()["round_iterations"] == 7
    _choose_algorithm(form, "particle_swarm")
    assert form.params_form.values()["omega"] == 0.5
    _choose_algorithm(form, "pattern_search")
    assert form.params_form.values()["delta0"] == 0.25
    # an algorithm the state has no values for keeps the form's own
    _choose_algorithm(form, "differential_evolution")
    form.params_form.set_values({"Cr": 0.125})
    form.set_state({"algorithm": "pattern_search", "params": {"pattern_search": {"delta0": 0.5}}})
    assert form.params_form.values()["delta0"] == 0.5
    _choose_algorithm(form, "differential_evolution")
    assert form.params_form.values()["Cr"] == 0.125


def test_a_restarted_window_keeps_every_algorithms_values(qtbot, make_window):
    # the same through the window's settings: the form starts on pattern search, the session was
    # left on particle swarm
    first = make_window("session.ini")
    configure(first, "pattern_search")
    first.form.params_form.set_values({"delta0": 0.25})
    _choose_algorithm(first.form, "particle_swarm")
    first.save_settings()
    first.close()
    second = make_window("session.ini")
    assert second.restored_settings and second.form.algorithm() == "particle_swarm"
    _choose_algorithm(second.form, "pattern_search")
    assert second.form.params_form.values()["delta0"] == 0.25
