"""One background worker at a time on a panel's own QThread (the sweep and tune tabs).

    self.runner = PanelThread(self, "sweep")
    worker.sigRecord.connect(...)                         # the panel's own slots first
    self.runner.start(worker)                             # worker.run() on the thread
    self.runner.is_current(self.sender())                 # False for a worker already joined
    closeEvent: self.runner.shutdown()                    # worker.stop(), then wait: never terminate
    self.runner.sigJoined -> the panel turns idle         # after the thread has ended and was joined

The worker is a QObject with a ``run`` slot, a ``stop()`` callable from any thread and a
``sigFinished`` signal emitted last by ``run``.
"""
from __future__ import annotations

from PyQt6 import QtCore


class PanelThread(QtCore.QObject):
    """Starts, stops and joins one worker on its own QThread, never terminating it."""

    sigJoined = QtCore.pyqtSignal()  # the thread has ended and was joined: the panel is idle

    def __init__(self, parent: QtCore.QObject, name: str):
        super().__init__(parent)
        self._name = name
        self.thread: QtCore.QThread | None = None
        self.worker: QtCore.QObject | None = None

    @property
    def is_running(self) -> bool:
        return self.thread is not None

    def is_current(self, sender) -> bool:
        """False for signals of a worker already joined by shutdown() (still queued after it)."""
        return self.worker is not None and sender is self.worker

    def start(self, worker: QtCore.QObject) -> None:
        thread = QtCore.QThread(self.parent())
        thread.setObjectName(self._name)
        worker.moveToThread(thread)
        thread.started.connect(worker.run)
        worker.sigFinished.connect(thread.quit)
        thread.finished.connect(self._on_thread_finished)
        self.thread, self.worker = thread, worker
        thread.start()

    def stop(self) -> None:
        """Ask the worker to end soon; sigJoined follows once its thread has ended."""
        if self.worker is not None:
            self.worker.stop()

    def shutdown(self) -> None:
        """Stop and wait for the worker thread (for closing the window); safe to call twice."""
        thread = self.thread
        if thread is None:
            return
        self.worker.stop()
        thread.quit()  # the worker's run returns first; quit then ends the event loop
        thread.wait()
        self._on_thread_finished()

    def _on_thread_finished(self) -> None:
        thread = self.thread
        if thread is None:
            return  # already handled (shutdown() joins, then the queued finished signal arrives)
        # `finished` is emitted while the thread is still winding down: wait (the GIL is released
        # meanwhile) so that neither object is destroyed under a live thread. The worker is then
        # deleted here, on the GUI thread; not by deleteLater on its own thread, which would need
        # the GIL at its exit while a destructor here could be waiting for that exit (deadlock).
        thread.wait()
        self.thread = self.worker = None
        thread.deleteLater()
        self.sigJoined.emit()
