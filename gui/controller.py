"""RunController: owns the worker and its QThread for one run slot, from start to join.

One controller runs at most one configuration at a time: ``start`` is refused while a worker
thread is alive (running, paused or still stopping), so one click cannot start the same run twice.
Threads are stopped by flag and joined (``quit()`` + ``wait()``), never terminated. The controller
relays the worker's signals on the GUI thread; ``sigFinished`` is emitted only once the thread has
really finished, so a listener may start the next run from it.
"""
from __future__ import annotations

import atexit

from PyQt6 import QtCore

from solvers import ConfigError, RunConfig

from .worker import SolverWorker

# Every (thread, worker) pair that has not been joined yet. Holding them here keeps a QThread from
# being destroyed while it runs (a fatal Qt error) even if its controller is dropped mid-run; at
# exit whatever is left is stopped and joined.
_LIVE: dict[int, tuple[QtCore.QThread, SolverWorker]] = {}


@atexit.register
def _join_all() -> None:
    for thread, worker in list(_LIVE.values()):
        worker.stop()
        thread.quit()
        thread.wait()
    _LIVE.clear()


# sigStatus's words when start() is refused (the window shows them with its shorter forms)
ALREADY_RUNNING = "a run is already in progress; stop it first"


# What Stop says while the run compiles (the engine's compile message, or the first iteration of an
# engine that compiles there): the compile cannot be interrupted, and it is cached for later runs
STOPPING_AFTER_COMPILE = "stopping once the compile under way is done (it is kept for the next runs)"


