"""Tools > Dask cluster...: where the Speedup sweep and Tune tabs run their jobs (solvers/study/remote.py).

Empty: on this machine (the default). "local": an embedded Dask cluster started for each job. An
address (tcp://host:8786): a running scheduler, e.g. on a GPU server, while the window stays here.
"""
from __future__ import annotations

from PyQt6 import QtWidgets

from solvers.errors import ConfigError
from solvers.study.cluster import check_scheduler

from .field_row import FieldRow


class ClusterDialog(QtWidgets.QDialog):
    """Asks for the scheduler address; OK stays disabled while the text is not one."""

    def __init__(self, current: str | None, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Dask cluster")
        self.edit = QtWidgets.QLineEdit(current or "")
        self.edit.setPlaceholderText("empty: this machine; local; or tcp://host:8786")
        self.row = FieldRow(self.edit)
        info = QtWidgets.QLabel(
            "The Speedup sweep and Tune tabs can run on a Dask cluster: each sweep or grid is one "
            "job on one worker (its GPU and cores), so its timings compare measurements taken on one "
            "machine; results stream back here as they come, and Stop reaches the job. "
            "'local' starts a cluster on this machine for each job.")
        info.setWordWrap(True)
        self.buttons = QtWidgets.QDialogButtonBox(
            QtWidgets.QDialogButtonBox.StandardButton.Ok | QtWidgets.QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QtWidgets.QVBoxLayout(self)
        layout.addWidget(info)
        layout.addWidget(QtWidgets.QLabel("Scheduler"))
        layout.addWidget(self.row)
        layout.addWidget(self.buttons)
        self.edit.textChanged.connect(self._check)
        self._check()

    def scheduler(self) -> str | None:
        """The checked address (None: this machine); only meaningful while OK is enabled."""
        try:
            return check_scheduler(self.edit.text())
        except ConfigError:
            return None

    def _check(self, *_args) -> None:
        ok_button = self.buttons.button(QtWidgets.QDialogButtonBox.StandardButton.Ok)
        try:
            check_scheduler(self.edit.text())
        except ConfigError as exc:
            self.row.show_error(str(exc))
            ok_button.setEnabled(False)
            return
        self.row.clear("error")
        ok_button.setEnabled(True)


class ClusterLabel(QtWidgets.QLabel):
    """Where a panel's jobs run, and the cluster's dashboard link once a job has connected."""

    def __init__(self, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self.setOpenExternalLinks(True)
        self.setWordWrap(True)
        self.setStyleSheet("color: #8a8a8a;")
        self.scheduler: str | None = None
        self.set_scheduler(None)

    def set_scheduler(self, scheduler: str | None) -> None:
        self.scheduler = scheduler
        self.setVisible(scheduler is not None)
        if scheduler is not None:
            where = "an embedded local cluster" if scheduler == "local" else f"the cluster at {scheduler}"
            self.setText(f"Runs on a Dask worker of {where} (Tools > Dask cluster...); engines are "
                         "checked there.")

    def set_dashboard(self, link: str) -> None:
        if self.scheduler is not None and link:
            self.setText(self.text().split(" Dashboard:")[0] + f' Dashboard: <a href="{link}">{link}</a>')
