"""One axis of the Tune tab: a declared parameter, its range, number of values and spacing.

The parameters listed are the algorithm's declarations (solvers.params.specs); those a grid cannot
vary (walkers, structural ones) are listed greyed out with the reason (solvers.tune.tunable). A
typed value out of the declared limits, or an axis the grid refuses, is said under the row.
"""
from __future__ import annotations

import math

from PyQt6 import QtWidgets

from solvers.algorithms import get_algorithm
from solvers.params import specs
from solvers.tune import tunable
from solvers.tune.spec import build_axis

from .field_row import FieldRow
from .param_form import CompactDoubleSpinBox, _decimals_for

MAX_SIDE = 32  # values per axis on the map
NONE = "(none)"


def _default_range(spec) -> tuple[float, float, bool]:
    """A first range for an axis: the declared one where it is modest, else a decade either side
    of the default (log), always inside the limits."""
    lo, hi, default = spec.lo, spec.hi, float(spec.default)
    if lo is not None and hi is not None and (lo <= 0 or hi / lo <= 1e3):
        return float(lo), float(hi), False
    low = max(lo if lo is not None else -math.inf, default / 10 if default > 0 else default - 1)
    high = min(hi if hi is not None else math.inf, default * 10 if default > 0 else default + 1)
    return low, high, low > 0 and high / low > 20


class AxisRow:
    """One axis's controls: parameter, range, number of values, log spacing; errors under them."""

    def __init__(self, optional: bool):
        self.optional = optional
        self.combo = QtWidgets.QComboBox()
        self.combo.setMinimumContentsLength(12)
        self.lo, self.hi = CompactDoubleSpinBox(), CompactDoubleSpinBox()
        for box in (self.lo, self.hi):
            box.setKeyboardTracking(False)
            box.sigOutOfRange.connect(self._show_error)
        self.points = QtWidgets.QSpinBox()
        self.points.setRange(1, MAX_SIDE)
        self.points.setValue(8)
        self.points.setToolTip(f"Values on this axis (1 to {MAX_SIDE})")
        self.log = QtWidgets.QCheckBox("log")
        self.log.setToolTip("Geometric spacing (the lower end must be above 0)")
        self.combo.currentIndexChanged.connect(self._on_combo_changed)
        line = QtWidgets.QWidget()
        layout = QtWidgets.QHBoxLayout(line)
        layout.setContentsMargins(0, 0, 0, 0)
        for w in (self.combo, self.lo, QtWidgets.QLabel("to"), self.hi, QtWidgets.QLabel("values"),
                  self.points, self.log):
            layout.addWidget(w)
        layout.addStretch(1)
        self.row = FieldRow(line)
        self._specs: dict = {}
        self.algorithm = ""
        self.reasons: dict[str, str] = {}

    def fill(self, algorithm: str, keep: str | None) -> None:
        """List the algorithm's parameters; those a grid cannot vary are shown disabled, with why."""
        cls = get_algorithm(algorithm)
        self.algorithm = algorithm
        self._specs = {s.name: s for s in specs(cls.Params)}
        self.reasons = tunable(cls)
        self.combo.blockSignals(True)
        self.combo.clear()
        if self.optional:
            self.combo.addItem(NONE)
        model = self.combo.model()
        for name, why in self.reasons.items():
            spec = self._specs[name]
            self.combo.addItem(name if not why else f"{name} (fixed)", name)
            item = model.item(self.combo.count() - 1)
            item.setToolTip(f"{spec.title}: {spec.tip}" if not why else f"not a grid axis: {why}")
            item.setEnabled(not why)
        self.combo.blockSignals(False)
        index = self.combo.findData(keep) if keep else -1
        if index < 0 or not model.item(index).isEnabled():
            index = 0 if self.optional else next(
                (i for i in range(self.combo.count()) if model.item(i).isEnabled()), 0)
        self.combo.setCurrentIndex(-1)  # so that setting it below always fills the range
        self.combo.setCurrentIndex(index)

    def name(self) -> str | None:
        return self.combo.currentData()

    def set_axis(self, text: str | None) -> None:
        """Show an axis written ``name=lo:hi:n[:log]`` (None: no axis, for the optional row)."""
        if text is None:
            self.combo.setCurrentIndex(0 if self.optional else self.combo.currentIndex())
            return
        axis = build_axis(text, get_algorithm(self.algorithm))
        self.combo.setCurrentIndex(self.combo.findData(axis.name))
        self.lo.setValue(axis.lo)
        self.hi.setValue(axis.hi)
        self.points.setValue(min(MAX_SIDE, axis.points))
        self.log.setChecked(axis.log)
        if axis.points > MAX_SIDE:  # a set-up written for the command line (up to 1024 values)
            self.row.show_note(f"{axis.points} values in the set-up; the map shows at most {MAX_SIDE}")

    def spec_text(self) -> str | None:
        name = self.name()
        if name is None:
            return None
        return f"{name}={self.lo.value():.12g}:{self.hi.value():.12g}:{self.points.value()}" + (
            ":log" if self.log.isChecked() else "")

    def set_enabled(self, enabled: bool) -> None:
        self.combo.setEnabled(enabled)
        for w in (self.lo, self.hi, self.points, self.log):
            w.setEnabled(enabled and self.name() is not None)

    def _show_error(self, text: str) -> None:
        self.row.show_error(text)

    def _on_combo_changed(self, *_args) -> None:
        self.row.clear()
        spec = self._specs.get(self.name() or "")
        for w in (self.lo, self.hi, self.points, self.log):
            w.setEnabled(spec is not None)
        if spec is None:
            return
        lo = spec.lo if spec.lo is not None else -1e15
        hi = spec.hi if spec.hi is not None else 1e15
        decimals = 0 if spec.kind is int else _decimals_for(spec)
        for box in (self.lo, self.hi):
            box.setDecimals(decimals)
            box.setRange(lo, hi)
            box.setSingleStep(spec.step or (1 if spec.kind is int else 0.1))
            box.setToolTip(f"{spec.title}: from {lo:g} to {hi:g}")
        first, last, log = _default_range(spec)
        self.lo.setValue(first)
        self.hi.setValue(last)
        self.log.setChecked(log)
        if spec.kind is int:  # never more values than integers in the range
            self.points.setValue(max(1, min(self.points.value(), int(last - first) + 1)))
