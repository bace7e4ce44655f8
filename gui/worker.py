"""The solver worker: runs one ``solvers.Runner`` on a QThread and reports through signals.

The worker is a QObject moved to a QThread (signals named after superqt's workers). Its ``run``
slot blocks that thread inside ``Runner.run()``; the GUI thread controls the run through the
Runner's thread-safe methods (``pause``, ``step_once``...), which only set flags read between
chunks, so no control call ever waits on a kernel. The worker never touches a widget: everything it
produces leaves through queued signals as immutable objects (Snapshot, RunResult, str).
"""
from __future__ import annotations

import logging
import math

from PyQt6 import QtCore

from solvers import ConfigError, DeviceMemoryError, EngineUnavailable, RunConfig, Runner
from solvers.snapshot import Snapshot

log = logging.getLogger(__name__)


class NonFiniteObjective(RuntimeError):
    """The objective gave NaN or infinity at every point evaluated so far."""


def describe_error(exc: BaseException) -> str:
    """One clear line for the user, whatever went wrong in a run."""
    kind = type(exc)
    module = kind.__module__ or ""
    text = str(exc).strip() or kind.__name__
    first_line = text.splitlines()[0]
    if isinstance(exc, (ConfigError, EngineUnavailable, NonFiniteObjective)):
        return text
    if isinstance(exc, DeviceMemoryError):
        return f"Out of GPU memory: {text}"
    # CuPy's errors are recognised by name so that this module never imports CuPy
    if kind.__name__ == "OutOfMemoryError" and module.startswith("cupy"):
        return f"Out of GPU memory: {first_line} (try fewer walkers or float32)"
    if module.startswith("cupy") or kind.__name__ in ("CUDARuntimeError", "CUDADriverError",
                                                       "CompileException"):
        return f"CUDA error ({kind.__name__}): {first_line}"
    if isinstance(exc, MemoryError):
        return "Out of memory on the host: try fewer walkers or a smaller dimension"
    return f"{kind.__name__}: {first_line}"


class SolverWorker(QtCore.QObject):
    """Runs one configuration; see the module docstring for the threading contract.

    Signals, in order: ``sigStarted``; ``sigStatus(str)`` ("compiling kernels", "running"...);
    ``sigSnapshot(Snapshot)`` about 30 times a second and once at the end; then either nothing or
    ``sigErrored(str)``; and always last ``sigFinished(result)`` with the RunResult, or None after
    an error.
    """

    sigStarted = QtCore.pyqtSignal()
    sigStatus = QtCore.pyqtSignal(str)
    sigSnapshot = QtCore.pyqtSignal(object)
    sigErrored = QtCore.pyqtSignal(str)
    sigFinished = QtCore.pyqtSignal(object)

    def __init__(self, config: RunConfig, *, paused: bool = False, delay: float = 0.0):
        super().__init__()
        self.config = config
        # compile_first: an engine that compiles at its first iterations (numba, cupy) compiles
        # before the clock starts, as `main.py run` and solvers.run do. Without it the window's run
        # and the compare tab's race counted the compile in their seconds, rate and max_seconds
        # budget: DE on a new typed function, numba, 0.5 s: 0 iterations in '1.43 s'.
        self.runner = Runner(config, on_snapshot=self._on_runner_snapshot,
                             on_status=self.sigStatus.emit, share_gil=True, compile_first=True)
        if paused:
            self.runner.pause()
        self.runner.set_delay(delay)

    # --- control, called from the GUI thread (the Runner's methods are thread-safe) ------------
    def pause(self) -> None:
        self.runner.pause()

    def resume(self) -> None:
        self.runner.resume()

    def step_once(self) -> None:
        self.runner.step_once()

    def stop(self) -> None:
        self.runner.stop()

    def set_delay(self, seconds: float) -> None:
        self.runner.set_delay(seconds)

    def update_params(self, values: dict) -> None:
        """Queue live parameter changes for the next chunk; ConfigError if refused."""
        self.runner.update_params(values)

    @property
    def paused(self) -> bool:
        return self.runner.paused

    # --- on the worker thread ------------------------------------------------------------------
    @QtCore.pyqtSlot()
    def run(self) -> None:
        """Blocks this worker's thread until the run ends; always ends with sigFinished."""
        self.sigStarted.emit()
        result = None
        try:
            result = self.runner.run()
        except Exception as exc:  # noqa: BLE001 - every failure must reach the user
            log.exception("run failed: %s", self.config)
            self.sigErrored.emit(describe_error(exc))
        finally:
            self.sigFinished.emit(result)

    def _on_runner_snapshot(self, snap: Snapshot) -> None:
        # An objective that is NaN everywhere would otherwise run on silently with best = inf;
        # one full iteration is allowed, since a few bad starting points are not an error.
        if snap.iteration >= 1 and not math.isfinite(snap.best_f):
            raise NonFiniteObjective(
                f"the function returned NaN or infinity at all {snap.evals:,} points evaluated; "
                f"check '{snap.problem}' and its box")
        self.sigSnapshot.emit(snap)
