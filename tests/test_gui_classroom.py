"""The window's first hour in front of a class (issue 16, items 5-15), offscreen: paced presets,
annealing that visibly cools, variant-specific parameters, legend and minimisers, plain status
words, log axes, clean slates after loading, keyboard and layout, N-D colour scale."""
from __future__ import annotations

import dataclasses
import html
import json
import math
import re

import numpy as np
import pytest

pytest.importorskip("PyQt6")
pytest.importorskip("pyqtgraph")
from PyQt6 import QtCore, QtGui, QtWidgets  # noqa: E402

import solvers  # noqa: E402
from solvers import config_io  # noqa: E402
from solvers.snapshot import Snapshot  # noqa: E402

from test_gui_window import RUN_TIMEOUT_MS, configure, make_window, run_to_end  # noqa: E402,F401

pytestmark = pytest.mark.gui
CLASS_PRESETS = sorted(config_io.PRESETS_DIR.glob("class_*.json"))


def preset(stem: str):
    return config_io.PRESETS_DIR / f"{stem}.json"


def full_speed(window) -> None:
    window.speed_slider.setValue(window.speed_slider.maximum())


# --- 5: watchable first launch and presets -----------------------------------------------------
@pytest.mark.parametrize("path", CLASS_PRESETS, ids=[p.stem for p in CLASS_PRESETS])
def test_every_classroom_preset_has_a_pace_that_tells_its_story_in_15_to_20_s(path):
    # the README's words (the ridge took 10 s and the deceptive hole 25 s when 10-30 s passed)
    meta = config_io.read_meta(path)
    config = config_io.load_config(path)
    assert meta["pace"] is not None, "a classroom preset needs a pace (iterations per second)"
    seconds = config.budget.max_iters / meta["pace"]
    assert 15 <= seconds <= 20, f"{path.stem} takes {seconds:.1f} s at its pace"


def test_first_launch_shows_a_paced_preset_and_full_speed_is_one_move_away(qtbot, make_window):
    from gui.main_window import FIRST_LAUNCH_PRESET, pace_for_speed

    window = make_window()
    assert not window.restored_settings
    window.first_launch()
    meta = config_io.read_meta(preset(FIRST_LAUNCH_PRESET))
    pace = pace_for_speed(window.speed_slider.value())
    assert pace == pytest.approx(meta["pace"], rel=0.05)
    assert window.controller._delay == pytest.approx(1.0 / pace)
    assert window.form.algorithm() == config_io.load_config(preset(FIRST_LAUNCH_PRESET)).algorithm
    window.speed_slider.setValue(window.speed_slider.maximum())
    assert window.controller._delay == 0.0 and window.speed_label.text() == "full speed"


def test_a_bad_pace_in_a_preset_file_is_refused(tmp_path):
    data = json.loads(preset("class_de_ackley_2d").read_text())
    data["pace"] = -3
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(solvers.ConfigError, match="pace"):
        config_io.read_meta(bad)


# --- 6: annealing that visibly cools --------------------------------------------------------------
def test_annealing_preset_cools_the_chains_visibly_and_never_ends_on_a_reheat(qtbot, make_window):
    window = make_window()
    assert window.load_preset(preset("class_sa_himmelblau_2d"))
    full_speed(window)
    window.form.sample_spin.setValue(64)
    snaps = []
    window.controller.sigSnapshot.connect(snaps.append)
    result = run_to_end(qtbot, window)
    assert result is not None
    temps = [s.extras["temperature"] for s in snaps]
    assert temps[-1] == pytest.approx(min(temps)), "the run ended on a reheat"
    assert temps[-1] < temps[0] / 100
    window.landscape.clear_run()
    hot = window.landscape._chain_classes(snaps[0])
    cold = window.landscape._chain_classes(snaps[-1])
    assert hot.min() > cold.max(), "the chains' colours did not change as T fell"


def test_hybrid_polishing_phase_is_shown_and_named(qtbot, make_window):
    window = make_window()
    configure(window, "simulated_annealing", problem="sphere", budget="40", walkers=32)
    params = window.form.params_form
    params.editor("variant").setCurrentText("hybrid")
    for name, value in (("t0", 1.0), ("t_min", 0.5), ("alpha", 0.5), ("chain_length", 2)):
        params.editor(name).setValue(value)
    snaps = []
    window.controller.sigSnapshot.connect(snaps.append)
    assert run_to_end(qtbot, window) is not None
    phases = [s.extras.get("phase") for s in snaps]
    assert phases[0] == "annealing" and "polishing with Nelder-Mead" in phases
    assert window.extras.phase_label.text() == "phase: polishing with Nelder-Mead"
    assert window.landscape.phase.text == "polishing with Nelder-Mead"


# --- 7: parameters of another variant -------------------------------------------------------------
def test_pso_parameters_of_the_other_variant_are_disabled_with_the_reason(qtbot, make_window):
    window = make_window()
    configure(window, "particle_swarm")
    form = window.form.params_form
    form.editor("variant").setCurrentText("spso2011")
    classic_only = ("omega", "phi_p", "phi_g", "lr")
    assert not any(form.row(n).isEnabled() for n in classic_only)
    assert form.row("informants").isEnabled()
    assert "Not used by the 'spso2011' variant" in form.editor("omega").toolTip()
    form.editor("variant").setCurrentText("classic")
    assert all(form.row(n).isEnabled() for n in classic_only)
    assert not form.row("informants").isEnabled()


def test_sa_schedule_values_fitted_by_the_auto_schedule_are_disabled_with_the_reason(qtbot, make_window):
    window = make_window()
    configure(window, "simulated_annealing")
    form = window.form.params_form
    fitted = ("t0", "t_min", "alpha", "chain_length")
    assert form.editor("schedule").currentText() == "auto"  # the default fits them to the budget
    assert not any(form.row(n).isEnabled() or form.applies(n) for n in fitted)
    assert "Fitted by the run under" in form.editor("alpha").toolTip()
    assert "Choose 'fixed'" in form.editor("alpha").toolTip()
    assert form.row("width").isEnabled()  # not fitted: still the user's
    form.editor("schedule").setCurrentText("fixed")
    assert all(form.row(n).isEnabled() and form.applies(n) for n in fitted)
    assert "Fitted" not in form.editor("alpha").toolTip()


