"""Exports (gui/export.py): PNG, convergence CSV, GIF recording and configuration files load back."""
from __future__ import annotations

import csv
import json

import numpy as np
import pytest

pytest.importorskip("PyQt6")
pg = pytest.importorskip("pyqtgraph")
from PIL import Image  # noqa: E402
from PyQt6 import QtWidgets  # noqa: E402

import solvers  # noqa: E402
from gui import export  # noqa: E402
from solvers.config import RunConfig  # noqa: E402

pytestmark = pytest.mark.gui


@pytest.fixture
def plot(qtbot):
    widget = pg.PlotWidget()
    widget.resize(320, 240)
    qtbot.addWidget(widget)
    widget.show()
    curve = widget.plot(np.arange(10.0), np.arange(10.0) ** 2)
    return widget, curve


def test_png_of_a_plot_and_of_a_plain_widget(tmp_path, plot, qtbot):
    widget, _ = plot
    path = export.save_png(widget, tmp_path / "chart.png")
    with Image.open(path) as image:
        assert image.format == "PNG" and image.width > 100 and image.height > 100
    wide = export.save_png(widget.getPlotItem(), tmp_path / "wide.png", width=800)
    with Image.open(wide) as image:
        assert image.width == 800
    label = QtWidgets.QLabel("hello")
    label.resize(120, 40)
    qtbot.addWidget(label)
    with Image.open(export.save_png(label, tmp_path / "label.png")) as image:
        assert image.size == (120, 40)


def test_png_refuses_what_is_not_a_view(tmp_path):
    with pytest.raises(TypeError):
        export.save_png(object(), tmp_path / "x.png")


def test_histories_csv_names_each_run_and_holds_every_row(tmp_path):
    runs = [solvers.run("pattern_search", "sphere", dim=2, max_iters=5, params={"walkers": 8}),
            solvers.run("pattern_search", "sphere", dim=2, max_iters=7,
                        params={"walkers": 16, "delta0": 0.1})]
    path = export.write_histories_csv(tmp_path / "runs.csv", runs)
    lines = path.read_text().splitlines()
    headers = [l for l in lines if l.startswith("# run")]
    assert len(headers) == 2
    assert "algorithm=pattern_search problem=sphere dim=2 engine=numpy" in headers[0]
    assert "walkers=8" in headers[0] and "delta0=0.1" in headers[1]
    rows = list(csv.DictReader(l for l in lines if not l.startswith("#")))
    assert len(rows) == len(runs[0].history) + len(runs[1].history)
    second = [r for r in rows if r["run"] == "2"]
    np.testing.assert_allclose([float(r["best_f"]) for r in second], runs[1].history[:, 2])
    assert [int(r["evals"]) for r in second] == [int(e) for e in runs[1].history[:, 0]]
    # dicts (RunResult.to_dict) are accepted too
    again = export.write_histories_csv(tmp_path / "again.csv", [r.to_dict() for r in runs])
    assert again.read_text() == path.read_text()


def test_histories_csv_of_a_typed_function_over_two_lines_keeps_its_header(tmp_path):
    # the run's comment line broke at the function's line break: '  x2**2 dim=2 ...' was read as
    # the header and every column name was wrong
    run = solvers.run("pattern_search", "expr: x1**2 +\n  x2**2", dim=2, max_iters=3,
                      params={"walkers": 8})
    lines = export.write_histories_csv(tmp_path / "runs.csv", [run]).read_text().splitlines()
    assert [l for l in lines if l.startswith("# run 1:")][0].startswith(
        "# run 1: algorithm=pattern_search problem=expr: x1**2 +   x2**2 dim=2")
    rows = list(csv.DictReader(l for l in lines if not l.startswith("#")))
    assert list(rows[0]) == list(export.HISTORY_COLUMNS) and len(rows) == len(run.history)


