"""A Qt-safe exception hook: an unexpected error in a slot becomes a dialog, not an abort.

PyQt6 (6.5 and later) calls ``qFatal`` when an exception escapes a slot and ``sys.excepthook`` is
Python's own, which kills the program and loses the user's work. ``install_excepthook()`` replaces
the hook with one that prints the traceback on stderr and shows it in a dialog with a "Copy
details" button, so the user can report it and keep working.
"""
from __future__ import annotations

import sys
import traceback

from PyQt6 import QtWidgets

from solvers.errors import ConfigError

_showing = False  # an error raised while the dialog is open must not open dialogs in a loop


def error_details(exc_type, exc, tb) -> str:
    return "".join(traceback.format_exception(exc_type, exc, tb))


def show_error_dialog(parent, title: str, message: str, details: str = "") -> QtWidgets.QMessageBox:
    """A warning box with the message, the details folded away and a button copying them."""
    box = QtWidgets.QMessageBox(parent)
    box.setIcon(QtWidgets.QMessageBox.Icon.Warning)
    box.setWindowTitle(title)
    box.setText(message)
    if details:
        box.setDetailedText(details)
        copy = box.addButton("Copy details", QtWidgets.QMessageBox.ButtonRole.ActionRole)
        # ActionRole buttons close the box too; copying first keeps the one click useful
        copy.clicked.connect(lambda: QtWidgets.QApplication.clipboard().setText(details))
    box.addButton(QtWidgets.QMessageBox.StandardButton.Close)
    box.setObjectName("unexpectedErrorDialog")
    return box


def excepthook(exc_type, exc, tb) -> None:
    """sys.excepthook for the window: stderr plus a dialog; never re-raises."""
    global _showing
    if issubclass(exc_type, KeyboardInterrupt):
        QtWidgets.QApplication.quit()
        return
    details = error_details(exc_type, exc, tb)
    sys.stderr.write(details)
    app = QtWidgets.QApplication.instance()
    if app is None or _showing:
        return
    if issubclass(exc_type, ConfigError):
        message = str(exc)
    else:
        message = (f"An unexpected error happened: {exc_type.__name__}: {exc}\n\n"
                   "The window keeps running; 'Copy details' copies the report for a bug report.")
    _showing = True
    try:
        box = show_error_dialog(app.activeWindow(), "Multiwalk: unexpected error", message, details)
        box.exec()
    finally:
        _showing = False


def install_excepthook() -> None:
    sys.excepthook = excepthook
