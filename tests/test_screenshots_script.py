"""scripts/screenshots.py (README: 'Screenshots are taken offscreen by python scripts/screenshots.py'):
every picture but the Tune tab's shows the Landscape tab."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("PyQt6")
pytest.importorskip("pyqtgraph")
from PyQt6 import QtWidgets  # noqa: E402

pytestmark = pytest.mark.gui
ROOT = Path(__file__).resolve().parents[1]


def test_every_picture_after_the_tune_shot_shows_the_landscape(qtbot, tmp_path, monkeypatch):
    # the Tune shot is taken first and left its tab in front: every algorithm's picture, the
    # classroom preset's and the projector's showed the Tune tab's map instead of the walkers
    from gui.main_window import MainWindow

    spec = importlib.util.spec_from_file_location("screenshots", ROOT / "scripts" / "screenshots.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    in_front = []

    def quick_tune(window, stem, path):  # the real one runs a grid of 576 runs (30 s here)
        window.panels.setCurrentWidget(window.tune_panel)

    def recording_grab(window):
        in_front.append(window.panels.currentWidget() is window.landscape)
        return QtWidgets.QWidget.grab(window)

    monkeypatch.setattr(script, "shoot_tune", quick_tune)
    monkeypatch.setattr(script, "ITERATIONS", {name: 2 for name in script.ITERATIONS})
    monkeypatch.setattr(script, "DEFAULT_ITERATIONS", 2)
    monkeypatch.setattr(MainWindow, "grab", recording_grab)
    assert script.main(["--out", str(tmp_path), "--problem", "sphere"]) == 0
    # 5 algorithms, the 30-D slice, the classroom preset and the projector's window
    assert in_front == [True] * 8
