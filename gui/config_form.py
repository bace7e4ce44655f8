"""The run set-up panel: algorithm, function, dimension, engine, precision, seed, budget, parameters.

Everything shown comes from the registries and the declared parameters; every check is done by
``solvers`` (ParamSpec.coerce, get_problem, Budget.build, engine_status, RunConfig.build). A bad
value is shown in red under its own field and stops the run from starting.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np
from PyQt6 import QtCore, QtGui, QtWidgets

import solvers
from solvers import Budget, ConfigError, RunConfig, engine_status
from solvers.config import DEFAULT_MAX_ITERS, DTYPES
from solvers.engines import ENGINES, get_engine
from solvers.params import specs
from solvers.problems import get_definition, get_problem, param_defaults, problem_definitions

from solvers.problems.custom import expression_box, is_expression, set_expression_box

from .expression_dialog import CustomFunction, ExpressionDialog
from .field_row import ERROR_STYLE, FieldRow
from .landscape_grid import landscape_limit
from .range_spin import RangeSpinBox
from .param_form import INT_MAX, LIVE_MARK, ParamForm

BUDGET_KINDS = {"iterations": "max_iters", "evaluations": "max_evals", "seconds": "max_seconds"}
ANY_DIM_LIMIT = 100_000  # a spin box needs an upper limit; functions of any dimension accept more
_RUNCONFIG_DEFAULTS = {f.name: f.default for f in dataclasses.fields(RunConfig)}
NAME_ROLE = QtCore.Qt.ItemDataRole.UserRole
CUSTOM_ENTRY = "__custom__"  # the "Custom..." item: opens the expression editor


def format_number(x: float | None) -> str:
    if x is None:
        return "unknown"
    return f"{x:.6g}"


def describe_box(lower: np.ndarray, upper: np.ndarray) -> str:
    """'[-100, 100]^d' when every side is equal, else the first sides."""
    if np.all(lower == lower[0]) and np.all(upper == upper[0]):
        return f"[{lower[0]:g}, {upper[0]:g}]^{len(lower)}"
    sides = " x ".join(f"[{a:g}, {b:g}]" for a, b in zip(lower[:3], upper[:3]))
    return sides + (" x ..." if len(lower) > 3 else "")


def describe_point(x: np.ndarray | None) -> str:
    if x is None:
        return "unknown"
    if np.all(x == x[0]):
        return f"({x[0]:g}, ..., {x[0]:g})" if len(x) > 2 else "(" + ", ".join(f"{v:g}" for v in x) + ")"
    shown = ", ".join(f"{v:.4g}" for v in x[:4])
    return f"({shown}{', ...' if len(x) > 4 else ''})"


def _exact(value: float) -> str:
    """A budget as text that reads back to the same number ('{:g}' showed 1234567 as 1.23457e+06,
    and the loaded set-up then ran 1,234,570 evaluations)."""
    return str(value) if isinstance(value, int) else repr(float(value))


class ConfigForm(QtWidgets.QWidget):
    """The left panel; ``build_config()`` returns a validated RunConfig or None (errors shown)."""

    sigAlgorithmChanged = QtCore.pyqtSignal(str)
    sigProblemChanged = QtCore.pyqtSignal(str, int)  # function name, dimension
    sigParamChanged = QtCore.pyqtSignal(str, object, bool)  # name, value, live

    def __init__(self, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self._param_values: dict[str, dict] = {}
        # the function each algorithm's values were left at: a field still at that function's
        # default takes the next function's (param_defaults: Shekel runs annealing async)
        self._param_problem: dict[str, str | None] = {}
        self._form_problem: str | None = None  # the function the form's values follow
        self._current_algorithm: str | None = None
        self._running = False
        self._custom: dict[str, CustomFunction] = {}  # typed functions, by 'expr: ...' name
        self._last_problem_row = -1
        self.custom_dialog: ExpressionDialog | None = None
        outer = QtWidgets.QVBoxLayout(self)

        # --- algorithm -------------------------------------------------------------------------
        algo_box = QtWidgets.QGroupBox("Algorithm")
        algo_layout = QtWidgets.QVBoxLayout(algo_box)
        self.algorithm_combo = QtWidgets.QComboBox()
        for name in solvers.list_algorithms():
            cls = solvers.get_algorithm(name)
            self.algorithm_combo.addItem(getattr(cls, "title", name), name)
        self.algorithm_combo.setToolTip("Algorithms from the registry (solvers.list_algorithms)")
        self.algorithm_info = _info_label()
        algo_layout.addWidget(self.algorithm_combo)
        algo_layout.addWidget(self.algorithm_info)
        outer.addWidget(algo_box)

        # --- function --------------------------------------------------------------------------
        fn_box = QtWidgets.QGroupBox("Function")
        fn_layout = QtWidgets.QFormLayout(fn_box)
        self.problem_combo = QtWidgets.QComboBox()
        self.problem_combo.setModel(_grouped_problem_model(self.problem_combo))
        self.problem_info = _info_label()
        self.dim_spin = RangeSpinBox()
        self.dim_spin.setKeyboardTracking(False)
        self.dim_row = FieldRow(self.dim_spin)
        self.dim_spin.sigOutOfRange.connect(self.dim_row.show_error)
        fn_layout.addRow(self.problem_combo)
        fn_layout.addRow(self.problem_info)
        fn_layout.addRow("Dimension", self.dim_row)
        outer.addWidget(fn_box)

        # --- engine, precision, seed, budget ---------------------------------------------------
        run_box = QtWidgets.QGroupBox("Run")
        run_layout = QtWidgets.QFormLayout(run_box)
        self.engine_combo = QtWidgets.QComboBox()
        _fill_engines(self.engine_combo)
        self.engine_row = FieldRow(self.engine_combo)
        # range spin boxes (gui/range_spin.py): a refused keystroke or value is said beside the field
        self.threads_spin = RangeSpinBox()  # 0 = every core the engine may use
        self.threads_spin.setSpecialValueText("all cores")
        self.threads_spin.setToolTip("CPU threads of the numba engine (compiled, multi-core); "
                                     "'all cores' by default")
        # shown only where the engine sees several devices (a run split over GPUs, solvers/shards.py)
        self.devices_combo = QtWidgets.QComboBox()
        self.devices_row = FieldRow(self.devices_combo)
        self.devices_label = QtWidgets.QLabel("Devices")
        self.dtype_combo = QtWidgets.QComboBox()
        self.dtype_combo.addItems(list(DTYPES))
        self.dtype_combo.setCurrentText(_RUNCONFIG_DEFAULTS["dtype"])
        self.seed_spin = RangeSpinBox()
        self.seed_spin.setRange(0, INT_MAX)
        self.seed_spin.setValue(_RUNCONFIG_DEFAULTS["seed"])
        self.seed_spin.setToolTip("The same seed on the same engine repeats the run exactly")
        self.sample_spin = RangeSpinBox()
        self.sample_spin.setRange(1, 1_000_000)
        self.sample_spin.setValue(_RUNCONFIG_DEFAULTS["sample_size"])
        self.sample_spin.setToolTip("At most this many walkers are copied to the host and drawn "
                                    "(a fixed, evenly spread sample)")
        budget_line = QtWidgets.QWidget()
        budget_layout = QtWidgets.QHBoxLayout(budget_line)
        budget_layout.setContentsMargins(0, 0, 0, 0)
        self.budget_edit = QtWidgets.QLineEdit(str(DEFAULT_MAX_ITERS))
        self.budget_edit.setToolTip("The run stops at the first iteration boundary past this budget")
        self.budget_kind = QtWidgets.QComboBox()
        self.budget_kind.addItems(list(BUDGET_KINDS))
        budget_layout.addWidget(self.budget_edit, 1)
        budget_layout.addWidget(self.budget_kind)
        self.budget_row = FieldRow(budget_line)
        self.seed_row = FieldRow(self.seed_spin)
        self.threads_row = FieldRow(self.threads_spin)
        self.sample_row = FieldRow(self.sample_spin)
        for spin, row in ((self.seed_spin, self.seed_row), (self.threads_spin, self.threads_row),
                          (self.sample_spin, self.sample_row)):
            spin.setKeyboardTracking(False)
            spin.sigOutOfRange.connect(row.show_error)
        run_layout.addRow("Engine", self.engine_row)
        run_layout.addRow("Threads", self.threads_row)
        run_layout.addRow(self.devices_label, self.devices_row)
        run_layout.addRow("Precision", self.dtype_combo)
        run_layout.addRow("Seed", self.seed_row)
        run_layout.addRow("Budget", self.budget_row)
        run_layout.addRow("Walkers drawn", self.sample_row)
        outer.addWidget(run_box)

        # --- generated parameters --------------------------------------------------------------
        params_box = QtWidgets.QGroupBox("Parameters")
        params_layout = QtWidgets.QVBoxLayout(params_box)
        self.params_form = ParamForm()
        legend = _info_label(f"{LIVE_MARK.strip()} applies to a running solver at the next chunk; "
                             "other parameters apply on reset (the next run).")
        params_layout.addWidget(self.params_form)
        params_layout.addWidget(legend)
        outer.addWidget(params_box)

        for combo in self.findChildren(QtWidgets.QComboBox):
            # long titles must not widen the dock: the combo shrinks and elides instead
            combo.setSizeAdjustPolicy(
                QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(8)

        self.general_error = QtWidgets.QLabel()
        self.general_error.setStyleSheet(ERROR_STYLE)
        self.general_error.setWordWrap(True)
        self.general_error.hide()
        outer.addWidget(self.general_error)
        outer.addStretch(1)

        self.algorithm_combo.currentIndexChanged.connect(self._on_algorithm_combo_changed)
        self.problem_combo.currentIndexChanged.connect(self._on_problem_combo_changed)
        self.dim_spin.valueChanged.connect(self._on_dim_spin_changed)
        self.params_form.sigChanged.connect(self._on_params_form_changed)
        self.budget_edit.textEdited.connect(lambda _text: self.budget_row.clear("error"))
        self.engine_combo.currentIndexChanged.connect(self._on_engine_combo_changed)
        self.devices_combo.currentIndexChanged.connect(lambda _i: self.devices_row.clear("error"))
        self._on_engine_combo_changed()
        self._on_algorithm_combo_changed()
        self._select_first_problem()

    # --- reading -------------------------------------------------------------------------------
    def algorithm(self) -> str:
        return self.algorithm_combo.currentData()

    def problem(self) -> str:
        return self.problem_combo.currentData()

    def dim(self) -> int:
        return self.dim_spin.value()

    def engine(self) -> str:
        return self.engine_combo.currentText()

    def threads(self) -> int | None:
        """The thread count chosen for an engine that lets the user choose one (None: its default)."""
        if not get_engine(self.engine()).threads_choosable():
            return None
        return self.threads_spin.value() or None

    def devices(self) -> str | None:
        """The devices a run is split over ("all"), or None: one device (the default path)."""
        if not self.devices_combo.isVisibleTo(self) or self.devices_combo.currentIndex() <= 0:
            return None
        return self.devices_combo.currentData()

    def build_config(self) -> RunConfig | None:
        """Validate the whole form through solvers; show each error beside its field."""
        self.clear_errors()
        # typed values not yet confirmed (ParamForm does the same for the parameters)
        ok = True
        for spin in (self.dim_spin, self.seed_spin, self.sample_spin, self.threads_spin):
            ok &= spin.commit()
        params = self.params_form.validate()
        ok &= params is not None
        try:
            get_problem(self.problem(), self.dim())
            if landscape_limit(self.dim()):
                raise ConfigError(landscape_limit(self.dim()))
        except ConfigError as exc:
            self.dim_row.show_error(str(exc))
            ok = False
        budget = self._budget_kwargs()
        if budget is not None:
            try:
                Budget.build(**budget)
            except ConfigError as exc:
                # the form's words, not the internal field name (max_iters -> "iterations")
                kind = self.budget_kind.currentText()
                message = str(exc).replace(BUDGET_KINDS[kind], f"the budget in {kind}")
                self.budget_row.show_error(message[0].upper() + message[1:])
                ok = False
        else:
            ok = False
        available, reason = engine_status(self.engine())
        if not available:
            self.engine_row.show_error(f"engine '{self.engine()}' is not available: {reason}")
            ok = False
        if not ok:
            return None
        try:
            return RunConfig.build(self.algorithm(), self.problem(), self.dim(), params=params,
                                   engine=self.engine(), dtype=self.dtype_combo.currentText(),
                                   seed=self.seed_spin.value(), sample_size=self.sample_spin.value(),
                                   bounds=self._bounds(), threads=self.threads(),
                                   f_min=self._known_minimum(), devices=self.devices(), **budget)
        except ConfigError as exc:  # cross-field rules of the Params class, mostly
            if self.devices() is not None and "split" in str(exc):
                self.devices_row.show_error(str(exc))  # e.g. an algorithm whose walkers are coupled
            elif not self.params_form.show_error(str(exc)):
                self.show_general_error(str(exc))
            return None

    def _known_minimum(self) -> float | None:
        """A typed function's known minimum, as its editor set it (None: unknown, or a built-in)."""
        custom = self._custom.get(self.problem())
        return None if custom is None else custom.f_min

    def _bounds(self) -> tuple[float, float] | None:
        """A typed function's box (saved with the set-up); None for a built-in's own box."""
        name = self.problem()
        return expression_box(name) if is_expression(name) else None

    # --- custom functions ------------------------------------------------------------------------
    def open_custom_editor(self) -> ExpressionDialog:
        """Open the expression editor (window-modal, not blocking); OK selects the function."""
        name = self.problem()
        initial = self._custom.get(name) if is_expression(name) else None
        dialog = self.custom_dialog = ExpressionDialog(self, initial, self.dtype_combo.currentText())
        dialog.accepted.connect(self._on_custom_dialog_accepted)
        dialog.rejected.connect(self._on_custom_dialog_rejected)
        dialog.open()
        return dialog

    def set_custom_function(self, function: CustomFunction) -> None:
        """Add (or update) a typed function in the picker and select it at its dimension."""
        set_expression_box(function.name, function.lower, function.upper)
        self._custom[function.name] = function
        model = self.problem_combo.model()
        row = self.problem_combo.findData(function.name, NAME_ROLE)
        if row < 0:
            row = self.problem_combo.findData(CUSTOM_ENTRY, NAME_ROLE)
            item = QtGui.QStandardItem("    " + function.text)
            item.setData(function.name, NAME_ROLE)
            item.setToolTip(function.name)
            model.insertRow(row, item)
        self.problem_combo.setCurrentIndex(row)
        self._on_problem_combo_changed()  # the box may have changed with the same name
        self.dim_spin.setValue(function.dim)

    def _on_custom_dialog_accepted(self) -> None:
        function = self.custom_dialog.value() if self.custom_dialog else None
        if function is not None:
            self.set_custom_function(function)

    def _on_custom_dialog_rejected(self) -> None:
        if self._last_problem_row >= 0:
            self.problem_combo.setCurrentIndex(self._last_problem_row)

    def _budget_kwargs(self) -> dict | None:
        text = self.budget_edit.text().strip()
        if not text:
            self.budget_row.show_error("enter a budget")
            return None
        return {BUDGET_KINDS[self.budget_kind.currentText()]: text}

    def errors(self) -> dict[str, str]:
        """Messages now shown, by field ('dimension', 'budget', 'engine', 'seed', 'threads', 'sample_size',
        'general' or a parameter)."""
        out = {"dimension": self.dim_row.error, "budget": self.budget_row.error,
               "engine": self.engine_row.error, "seed": self.seed_row.error,
               "threads": self.threads_row.error, "sample_size": self.sample_row.error,
               "general": self.general_error.text() if not self.general_error.isHidden() else ""}
        for spec in self.params_form.specs():
            out[spec.name] = self.params_form.row(spec.name).error
        return {k: v for k, v in out.items() if v}

    def clear_errors(self) -> None:
        for row in (self.dim_row, self.budget_row, self.engine_row, self.seed_row, self.threads_row,
                    self.sample_row):
            row.clear("error")
        self.params_form.clear_messages("error")
        self.general_error.hide()
        self.general_error.clear()

    def show_general_error(self, text: str) -> None:
        self.general_error.setText(text)
        self.general_error.show()

    def show_param_error(self, message: str) -> None:
        """A refused live change: beside the parameter it names, else at the bottom."""
        if not self.params_form.show_error(message):
            self.show_general_error(message)

    # --- keyboard ------------------------------------------------------------------------------
    def install_focus_return(self, callback) -> None:
        """Call `callback` after Enter commits a typed field, so that single-key run shortcuts
        (Space, S, R) reach the window again instead of being typed into the field."""
        self._focus_return = _ReturnKeyFilter(callback, self)
        self._watch_return_keys()

    def _watch_return_keys(self) -> None:
        watcher = getattr(self, "_focus_return", None)
        if watcher is None:
            return
        for widget in self.findChildren(QtWidgets.QAbstractSpinBox) + self.findChildren(QtWidgets.QLineEdit):
            widget.removeEventFilter(watcher)  # installing twice would call twice
            widget.installEventFilter(watcher)

    # --- running state -------------------------------------------------------------------------
    def set_running(self, running: bool) -> None:
        """While a run is on, what defines it is locked; parameters stay editable (live or not)."""
        self._running = running
        for widget in (self.algorithm_combo, self.problem_combo, self.dim_spin, self.engine_combo,
                       self.dtype_combo, self.seed_spin, self.sample_spin, self.budget_edit,
                       self.budget_kind):
            widget.setEnabled(not running)
        self._on_engine_combo_changed()
        if not running:
            self.params_form.clear_messages("note")

    # --- saving and restoring ------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        """The form as plain JSON-able values (for QSettings and configuration files)."""
        self._param_values[self.algorithm()] = self.params_form.values()
        return {"algorithm": self.algorithm(), "problem": self.problem(), "dim": self.dim(),
                "engine": self.engine(), "dtype": self.dtype_combo.currentText(),
                "threads": self.threads_spin.value(), "devices": self.devices(),
                "seed": self.seed_spin.value(), "sample_size": self.sample_spin.value(),
                "budget_kind": self.budget_kind.currentText(), "budget": self.budget_edit.text(),
                "params": {k: dict(v) for k, v in self._param_values.items()},
                "bounds": list(self._bounds()) if self._bounds() else None,
                "f_min": self._known_minimum()}

    def set_state(self, state: dict[str, Any]) -> None:
        """Restore a saved state; names no longer registered and bad values are skipped."""
        if not isinstance(state, dict):
            return
        # the algorithm first: leaving the form's algorithm keeps its editors' values as that
        # algorithm's, so the state's values are stored after it (stored before, the state's values
        # for the algorithm left were overwritten with the editors' on the way out)
        self._select_data(self.algorithm_combo, state.get("algorithm"))
        problem, bounds = state.get("problem"), state.get("bounds")
        params = state.get("params")
        if isinstance(params, dict):
            for algo, values in params.items():
                if isinstance(values, dict):
                    self._param_values[str(algo)] = dict(values)
                    # saved under the state's function: its defaults, not the form's
                    self._param_problem[str(algo)] = problem
            if isinstance(params.get(self.algorithm()), dict):  # the shown algorithm's, as saved
                self.params_form.set_values(self._param_values[self.algorithm()])
                self._form_problem = problem
        if is_expression(problem):
            self._restore_custom(problem, state.get("dim"), bounds, state.get("f_min"))
        else:
            self._select_data(self.problem_combo, problem)
        dim = state.get("dim")
        if isinstance(dim, int) and not isinstance(dim, bool):
            self.dim_spin.setValue(dim)
        engine = state.get("engine")
        if engine in ENGINES and engine_status(engine)[0]:
            self.engine_combo.setCurrentText(engine)
        if state.get("dtype") in DTYPES:
            self.dtype_combo.setCurrentText(state["dtype"])
        threads = state.get("threads")
        if isinstance(threads, int) and not isinstance(threads, bool):
            self.threads_spin.setValue(threads)  # clamped to this machine's cores
        index = self.devices_combo.findData(state.get("devices"))  # absent here: one device
        self.devices_combo.setCurrentIndex(max(0, index) if state.get("devices") else 0)
        for key, spin in (("seed", self.seed_spin), ("sample_size", self.sample_spin)):
            value = state.get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                spin.setValue(value)
        if state.get("budget_kind") in BUDGET_KINDS:
            self.budget_kind.setCurrentText(state["budget_kind"])
        if isinstance(state.get("budget"), (str, int, float)):
            self.budget_edit.setText(str(state["budget"]))

    def _restore_custom(self, name: str, dim, bounds, f_min=None) -> None:
        """A typed function from a saved state or set-up; an invalid one is skipped (a bad known
        minimum is dropped: the function is still usable without it)."""
        try:
            lo, hi = (float(v) for v in bounds) if bounds else expression_box(name)
            problem = get_problem(name, dim if isinstance(dim, int) else None, bounds=(lo, hi))
            text = problem.definition.expression.text
        except (ConfigError, TypeError, ValueError):
            return
        if isinstance(f_min, bool) or not isinstance(f_min, (int, float)) or not math.isfinite(f_min):
            f_min = None
        self.set_custom_function(CustomFunction(text, problem.dim, lo, hi,
                                                None if f_min is None else float(f_min)))

    def unshown(self, config: RunConfig) -> list[str]:
        """What of `config` this form cannot hold, in words (empty: all of it). A seed past the
        spin box's C int made set_state raise OverflowError half-way through the form, and a larger
        sample, fast math or a built-in's own box were silently dropped, so the window ran another
        set-up than the file's; the window refuses such a file instead, naming what and why."""
        out = []
        for label, value, spin in (("seed", config.seed, self.seed_spin),
                                   ("walkers drawn", config.sample_size, self.sample_spin)):
            if not spin.minimum() <= value <= spin.maximum():
                out.append(f"{label} {value:,} (this window takes {spin.minimum():,} to {spin.maximum():,})")
        if config.fast_math:
            out.append("fast math (this window always runs precise math)")
        if config.bounds is not None and not is_expression(config.problem):
            out.append(f"the box [{config.bounds[0]:g}, {config.bounds[1]:g}] in place of "
                       f"{config.problem}'s own (this window runs a built-in on its own box)")
        # snapshot_hz is not checked: it is how often a run is drawn, and the window draws at its own pace
        return out

    def apply_config(self, config: RunConfig) -> None:
        """Show a RunConfig in the form (used when a saved configuration is loaded); check
        ``unshown(config)`` first, as a value the form cannot hold is not shown."""
        budget = config.budget
        kind, value = next(((k, getattr(budget, key)) for k, key in BUDGET_KINDS.items()
                            if getattr(budget, key) is not None), ("iterations", DEFAULT_MAX_ITERS))
        self.set_state({"algorithm": config.algorithm, "problem": config.problem, "dim": config.dim,
                        "engine": config.engine, "dtype": config.dtype, "seed": config.seed,
                        "threads": config.threads or 0, "sample_size": config.sample_size,
                        "devices": _devices_text(config.devices), "budget_kind": kind, "budget": _exact(value),
                        "params": {config.algorithm: config.params_dict()},
                        "bounds": list(config.bounds) if config.bounds else None,
                        "f_min": config.f_min})

    # --- slots ---------------------------------------------------------------------------------
    def _on_engine_combo_changed(self, *_args) -> None:
        """The threads field: enabled only where the engine lets the user choose a thread count."""
        engine = get_engine(self.engine())
        choosable = engine.threads_choosable() and engine.available
        if choosable:
            self.threads_spin.setRange(0, engine.max_threads())
        self.threads_spin.setEnabled(choosable and not self._running)
        self.threads_spin.setToolTip(
            f"CPU threads of engine '{engine.name}': 1 to {engine.max_threads()} ('all cores' by default)"
            if choosable else f"engine '{engine.name}' has no thread count to choose")
        self._fill_devices(engine)

    def _fill_devices(self, engine) -> None:
        """The devices field: one device, all of them, or each pair, where the engine has several."""
        count = engine.device_count() if engine.available else 0
        previous = self.devices_combo.currentData()
        self.devices_combo.blockSignals(True)
        self.devices_combo.clear()
        self.devices_combo.addItem("one (device 0)", None)
        if count > 1:
            self.devices_combo.addItem(f"all {count} ({engine.name})", "all")
            for first in range(count):
                for second in range(first + 1, count):
                    if count > 2:
                        self.devices_combo.addItem(f"{first} and {second}", f"{first},{second}")
        index = self.devices_combo.findData(previous)
        self.devices_combo.setCurrentIndex(max(0, index))
        self.devices_combo.blockSignals(False)
        self.devices_combo.setToolTip(
            "Split the run's walkers, chains or populations over several GPUs (one host thread and "
            "stream each; the same numbers as on one device). Pattern search, annealing (async, sync) "
            "and DE split; the others are refused with the reason.")
        self.devices_combo.setEnabled(not self._running)
        self.devices_row.setVisible(count > 1)
        self.devices_label.setVisible(count > 1)
    def _on_algorithm_combo_changed(self, *_args) -> None:
        if self._current_algorithm is not None:
            self._param_values[self._current_algorithm] = self.params_form.values()
            self._param_problem[self._current_algorithm] = self._form_problem
        name = self.algorithm()
        self._current_algorithm = name
        if name is None:
            return
        cls = solvers.get_algorithm(name)
        self.params_form.set_params_class(cls.Params, self._param_values.get(name),
                                          fitted=getattr(cls, "fitted_params", None))
        # values kept from another function (or the algorithm's defaults) follow this one's
        self._form_problem = self._param_problem.get(name)
        self._follow_function_defaults(self.problem())
        self._watch_return_keys()
        self.algorithm_info.setText(getattr(cls, "reference", ""))
        self.sigAlgorithmChanged.emit(name)

    def _select_first_problem(self) -> None:
        model = self.problem_combo.model()
        for row in range(model.rowCount()):
            if model.item(row).data(NAME_ROLE):
                self.problem_combo.setCurrentIndex(row)
                break
        self._on_problem_combo_changed()

    def _on_problem_combo_changed(self, *_args) -> None:
        name = self.problem()
        if not name:
            return
        if name == CUSTOM_ENTRY:
            self.open_custom_editor()
            return
        self._last_problem_row = self.problem_combo.currentIndex()
        definition = get_definition(name)
        self.dim_spin.blockSignals(True)
        if definition.dims:
            self.dim_spin.setRange(min(definition.dims), max(definition.dims))
            accepted = ", ".join(str(d) for d in definition.dims)
            self.dim_spin.setToolTip(f"{definition.title} accepts dimension {accepted}")
        else:
            self.dim_spin.setRange(definition.min_dim, ANY_DIM_LIMIT)
            self.dim_spin.setToolTip(f"{definition.title} accepts any dimension >= {definition.min_dim}")
        # a newly chosen function starts at its own default dimension (set_state restores after)
        self.dim_spin.setValue(definition.default_dim)
        self.dim_spin.blockSignals(False)
        self._follow_function_defaults(name)  # and at its own parameter defaults, where it has any
        self._on_dim_spin_changed()

    def _function_defaults(self, algorithm: str, problem: str | None) -> dict:
        """The algorithm's parameter defaults on `problem` (None: the algorithm's own)."""
        out = {spec.name: spec.default for spec in specs(solvers.get_algorithm(algorithm).Params)}
        return {**out, **(param_defaults(problem, algorithm) if problem else {})}

    def _follow_function_defaults(self, problem: str | None) -> None:
        """Parameters still at the defaults of the function the form followed take `problem`'s
        (ProblemDef.param_defaults, as the dimension takes its default_dim); a value the user chose
        is kept."""
        algorithm, old = self.algorithm(), self._form_problem
        self._form_problem = problem
        if algorithm is None or not problem or problem == old:
            return
        names = set(param_defaults(old, algorithm) if old else {}) | set(param_defaults(problem, algorithm))
        if not names:
            return
        before, after = self._function_defaults(algorithm, old), self._function_defaults(algorithm, problem)
        values = self.params_form.values()
        changes = {name: after[name] for name in names
                   if name in values and values[name] == before[name] and values[name] != after[name]}
        if changes:
            self.params_form.set_values(changes)

    def _on_dim_spin_changed(self, *_args) -> None:
        self.dim_row.clear("error")
        name, dim = self.problem(), self.dim()
        try:
            problem = get_problem(name, dim)
        except ConfigError as exc:
            self.dim_row.show_error(str(exc))
            return
        if landscape_limit(dim):  # the window cannot draw it: said here, before any run
            self.dim_row.show_error(landscape_limit(dim))
            return
        definition = problem.definition
        own = "".join(f"<br>{solvers.get_algorithm(a).title}: "
                      + ", ".join(f"{k} {v}" for k, v in values.items()) + " by default here"
                      for a, values in definition.param_defaults.items())  # ProblemDef.param_defaults
        self.problem_info.setText(
            f"<b>{definition.title}</b> &nbsp; box {describe_box(problem.lower, problem.upper)}<br>"
            f"known minimum f* = {format_number(problem.f_min)} at x* = {describe_point(problem.x_min)}"
            f"{own}<br><i>{definition.source}</i>")
        self.sigProblemChanged.emit(name, dim)

    def _on_params_form_changed(self, name: str, value, live: bool) -> None:
        if self._running and not live:
            self.params_form.row(name).show_note("applies on reset (the next run)")
        self.sigParamChanged.emit(name, value, live)

    @staticmethod
    def _select_data(combo: QtWidgets.QComboBox, data) -> None:
        if data is None:
            return
        index = combo.findData(data, NAME_ROLE)
        if index >= 0:
            combo.setCurrentIndex(index)


