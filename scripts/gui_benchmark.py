"""GUI benchmark: frame rate with 10,000 walkers over a 256 x 256 landscape, and the GUI thread's
event-loop latency while runs go on each available engine. Writes docs/benchmarks/gui.md.

    python scripts/gui_benchmark.py [--seconds 8] [--walkers 10000] [--out docs/benchmarks/gui.md]

Three measurements, offscreen (QT_QPA_PLATFORM=offscreen unless set):
1. Drawing capacity: the landscape view alone, new positions for 10,000 walkers every frame, each
   frame fully rendered (QWidget.grab) -> frames per second the view can draw.
2. Live run: the whole window running pattern search on sphere 2-D with 10,000 walkers, all
   drawn (sample size 10,000), snapshots requested at 60 Hz -> frames actually drawn per second
   (paint events of the landscape's viewport) and snapshots drawn per second.
3. Latency: during each live run a 10 ms QTimer probe measures how late it fires; the lateness
   is the GUI thread's event-loop latency (median, 95th percentile, maximum).
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import pyqtgraph as pg  # noqa: E402
from PyQt6 import QtCore, QtWidgets  # noqa: E402

import solvers  # noqa: E402
from solvers import RunConfig  # noqa: E402
from solvers.engines import available_engines, gpu_status  # noqa: E402

PROBE_MS = 10


class PaintCounter(QtCore.QObject):
    """Counts paint events of one widget (frames really drawn)."""

    def __init__(self, widget: QtWidgets.QWidget):
        super().__init__(widget)
        self.count = 0
        widget.installEventFilter(self)

    def eventFilter(self, obj, event):  # noqa: N802 - Qt override
        if event.type() == QtCore.QEvent.Type.Paint:
            self.count += 1
        return False


class LatencyProbe(QtCore.QObject):
    """A repeating timer; how late each tick fires is the event loop's latency."""

    def __init__(self, interval_ms: int = PROBE_MS):
        super().__init__()
        self.interval = interval_ms / 1000.0
        self.late_ms: list[float] = []
        self._timer = QtCore.QTimer(self)
        self._timer.setTimerType(QtCore.Qt.TimerType.PreciseTimer)
        self._timer.timeout.connect(self._on_timer_timeout)
        self._last = None

    def start(self) -> None:
        self.late_ms, self._last = [], time.perf_counter()
        self._timer.start(int(self.interval * 1000))

    def stop(self) -> None:
        self._timer.stop()

    def _on_timer_timeout(self) -> None:
        now = time.perf_counter()
        self.late_ms.append(max(0.0, (now - self._last - self.interval) * 1000.0))
        self._last = now


def wait(ms: int) -> None:
    loop = QtCore.QEventLoop()
    QtCore.QTimer.singleShot(ms, loop.quit)
    loop.exec()


FIRST_FRAME_CAP_S = 120.0  # the longest a run may take to show its first iteration


def wait_for(condition, cap_s: float) -> bool:
    """Run the event loop until condition() holds (True) or cap_s has passed (False)."""
    end = time.perf_counter() + cap_s
    while not condition():
        if time.perf_counter() > end:
            return False
        wait(20)
    return True


def drawing_capacity(walkers: int, frames: int) -> dict:
    """Frames per second of the landscape view alone, every frame rendered in full."""
    from gui.landscape_view import LandscapeView  # noqa: PLC0415

    view = LandscapeView()
    view.resize(900, 800)
    view.show()
    view.set_problem("sphere", 2)
    loop = QtCore.QEventLoop()
    view.sigLandscapeReady.connect(loop.quit)
    QtCore.QTimer.singleShot(10_000, loop.quit)
    loop.exec()
    rng = np.random.default_rng(0)
    batches = [rng.uniform(-100, 100, (walkers, 2)) for _ in range(8)]
    view.walkers.setData(batches[0])
    view.grab()
    t0 = time.perf_counter()
    for k in range(frames):
        view.walkers.setData(batches[k % len(batches)])
        view.grab()
    seconds = time.perf_counter() - t0
    view.close()
    return {"frames": frames, "seconds": seconds, "fps": frames / seconds,
            "ms_per_frame": 1000 * seconds / frames}


