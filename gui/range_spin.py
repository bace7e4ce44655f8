"""Spin boxes that say when a typed value is out of range instead of silently clamping it.

Qt's spin boxes quietly replace a typed 1e999 or 5000000 by the last valid value or the limit;
these emit ``sigOutOfRange(message)`` with the limits and the value kept, which the form shows
beside the field.
"""
from __future__ import annotations

import math

from PyQt6 import QtCore, QtGui, QtWidgets

Intermediate = QtGui.QValidator.State.Intermediate
Invalid = QtGui.QValidator.State.Invalid


def _number(box: QtWidgets.QAbstractSpinBox, text: str) -> float | None:
    body = text
    prefix, suffix = box.prefix(), box.suffix()
    if prefix and body.startswith(prefix):
        body = body[len(prefix):]
    if suffix and body.endswith(suffix):
        body = body[:-len(suffix)]
    body = body.strip().replace(box.locale().groupSeparator(), "")
    try:
        return float(body.replace(box.locale().decimalPoint(), "."))
    except ValueError:
        return None


def _fmt(value: float) -> str:
    return f"{value:,}" if float(value).is_integer() and abs(value) < 1e15 else f"{value:g}"


def _validate(box, state, text: str):
    """A number out of range (or not finite) stays typeable, so fixup() can report it."""
    if state == Invalid and _number(box, text) is not None:
        return Intermediate
    return state


def _fixup(box, text: str) -> None:
    value = _number(box, text)
    if value is None:
        return
    if not math.isfinite(value) or not box.minimum() <= value <= box.maximum():
        box.sigOutOfRange.emit(f"{text.strip()} is out of range [{_fmt(box.minimum())}, "
                               f"{_fmt(box.maximum())}]; the field keeps {box.text()}")


class RangeSpinBox(QtWidgets.QSpinBox):
    """A QSpinBox reporting out-of-range typed values through sigOutOfRange."""

    sigOutOfRange = QtCore.pyqtSignal(str)

    def validate(self, text: str, pos: int):  # noqa: D401 - Qt override
        state, text, pos = super().validate(text, pos)
        return _validate(self, state, text), text, pos

    def fixup(self, text: str) -> str:  # noqa: D401 - Qt override
        _fixup(self, text)
        return super().fixup(text)


class RangeDoubleSpinBox(QtWidgets.QDoubleSpinBox):
    """A QDoubleSpinBox reporting out-of-range typed values through sigOutOfRange."""

    sigOutOfRange = QtCore.pyqtSignal(str)

    def validate(self, text: str, pos: int):  # noqa: D401 - Qt override
        state, text, pos = super().validate(text, pos)
        return _validate(self, state, text), text, pos

    def fixup(self, text: str) -> str:  # noqa: D401 - Qt override
        _fixup(self, text)
        return super().fixup(text)