def test_every_declared_variant_names_an_existing_variant():
    for name in solvers.list_algorithms():
        specs = {s.name: s for s in solvers.params.specs(solvers.get_algorithm(name).Params)}
        for spec in specs.values():
            if spec.variants is not None:
                assert "variant" in specs and set(spec.variants) <= set(specs["variant"].choices)


# --- 8: legend and every known minimiser ------------------------------------------------------
def test_legend_names_the_markers_and_every_global_minimiser_is_marked(qtbot, make_window):
    window = make_window()
    configure(window, "pattern_search", problem="himmelblau")
    labels = [label.text for _sample, label in window.landscape.legend.items]
    assert labels == ["best point found", "known global minima"]
    x, y = window.landscape.minimiser.getData()
    assert len(x) == 4
    problem = solvers.problems.get_problem("himmelblau", 2)
    assert np.abs(problem.evaluate(np.column_stack([x, y]))).max() < 1e-9
    configure(window, "pattern_search", problem="sphere")
    assert [label.text for _s, label in window.landscape.legend.items][1] == "known global minimum"


# --- 9: status in plain words -------------------------------------------------------------------
def test_status_is_in_plain_words(qtbot, make_window):
    window = make_window()
    configure(window, "pattern_search", budget="25")
    messages = []  # the whole texts (a narrow bar shows shorter forms: the tests below check those)
    window.statusBar().messageChanged.connect(lambda _shown: messages.append(window.status_text()))
    run_to_end(qtbot, window)
    assert any(m.startswith("running Multi-walk pattern search on") for m in messages), messages
    final = window.status_text()
    assert final.startswith("finished, the budget of 25 iterations is spent")
    assert "max_iters" not in final and "initialising" not in final
    assert window.busy.isHidden()
    configure(window, "pattern_search", budget="1")  # one of the unit, not "1 iterations"
    run_to_end(qtbot, window)
    assert window.status_text().startswith("finished, the budget of 1 iteration is spent")
    window.form.budget_edit.setText("0")
    assert not window.start()
    error = window.form.errors()["budget"]
    assert "iterations" in error and "max_iters" not in error


def _message_room(window) -> int:
    """Pixels QStatusBar paints its message in: from 6 px to 2 px left of the first number shown."""
    bar = window.statusBar()
    numbers = [w for w in bar.findChildren(QtWidgets.QWidget)
               if w.isVisible() and w.parent() is bar and w.x() > 0]
    return min([bar.width() - 12] + [w.x() - 2 for w in numbers]) - 6


def _skip_where_fonts_are_wide(window) -> None:
    """The fit tests measure text at 1024 x 640. The GPU machine's offscreen Qt (the carried Qt
    pack, no desktop fonts) draws 'finished: budget spent' 264 px wide where common desktop fonts
    and CI's draw it in about 135: there the status bar's numbers alone fill 1024 px and no message
    can fit, whatever the window does (it then shows the shortest form, clipped: checked in
    test_a_gpu_machine_leaves_the_message_its_room_at_1024_x_640)."""
    width = window.statusBar().fontMetrics().horizontalAdvance("finished: budget spent")
    if width > 200:
        pytest.skip(f"this Qt's font draws 'finished: budget spent' {width} px wide (desktop fonts: ~135)")


@pytest.mark.parametrize("kind, budget", [("iterations", "5000"), ("evaluations", "200000")])
def test_the_end_message_is_readable_at_1024_x_640(qtbot, make_window, kind, budget):
    # QStatusBar clips its message at the numbers: at 1024 x 640 'finished, the budget of 5000
    # iterations is spent' lost its end behind 'best ...', so the class could not read why
    window = make_window()
    _skip_where_fonts_are_wide(window)
    window.resize(1024, 640)
    qtbot.waitUntil(lambda: window.width() == 1024, timeout=2000)
    configure(window, "pattern_search", budget=budget, kind=kind)
    run_to_end(qtbot, window)
    bar = window.statusBar()
    full = f"finished, the budget of {budget} {kind} is spent"
    qtbot.wait(50)  # the numbers' last growth laid out
    shown = bar.currentMessage()
    assert shown.startswith("finished")
    assert bar.fontMetrics().horizontalAdvance(shown) <= _message_room(window), shown
    assert bar.toolTip() == full  # nothing lost: the whole sentence on hovering
    window.resize(1800, 900)  # room again: the whole sentence in the bar
    qtbot.waitUntil(lambda: bar.currentMessage() == full, timeout=2000)
    assert bar.fontMetrics().horizontalAdvance(full) <= _message_room(window)
    window.statusBar().showMessage("saved x.csv", 4000)  # another message takes its tooltip away
    assert bar.toolTip() == ""
    # ... for a while: when it is cleared (its timeout, a menu's hover tip), the end comes back
    bar.clearMessage()
    qtbot.waitUntil(lambda: bar.currentMessage() == full, timeout=2000)
    assert bar.toolTip() == full
    window.show_fitted_message("saved y.csv", timeout=100)
    qtbot.waitUntil(lambda: bar.currentMessage() == full, timeout=2000)
    window.reset()  # the run it spoke of is gone: 'reset', then nothing
    qtbot.waitUntil(lambda: bar.currentMessage() == "", timeout=5000)
    qtbot.wait(50)
    assert bar.currentMessage() == ""


def test_a_gpu_machine_leaves_the_message_its_room_at_1024_x_640(qtbot, make_window, monkeypatch):
    # on the H100 the device label read 'engine numpy · GPU: NVIDIA H100 80GB HBM3, 79 GiB (78.7 GiB
    # free)' and left the message no room at all (-6 px): the end of a run showed nothing
    import gui.main_window as main_window

    whole = "NVIDIA H100 80GB HBM3, 79 GiB (78.7 GiB free)"
    monkeypatch.setattr(main_window, "gpu_status", lambda: (True, whole))
    assert main_window.short_device_name(whole) == "H100 80GB HBM3"
    window = make_window()
    window.resize(1024, 640)
    qtbot.waitUntil(lambda: window.width() == 1024, timeout=2000)
    assert window.device_label.text() == "engine numpy · GPU: H100 80GB HBM3"
    assert window.device_label.toolTip() == f"GPU: {whole}"  # the memory is one hover away
    configure(window, "pattern_search", budget="5000")
    run_to_end(qtbot, window)
    qtbot.wait(50)
    shown = window.statusBar().currentMessage()
    assert shown.startswith("finished") and window.status_text() == "finished, the budget of 5000 iterations is spent"
    if window.statusBar().fontMetrics().horizontalAdvance("finished: budget spent") <= 200:  # see above
        _assert_fits(window, shown)
    # and where no room is left at all (a number the bar cannot give up fills it), the shortest
    # form is still shown (clipped), never nothing
    window.best_label.setMinimumWidth(2000)
    window.show_fitted_message("finished, the budget of 5000 iterations is spent", "finished: budget spent")
    assert window.statusBar().currentMessage() == "finished: budget spent"


