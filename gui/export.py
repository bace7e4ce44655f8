"""Export: views and charts as PNG, convergence histories as CSV, the animation as MP4 or GIF.

How to wire it (main window, File menu; every function also takes a path, so tests need no dialog):
    from gui import export
    path = export.ask_save_path(self, "Export landscape", "landscape.png", export.PNG_FILTER)
    if path: export.save_png(self.landscape_view, path)        # PlotWidget, PlotItem or any QWidget
    export.write_histories_csv(path, runs)                      # RunResults (current + previous runs)
    self.recorder = export.Recorder(self.landscape_view, fps=10)   # keep one per window
    record_action.toggled -> self.recorder.start() / self.recorder.stop_and_save(gif_path)
    self.recorder.sigFrames.connect(lambda n: status_bar.showMessage(f"recording: {n} frames"))
    config = export.load_config_dialog(self)                    # None if cancelled or refused
    export.save_config_dialog(self, config)                     # JSON via solvers.config_io
The recorder grabs on the GUI thread from a QTimer (widgets are only read there); frames are
downscaled and palettised as they come, and halved in rate when full, so memory stays bounded.
"""
from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import Any, Iterable, Mapping

import numpy as np
import pyqtgraph as pg
import pyqtgraph.exporters  # noqa: F401 - registers pg.exporters
from PIL import Image
from PyQt6 import QtCore, QtGui, QtWidgets

from solvers import config_io
from solvers.atomic_write import SaveError, atomic_path, atomic_write_text
from solvers.config import RunConfig
from solvers.errors import ConfigError

PNG_FILTER = "PNG image (*.png)"
CSV_FILTER = "CSV table (*.csv)"
GIF_FILTER = "Animated GIF (*.gif)"
MP4_FILTER = "MP4 video (*.mp4)"
RECORDING_FILTER = f"{MP4_FILTER};;{GIF_FILTER}"
CONFIG_FILTER = "Multiwalk configuration (*.json)"


# --- PNG ----------------------------------------------------------------------------------------
def save_png(target: Any, path: str | Path, width: int | None = None) -> Path:
    """Write `target` as PNG: pyqtgraph views through ImageExporter (optionally `width` pixels wide,
    re-rendered, not scaled), any other widget through QWidget.grab().

    Saved atomically: SaveError (the old file intact) when nothing could be written, since
    ImageExporter.export(path) itself ignores a failed QImage.save."""
    path = Path(path)
    item = None
    if isinstance(target, pg.GraphicsView):  # PlotWidget, GraphicsLayoutWidget, ImageView's view
        item = target.scene()
    elif isinstance(target, QtWidgets.QGraphicsItem):
        item = target
    if item is not None:
        exporter = pg.exporters.ImageExporter(item)
        if width:
            exporter.parameters()["width"] = int(width)
        image = exporter.export(toBytes=True)  # the QImage; we save it and check the result
    else:
        if not isinstance(target, QtWidgets.QWidget):
            raise TypeError(f"cannot export a {type(target).__name__} as PNG")
        image = target.grab().toImage()
    if image is None or image.isNull():
        raise SaveError(f"cannot write {path}: the view has nothing to draw")
    with atomic_path(path) as tmp:
        if not image.save(str(tmp), "PNG"):
            raise SaveError(f"cannot write {path}: the PNG encoder failed (disk full or not writable?)")
    return path


# --- CSV ----------------------------------------------------------------------------------------
HISTORY_COLUMNS = ("run", "engine", "evals", "seconds", "best_f")


def _field(run: Any, name: str, default: Any = None) -> Any:
    if isinstance(run, Mapping):
        return run.get(name, default)
    return getattr(run, name, default)


