"""Spin boxes that say when a typed value is out of range instead of silently clamping it.

Qt's spin boxes quietly replace a typed 1e999 or 5000000 by the last valid value or the limit,
and drop a keystroke their validator refuses (a '-' where the minimum is 0, an 'e'), so -5 shows
as 5 and 1e999 as 1999. These emit ``sigOutOfRange(message)`` with the limits and the value kept,
or with the refused characters and what the field takes (at the keystroke; the form clears it
when the value is taken), which the form shows beside the field. ``commit()`` takes typed text
that was never confirmed (no Enter, focus never left: a run started from the toolbar or a
shortcut), so what is shown is what runs.
"""
from __future__ import annotations

import math

from PyQt6 import QtCore, QtGui, QtWidgets

Acceptable = QtGui.QValidator.State.Acceptable
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


def _takes(box: QtWidgets.QAbstractSpinBox) -> str:
    """What the field takes, in words, with its limits as they are typed."""
    if isinstance(box, QtWidgets.QDoubleSpinBox):
        kind = f"a decimal number (at most {box.decimals()} decimals, no exponent)"
    else:
        kind = "a whole number"
    return f"{kind} from {box.textFromValue(box.minimum())} to {box.textFromValue(box.maximum())}"


def _inserted(before: str, after: str) -> str:
    """The characters `after` has in place of `before`'s (what a keystroke or a paste adds)."""
    start = 0
    while start < min(len(before), len(after)) and before[start] == after[start]:
        start += 1
    end = 0
    while end < min(len(before), len(after)) - start and before[-1 - end] == after[-1 - end]:
        end += 1
    return after[start:len(after) - end]


def _kept(box: QtWidgets.QAbstractSpinBox) -> str:
    """The value the field falls back to, as it shows it ('auto' for a special value)."""
    if box.specialValueText() and box.value() == box.minimum():
        return box.specialValueText()
    return box.textFromValue(box.value())


def _reporting(base: type, name: str) -> type:
    """`base` (a Qt spin box) with sigOutOfRange and the validate/fixup overrides; built by type()
    so both spin boxes share one implementation (PyQt reads the signal from the class dict)."""

    def validate(self, text: str, pos: int):
        # a number out of range (or not finite) stays typeable, so fixup() can report it
        state, text, pos = base.validate(self, text, pos)
        if state == Invalid and _number(self, text) is not None:
            state = Intermediate
        # the special text ('auto') is Invalid to the base validator but Qt's own value: no message
        if state != Invalid or (self.specialValueText() and text == self.specialValueText()):
            self._shown = text  # what a refused keystroke is compared with
            return state, text, pos
        # Qt drops the keystroke without a word: say which characters and what the field takes
        # (a digit is refused only after the special text 'auto': nothing worth a message)
        refused = _inserted(getattr(self, "_shown", ""), text)
        if refused and not refused.isdigit():
            self.sigOutOfRange.emit(f"'{refused[:20]}' refused: the field takes {_takes(self)}")
        return state, text, pos

    def fixup(self, text: str) -> str:
        value = _number(self, text)
        fixed = base.fixup(self, text)
        if value is None:
            return fixed
        if not math.isfinite(value) or not self.minimum() <= value <= self.maximum():
            self.sigOutOfRange.emit(f"{text.strip()} is out of range [{_fmt(self.minimum())}, "
                                    f"{_fmt(self.maximum())}]; the field keeps {_kept(self)}")
        elif base.validate(self, fixed, 0)[0] != Acceptable:  # 0.5 or 1e3 in whole numbers, too
            # many decimals: in range, yet the field would silently keep its old value
            self.sigOutOfRange.emit(f"{text.strip()} is not {_takes(self)}; "
                                    f"the field keeps {_kept(self)}")
        return fixed

    def commit(self) -> bool:
        """Take the typed text now, as leaving the field would; False (said through sigOutOfRange,
        the kept value shown again) when it is not a value in range."""
        if self.hasAcceptableInput():
            self.interpretText()
            return True
        typed = self.text().strip()
        if _number(self, typed) is None:
            self.sigOutOfRange.emit(f"'{typed}' is not a number; the field keeps {_kept(self)}"
                                    if typed else f"enter a number; the field keeps {_kept(self)}")
        else:
            self.fixup(typed)
        self.setValue(self.value())  # shows the kept value instead of the refused text
        return False

    doc = f"A {base.__name__} reporting out-of-range typed values through sigOutOfRange."
    return type(name, (base,), {"__doc__": doc, "sigOutOfRange": QtCore.pyqtSignal(str),
                                "validate": validate, "fixup": fixup, "commit": commit})


RangeSpinBox = _reporting(QtWidgets.QSpinBox, "RangeSpinBox")
RangeDoubleSpinBox = _reporting(QtWidgets.QDoubleSpinBox, "RangeDoubleSpinBox")