@pytest.mark.parametrize("points", [14, 24])
def test_a_large_font_gives_up_spare_numbers_for_the_message_at_1024_x_640(qtbot, make_window, points):
    # at 14 pt the numbers took the whole bar at 1024 x 640 and ran past its edge: the end of a run
    # said nothing. The bar gives up the evaluations, then the time, then the engine (each shown
    # elsewhere too) until the message's shortest form fits, and takes them back with room again.
    # At 24 pt here (or 14 pt in the GPU machine's ~1.6x wider font) even that is not enough: every
    # spare number goes and the shortest form is shown, clipped
    from PyQt6 import QtGui

    window = make_window()
    big = QtGui.QFont(window.font())
    big.setPointSizeF(points)
    window.setFont(big)
    window.resize(1024, 640)
    qtbot.waitUntil(lambda: window.width() == 1024, timeout=2000)
    configure(window, "pattern_search", budget="5000")
    run_to_end(qtbot, window)
    qtbot.wait(100)
    bar = window.statusBar()
    spare = (window.evals_label, window.time_label, window.device_label)
    assert not window.evals_label.isVisible()  # the first given up, in either case
    assert window.best_label.isVisible() and window.rate_label.isVisible() and window.iter_label.isVisible()
    shortest = bar.fontMetrics().horizontalAdvance("finished: budget spent")
    if window.status_message_width() >= shortest:  # room made
        assert bar.currentMessage().startswith("finished") and bar.currentMessage() != "finished"
        right = max(w.geometry().right() for w in window._permanent if w.isVisible())
        assert right <= bar.width(), (right, bar.width())  # no number past the bar's edge
    else:  # no room even so: every spare number given up, the shortest form shown (clipped)
        assert not any(w.isVisible() for w in spare)
        assert bar.currentMessage() == "finished: budget spent"
    assert window.status_text() == "finished, the budget of 5000 iterations is spent"
    # the numbers given up are in the message's hover tip, under its whole text
    given = [w.text() for w in spare if not w.isVisible()]
    assert window.status_tip().splitlines() == [window.status_text(), *given]
    room = window.status_message_rect()
    if room.width() > 4:  # a message with room to hover (none at all in the widest fonts)
        assert _hover_tip(qtbot, bar, room.center()) == window.status_tip()
    # room again: every number back. How wide that is depends on the font (in the GPU machine's at
    # 24 pt the numbers alone passed 4,000 px): every number's width, its spacing, the whole message
    room = (sum(w.sizeHint().width() + 12 for w in window._permanent)
            + bar.fontMetrics().horizontalAdvance(window.status_text()) + 100)
    wide = max(4000, room)
    window.resize(wide, 640)
    qtbot.waitUntil(lambda: window.width() == wide, timeout=2000)
    qtbot.waitUntil(lambda: all(w.isVisible() for w in spare), timeout=2000)
    assert window.status_tip() == window.statusBar().toolTip()  # nothing given up: the message alone


def test_numbers_given_up_come_back_when_their_message_goes_and_stay_for_a_hover_tip(qtbot, make_window):
    # found in review: a transient message that had taken the numbers' room left them hidden after
    # it expired (nothing refitted without a message), and a menu entry's hover tip hid them,
    # flickering as the pointer crossed a menu
    from PyQt6 import QtGui

    window = make_window()
    window.resize(1024, 640)
    qtbot.waitUntil(lambda: window.width() == 1024, timeout=2000)
    assert window.device_label.isVisible()
    window.show_fitted_message("x" * 200, "y" * 150, timeout=300)  # no room beside the engine
    assert not window.device_label.isVisible()
    qtbot.waitUntil(lambda: window.device_label.isVisible(), timeout=3000)  # expired: back
    QtCore.QCoreApplication.sendEvent(window, QtGui.QStatusTipEvent("z" * 150))  # a long hover tip
    assert window.statusBar().currentMessage() and window.device_label.isVisible()


def _assert_fits(window, shown: str) -> None:
    """`shown` fits the room QStatusBar paints its message in (by the window's rule and by ours)."""
    width = window.statusBar().fontMetrics().horizontalAdvance(shown)
    assert width <= window.status_message_width(), (shown, width, window.status_message_width())
    assert width <= _message_room(window), (shown, width, _message_room(window))


def _first_word(text: str) -> str:
    return re.match(r"[\w-]*", text).group()


def test_every_status_message_of_a_run_is_readable_at_1024_x_640(qtbot, make_window):
    # QStatusBar clips its message at the numbers beside it without a mark: at 1024 x 640
    # 'running Multi-walk pattern search on Sphere (f1) (2-D, numpy engine)' needs ~420 px where
    # ~260 are left once the numbers are shown, and the numbers appear after the message
    window = make_window()
    _skip_where_fonts_are_wide(window)
    window.resize(1024, 640)
    qtbot.waitUntil(lambda: window.width() == 1024, timeout=2000)
    bar = window.statusBar()
    seen = []  # (shown, tooltip), checked as shown and again after every redraw of the numbers

    def check(*_args):
        shown = bar.currentMessage()
        if shown:
            _assert_fits(window, shown)
            seen.append((shown, bar.toolTip()))

    bar.messageChanged.connect(check)
    window.sigRendered.connect(check)
    words = "Multi-walk pattern search on Sphere (f1) (2-D, numpy engine)"
    configure(window, "pattern_search", budget="40")
    run_to_end(qtbot, window)  # the first run: no numbers yet when it starts
    qtbot.wait(50)
    check()
    window.speed_slider.setValue(60)  # the second: paced, numbers beside it, changed live, stopped
    configure(window, "pattern_search", budget="100000")
    assert window.start()
    qtbot.waitUntil(lambda: window.last_snapshot is not None and window.last_snapshot.iteration >= 3,
                    timeout=10_000)
    window.form.params_form.editor("round_iterations").setValue(5)
    with qtbot.waitSignal(window.controller.sigFinished, timeout=RUN_TIMEOUT_MS):
        window.stop()
    qtbot.wait(50)
    check()
    fulls = {f"starting {words}", "placing the walkers…", f"running {words}",
             "finished, the budget of 40 iterations is spent",
             "round_iterations = 5: applies from the next iteration", "stopping", "finished, stopped"}
    for shown, tip in seen:  # nothing lost: the whole text on hovering, its first word in view
        assert tip in fulls, (shown, tip)
        assert _first_word(shown) == _first_word(tip), (shown, tip)
    assert {tip for _shown, tip in seen} == fulls
    assert any(shown != tip for shown, tip in seen)  # the test did meet a message too long