class _ReturnKeyFilter(QtCore.QObject):
    """Lets Enter commit a field as usual, then calls back (once the field has handled it)."""

    def __init__(self, callback, parent: QtCore.QObject):
        super().__init__(parent)
        self._callback = callback

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt override
        if (event.type() == QtCore.QEvent.Type.KeyPress
                and event.key() in (QtCore.Qt.Key.Key_Return, QtCore.Qt.Key.Key_Enter)
                and not event.modifiers() & QtCore.Qt.KeyboardModifier.ControlModifier):
            QtCore.QTimer.singleShot(0, self._callback)
        return False


def _info_label(text: str = "") -> QtWidgets.QLabel:
    label = QtWidgets.QLabel(text)
    label.setWordWrap(True)
    label.setStyleSheet("color: #8a8a8a;")
    label.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def _grouped_problem_model(parent: QtCore.QObject) -> QtGui.QStandardItemModel:
    """Functions under non-selectable group headers, in registry order within each group."""
    model = QtGui.QStandardItemModel(parent)  # owned by the combo, so it dies after it
    groups: dict[str, list] = {}
    for definition in problem_definitions():
        groups.setdefault(definition.group, []).append(definition)
    bold = QtGui.QFont()
    bold.setBold(True)
    for group, definitions in groups.items():
        header = QtGui.QStandardItem(group)
        header.setFlags(QtCore.Qt.ItemFlag.NoItemFlags)
        header.setFont(bold)
        model.appendRow(header)
        for definition in definitions:
            item = QtGui.QStandardItem("    " + definition.title)
            item.setData(definition.name, NAME_ROLE)
            item.setToolTip(f"{definition.name}: {definition.source}")
            model.appendRow(item)
    header = QtGui.QStandardItem("Your own")
    header.setFlags(QtCore.Qt.ItemFlag.NoItemFlags)
    header.setFont(bold)
    model.appendRow(header)
    custom = QtGui.QStandardItem("    Custom...")
    custom.setData(CUSTOM_ENTRY, NAME_ROLE)
    custom.setToolTip("type your own f(x) (README: Your own objective)")
    model.appendRow(custom)
    return model


def _fill_engines(combo: QtWidgets.QComboBox) -> None:
    """Every engine; the ones that cannot run here are disabled, the reason in their tooltip."""
    model = QtGui.QStandardItemModel(combo)
    for engine in ENGINES:
        available, reason = engine_status(engine)
        item = QtGui.QStandardItem(engine)
        item.setData(engine, NAME_ROLE)
        item.setToolTip(reason if available else f"unavailable: {reason}")
        if not available:
            item.setFlags(item.flags() & ~QtCore.Qt.ItemFlag.ItemIsEnabled)
        model.appendRow(item)
    combo.setModel(model)
    combo.setCurrentIndex(0)


def _devices_text(devices) -> str | None:
    """A RunConfig's devices as the form's item data ("all", "0,1"), None for one device."""
    if devices is None or isinstance(devices, str):
        return devices
    return ",".join(str(int(d)) for d in devices)
