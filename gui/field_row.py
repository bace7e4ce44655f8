"""A form field with a message line under it: errors in red, notes ("applies on reset") in grey."""
from __future__ import annotations

from PyQt6 import QtWidgets

ERROR_STYLE = "color: #d0342c;"
NOTE_STYLE = "color: #8a8a8a; font-style: italic;"


class FieldRow(QtWidgets.QWidget):
    """An editor widget and, under it, a hidden label for an error or a note about that field."""

    def __init__(self, editor: QtWidgets.QWidget, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self.editor = editor
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(1)
        layout.addWidget(editor)
        self.message = QtWidgets.QLabel()
        self.message.setWordWrap(True)
        self.message.hide()
        layout.addWidget(self.message)
        self._kind = ""

    def show_error(self, text: str) -> None:
        self._show(text, ERROR_STYLE, "error")

    def show_note(self, text: str) -> None:
        if self._kind != "error":  # an error outranks a note
            self._show(text, NOTE_STYLE, "note")

    def clear(self, kind: str | None = None) -> None:
        """Hide the message (only if it is of `kind`, when given)."""
        if kind is None or kind == self._kind:
            self.message.clear()
            self.message.hide()
            self._kind = ""

    @property
    def error(self) -> str:
        return self.message.text() if self._kind == "error" else ""

    @property
    def note(self) -> str:
        return self.message.text() if self._kind == "note" else ""

    def _show(self, text: str, style: str, kind: str) -> None:
        self.message.setStyleSheet(style)
        self.message.setText(text)
        self.message.setVisible(bool(text))
        self._kind = kind if text else ""