def test_every_other_status_message_is_readable_at_1024_x_640(qtbot, make_window, tmp_path):
    # compiling, warnings, errors, saved paths, presets and menu tips were clipped the same way
    from PyQt6 import QtGui

    window = make_window()
    _skip_where_fonts_are_wide(window)
    window.resize(1024, 640)
    qtbot.waitUntil(lambda: window.width() == 1024, timeout=2000)
    bar = window.statusBar()

    def assert_shown(full: str, start: str | tuple[str, ...]) -> str:
        shown = bar.currentMessage()
        _assert_fits(window, shown)
        assert shown.startswith(start) and bar.toolTip() == full, (shown, bar.toolTip())
        return shown

    window._export_csv()
    assert_shown("no finished run to export yet", "no ")
    configure(window, "pattern_search", problem="rastrigin", budget="20")
    run_to_end(qtbot, window)
    qtbot.wait(50)
    title = "Multi-walk pattern search x Rastrigin (f9)"
    for status, full, start in (
            ("compiling kernels", f"compiling CUDA kernels for {title} (first use; cached on disk; "
                                  "not counted in the timings)…", "compiling"),
            ("first iteration", "first iteration on the numpy engine: it compiles its kernels on "
                                "first use (cached on disk; 'python main.py warmup' before a lesson)…",
             ("first iteration", "compiling")),  # where that does not fit, the key fact
            ("warming up", "warming up the GPU (not counted in the timings)…", "warming up"),
            ("compiling the numba engine (once)", "compiling the numba engine (once)", "compiling")):
        window._on_controller_status(status)
        assert window.busy.isVisible()  # the busy bar takes its share of the room too
        assert_shown(full, start)
    warning = ("one iteration will take about 12 s; the budget, Stop and Close wait for it "
               "(use fewer walkers or a lower dimension)")
    window._on_controller_status(f"warning: {warning}")
    assert_shown(f"warning: {warning}", "warning")
    assert warning in window.error_banner.text() and window.error_banner.isVisible()  # it stays
    window._on_controller_status("running")
    error = ("the function returned NaN or infinity at all 48 points evaluated; check 'rastrigin' "
             "and its box")
    window._on_controller_errored(error)
    assert_shown(f"The run stopped with an error: {error}", "error")
    assert error in window.error_banner.text()
    reason = f"[Errno 13] Permission denied: '{tmp_path}/a/folder/that/is/read/only/landscape.png'"
    window.report_failure("Export PNG", reason)
    assert_shown(f"Export PNG failed: {reason}", "Export PNG failed")
    assert html.escape(reason) in window.error_banner.text()
    path = tmp_path / "a-long-folder-name-for-the-lesson" / "another-one" / "histories-of-today.csv"
    assert window._save_reported("Export CSV", path, lambda: None)
    assert "histories-of-today.csv" in assert_shown(f"saved {path}", "saved")
    window.recorder.sigFrames.emit(123456)
    assert_shown("recording: 123,456 frames", "recording")
    stem = "class_sa_himmelblau_2d"
    assert window.load_preset(preset(stem))
    assert_shown(f"preset loaded: {config_io.read_meta(preset(stem))['name']}", "preset loaded")
    for _name, _path, description in config_io.list_presets():  # a preset's tip, hovered in the menu
        QtCore.QCoreApplication.sendEvent(window, QtGui.QStatusTipEvent(description))
        assert_shown(description, description[:5])


def test_compiling_status_names_the_algorithm_and_function(qtbot, make_window):
    window = make_window()
    configure(window, "pattern_search", problem="rastrigin")
    window._run_config = window.form.build_config()
    window._on_controller_status("compiling kernels")
    text = window.status_text()
    assert text.startswith("compiling CUDA kernels for Multi-walk pattern search x Rastrigin")
    assert "cached on disk" in text and window.busy.isVisibleTo(window)
    window._on_controller_status("running")
    assert window.busy.isHidden()


# --- 10: axes ------------------------------------------------------------------------------------------
def _snap(iteration, evals, seconds, best, extras=None):
    return Snapshot(algorithm="pattern_search", problem="sphere", dim=2, engine="numpy",
                    iteration=iteration, evals=evals, seconds=seconds, evals_per_second=1.0,
                    best_f=best, best_x=np.zeros(2), positions=np.zeros((0, 2)),
                    fitness=np.zeros(0), sample_index=np.zeros(0, dtype=np.int64),
                    walkers=1, extras=extras or {}, overlays={}, finished=False, stop_reason="")


def test_convergence_axes_are_log_without_multiplier_and_floor_exact_zeros(qtbot):
    from gui.charts import ConvergenceChart

    chart = ConvergenceChart()
    qtbot.addWidget(chart)
    chart.begin_run(solvers.RunConfig.build("pattern_search", "sphere", 2))
    for k, best in enumerate([10.0, 1e-3, 0.0]):
        chart.record(_snap(k, 100 * (k + 1), 0.002 * (k + 1), best))
    chart.refresh()
    assert chart._log is True, "reaching exactly 0 must not flip the chart to linear"
    _x, y = chart._items_current[0].getData()
    assert np.all(np.isfinite(y))  # the zero is drawn at the floor, in log10 units
    for plot in chart.plots:
        assert not plot.getAxis("left").autoSIPrefix
    assert chart.by_seconds.getAxis("bottom").labelText == "compute time (ms)"
    x_ms, _ = chart._items_current[1].getData()
    np.testing.assert_allclose(x_ms, [2.0, 4.0, 6.0])
    # the axis says its scale in a few words (a longer label outgrew the chart's height in the
    # docked column, and the two charts' labels ran into each other); the zeros' note is in the legend
    assert [plot.getAxis("left").labelText for plot in chart.plots] == ["log scale"] * 2
    assert "known minimum f* = 0 · exact zeros drawn at the bottom" in chart.legend.text()


