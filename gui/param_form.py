"""The algorithm parameter form, generated from the declared parameters (solvers.params.specs).

Nothing here knows a parameter by name: each ParamSpec gives its editor (int -> spin box,
float -> decimal spin box, bool -> check box, choices -> combo box), limits, step, title and
tooltip. Live parameters are labelled as such; they are sent to a running solver at once, the
others apply to the next run ("on reset").
"""
from __future__ import annotations

import math
import re
from typing import Any

from PyQt6 import QtCore, QtWidgets

from solvers.params import ParamSpec, specs

from .field_row import FieldRow
from .range_spin import RangeDoubleSpinBox, RangeSpinBox

INT_MAX = 2**31 - 1  # QSpinBox holds a C int
FLOAT_LIMIT = 1e15  # a spin box needs finite limits where a parameter declares none
LIVE_MARK = "  [live]"


def _decimals_in(value: float) -> int:
    """Decimals needed to write `value` exactly as Python prints it (1.49618 -> 5, 1e-06 -> 6)."""
    text = repr(float(value)).lower()
    mantissa, _, exponent = text.partition("e")
    decimals = len(mantissa.partition(".")[2].rstrip("0"))
    return max(0, decimals - int(exponent or 0))


def _decimals_for(spec: ParamSpec) -> int:
    """Enough decimals that the default, the limits and the step are shown unrounded (a
    spin box rounds its value to its decimals, which would silently change a default)."""
    values = [v for v in (spec.default, spec.lo, spec.hi, spec.step) if v]
    return min(max([2] + [_decimals_in(v) for v in values]), 15)


class CompactDoubleSpinBox(RangeDoubleSpinBox):
    """A QDoubleSpinBox that shows 0.05 rather than 0.05000000 when many decimals are allowed."""

    def textFromValue(self, value: float) -> str:
        text = super().textFromValue(value)
        point = self.locale().decimalPoint()
        if point in text:
            text = text.rstrip("0")
            if text.endswith(point):
                text += "0"
        return text