def describe_run(run: Any) -> str:
    """One line naming a run's setting: algorithm, problem, dimension, engine, seed and params
    (those it started with, when some were changed live)."""
    changed = bool(live_changes(run))
    text = " ".join(f"{k}={v}" for k, v in start_params(run).items())
    return (f"algorithm={_field(run, 'algorithm')} problem={_field(run, 'problem')} "
            f"dim={_field(run, 'dim')} engine={_field(run, 'engine')} dtype={_field(run, 'dtype')} "
            f"seed={_field(run, 'seed')} params{' at start' if changed else ''}: {text or 'defaults'}")


def live_changes(run: Any) -> list[Mapping]:
    """A run's live parameter changes (RunResult.param_changes); [] when none or unreadable."""
    changes = _field(run, "param_changes", ()) or ()
    if not isinstance(changes, (list, tuple)):
        return []
    return [c for c in changes if isinstance(c, Mapping) and isinstance(c.get("name"), str)]


def start_params(run: Any) -> dict:
    """The parameters a run started with: its final ones with its live changes undone."""
    params = _field(run, "params", {}) or {}
    params = dict(params) if isinstance(params, Mapping) else {}
    for change in reversed(live_changes(run)):
        params[change["name"]] = change.get("old")
    return params


def describe_change(change: Mapping) -> str:
    """'at evals=E (after iteration I, S s): name old -> new' for one live change."""
    seconds = change.get("seconds")
    when = f"after iteration {change.get('iteration')}"
    if isinstance(seconds, (int, float)):
        when += f", {seconds:.6g} s"
    return (f"at evals={change.get('evals')} ({when}): "
            f"{change.get('name')} {change.get('old')} -> {change.get('new')}")


def write_histories_csv(path: str | Path, runs: Iterable[Any]) -> Path:
    """Convergence histories of several runs in one long table (run, engine, evals, seconds, best_f).

    `runs` are RunResults (or their ``to_dict()``s): anything with algorithm, problem, dim, engine,
    seed, params and a history of (evals, seconds, best_f) rows. One ``# run N: ...`` header line
    per run names its setting, and one ``# run N: changed live at evals=E ...`` line per
    parameter changed during the run (its rows after evals=E ran with the new value); pandas
    reads the file with ``comment='#'``.
    """
    path = Path(path)
    runs = list(runs)
    with io.StringIO(newline="") as handle:  # built in memory, then saved atomically
        handle.write("# Multiwalk convergence histories\n")
        for number, run in enumerate(runs, start=1):
            # a typed function may span lines ('expr: x1**2 +\n x2**2', from a set-up file): its
            # second line would leave the comment and be read as the header; one line reads the same
            handle.write(f"# run {number}: {' '.join(describe_run(run).splitlines())}\n")
            # the params above are the run's first ones: a change made while it ran is said with
            # when it took effect, or its history would read as a run of the last values only
            for change in live_changes(run):
                words = " ".join(describe_change(change).splitlines())
                handle.write(f"# run {number}: changed live {words}; its rows after "
                             f"evals={change.get('evals')} ran with the new value\n")
        writer = csv.writer(handle)
        writer.writerow(HISTORY_COLUMNS)
        for number, run in enumerate(runs, start=1):
            history = np.asarray(_field(run, "history", []), dtype=np.float64).reshape(-1, 3)
            engine = _field(run, "engine", "")
            for evals, seconds, best in history:
                writer.writerow([number, engine, int(evals), f"{seconds:.6g}", repr(float(best))])
        text = handle.getvalue()
    return atomic_write_text(path, text)


# --- GIF recording ------------------------------------------------------------------------------
def qimage_to_pil(image: QtGui.QImage) -> Image.Image:
    """A Pillow RGB copy of a QImage."""
    image = image.convertToFormat(QtGui.QImage.Format.Format_RGBA8888)
    ptr = image.constBits()
    ptr.setsize(image.sizeInBytes())
    pil = Image.frombuffer("RGBA", (image.width(), image.height()), bytes(ptr), "raw", "RGBA",
                           image.bytesPerLine(), 1)
    return pil.convert("RGB")