def test_convergence_axis_labels_fit_the_charts_in_a_projector_s_column(qtbot):
    # at 1024 x 640 the docked column gives each chart ~70 px of axis height; "best value (log
    # scale), 0 drawn at the bottom" (~270 px of text) ran into the other chart's label
    from gui.charts import ConvergenceChart

    chart = ConvergenceChart()
    qtbot.addWidget(chart)
    chart.resize(260, 400)  # the Best value dock at 1024 x 640 (docs/screenshots)
    chart.show()
    qtbot.waitExposed(chart)
    chart.begin_run(solvers.RunConfig.build("pattern_search", "sphere", 2))
    # before the first snapshot nothing is drawn: a plain axis, no "log scale" over an empty decade
    assert chart._log is False and not chart.by_evals.getAxis("left").label.isVisible()
    for k, best in enumerate([10.0, 1e-3, 0.0]):
        chart.record(_snap(k, 100 * (k + 1), 0.002 * (k + 1), best))
    chart.refresh()
    QtWidgets.QApplication.processEvents()
    for plot in chart.plots:
        label = plot.getAxis("left").label
        height = plot.getAxis("left").geometry().height()
        assert height > 40, "the charts were not laid out"
        assert label.isVisible() and label.boundingRect().width() <= height, plot.titleLabel.text
    # a linear chart (a minimum below 0) has no left label: the titles name the value
    chart.begin_run(solvers.RunConfig.build("pattern_search", "six_hump_camel", 2))
    chart.record(_snap(0, 100, 0.001, 1.0))
    chart.refresh()
    assert chart._log is False and not chart.by_evals.getAxis("left").label.isVisible()


def test_a_log_axis_shows_the_longest_label_that_fits_its_height_or_none(qtbot):
    # The GPU machine's offscreen Qt draws text about twice as wide as desktop fonts: there "log
    # scale" (128 px) was taller than the docked column's ~76 px axis and ran into the other
    # chart's. At every height, the longest of LOG_LABELS that fits is shown, or none.
    from gui.charts import LOG_LABELS, ConvergenceChart, label_width

    chart = ConvergenceChart()
    qtbot.addWidget(chart)
    chart.resize(260, 400)
    chart.show()
    qtbot.waitExposed(chart)
    chart.begin_run(solvers.RunConfig.build("pattern_search", "sphere", 2))
    for k, best in enumerate([10.0, 1e-3]):
        chart.record(_snap(k, 100 * (k + 1), 0.002 * (k + 1), best))
    chart.refresh()
    seen = set()
    for height in range(800, 40, -10):  # the charts shrink with the widget
        chart.resize(260, height)
        QtWidgets.QApplication.processEvents()
        for plot in chart.plots:
            axis = plot.getAxis("left")
            room = axis.geometry().height()
            fitting = [t for t in LOG_LABELS if label_width(axis, t) <= room]
            if fitting:
                assert axis.label.isVisible() and axis.labelText == fitting[0], (height, room)
                assert axis.label.boundingRect().width() <= room
            else:
                assert not axis.label.isVisible(), (height, room)
            seen.add(fitting[0] if fitting else None)
    assert seen == set(LOG_LABELS) | {None}  # the sizes passed through every case


def test_extras_chart_never_flips_back_to_linear_and_holds_constant_series(qtbot):
    from gui.charts import ExtrasPanel

    panel = ExtrasPanel()
    qtbot.addWidget(panel)
    panel.begin_run()
    for k, t in enumerate([1000.0, 100.0, 1.0, 0.5, 1000.0]):  # the last one: a reheat
        panel.record(_snap(k, k, k, 1.0, {"temperature": t, "constant": 3.0}))
        panel.refresh()
        if k >= 2:
            assert panel._log["temperature"] is True
    lo, hi = panel._plots["constant"][0].viewRange()[1]
    assert lo < 3.0 < hi and hi - lo < 1.0


def test_a_short_algorithm_panel_shows_one_whole_chart_and_a_picker(qtbot):
    # at 1024 x 640 the panel has room for one chart; PSO publishes four or five quantities, which
    # were a scrolled column whose first chart was cut (and its title too): now one chart fills the
    # panel and a picker names it and offers the others; with room again, every chart
    from gui.charts import PLOT_HEIGHT, ExtrasPanel

    panel = ExtrasPanel()
    qtbot.addWidget(panel)
    panel.resize(260, 190)
    panel.show()
    keys = ["swarm spread", "mean speed", "swarm best (median)", "swarm best (worst)"]
    panel.begin_run()
    for k in range(3):
        panel.record(_snap(k, k, k, 1.0, {key: float(k + i) for i, key in enumerate(keys)}))
        panel.refresh()
    assert not panel.fits_all() and not panel.picker.isHidden()
    assert panel.shown() == keys[:1] and panel.picker.currentText() == keys[0]
    assert [panel.picker.itemText(i) for i in range(panel.picker.count())] == keys
    plot = panel._plots[keys[0]][0]
    assert not plot.titleLabel.isVisible()  # the picker names it
    qtbot.waitUntil(lambda: _fills_the_view(panel, keys[0]))
    panel.picker.setFocus()
    qtbot.keyClick(panel.picker, QtCore.Qt.Key.Key_Down)  # the user picks another (the next one)
    qtbot.keyClick(panel.picker, QtCore.Qt.Key.Key_Down)
    assert panel.shown() == [keys[2]] and panel.chosen == keys[2]
    panel.begin_run()  # the next run of the same algorithm keeps the pick
    panel.record(_snap(0, 0, 0, 1.0, {key: 1.0 for key in keys}))
    panel.refresh()
    assert panel.shown() == [keys[2]] and panel.picker.currentText() == keys[2]
    panel.resize(260, PLOT_HEIGHT * len(keys))  # room for all: every chart, titled, no picker
    qtbot.waitUntil(lambda: panel.shown() == keys)
    assert panel.picker.isHidden() and all(panel._plots[k][0].titleLabel.isVisible() for k in keys)
    # each curve readable: at 100 px a chart had 15 px for it (the title and the axis took the rest)
    qtbot.waitUntil(lambda: min(panel._plots[k][0].vb.height() for k in keys) >= 50)
    panel.resize(260, 190)  # short again: the pick again, whole (the four charts' layout had
    qtbot.waitUntil(lambda: panel.shown() == [keys[2]])  # held the one left taller than the view)
    qtbot.waitUntil(lambda: _fills_the_view(panel, keys[2]))
    # another algorithm's quantities: the first of them, a single one needs no picker
    panel.begin_run()
    panel.record(_snap(0, 0, 0, 1.0, {"temperature": 5.0}))
    panel.refresh()
    assert panel.shown() == ["temperature"] and panel.picker.isHidden()