def live_run(window, engine: str, walkers: int, seconds: float, problem: str = "sphere",
             dim: int = 2) -> dict:
    """Run pattern search on `engine` in the window; count frames, measure latency."""
    config = RunConfig.build("pattern_search", problem, dim, params={"walkers": walkers},
                             engine=engine, max_seconds=1e9, sample_size=walkers, snapshot_hz=60.0)
    painted = PaintCounter(window.landscape.plot.viewport())
    rendered = []
    window.sigRendered.connect(lambda: rendered.append(time.perf_counter()))
    probe = LatencyProbe()
    started = time.perf_counter()
    if not window.controller.start(config):
        raise SystemExit("the run did not start")
    # the first iteration's frame: on a fresh machine a GPU engine compiles its kernels first (what a
    # user waits for once); the measurement starts after it, so that it times the steady state
    first_frame = wait_for(lambda: getattr(window.last_snapshot, "iteration", 0) > 0, FIRST_FRAME_CAP_S)
    first_frame = time.perf_counter() - started if first_frame else float("nan")
    wait(1500)  # warm up, let the chunk size settle
    painted.count, rendered[:] = 0, []
    probe.start()
    t0 = time.perf_counter()
    first = window.last_snapshot
    wait(int(seconds * 1000))
    elapsed = time.perf_counter() - t0
    probe.stop()
    last = window.last_snapshot
    loop = QtCore.QEventLoop()
    window.controller.sigFinished.connect(loop.quit)
    window.controller.stop()
    loop.exec()
    window.controller.sigFinished.disconnect(loop.quit)
    late = sorted(probe.late_ms)
    drawn = len(window.landscape.walker_points())
    return {"engine": engine, "problem": f"{problem} {dim}-D", "seconds": elapsed,
            "painted_fps": painted.count / elapsed, "rendered_fps": len(rendered) / elapsed,
            "drawn_walkers": drawn,
            "latency_median": statistics.median(late), "latency_p95": late[int(0.95 * (len(late) - 1))],
            "latency_max": late[-1], "probes": len(late), "first_frame_s": first_frame,
            "evals_per_second": (last.evals - first.evals) / max(1e-9, last.seconds - first.seconds)
            if first is not None and last is not None else float("nan")}


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, {platform.system()} {platform.release()}"


