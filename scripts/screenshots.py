"""Real screenshots of the window, taken offscreen: one per algorithm after a short run on a 2-D
function, one of a 30-D slice, the classroom annealing preset on Himmelblau (legend, its four
minima), the window at a projector's 1024 x 640 and the Tune tab's finished map of the DE preset
(F x Cr). Writes docs/screenshots/<name>.png.

    python scripts/screenshots.py [--out docs/screenshots] [--problem rastrigin] [--only tune]

Runs every algorithm in the registry on the numpy engine; settings are chosen so the picture shows
the walkers mid-search (not all collapsed on the minimum). The window's remembered settings are
not touched (a temporary settings file is used).
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from PyQt6 import QtCore, QtWidgets  # noqa: E402

import solvers  # noqa: E402

# Smaller populations than the defaults, so single walkers and overlays can be told apart; names
# that an algorithm does not declare are skipped.
READABLE = {"walkers": 300, "swarms": 6, "populations": 6}
ITERATIONS = {"pattern_search": 6, "multidirectional_search": 4, "simulated_annealing": 600,
              "particle_swarm": 25, "differential_evolution": 25}
TRAILS = {"pattern_search", "particle_swarm"}  # elsewhere trails hide more than they show
# independent chains stay spread over the minima while they cool (synchronous ones gather on the best)
CHOICES = {"simulated_annealing": {"variant": "async"}}
DEFAULT_ITERATIONS = 20


def wait_for(signal, timeout_ms: int) -> None:
    """Run the event loop until `signal` fires (or the timeout); no processEvents polling."""
    loop = QtCore.QEventLoop()
    signal.connect(loop.quit)
    QtCore.QTimer.singleShot(timeout_ms, loop.quit)
    loop.exec()
    signal.disconnect(loop.quit)


def settle(ms: int = 150) -> None:
    """Run the event loop a moment: the layouts a run's last refresh asked for (a picker shown, a
    button hidden) are applied by posted events, and a grab taken before them shows the panels half
    laid out."""
    loop = QtCore.QEventLoop()
    QtCore.QTimer.singleShot(ms, loop.quit)
    loop.exec()


def save(window, path: Path) -> None:
    """The window's picture, once its layouts have settled, as a compact PNG."""
    settle()
    if not window.grab().save(str(path)):
        raise SystemExit(f"could not write {path}")
    compact(path)


def compact(path: Path) -> None:
    """Rewrite a PNG with a dithered 256-colour palette: a quarter of the size, same look."""
    from PIL import Image  # noqa: PLC0415

    with Image.open(path) as image:
        rgb = image.convert("RGB")
    rgb.quantize(colors=256, method=Image.Quantize.FASTOCTREE,
                 dither=Image.Dither.FLOYDSTEINBERG).save(path, optimize=True)


def set_up(window, algorithm: str, problem: str, dim: int, iterations: int) -> None:
    form = window.form
    form.algorithm_combo.setCurrentIndex(form.algorithm_combo.findData(algorithm))
    form.problem_combo.setCurrentIndex(form.problem_combo.findData(problem))
    form.dim_spin.setValue(dim)
    form.budget_kind.setCurrentText("iterations")
    form.budget_edit.setText(str(iterations))
    for name, value in CHOICES.get(algorithm, {}).items():
        form.params_form.editor(name).setCurrentText(value)
    for name, value in READABLE.items():
        editor = form.params_form.editor(name)
        if editor is not None:
            editor.setValue(max(editor.minimum(), min(editor.maximum(), value)))


def show_landscape(window) -> None:
    """The Landscape tab in front: the Tune shot (taken first) left its tab there, and every later
    picture showed the Tune tab's map instead of the walkers."""
    window.panels.setCurrentWidget(window.landscape)