def test_a_title_wider_than_the_panel_is_cut_and_the_charts_stay_inside(qtbot):
    # a title's text sets its chart's least width: on the GPU machine (another font) "swarm best
    # (median)" was wider than a 260 px column, and every chart ran past the panel's right edge, the
    # one left after the picker came too. A name longer than any column shows this in every font
    from gui.charts import PLOT_HEIGHT, ExtrasPanel

    long = "swarm best (median) over every swarm of the grid so far"
    keys = ["swarm spread", long, "mean speed"]
    panel = ExtrasPanel()
    qtbot.addWidget(panel)
    panel.resize(260, PLOT_HEIGHT * len(keys))
    panel.show()
    panel.begin_run()
    panel.record(_snap(0, 0, 0, 1.0, {key: 1.0 for key in keys}))
    panel.refresh()
    qtbot.waitUntil(lambda: panel.shown() == keys)
    label = panel._plots[long][0].titleLabel
    assert label.shown.endswith("\u2026") and long.startswith(label.shown[:-1]) and label.toolTip() == long
    assert label.text == long  # the whole name for pyqtgraph's exporters
    minimum = QtCore.Qt.SizeHint.MinimumSize  # no title sets its chart's least width, in any font
    assert all(panel._plots[k][0].titleLabel.effectiveSizeHint(minimum).width() == 0 for k in keys)
    view = QtCore.QRectF(panel.view.rect()).adjusted(-1, -1, 1, 1)
    qtbot.waitUntil(lambda: all(view.contains(panel._plots[k][0].sceneBoundingRect()) for k in keys))
    # room for the whole name (in this font: the GPU machine's is ~1.6 times as wide): the whole name
    whole = QtGui.QFontMetricsF(label.item.font()).horizontalAdvance(long) * 2
    panel.resize(int(whole) + 260, PLOT_HEIGHT * len(keys))
    qtbot.waitUntil(lambda: label.shown == long)
    panel.resize(260, 190)  # short: the long one picked, alone and whole, under the picker
    panel.chosen = long
    panel._pick(long)
    qtbot.waitUntil(lambda: _fills_the_view(panel, long))
    assert panel.shown() == [long] and not label.isVisible()


def test_a_title_is_drawn_as_written_with_html_characters(qtbot):
    # pyqtgraph's label sets its text as HTML: "a < b & c" lost everything after '<'
    from gui.charts import PLOT_HEIGHT, ExtrasPanel

    key = "share of x < 0 & y > 1 (<b>not bold</b>)"
    panel = ExtrasPanel()
    qtbot.addWidget(panel)
    panel.resize(1600, PLOT_HEIGHT)
    panel.show()
    panel.begin_run()
    panel.record(_snap(0, 0, 0, 1.0, {key: 1.0}))
    panel.refresh()
    qtbot.waitUntil(lambda: panel.shown() == [key])
    label = panel._plots[key][0].titleLabel
    qtbot.waitUntil(lambda: label.shown == key)
    assert label.item.toPlainText() == key and label.text == key


def _fills_the_view(panel, key) -> bool:
    """The chart of `key` lies within the panel's view and takes most of its height."""
    plot, view = panel._plots[key][0], panel.view
    inside = QtCore.QRectF(view.rect()).adjusted(-1, -1, 1, 1).contains(plot.sceneBoundingRect())
    return inside and plot.sceneBoundingRect().height() > view.height() - 20


def test_clear_previous_runs_shows_only_when_there_are_some(qtbot):
    # the button took half of a projector's column beside the legend, wrapping the one run's label
    # into four lines in a box of two; with no previous run it has nothing to clear
    from gui.charts import ConvergenceChart

    chart = ConvergenceChart()
    qtbot.addWidget(chart)
    chart.show()
    assert chart.clear_button.isHidden()  # a window just opened
    config = solvers.RunConfig.build("pattern_search", "rastrigin", 2, params={"walkers": 16}, seed=1,
                                     max_iters=5)
    chart.begin_run(config)
    chart.record(_snap(1, 16, 0.01, 3.0))
    assert chart.clear_button.isHidden()
    chart.begin_run(config)  # the first run becomes a faded, previous one
    assert len(chart.previous) == 1 and not chart.clear_button.isHidden()
    chart.clear_button.click()
    assert not chart.previous and chart.clear_button.isHidden()
    chart.record(_snap(1, 16, 0.01, 3.0))
    chart.begin_run(config)
    assert not chart.clear_button.isHidden()
    chart.clear_for("ackley", 2)  # another function: the faded runs are not comparable, gone
    assert not chart.previous and chart.clear_button.isHidden()


def test_pso_at_1024_x_640_shows_its_first_quantity_whole(qtbot, make_window):
    window = make_window()
    window.resize(1024, 640)
    qtbot.waitUntil(lambda: window.width() == 1024, timeout=2000)
    configure(window, "particle_swarm", problem="rastrigin", budget="10")
    run_to_end(qtbot, window)
    extras = window.extras
    qtbot.waitUntil(lambda: len(extras.series) >= 4, timeout=2000)
    assert not extras.fits_all() and not extras.picker.isHidden()
    assert extras.shown() == [next(iter(extras.series))]
    assert not extras.findChildren(QtWidgets.QScrollArea)  # nothing scrolls
    qtbot.waitUntil(lambda: _fills_the_view(extras, extras.shown()[0]), timeout=2000)
    assert window.chart.clear_button.isHidden()  # the first run: nothing to clear


# --- 11, 12: loading a set-up -------------------------------------------------------------------------
def test_loading_a_preset_clears_charts_panel_and_numbers(qtbot, make_window):
    window = make_window()
    configure(window, "simulated_annealing", problem="rastrigin", budget="20")
    run_to_end(qtbot, window)
    assert window.extras.series and window.chart.current is not None
    assert window.load_preset(preset("class_de_ackley_2d"))
    assert window.chart.current is None and not window.chart.previous  # another function
    assert not window.extras.series and not window.extras.placeholder.isHidden()
    assert window.best_label.text() == "" and window.landscape.walker_points().shape[0] == 0
    assert window.status_text().startswith("preset loaded: Class:")