class RunController(QtCore.QObject):
    """Starts, controls and joins one SolverWorker at a time (see the module docstring)."""

    sigStarted = QtCore.pyqtSignal(object)  # the RunConfig being run
    sigStatus = QtCore.pyqtSignal(str)
    sigSnapshot = QtCore.pyqtSignal(object)  # Snapshot
    sigErrored = QtCore.pyqtSignal(str)
    sigFinished = QtCore.pyqtSignal(object)  # RunResult, or None after an error
    sigRunningChanged = QtCore.pyqtSignal(bool)
    sigPausedChanged = QtCore.pyqtSignal(bool)

    def __init__(self, parent: QtCore.QObject | None = None):
        super().__init__(parent)
        self._thread: QtCore.QThread | None = None
        self._worker: SolverWorker | None = None
        self._relay: _RunRelay | None = None
        self._result = None
        self._delay = 0.0
        self._stopping = False
        self._last_status = ""
        self.last_error: str | None = None

    # --- state ---------------------------------------------------------------------------------
    @property
    def is_running(self) -> bool:
        """True from start until the worker thread has finished (including while stopping)."""
        return self._thread is not None

    @property
    def is_paused(self) -> bool:
        return self._worker is not None and self._worker.paused

    @property
    def is_stopping(self) -> bool:
        return self._stopping

    @property
    def config(self) -> RunConfig | None:
        return self._worker.config if self._worker is not None else None

    @property
    def thread(self) -> QtCore.QThread | None:
        return self._thread

    # --- control -------------------------------------------------------------------------------
    def start(self, config: RunConfig, *, paused: bool = False) -> bool:
        """Start `config` on a new worker thread; False (and nothing started) if one is alive."""
        if self._thread is not None:
            self.sigStatus.emit(ALREADY_RUNNING)
            return False
        self._result = None
        self._stopping = False
        self._last_status = ""
        self.last_error = None
        worker = SolverWorker(config, paused=paused, delay=self._delay)
        thread = QtCore.QThread()
        thread.setObjectName(f"solver-{config.algorithm}-{config.engine}")
        worker.moveToThread(thread)
        relay = _RunRelay(self)
        # queued onto this (GUI) thread, because the relay lives here
        worker.sigStatus.connect(relay.on_status)
        worker.sigSnapshot.connect(relay.on_snapshot)
        worker.sigErrored.connect(relay.on_errored)
        worker.sigFinished.connect(relay.on_finished)
        thread.started.connect(worker.run)
        thread.finished.connect(relay.on_thread_finished)
        self._worker, self._thread, self._relay = worker, thread, relay
        _LIVE[id(thread)] = (thread, worker)
        thread.start()
        self.sigRunningChanged.emit(True)
        self.sigStarted.emit(config)
        if paused:
            self.sigPausedChanged.emit(True)
        return True

    def pause(self) -> None:
        if self._worker is not None and not self._stopping:
            self._worker.pause()
            self.sigPausedChanged.emit(True)

    def resume(self) -> None:
        if self._worker is not None and not self._stopping:
            self._worker.resume()
            self.sigPausedChanged.emit(False)

    def toggle_pause(self) -> None:
        if self.is_paused:
            self.resume()
        else:
            self.pause()

    def step_once(self) -> None:
        """Pause if running, else run one iteration of the paused run."""
        if self._worker is None or self._stopping:
            return
        if not self._worker.paused:
            self.pause()
        else:
            self._worker.step_once()

    def stop(self) -> None:
        """Ask the run to stop at the next chunk boundary; returns at once. During a compile (a
        numba or CUDA compile cannot be interrupted) the status says what the stop waits for."""
        if self._worker is not None and not self._stopping:
            self._stopping = True
            self._worker.stop()
            compiling = self._last_status.startswith("compiling") or self._last_status == "first iteration"
            self.sigStatus.emit(STOPPING_AFTER_COMPILE if compiling else "stopping")

    def set_delay(self, seconds: float) -> None:
        """Teaching delay between iterations, for this run and the next ones."""
        self._delay = max(0.0, float(seconds))
        if self._worker is not None:
            self._worker.set_delay(self._delay)

    def update_params(self, values: dict) -> None:
        """Send live parameter changes to the running solver; ConfigError if not allowed."""
        if self._worker is None:
            raise ConfigError("no run in progress")
        self._worker.update_params(values)

    def shutdown(self) -> None:
        """Stop and join the worker thread now (window close); safe to call at any time."""
        if self._thread is None:
            return
        self.stop()
        self._thread.quit()
        self._thread.wait()
        self._cleanup()

    # --- from the relay, on the GUI thread ------------------------------------------------------
    def _on_worker_status(self, text: str) -> None:
        self._last_status = text
        self.sigStatus.emit(text)

    def _on_worker_snapshot(self, snap) -> None:
        self.sigSnapshot.emit(snap)

    def _on_worker_errored(self, message: str) -> None:
        self.last_error = message
        self.sigErrored.emit(message)

    def _on_worker_finished(self, result) -> None:
        self._result = result
        if self._thread is not None:
            self._thread.quit()  # the worker's run() has returned: let the thread's loop end

    def _on_thread_finished(self) -> None:
        if self._thread is None:
            return
        self._thread.wait()  # the thread is past its last instruction; this returns at once
        self._cleanup()

    def _cleanup(self) -> None:
        thread, worker, relay = self._thread, self._worker, self._relay
        self._thread = self._worker = self._relay = None
        _LIVE.pop(id(thread), None)
        if relay is not None:
            relay.active = False  # signals of this run still queued (after shutdown) are dropped
            relay.deleteLater()
        self._stopping = False
        result, self._result = self._result, None
        # The thread has finished, so dropping the last references destroys the QThread and the
        # worker (which lived on it) safely; deleteLater() would never run on the ended thread.
        del thread, worker
        self.sigRunningChanged.emit(False)
        self.sigFinished.emit(result)


class _RunRelay(QtCore.QObject):
    """Receives one worker's queued signals on the GUI thread and forwards them while current.

    After ``shutdown()`` joins a thread, signals that worker emitted may still wait in the event
    queue; marking the relay inactive keeps them from reaching the listeners of a later run.
    """

    def __init__(self, controller: RunController):
        super().__init__(controller)  # owned by the controller, so deleteLater() is safe here
        self.controller = controller
        self.active = True

    @QtCore.pyqtSlot(str)
    def on_status(self, text: str) -> None:
        if self.active:
            self.controller._on_worker_status(text)

    @QtCore.pyqtSlot(object)
    def on_snapshot(self, snap) -> None:
        if self.active:
            self.controller._on_worker_snapshot(snap)

    @QtCore.pyqtSlot(str)
    def on_errored(self, message: str) -> None:
        if self.active:
            self.controller._on_worker_errored(message)

    @QtCore.pyqtSlot(object)
    def on_finished(self, result) -> None:
        if self.active:
            self.controller._on_worker_finished(result)

    @QtCore.pyqtSlot()
    def on_thread_finished(self) -> None:
        if self.active:
            self.controller._on_thread_finished()