class Recorder(QtCore.QObject):
    """Records a widget as an animated GIF: start(), then stop_and_save(path) (Pillow, no program).

    Grabs `fps` frames a second, scaled down to at most `max_width` pixels wide. When `max_frames`
    are held it drops every other frame and halves the rate, so a long recording keeps its whole
    length at a coarser pace instead of growing without bound.
    """

    sigFrames = QtCore.pyqtSignal(int)  # frames held, after each grab
    sigSaved = QtCore.pyqtSignal(str)  # path written

    def __init__(self, widget: QtWidgets.QWidget, fps: float = 10.0, max_frames: int = 300,
                 max_width: int = 480, parent: QtCore.QObject | None = None):
        super().__init__(parent if parent is not None else widget)
        if fps <= 0 or max_frames < 2 or max_width < 16:
            raise ValueError("fps must be > 0, max_frames >= 2 and max_width >= 16")
        self._widget = widget
        self._fps = float(fps)
        self._max_frames = int(max_frames)
        self._max_width = int(max_width)
        self._frames: list[Image.Image] = []
        self._interval_ms = max(1, round(1000.0 / self._fps))
        self._timer = QtCore.QTimer(self)
        self._timer.timeout.connect(self._on_timer_timeout)

    @property
    def recording(self) -> bool:
        return self._timer.isActive()

    @property
    def frame_count(self) -> int:
        return len(self._frames)

    @property
    def frame_ms(self) -> int:
        """Display time of one frame in the GIF: the capture interval, so playback is real time."""
        return self._interval_ms

    def start(self) -> None:
        """Drop any previous frames and start grabbing (the first frame at once)."""
        self._frames = []
        self._interval_ms = max(1, round(1000.0 / self._fps))
        self._timer.start(self._interval_ms)
        self.grab_frame()

    def stop(self) -> None:
        """Stop grabbing; the frames are kept until save() or the next start()."""
        self._timer.stop()

    def grab_frame(self) -> None:
        """Add one frame now (also called by the timer)."""
        image = self._widget.grab().toImage()
        if image.isNull():
            return
        if image.width() > self._max_width:
            image = image.scaledToWidth(self._max_width,
                                        QtCore.Qt.TransformationMode.SmoothTransformation)
        # palettise now: a third of the memory of RGB, and GIF needs it anyway
        frame = qimage_to_pil(image).quantize(colors=256, method=Image.Quantize.FASTOCTREE)
        self._frames.append(frame)
        if len(self._frames) >= self._max_frames:
            self._frames = self._frames[::2]
            self._interval_ms *= 2
            if self._timer.isActive():
                self._timer.setInterval(self._interval_ms)
        self.sigFrames.emit(len(self._frames))

    def save(self, path: str | Path) -> Path:
        """Write the frames held as an MP4 video (a path ending in .mp4) or else a looping GIF;
        ValueError if there are none."""
        if not self._frames:
            raise ValueError("nothing recorded")
        path = Path(path)
        if path.suffix.lower() == ".mp4":
            with atomic_path(path) as tmp:
                save_mp4(self._frames, tmp, 1000.0 / self._interval_ms)
            self.sigSaved.emit(str(path))
            return path
        first, rest = self._frames[0], self._frames[1:]
        size = first.size
        # a resized window gives frames of other sizes; GIF frames share one canvas
        rest = [f if f.size == size else f.resize(size) for f in rest]
        with atomic_path(path) as tmp:
            first.save(tmp, format="GIF", save_all=True, append_images=rest,
                       duration=self._interval_ms, loop=0, disposal=1)
        self.sigSaved.emit(str(path))
        return path

    def stop_and_save(self, path: str | Path) -> Path:
        self.stop()
        return self.save(path)

    def _on_timer_timeout(self) -> None:
        self.grab_frame()