def shoot(window, algorithm: str, problem: str, dim: int, iterations: int, path: Path) -> None:
    show_landscape(window)
    set_up(window, algorithm, problem, dim, iterations)
    window.landscape.trails_check.setChecked(algorithm in TRAILS)
    if window.landscape.grid is None:
        wait_for(window.landscape.sigLandscapeReady, 10_000)
    if not window.start():
        raise SystemExit(f"{algorithm}: the run did not start: {window.form.errors()}")
    wait_for(window.controller.sigFinished, 120_000)
    if dim > 2:  # let the slice through the final best point arrive
        wait_for(window.landscape.sigLandscapeReady, 5_000)
    save(window, path)
    result = window.results[-1] if window.results else None
    print(f"{path}: {algorithm} on {problem} {dim}-D, "
          f"best {result.best_f:.4g}" if result else f"{path}: no result ({window.controller.last_error})")


def shoot_preset(window, stem: str, iterations: int, path: Path) -> None:
    """A classroom preset, stopped part way (at full speed) so the chains are mid-cooling."""
    from solvers import config_io  # noqa: PLC0415

    window.load_preset(config_io.PRESETS_DIR / f"{stem}.json")
    window.speed_slider.setValue(window.speed_slider.maximum())
    window.form.budget_edit.setText(str(iterations))
    shoot_current(window, path)


def shoot_current(window, path: Path) -> None:
    show_landscape(window)
    if window.landscape.grid is None:
        wait_for(window.landscape.sigLandscapeReady, 10_000)
    if not window.start():
        raise SystemExit(f"{path.stem}: the run did not start: {window.form.errors()}")
    wait_for(window.controller.sigFinished, 120_000)
    save(window, path)
    print(f"{path}: {window.statusBar().currentMessage()}")


def shoot_tune(window, stem: str, path: Path) -> None:
    """A tuning preset's grid run to the end in the Tune tab, the best cell hovered."""
    from solvers.tune.setup import PRESETS_DIR  # noqa: PLC0415

    if not window.load_tune_preset(PRESETS_DIR / f"{stem}.json"):
        raise SystemExit(f"{stem}: the tuning preset did not load")
    panel = window.tune_panel
    if not panel.start():
        raise SystemExit(f"{stem}: the grid did not start: {panel.status_label.text()}")
    wait_for(panel.sigFinished, 600_000)
    best = panel.best_index()
    if best is not None:
        panel.hover_label.setText(panel.cell_text(best))
        panel.map.mark_hovered(best)
    save(window, path)
    print(f"{path}: {panel.status_label.text()}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "screenshots"))
    parser.add_argument("--problem", default="rastrigin")
    parser.add_argument("--width", type=int, default=1500)
    parser.add_argument("--height", type=int, default=900)
    parser.add_argument("--only", choices=("tune",), default=None,
                        help="take only the Tune tab's picture (tune_de_F_Cr.png)")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([sys.argv[0]])
    from gui.main_window import MainWindow  # noqa: PLC0415

    with tempfile.TemporaryDirectory() as tmp:
        settings = QtCore.QSettings(str(Path(tmp) / "settings.ini"), QtCore.QSettings.Format.IniFormat)
        window = MainWindow(settings)
        window.resize(args.width, window.height() if args.height is None else args.height)
        window.show()
        shoot_tune(window, "seed004_de_F_Cr", out / "tune_de_F_Cr.png")
        if args.only == "tune":
            window.close()
            return 0
        for algorithm in solvers.list_algorithms():
            shoot(window, algorithm, args.problem, 2,
                  ITERATIONS.get(algorithm, DEFAULT_ITERATIONS), out / f"{algorithm}.png")
        shoot(window, solvers.list_algorithms()[0], args.problem, 30, 30,
              out / f"{solvers.list_algorithms()[0]}_30d.png")
        shoot_preset(window, "class_sa_himmelblau_2d", 1500, out / "class_sa_himmelblau.png")
        window.resize(1024, 640)
        shoot_preset(window, "class_pso_rastrigin_2d", 40, out / "projector_1024x640.png")
        window.close()
    del app
    return 0


if __name__ == "__main__":
    sys.exit(main())