def make_editor(spec: ParamSpec) -> QtWidgets.QWidget:
    """The editor widget for one declared parameter, with its limits and default."""
    if spec.kind is bool:
        editor = QtWidgets.QCheckBox()
        editor.setChecked(bool(spec.default))
    elif spec.kind is str and spec.choices:
        editor = QtWidgets.QComboBox()
        editor.setSizeAdjustPolicy(QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        editor.setMinimumContentsLength(6)
        editor.addItems(list(spec.choices))
        editor.setCurrentText(str(spec.default))
    elif spec.kind is str:
        editor = QtWidgets.QLineEdit(str(spec.default))
    elif spec.kind is int:
        editor = RangeSpinBox()
        lo = -INT_MAX if spec.lo is None else max(-INT_MAX, int(math.ceil(spec.lo)))
        hi = INT_MAX if spec.hi is None else min(INT_MAX, int(math.floor(spec.hi)))
        if spec.auto:  # 0 is "auto": the algorithm chooses from the budget (shown in the result)
            lo = 0
            editor.setSpecialValueText("auto")
        editor.setRange(lo, hi)
        editor.setSingleStep(max(1, int(spec.step or 1)))
        editor.setValue(int(spec.default))
        editor.setKeyboardTracking(False)  # report a value when typing is done, not per digit
    else:
        editor = CompactDoubleSpinBox()
        editor.setDecimals(_decimals_for(spec))
        lo = -FLOAT_LIMIT if spec.lo is None else float(spec.lo)
        hi = FLOAT_LIMIT if spec.hi is None else float(spec.hi)
        editor.setRange(lo, hi)
        if spec.step:
            editor.setSingleStep(float(spec.step))
        editor.setValue(float(spec.default))
        editor.setKeyboardTracking(False)
    editor.setToolTip(tooltip_for(spec))
    editor.setObjectName(f"param_{spec.name}")
    return editor


def tooltip_for(spec: ParamSpec) -> str:
    lines = [spec.tip]
    if spec.choices:
        lines.append("choices: " + ", ".join(spec.choices))
    elif spec.kind in (int, float) and (spec.lo is not None or spec.hi is not None):
        lo = "-inf" if spec.lo is None else f"{spec.lo:g}"
        hi = "inf" if spec.hi is None else f"{spec.hi:g}"
        lines.append(f"range [{lo}, {hi}], default {spec.default}")
    lines.append("live: applies to a running solver at the next chunk" if spec.live
                 else "applies on reset (to the next run)")
    return "\n".join(lines)


def editor_value(editor: QtWidgets.QWidget) -> Any:
    if isinstance(editor, QtWidgets.QCheckBox):
        return editor.isChecked()
    if isinstance(editor, QtWidgets.QComboBox):
        return editor.currentText()
    if isinstance(editor, QtWidgets.QLineEdit):
        return editor.text()
    return editor.value()


def set_editor_value(editor: QtWidgets.QWidget, value: Any) -> None:
    """Show `value` (saved earlier) in `editor`; values of the wrong type are ignored."""
    try:
        if isinstance(editor, QtWidgets.QCheckBox):
            editor.setChecked(bool(value))
        elif isinstance(editor, QtWidgets.QComboBox):
            if editor.findText(str(value)) >= 0:
                editor.setCurrentText(str(value))
        elif isinstance(editor, QtWidgets.QLineEdit):
            editor.setText(str(value))
        elif isinstance(editor, QtWidgets.QSpinBox):
            editor.setValue(int(value))
        else:
            # a loaded value with more decimals than the editor shows (omega 0.123456789 where the
            # default needs 4) was rounded to them without a word, and the run used the rounded one
            value = float(value)
            if _decimals_in(value) > editor.decimals():
                editor.setDecimals(min(_decimals_in(value), 15))
            editor.setValue(value)
    except (TypeError, ValueError):
        pass


def _changed_signal(editor: QtWidgets.QWidget):
    if isinstance(editor, QtWidgets.QCheckBox):
        return editor.toggled
    if isinstance(editor, QtWidgets.QComboBox):
        return editor.currentTextChanged
    if isinstance(editor, QtWidgets.QLineEdit):
        return editor.editingFinished
    return editor.valueChanged


class ParamForm(QtWidgets.QWidget):
    """Editors for one algorithm's Params class; rebuilt by ``set_params_class``.

    ``sigChanged(name, value, live)`` fires when the user changes a value.
    """

    sigChanged = QtCore.pyqtSignal(str, object, bool)

    def __init__(self, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self._layout = QtWidgets.QFormLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setFieldGrowthPolicy(QtWidgets.QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        # long titles put their editor on the next line instead of widening the dock
        self._layout.setRowWrapPolicy(QtWidgets.QFormLayout.RowWrapPolicy.WrapLongRows)
        self._specs: dict[str, ParamSpec] = {}
        self._rows: dict[str, FieldRow] = {}
        self._labels: dict[str, QtWidgets.QLabel] = {}
        self._params_cls: type | None = None
        self._fitted: dict[str, tuple[str, str, str]] = {}

    @property
    def params_class(self) -> type | None:
        return self._params_cls

    def specs(self) -> tuple[ParamSpec, ...]:
        return tuple(self._specs.values())

    def set_params_class(self, params_cls: type, values: dict | None = None,
                         fitted: dict[str, tuple[str, str, str]] | None = None) -> None:
        """Build the editors for `params_cls`, showing `values` where given, defaults elsewhere.
        `fitted`: the algorithm's ``fitted_params`` (name -> (field, value under which the run fits
        it, value under which it is used as given)); such an editor is disabled while it is fitted."""
        while self._layout.rowCount():
            self._layout.removeRow(0)
        self._specs, self._rows, self._labels = {}, {}, {}
        self._params_cls = params_cls
        self._fitted = dict(fitted or {})
        for spec in specs(params_cls):
            editor = make_editor(spec)
            if values and spec.name in values:
                set_editor_value(editor, values[spec.name])
            row = FieldRow(editor)
            label = QtWidgets.QLabel(spec.title + (LIVE_MARK if spec.live else ""))
            label.setToolTip(editor.toolTip())
            label.setBuddy(editor)
            self._layout.addRow(label, row)
            self._specs[spec.name], self._rows[spec.name] = spec, row
            self._labels[spec.name] = label
            _changed_signal(editor).connect(
                lambda *_, name=spec.name: self._on_editor_changed(name))
            if hasattr(editor, "sigOutOfRange"):  # a typed value out of range is said, not clamped
                editor.sigOutOfRange.connect(row.show_error)
        self._update_applicability()

    def values(self) -> dict[str, Any]:
        """The editors' values by parameter name (not yet validated)."""
        return {name: editor_value(row.editor) for name, row in self._rows.items()}

    def set_values(self, values: dict) -> None:
        for name, value in values.items():
            row = self._rows.get(name)
            if row is not None:
                row.editor.blockSignals(True)
                set_editor_value(row.editor, value)
                row.editor.blockSignals(False)
        self._update_applicability()

    def applies(self, name: str) -> bool:
        """False when the run ignores this value: the chosen variant does not use it, or another
        field's setting fits it (SA's auto schedule); its editor is then disabled."""
        return self._specs[name].applies_to(self._variant()) and self._fitted_by(name) is None

    def _variant(self):
        row = self._rows.get("variant")
        return editor_value(row.editor) if row is not None else None

    def _fitted_by(self, name: str) -> str | None:
        """Why `name`'s value is replaced by a fitted one under the current values; None if not."""
        if name not in self._fitted:
            return None
        field, fitted_value, given_value = self._fitted[name]
        row = self._rows.get(field)
        if row is None or editor_value(row.editor) != fitted_value:
            return None
        title = self._specs[field].title if field in self._specs else field
        return (f"Fitted by the run under {title} '{fitted_value}' (from the budget and the spread of f; "
                f"the results show the value used). Choose '{given_value}' to set it yourself.")

    def _update_applicability(self) -> None:
        """Disable the parameters the chosen variant ignores, saying which variants use them."""
        variant = self._variant()
        for name, spec in self._specs.items():
            used, fitted = spec.applies_to(variant), self._fitted_by(name)
            applies = used and fitted is None
            row, label = self._rows[name], self._labels[name]
            row.setEnabled(applies)
            label.setEnabled(applies)
            tip = tooltip_for(spec)
            if not used:
                tip = (f"Not used by the '{variant}' variant (only by: {', '.join(spec.variants)})."
                       f"\n{tip}")
            elif fitted is not None:
                tip = f"{fitted}\n{tip}"
            row.editor.setToolTip(tip)
            label.setToolTip(tip)

    def row(self, name: str) -> FieldRow | None:
        return self._rows.get(name)

    def editor(self, name: str) -> QtWidgets.QWidget | None:
        row = self._rows.get(name)
        return row.editor if row is not None else None

    def validate(self) -> dict[str, Any] | None:
        """Coerce each value through its spec; errors shown beside the fields; None if any."""
        out, ok = {}, True
        for name, row in self._rows.items():
            row.clear("error")
            # typed but not confirmed (Start from the toolbar keeps the focus here): take it now
            if hasattr(row.editor, "commit") and not row.editor.commit():
                ok = False
                continue
            try:
                out[name] = self._specs[name].coerce(editor_value(row.editor))
            except ValueError as exc:  # ConfigError
                row.show_error(str(exc))
                ok = False
        return out if ok else None

    def show_error(self, message: str) -> bool:
        """Show a message naming one of these parameters beside it; False if none is named."""
        for quoted in re.findall(r"'([^']+)'", message):
            row = self._rows.get(quoted)
            if row is not None:
                row.show_error(message)
                return True
        return False

    def clear_messages(self, kind: str | None = None) -> None:
        for row in self._rows.values():
            row.clear(kind)

    def _on_editor_changed(self, name: str) -> None:
        row = self._rows[name]
        row.clear("error")
        if name == "variant" or any(name == field for field, _, _ in self._fitted.values()):
            self._update_applicability()
        self.sigChanged.emit(name, editor_value(row.editor), self._specs[name].live)