def test_histories_csv_says_which_parameter_changed_live_and_when(tmp_path):
    # the CSV named only the values a run ended with: a history of round_iterations 20 for 3
    # iterations, then 5, read as a run of 5 throughout
    from solvers.runner import Runner

    config = RunConfig.build("pattern_search", "sphere", 2, params={"walkers": 8},
                             max_iters=8, sample_size=1)

    def change(snap):
        if snap.iteration == 3 and not runner.param_changes:
            runner.update_params({"round_iterations": 5})

    runner = Runner(config, on_snapshot=change)
    runner.set_delay(1e-4)  # one iteration a chunk: the change lands exactly after iteration 3
    run = runner.run()
    assert run.params["round_iterations"] == 5
    [record] = run.param_changes
    at = int(run.history[3, 0])  # the row after iteration 3: the state the change applied to
    assert record["name"] == "round_iterations" and (record["old"], record["new"]) == (20, 5)
    assert record["iteration"] == 3 and record["evals"] == at
    lines = export.write_histories_csv(tmp_path / "runs.csv", [run]).read_text().splitlines()
    header = next(l for l in lines if l.startswith("# run 1: algorithm="))
    assert "params at start:" in header and "round_iterations=20" in header  # the initial value
    assert "round_iterations=5" not in header
    assert (f"# run 1: changed live at evals={at} (after iteration 3, "  # when, old -> new
            in "\n".join(lines))
    assert f"round_iterations 20 -> 5; its rows after evals={at} ran with the new value" in lines[2]
    rows = list(csv.DictReader(l for l in lines if not l.startswith("#")))
    assert len(rows) == len(run.history)  # the table itself is unchanged
    # the dict form (RunResult.to_dict, JSON) keeps the record and writes the same file
    again = export.write_histories_csv(tmp_path / "again.csv", [run.to_dict()])
    assert again.read_text() == "\n".join(lines) + "\n"
    # a record that is not one (hand-made dicts) is left out, never a traceback
    odd = {**run.to_dict(), "param_changes": [None, {"name": ["x"]}, "x"]}
    text = export.write_histories_csv(tmp_path / "odd.csv", [odd]).read_text()
    assert "changed live" not in text and "round_iterations=5" in text


def test_recorder_writes_an_animated_gif(tmp_path, plot, qtbot):
    widget, curve = plot
    recorder = export.Recorder(widget, fps=50, max_frames=100, max_width=200)
    frames = []
    recorder.sigFrames.connect(frames.append)
    step = [0]

    def move():  # the picture must change, or Pillow merges identical frames into one
        step[0] += 1
        curve.setData(np.arange(10.0), np.arange(10.0) ** (1 + step[0] % 3))

    recorder.sigFrames.connect(lambda n: move())
    recorder.start()
    assert recorder.recording
    qtbot.waitUntil(lambda: recorder.frame_count >= 5, timeout=5000)
    path = recorder.stop_and_save(tmp_path / "run.gif")
    assert not recorder.recording
    assert frames and frames[-1] == recorder.frame_count
    with Image.open(path) as gif:
        assert gif.format == "GIF"
        assert gif.n_frames > 1
        assert gif.width <= 200


def test_recorder_stays_bounded_by_halving_the_rate(plot):
    widget, curve = plot
    recorder = export.Recorder(widget, fps=10, max_frames=4, max_width=100)
    for i in range(11):
        curve.setData(np.arange(10.0), np.arange(10.0) * i)
        recorder.grab_frame()
    assert recorder.frame_count < 4
    assert recorder.frame_ms > 100  # each kept frame now stands for a longer time


def test_save_without_frames_is_refused(plot, tmp_path):
    recorder = export.Recorder(plot[0])
    with pytest.raises(ValueError, match="nothing recorded"):
        recorder.save(tmp_path / "empty.gif")


def test_config_dialogs_round_trip_and_refuse_bad_files(tmp_path, monkeypatch, qtbot):
    config = RunConfig.build("pattern_search", "rastrigin", 2, params={"walkers": 64}, seed=3,
                             max_iters=10)
    target = tmp_path / "mine"  # no suffix: the filter's .json is added
    monkeypatch.setattr(QtWidgets.QFileDialog, "getSaveFileName",
                        staticmethod(lambda *a, **k: (str(target), export.CONFIG_FILTER)))
    saved = export.save_config_dialog(None, config)
    assert saved == tmp_path / "mine.json" and saved.exists()
    monkeypatch.setattr(QtWidgets.QFileDialog, "getOpenFileName",
                        staticmethod(lambda *a, **k: (str(saved), export.CONFIG_FILTER)))
    assert export.load_config_dialog(None) == config

    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"version": 1, "algorithm": "pattern_search", "problem": "nope"}))
    messages = []
    monkeypatch.setattr(QtWidgets.QMessageBox, "warning",
                        staticmethod(lambda parent, title, text: messages.append(text)))
    monkeypatch.setattr(QtWidgets.QFileDialog, "getOpenFileName",
                        staticmethod(lambda *a, **k: (str(bad), export.CONFIG_FILTER)))
    assert export.load_config_dialog(None) is None
    assert len(messages) == 1 and messages[0].startswith("bad.json: unknown function 'nope'")
    monkeypatch.setattr(QtWidgets.QFileDialog, "getOpenFileName",
                        staticmethod(lambda *a, **k: ("", "")))
    assert export.load_config_dialog(None) is None  # cancelled