def test_earlier_runs_stay_faded_only_when_comparable(qtbot, make_window):
    window = make_window()
    configure(window, "differential_evolution", problem="ackley", budget="10")
    run_to_end(qtbot, window)
    assert window.load_preset(preset("class_de_ackley_2d"))  # same function and dimension
    assert len(window.chart.previous) == 1 and window.chart.current is None


def test_loaded_set_up_with_an_unavailable_engine_says_so(qtbot, make_window, monkeypatch):
    import gui.config_form
    import gui.main_window

    def status(engine):
        return (False, "no CUDA driver or device (CUDARuntimeError: cudaErrorInsufficientDriver)") \
            if engine == "cuda" else (True, "CPU")

    monkeypatch.setattr(gui.main_window, "engine_status", status)
    monkeypatch.setattr(gui.config_form, "engine_status", status)
    window = make_window()
    config = dataclasses.replace(config_io.load_config(preset("class_de_ackley_2d")), engine="cuda")
    window.apply_loaded_config(config)
    banner = window.error_banner.text()
    assert window.error_banner.isVisibleTo(window)
    assert "cuda engine, which is not available here" in banner and "numpy instead" in banner
    assert "cudaError" not in banner and "stopped with an error" not in banner


def test_a_bad_preset_file_says_so_not_that_a_run_stopped(qtbot, make_window, tmp_path):
    window = make_window()
    bad = tmp_path / "broken.json"
    bad.write_text("{ not json")
    assert not window.load_preset(bad)
    text = window.error_banner.text()
    assert "This preset could not be loaded" in text and "broken.json" in text
    assert "run stopped" not in text


# --- 13: keyboard -------------------------------------------------------------------------------------
def test_enter_commits_a_field_and_hands_the_keys_back_to_the_run(qtbot, make_window):
    window = make_window()
    configure(window, "pattern_search", budget="100000000")
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=2000)
    edit = window.form.budget_edit
    edit.setFocus()
    qtbot.keyClicks(edit, "5")  # typing still types
    assert edit.text() == "1000000005"
    qtbot.keyClick(edit, QtCore.Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not edit.hasFocus(), timeout=2000)
    with qtbot.waitSignal(window.controller.sigStarted, timeout=5000):
        qtbot.keyClick(window.focusWidget() or window, QtCore.Qt.Key.Key_Space)
    assert window.controller.is_running and edit.text() == "1000000005"
    with qtbot.waitSignal(window.controller.sigFinished, timeout=RUN_TIMEOUT_MS):
        window.stop()


def test_function_keys_control_the_run_even_while_a_field_has_focus(qtbot, make_window):
    window = make_window()
    configure(window, "pattern_search", budget="100000000")
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=2000)
    window.form.seed_spin.setFocus()
    with qtbot.waitSignal(window.controller.sigStarted, timeout=5000):
        qtbot.keyClick(window.form.seed_spin, QtCore.Qt.Key.Key_F6)
    with qtbot.waitSignal(window.controller.sigFinished, timeout=RUN_TIMEOUT_MS):
        qtbot.keyClick(window.form.seed_spin, QtCore.Qt.Key.Key_F8)


# --- 14: layout ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("size", [(1024, 640), (2560, 1440)])
def test_window_lays_out_from_a_projector_to_a_large_screen(qtbot, make_window, size):
    window = make_window()
    window.resize(*size)
    qtbot.waitUntil(lambda: window.width() == size[0], timeout=2000)
    assert window.minimumWidth() <= size[0] and window.minimumHeight() <= size[1]
    assert window.chart_dock.width() >= window.chart.minimumWidth()
    assert window.landscape.width() > 200
    assert window.landscape.plot.getPlotItem().getViewBox().state["aspectLocked"]


def test_chart_column_recovers_after_shrinking_and_enlarging(qtbot, make_window):
    from gui.main_window import CHART_WIDTH

    window = make_window()
    window.resize(1024, 640)
    qtbot.waitUntil(lambda: window.width() == 1024, timeout=2000)
    window.resizeDocks([window.chart_dock], [200], QtCore.Qt.Orientation.Horizontal)
    window.resize(2560, 1440)
    qtbot.waitUntil(lambda: window.chart_dock.width() >= 0.8 * CHART_WIDTH, timeout=2000)


def test_reset_layout_recovers_a_squashed_chart_column(qtbot, make_window):
    window = make_window()
    window.resize(1400, 860)
    window.chart_dock.hide()
    window.form_dock.setFloating(True)
    window.reset_layout_action.trigger()
    assert window.chart_dock.isVisible() and not window.form_dock.isFloating()
    assert window.chart_dock.width() >= window.chart.minimumWidth()


def test_a_remembered_tiny_window_is_not_restored(qtbot, make_window):
    from gui.main_window import MIN_SIZE

    first = make_window("tiny.ini")
    first.setMinimumSize(100, 100)
    first.resize(300, 200)
    first.close()
    second = make_window("tiny.ini")
    assert second.width() >= MIN_SIZE[0] and second.height() >= MIN_SIZE[1]


# --- 15: N-D slices ----------------------------------------------------------------------------------
def test_held_colour_scale_keeps_one_colour_for_one_value_and_the_tooltip_explains(qtbot, make_window):
    window = make_window()
    view = window.landscape
    configure(window, "pattern_search", problem="rastrigin", dim=6)
    qtbot.waitUntil(lambda: view.grid is not None and view.problem.dim == 6, timeout=5000)
    assert view.hold_check.isVisibleTo(view)
    assert "projected" in view.plot.toolTip() and "(+)" in view.plot.toolTip()
    view.hold_check.setChecked(True)
    held = view.grid.levels
    with qtbot.waitSignal(view.sigLandscapeReady, timeout=5000):
        view._request_slice(np.full(6, 2.5), force=True)
    assert view.grid.levels == held and not math.isclose(view.grid.point[3], 0.0)
    view.hold_check.setChecked(False)
    with qtbot.waitSignal(view.sigLandscapeReady, timeout=5000):
        view._request_slice(np.full(6, 1.5), force=True)
    assert view.grid.levels != held


# --- 3: the GPU tabs without a GPU ---------------------------------------------------------------------
RAW = "no CUDA driver or device (CUDARuntimeError: cudaErrorInsufficientDriver: CUDA driver version is insufficient)"


