"""The "Custom..." function editor: type f(x), see errors as you type, set the box and dimension.

Every check is solvers' (``parse``, ``check_dim``, ``check_bounds``, ``check_bounds_fit``): the
dialog only shows the message under the field, with a caret under the faulty column, and enables OK
when all is valid.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PyQt6 import QtGui, QtWidgets

from solvers import ConfigError
from solvers.config import DEFAULT_DTYPE, check_bounds_fit
from solvers.problems.base import check_bounds
from solvers.problems.expression import MAX_LENGTH, ExpressionError, parse

from .field_row import FieldRow

EXAMPLE = "10*n + sum(x[i]**2 - 10*cos(2*pi*x[i]))"
HELP = ("x1..xn, x[k], n; sum/prod/max/min/mean(... x[i] ..., i); + - * / ** %; &lt; &lt;= == != "
        "&gt;= &gt;; where(c, a, b); sin cos tan asin acos atan atan2 sinh cosh tanh exp log log10 "
        "sqrt abs floor ceil sign min max hypot; pi, e")


@dataclass(frozen=True)
class CustomFunction:
    """What the editor returns: the expression text, its dimension, box and optional known minimum."""

    text: str
    dim: int
    lower: float
    upper: float
    f_min: float | None = None

    @property
    def name(self) -> str:
        return f"expr: {self.text}"


class ExpressionDialog(QtWidgets.QDialog):
    """Edit a custom objective; ``value()`` is a CustomFunction once accepted."""

    def __init__(self, parent: QtWidgets.QWidget | None = None, initial: CustomFunction | None = None,
                 dtype: str = DEFAULT_DTYPE):
        super().__init__(parent)
        self._dtype = dtype  # the run's precision: the box must fit it, as RunConfig.build checks
        self.setWindowTitle("Custom function")
        initial = initial or CustomFunction(EXAMPLE, 2, -5.12, 5.12)
        self.text_edit = QtWidgets.QLineEdit(initial.text)
        # no setMaxLength(MAX_LENGTH): it cut a longer pasted text at 2,000 characters without a
        # word, so the message was the cut text's ('nested deeper than 64 levels', 'ends too early')
        # or, where the cut still parsed, another function was accepted; parse() says the length
        self.text_edit.setMaxLength(4 * MAX_LENGTH)
        self.text_edit.setFont(QtGui.QFontDatabase.systemFont(QtGui.QFontDatabase.SystemFont.FixedFont))
        self.text_edit.setPlaceholderText(EXAMPLE)
        self.text_row = FieldRow(self.text_edit)
        self.caret = QtWidgets.QLabel()  # "    ^" under the faulty column, in the same font
        self.caret.setFont(self.text_edit.font())
        self.caret.setStyleSheet("color: #d0342c;")
        self.dim_spin = QtWidgets.QSpinBox()
        self.dim_spin.setRange(1, 100_000)
        self.dim_spin.setValue(initial.dim)
        # every digit: '{:g}' showed a box of [0, 3.14159265358979] as 3.14159, and OK on the
        # reopened editor (to change the expression only) shrank the box to it without a word
        self.lower_edit = QtWidgets.QLineEdit(_exact_text(initial.lower))
        self.upper_edit = QtWidgets.QLineEdit(_exact_text(initial.upper))
        self.box_row = FieldRow(_pair(self.lower_edit, self.upper_edit))
        self.f_min_edit = QtWidgets.QLineEdit("" if initial.f_min is None else _exact_text(initial.f_min))
        self.f_min_edit.setPlaceholderText("unknown")
        self.f_min_edit.setToolTip("The function's known minimum value, if you know it: the charts then "
                                   "show the error (best - minimum) and runs report success")
        self.f_min_row = FieldRow(self.f_min_edit)
        self.help = QtWidgets.QLabel(f"<small>{HELP}</small>")
        self.help.setWordWrap(True)
        self.buttons = QtWidgets.QDialogButtonBox(
            QtWidgets.QDialogButtonBox.StandardButton.Ok | QtWidgets.QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        form = QtWidgets.QFormLayout(self)
        form.addRow("f(x) =", self.text_row)
        form.addRow("", self.caret)
        form.addRow("Dimension n", self.dim_spin)
        form.addRow("Box (same in every coordinate)", self.box_row)
        form.addRow("Known minimum (optional)", self.f_min_row)
        form.addRow(self.help)
        form.addRow(self.buttons)
        self.resize(640, self.sizeHint().height())
        for signal in (self.text_edit.textChanged, self.lower_edit.textChanged,
                       self.upper_edit.textChanged, self.f_min_edit.textChanged,
                       self.dim_spin.valueChanged):
            signal.connect(self._on_any_changed)
        self._on_any_changed()

    def error(self) -> str:
        """The message under the expression field ('' when valid)."""
        return self.text_row.error

    def box_error(self) -> str:
        return self.box_row.error

    def f_min_error(self) -> str:
        return self.f_min_row.error

    def _f_min(self) -> float | None:
        """The typed known minimum (None when the field is empty); ValueError when it is not a finite number."""
        text = self.f_min_edit.text().strip()
        if not text:
            return None
        value = float(text)
        if not np.isfinite(value):
            raise ValueError(text)
        return value

    def _box(self) -> tuple[float, float]:
        """The typed box, checked as a start checks it (finite, lower < upper, inside the
        precision's range); ConfigError, or ValueError when a side is not a number."""
        lo, hi = float(self.lower_edit.text()), float(self.upper_edit.text())
        check_bounds(np.array([lo]), np.array([hi]), "the custom function")
        check_bounds_fit(lo, hi, self._dtype)
        return lo, hi

    def value(self) -> CustomFunction | None:
        """The edited function, or None while something is invalid."""
        try:
            expr = parse(self.text_edit.text())
            expr.check_dim(self.dim_spin.value())
            lo, hi = self._box()
            f_min = self._f_min()
        except (ConfigError, ValueError):
            return None
        return CustomFunction(expr.text, self.dim_spin.value(), lo, hi, f_min)

    def _on_any_changed(self, *_args) -> None:
        self.text_row.clear()
        self.box_row.clear()
        self.f_min_row.clear()
        self.caret.clear()
        try:
            parse(self.text_edit.text()).check_dim(self.dim_spin.value())
        except ExpressionError as exc:
            self.text_row.show_error(str(exc))
            if exc.column:  # the caret under the column (the field scrolls for long text)
                self.caret.setText(" " * (exc.column - 1) + "^")
        try:
            self._box()
        except ConfigError as exc:  # a ValueError too: caught first
            self.box_row.show_error(str(exc))
        except ValueError:
            self.box_row.show_error("the box needs two numbers, lower and upper")
        try:
            self._f_min()
        except ValueError:
            self.f_min_row.show_error("a finite number, or empty when the minimum is unknown")
        ok = not self.text_row.error and not self.box_row.error and not self.f_min_row.error
        self.text_edit.setStyleSheet("" if not self.text_row.error else "border: 1px solid #d0342c;")
        self.buttons.button(QtWidgets.QDialogButtonBox.StandardButton.Ok).setEnabled(ok)


def _exact_text(value: float) -> str:
    """The shortest text that reads back as the same float ('5.12', '3.14159265358979', '-5')."""
    text = repr(float(value))
    return text[:-2] if text.endswith(".0") else text


def _pair(a: QtWidgets.QWidget, b: QtWidgets.QWidget) -> QtWidgets.QWidget:
    box = QtWidgets.QWidget()
    layout = QtWidgets.QHBoxLayout(box)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(QtWidgets.QLabel("lower"))
    layout.addWidget(a)
    layout.addWidget(QtWidgets.QLabel("upper"))
    layout.addWidget(b)
    return box