def test_recorder_writes_an_mp4_video_without_a_system_ffmpeg(tmp_path, plot, qtbot, monkeypatch):
    imageio = pytest.importorskip("imageio.v2")
    pytest.importorskip("imageio_ffmpeg")
    monkeypatch.setenv("PATH", str(tmp_path))  # no ffmpeg on the PATH: the wheel's own binary
    widget, curve = plot
    widget.resize(201, 151)  # odd sizes: H.264 in yuv420p needs even ones, padded by the saver
    recorder = export.Recorder(widget, fps=20, max_frames=100, max_width=201)
    recorder.sigFrames.connect(lambda n: curve.setData(np.arange(10.0), np.arange(10.0) * n))
    recorder.start()
    qtbot.waitUntil(lambda: recorder.frame_count >= 4, timeout=5000)
    recorder.stop()
    count = recorder.frame_count
    path = recorder.save(tmp_path / "run.mp4")
    reader = imageio.get_reader(str(path), format="FFMPEG")
    try:
        frames = [frame for frame in reader]
        assert reader.get_meta_data()["fps"] == pytest.approx(20, rel=0.05)
    finally:
        reader.close()
    assert len(frames) == count and frames[0].shape[0] % 2 == 0 and frames[0].shape[1] % 2 == 0


@pytest.mark.parametrize("answer, kept", [(QtWidgets.QMessageBox.StandardButton.No, True),
                                          (QtWidgets.QMessageBox.StandardButton.Yes, False)])
def test_a_typed_name_without_suffix_asks_before_replacing_the_file(tmp_path, monkeypatch, answer, kept):
    # the dialog confirms replacing 'runs' (absent); the suffix added after it made 'runs.csv',
    # which was overwritten without a word
    existing = tmp_path / "runs.csv"
    existing.write_text("earlier export\n")
    monkeypatch.setattr(QtWidgets.QFileDialog, "getSaveFileName",
                        staticmethod(lambda *a, **k: (str(tmp_path / "runs"), export.CSV_FILTER)))
    asked = []
    monkeypatch.setattr(QtWidgets.QMessageBox, "question",
                        staticmethod(lambda parent, title, text, *a: asked.append(text) or answer))
    path = export.ask_save_path(None, "Export histories", "histories.csv", export.CSV_FILTER)
    assert len(asked) == 1 and "runs.csv already exists" in asked[0]
    assert path == (None if kept else existing)
    # a name typed with its suffix is the dialog's to confirm: not asked twice
    monkeypatch.setattr(QtWidgets.QFileDialog, "getSaveFileName",
                        staticmethod(lambda *a, **k: (str(existing), export.CSV_FILTER)))
    assert export.ask_save_path(None, "Export histories", "histories.csv", export.CSV_FILTER) == existing
    assert len(asked) == 1


def test_the_proposed_name_of_a_typed_function_is_one_file_that_can_be_written(tmp_path, monkeypatch):
    # 'pattern_search_expr: x1/x2 + ....json' proposed a file in a folder 'pattern_search_expr: x1'
    # (absent) and, for a long expression, a name past 255 bytes: accepting it failed to save
    text = "expr: x1/(1 + x2**2) + " + " + ".join(f"(x1 - {i})**2" for i in range(40))
    config = RunConfig.build("pattern_search", text, 2, max_iters=10)
    proposed = []

    def accept(parent, title, name, file_filter):
        proposed.append(name)
        return str(tmp_path / name), file_filter

    monkeypatch.setattr(QtWidgets.QFileDialog, "getSaveFileName", staticmethod(accept))
    messages = []
    monkeypatch.setattr(QtWidgets.QMessageBox, "warning",
                        staticmethod(lambda parent, title, text: messages.append(text)))
    saved = export.save_config_dialog(None, config)
    assert messages == []
    name = proposed[0]
    assert "/" not in name and ":" not in name and len(name.encode()) < 128
    assert name.startswith("pattern_search_expr_x1") and name.endswith(".json")
    assert saved == tmp_path / name and saved.exists()
    assert export.safe_file_name("landscape.png") == "landscape.png"  # plain names stay as they are
    assert export.safe_file_name("tune_particle_swarm_rastrigin_10d.csv") == \
        "tune_particle_swarm_rastrigin_10d.csv"