@pytest.mark.parametrize("module_name, cls_name", [("gui.compare", "ComparePanel"), ("gui.sweep", "SweepPanel")])
def test_gpu_tabs_say_in_plain_words_why_the_gpu_engines_are_unavailable(qtbot, monkeypatch,
                                                                          module_name, cls_name):
    import importlib

    module = importlib.import_module(module_name)
    monkeypatch.setattr(module, "gpu_status", lambda: (False, RAW))
    panel = getattr(module, cls_name)()
    qtbot.addWidget(panel)
    note = panel.gpu_note
    assert note.isVisibleTo(panel)
    assert "GPU engines (cupy, cuda) are unavailable" in note.text()
    assert "NVIDIA GPU" in note.text() and "driver" in note.text()  # what would make them available
    assert "cudaError" not in note.text() and "cudaError" in note.toolTip()
    assert "exclude kernel compilation" in panel.timing_note.text()
    texts = [item for item in panel.speedup_plot.getPlotItem().items
             if type(item).__name__ == "TextItem"]
    assert texts and "no GPU engine here" in texts[0].toPlainText()
    monkeypatch.setattr(module, "gpu_status", lambda: (True, "NVIDIA H100, 80 GiB"))
    other = getattr(module, cls_name)()
    qtbot.addWidget(other)
    assert not other.gpu_note.isVisibleTo(other)


def test_first_iteration_status_on_an_engine_that_compiles_when_run(qtbot, make_window):
    """numba and cupy compile at their first iterations: the window says so, with the busy bar,
    until the runner reports the first chunk done ("running")."""
    window = make_window()
    configure(window, "pattern_search", problem="rastrigin")
    window._run_config = window.form.build_config()
    window._on_controller_status("first iteration")
    text = window.status_text()
    assert text.startswith("first iteration on the") and "warmup" in text and window.busy.isVisibleTo(window)
    window._on_controller_status("running")
    assert window.busy.isHidden()


def test_a_second_start_while_a_run_is_on_says_so_in_a_form_that_fits(qtbot, make_window):
    # 'a run is already in progress; stop it first' was the one status message with no shorter
    # form: beside the numbers it was cut with a mark where 'run in progress: stop it first' fits;
    # and it showed the busy bar as a phase of the run would, and stayed in place of 'running ...'
    window = make_window()
    configure(window, "pattern_search", budget="100000")
    window.speed_slider.setValue(60)  # paced: the run is still on when the second start comes
    assert window.start()
    qtbot.waitUntil(lambda: window.last_snapshot is not None, timeout=10_000)
    qtbot.waitUntil(lambda: window.status_text().startswith("running"), timeout=10_000)
    running = window.status_text()
    full, short = "a run is already in progress; stop it first", "run in progress: stop it first"
    bar = window.statusBar()
    room = bar.fontMetrics().horizontalAdvance(short)
    window.status_message_width = lambda: room  # room for the short form only
    assert not window.controller.start(window.controller.config)
    assert window.status_text() == full and bar.currentMessage() == short
    assert bar.toolTip() == full
    assert window.busy.isHidden()  # the run is drawing: no phase of its own started
    window.status_message_width = lambda: bar.fontMetrics().horizontalAdvance("run in progress")
    window._refit_message()
    assert bar.currentMessage() == "run in progress"
    # a passing word: the run's own message comes back after it
    qtbot.waitUntil(lambda: window.status_text() == running, timeout=10_000)
    with qtbot.waitSignal(window.controller.sigFinished, timeout=RUN_TIMEOUT_MS):
        window.stop()


def _hover_tip(qtbot, widget, pos: QtCore.QPoint) -> str:
    """The tooltip Qt shows for a hover at `pos` of `widget` ('' for none)."""
    from PyQt6 import QtGui

    QtWidgets.QToolTip.hideText()  # a tip shown hides after 300 ms
    qtbot.waitUntil(lambda: not QtWidgets.QToolTip.isVisible(), timeout=2000)
    QtCore.QCoreApplication.sendEvent(
        widget, QtGui.QHelpEvent(QtCore.QEvent.Type.ToolTip, pos, widget.mapToGlobal(pos)))
    return QtWidgets.QToolTip.text() if QtWidgets.QToolTip.isVisible() else ""


def test_the_whole_message_is_the_tooltip_of_the_message_only(qtbot, make_window):
    # the full text was the tooltip of the whole status bar: a number with no tooltip of its own
    # (evaluations, rate, time) showed the message's text when hovered
    window = make_window()
    # wide enough for the numbers in any font: the GPU machine's fallback font (numbers ~1.6 times
    # as wide) left the message 0-18 px of a 1,400 px bar, none to hover (the message's room at
    # 1024 x 640 is test_a_gpu_machine_leaves_the_message_its_room_at_1024_x_640's)
    window.resize(2400, 700)
    qtbot.waitUntil(lambda: window.width() == 2400, timeout=2000)
    configure(window, "pattern_search", budget="40")
    run_to_end(qtbot, window)
    qtbot.wait(50)
    full = "finished, the budget of 40 iterations is spent"
    window.status_message_width = lambda: window.statusBar().fontMetrics().horizontalAdvance(
        "finished: budget spent")  # a short form shown: the tooltip is the only way to the rest
    window._refit_message()
    bar = window.statusBar()
    assert bar.currentMessage() == "finished: budget spent" and window.status_text() == full
    room = window.status_message_rect()  # where the message is painted (the numbers' left)
    assert room.width() > 50, (room, bar.size(), [(w.text()[:24], w.geometry()) for w in window._permanent])
    assert _hover_tip(qtbot, bar, room.center()) == full, (room, bar.size())  # on the message
    for label in (window.best_label, window.rate_label, window.iter_label, window.evals_label,
                  window.time_label):
        assert label.isVisible() and label.toolTip() == ""
        assert _hover_tip(qtbot, label, label.rect().center()) == "", label.text()  # none of its own: none
    assert _hover_tip(qtbot, window.device_label, window.device_label.rect().center()) == \
        window.device_label.toolTip() != ""  # its own
    window.show_fitted_message("saved x.csv", timeout=4000)  # the message's tooltip follows it
    assert _hover_tip(qtbot, bar, window.status_message_rect().center()) == "saved x.csv"
    assert _hover_tip(qtbot, window.rate_label, window.rate_label.rect().center()) == ""
    QtWidgets.QToolTip.hideText()