def save_mp4(frames: list, path: str | Path, fps: float) -> Path:
    """Write PIL frames as an H.264 MP4 through imageio's ffmpeg plugin (imageio-ffmpeg ships its
    own ffmpeg binary, so no system ffmpeg is needed). Frames are padded to even sizes, as the
    yuv420p pixel format that every player reads requires."""
    import imageio.v2 as imageio  # noqa: PLC0415 - only needed when a video is saved

    width, height = frames[0].size
    even = (width + width % 2, height + height % 2)
    writer = imageio.get_writer(str(path), format="FFMPEG", mode="I", fps=fps, codec="libx264",
                                pixelformat="yuv420p", macro_block_size=1)
    try:
        for frame in frames:
            canvas = Image.new("RGB", even)
            canvas.paste(frame.convert("RGB").resize((width, height)) if frame.size != (width, height)
                         else frame.convert("RGB"))
            writer.append_data(np.asarray(canvas))
    finally:
        writer.close()
    return Path(path)


# --- dialogs --------------------------------------------------------------------------------------
SAFE_NAME_CHARS = 80  # a default file name's stem at most: a typed function may be 2,000 characters


def safe_file_name(name: str) -> str:
    """A proposed file name that names one file here: the default names carry the function's name,
    and a typed one ('pattern_search_expr: x1/x2.json') made the dialog propose a file in a folder
    'pattern_search_expr: x1' that does not exist (saving then failed), or a name past the 255 bytes
    a file name may have. Runs of anything but letters, digits, '.', '-' and '_' become one '_';
    the stem is cut to SAFE_NAME_CHARS; the suffix is kept."""
    path = Path(name)
    suffix = path.suffix if re.fullmatch(r"\.[A-Za-z0-9]{1,8}", path.suffix or "") else ""
    stem = name[:len(name) - len(suffix)] if suffix else name
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", stem).strip("._")[:SAFE_NAME_CHARS].rstrip("._")
    return (stem or "multiwalk") + suffix


def ask_save_path(parent: QtWidgets.QWidget | None, title: str, default_name: str,
                  file_filter: str) -> Path | None:
    """A save-file dialog; the chosen path with the filter's suffix, or None if cancelled."""
    default_name = safe_file_name(default_name)
    name, chosen = QtWidgets.QFileDialog.getSaveFileName(parent, title, default_name, file_filter)
    if not name:
        return None
    path = Path(name)
    chosen = chosen or file_filter.split(";;")[0]  # the filter picked in the dialog
    suffix = chosen[chosen.rfind("*") + 1:chosen.rfind(")")]
    if path.suffix:
        return path
    # the dialog asked before replacing the name as typed ('runs'), not the file written
    # ('runs.csv'): an existing one was silently overwritten, so ask here as the dialog would
    path = path.with_suffix(suffix)
    if path.exists():
        answer = QtWidgets.QMessageBox.question(
            parent, title, f"{path.name} already exists.\nDo you want to replace it?",
            QtWidgets.QMessageBox.StandardButton.Yes | QtWidgets.QMessageBox.StandardButton.No,
            QtWidgets.QMessageBox.StandardButton.No)
        if answer != QtWidgets.QMessageBox.StandardButton.Yes:
            return None
    return path


def save_config_dialog(parent: QtWidgets.QWidget | None, config: RunConfig) -> Path | None:
    """Ask where, then save `config` as JSON; a message box on failure."""
    path = ask_save_path(parent, "Save configuration", f"{config.algorithm}_{config.problem}.json",
                         CONFIG_FILTER)
    if path is None:
        return None
    try:
        return config_io.save_config(config, path)
    except ConfigError as exc:
        QtWidgets.QMessageBox.warning(parent, "Save configuration", str(exc))
        return None


def load_config_dialog(parent: QtWidgets.QWidget | None,
                       directory: str | Path = "") -> RunConfig | None:
    """Ask for a file and load it; a bad file gives a message box with one line, and None."""
    name, _ = QtWidgets.QFileDialog.getOpenFileName(parent, "Load configuration", str(directory),
                                                    CONFIG_FILTER)
    if not name:
        return None
    try:
        return config_io.load_config(name)
    except ConfigError as exc:
        QtWidgets.QMessageBox.warning(parent, "Load configuration", str(exc))
        return None