def _load() -> str:
    try:
        return "{:.2f}, {:.2f}, {:.2f}".format(*os.getloadavg())
    except OSError:
        return "n/a"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=8.0, help="length of each live run")
    parser.add_argument("--walkers", type=int, default=10_000)
    parser.add_argument("--frames", type=int, default=150, help="frames for the drawing test")
    parser.add_argument("--repeat", type=int, default=3, help="live runs per engine (one row each)")
    parser.add_argument("--out", default=str(ROOT / "docs" / "benchmarks" / "gui.md"))
    args = parser.parse_args(argv)

    _app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([sys.argv[0]])
    from gui.main_window import MainWindow  # noqa: PLC0415

    load_before = _load()
    capacity = drawing_capacity(args.walkers, args.frames)
    print(f"drawing capacity: {capacity['fps']:.1f} fps ({capacity['ms_per_frame']:.1f} ms/frame)")
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        settings = QtCore.QSettings(str(Path(tmp) / "s.ini"), QtCore.QSettings.Format.IniFormat)
        window = MainWindow(settings)
        window.resize(1500, 900)
        window.show()
        for engine in available_engines():
            for _ in range(args.repeat):
                result = live_run(window, engine, args.walkers, args.seconds)
                runs.append(result)
                print(f"{engine}: first frame after {result['first_frame_s']:.2f} s, "
                      f"{result['painted_fps']:.1f} fps painted, "
                      f"{result['rendered_fps']:.1f} snapshots drawn/s, latency median "
                      f"{result['latency_median']:.1f} ms, p95 {result['latency_p95']:.1f} ms, "
                      f"max {result['latency_max']:.1f} ms")
            # an N-D run: the slice through the best point is recomputed as the best moves
            result = live_run(window, engine, args.walkers, args.seconds, "rastrigin", 30)
            runs.append(result)
            print(f"{engine} rastrigin 30-D: {result['painted_fps']:.1f} fps painted, latency "
                  f"p95 {result['latency_p95']:.1f} ms, max {result['latency_max']:.1f} ms")
        window.close()

    gpu_ok, gpu_text = gpu_status()
    command = "python scripts/gui_benchmark.py " + " ".join(argv if argv is not None else sys.argv[1:])
    lines = [
        "# GUI benchmark",
        "",
        f"- Machine: {machine()}; GPU: {gpu_text if gpu_ok else 'none (' + gpu_text + ')'}",
        f"- Versions: Python {platform.python_version()}, PyQt6 {QtCore.PYQT_VERSION_STR} "
        f"(Qt {QtCore.QT_VERSION_STR}), pyqtgraph {pg.__version__}, NumPy {np.__version__}",
        f"- Qt platform: {os.environ.get('QT_QPA_PLATFORM', 'default')}; date {time.strftime('%Y-%m-%d')}; "
        f"load average before/after: {load_before} / {_load()} (the machine is shared)",
        f"- Command: `{command.strip()}`",
        "",
        "Targets (issue 5): at least 30 frames per second while drawing 10,000 walkers and a "
        "256 x 256 landscape on the CPU engine; GUI event-loop latency under 50 ms during runs on "
        "every engine.",
        "",
        "## 1. Drawing capacity (landscape view alone)",
        "",
        f"{args.walkers:,} walkers at new positions every frame over the 256 x 256 sphere landscape "
        "with contours; each frame fully rendered with QWidget.grab().",
        "",
        "| frames | seconds | frames/s | ms/frame |",
        "| ---: | ---: | ---: | ---: |",
        f"| {capacity['frames']} | {capacity['seconds']:.2f} | {capacity['fps']:.1f} | "
        f"{capacity['ms_per_frame']:.1f} |",
        "",
        "## 2-3. Live runs in the whole window",
        "",
        f"Pattern search on sphere 2-D (and one run on rastrigin 30-D, where the slice through "
        f"the best point is recomputed as it moves), {args.walkers:,} walkers, all drawn (sample size "
        f"{args.walkers:,}), snapshots requested at 60 Hz, {args.seconds:g} s measured from 1.5 s "
        f"after the run's first iteration was drawn, {args.repeat} runs per engine (one row each); "
        f"latency = lateness of a {PROBE_MS} ms QTimer on the GUI thread; first frame = seconds from "
        "Start to the first iteration's snapshot (a GPU engine's first run on a fresh machine "
        "compiles its kernels then).",
        "",
        "| engine | function | first frame (s) | frames painted/s | snapshots drawn/s | walkers drawn | "
        "latency median (ms) | p95 (ms) | max (ms) | solver evals/s |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in runs:
        lines.append(f"| {r['engine']} | {r['problem']} | {r['first_frame_s']:.2f} | {r['painted_fps']:.1f} | "
                     f"{r['rendered_fps']:.1f} | {r['drawn_walkers']:,} | {r['latency_median']:.1f} | "
                     f"{r['latency_p95']:.1f} | {r['latency_max']:.1f} | {r['evals_per_second']:,.0f} |")
    unavailable = [e for e in solvers.ENGINES if e not in available_engines()]
    if unavailable:
        lines += ["", f"Not measured here (engine unavailable): {', '.join(unavailable)} "
                      f"({gpu_text})."]
    lines += ["", "## What keeps the frame rate", "",
              "- Walkers are stamped from a one-dot-per-colour atlas with a single "
              "drawPixmapFragments call (gui/point_cloud.py); pyqtgraph's ScatterPlotItem spent "
              "about 30 ms per setData on 10,000 points here.",
              "- Axis ticks point outwards and the charts draw no grid: inward ticks put the axes in "
              "the walkers' dirty region (their text was repainted every frame), and grid lines "
              "doubled the cost of a chart repaint.",
              "- The heatmap and contours are cached at device resolution; contours come from a "
              "vectorised marching squares, and N-D slices are computed off the GUI thread.",
              "- Snapshots are recorded as they arrive and only the newest is drawn; the two chart "
              "panels redraw in turn, each at most 5 times a second.",
              "- The 30-D row is limited by the solver, not the window: one pattern-search "
              "iteration there is 60 evaluations of 10,000 walkers, and a snapshot can only come "
              "between iterations; the latency column is the point of that row.",
              "- On this shared 2-core machine the numbers move with the load of other jobs: runs "
              "taken while a CUDA compilation ran beside them (load average 3 to 6) gave 25-37 "
              "frames/s and latency maxima of 70-150 ms."]
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
