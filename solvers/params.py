"""Declared algorithm parameters.

Every algorithm has a frozen ``...Params`` dataclass whose fields are made with :func:`param`.
The metadata (limits, step, title, tip, whether it can change mid-run) is the single source the
CLI, the GUI form and the tests read; nothing else holds parameter limits.
"""
from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from .errors import ConfigError

_META_KEY = "multiwalk"
# The most points one run holds (walkers or chains; walkers x groups for swarms and populations):
# the walkers parameters' upper limit, and the sweep's largest walker count.
MAX_WALKERS = 2**24
AUTO = "auto"  # how an int parameter's 0 is written when the algorithm chooses it (ParamSpec.auto)


@dataclass(frozen=True)
class ParamSpec:
    """What the GUI and CLI need to know about one parameter."""

    name: str
    default: Any
    kind: type  # int, float, bool or str (str means one of `choices`)
    lo: float | None
    hi: float | None
    step: float | None
    title: str
    tip: str
    choices: tuple[str, ...] | None
    live: bool  # True: may change between chunks of a running run; False: applies on reset
    auto: bool = False  # int fields only: 0 (written "auto") lets the algorithm choose from the budget
    # The values of the Params' ``variant`` field this parameter applies to; None: every variant.
    # The form disables a parameter that does not apply, so an edit that changes nothing is refused.
    variants: tuple[str, ...] | None = None

    def applies_to(self, variant: Any) -> bool:
        """True if this parameter has an effect under `variant` (always, when none is declared)."""
        return self.variants is None or variant in self.variants

    def coerce(self, value: Any) -> Any:
        """Convert `value` (a string from the CLI or a widget value) and check it; ConfigError if bad."""
        name = self.name
        if self.kind is bool:
            if isinstance(value, str):
                low = value.strip().lower()
                if low in ("1", "true", "yes", "on"):
                    return True
                if low in ("0", "false", "no", "off"):
                    return False
                raise ConfigError(f"parameter '{name}' must be true or false, got '{value}'")
            if isinstance(value, (bool, int)) and value in (0, 1):
                return bool(value)
            raise ConfigError(f"parameter '{name}' must be true or false, got {value!r}")
        if self.kind is str:
            text = str(value).strip()
            if self.choices and text not in self.choices:
                raise ConfigError(
                    f"parameter '{name}' must be one of {', '.join(self.choices)}; got '{text}'")
            return text
        if self.kind is int and self.auto and (value == 0 or str(value).strip().lower() == AUTO):
            return 0
        if self.kind is int:
            try:
                if isinstance(value, bool):
                    raise ValueError
                if isinstance(value, str):
                    number = float(value.strip())
                else:
                    number = float(value)
                if not math.isfinite(number) or number != int(number):
                    raise ValueError
                out: Any = int(number)
            except (TypeError, ValueError, OverflowError):
                raise ConfigError(f"parameter '{name}' must be an integer, got {_brief(value)}") from None
        else:
            try:
                if isinstance(value, bool):
                    raise ValueError
                out = float(value.strip()) if isinstance(value, str) else float(value)
            except (TypeError, ValueError, OverflowError):
                raise ConfigError(f"parameter '{name}' must be a number, got {_brief(value)}") from None
            if not math.isfinite(out):
                raise ConfigError(f"parameter '{name}' must be a finite number, got {value!r}")
        if (self.lo is not None and out < self.lo) or (self.hi is not None and out > self.hi):
            raise ConfigError(
                f"parameter '{name}' must be in [{_fmt(self.lo)}, {_fmt(self.hi)}], got {_fmt(out)}")
        return out


def _brief(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:30] + f"... ({len(text)} characters)"


def _fmt(x: float | None) -> str:
    if x is None:
        return "inf"
    return f"{x:g}" if isinstance(x, float) else str(x)


def param(default: Any, *, title: str, tip: str, lo: float | None = None, hi: float | None = None,
          step: float | None = None, choices: Sequence[str] | None = None, live: bool = False,
          variants: Sequence[str] | None = None, auto: bool = False):
    """A dataclass field carrying its limits and help; use inside a frozen Params dataclass.

    `variants`: the values of the class's ``variant`` field under which this parameter is used.
    ``auto=True`` (int fields, default 0): 0 means "auto", resolved by the algorithm's ``plan``."""
    meta = {"lo": lo, "hi": hi, "step": step, "title": title, "tip": tip,
            "choices": tuple(choices) if choices else None, "live": live,
            "variants": tuple(variants) if variants else None, "auto": auto}
    return dataclasses.field(default=default, metadata={_META_KEY: meta})


@functools.cache  # asked on every solver build (its "auto" fields); a class's fields never change
def specs(params_cls: type) -> tuple[ParamSpec, ...]:
    """The declared parameters of a Params dataclass, in declaration order."""
    out = []
    for f in dataclasses.fields(params_cls):
        meta = f.metadata.get(_META_KEY)
        if meta is None:
            continue
        default = f.default
        kind = bool if isinstance(default, bool) else int if isinstance(default, int) else (
            float if isinstance(default, float) else str)
        out.append(ParamSpec(name=f.name, default=default, kind=kind, **meta))
    return tuple(out)


def make_params(params_cls: type, values: Mapping[str, Any] | None = None, base: Any = None):
    """Build a validated Params instance from defaults (or `base`) plus `values`.

    Unknown names and values out of range raise ConfigError with one clear line.
    """
    by_name = {s.name: s for s in specs(params_cls)}
    current = dataclasses.asdict(base) if base is not None else {n: s.default for n, s in by_name.items()}
    for key, value in (values or {}).items():
        spec = by_name.get(key)
        if spec is None:
            known = ", ".join(by_name) or "none"
            raise ConfigError(f"unknown parameter '{key}' (known: {known})")
        current[key] = spec.coerce(value)
    instance = params_cls(**current)
    check = getattr(instance, "check", None)
    if check is not None:
        check()  # cross-field rules, raising ConfigError
    return instance


def refuse_unused(params: Any, given: Mapping[str, Any] | None,
                  fitted: Mapping[str, tuple[str, str, str]] | None = None,
                  defaults: Mapping[str, Any] | None = None) -> None:
    """ConfigError for a parameter in `given` that `params` (the run's, built from it) leaves unused:
    one declared for other variants, at a value other than its default. Without this, run() and the
    CLI went on as if it had not been given while the result listed it (omega=0.2 under spso2011).
    The default passes, so a full parameter set (a result's ``params``) can be given back.
    `fitted`: the algorithm's ``fitted_params`` (name -> (field, value under which the run replaces
    it by a fitted one, value under which it is used)): annealing's '-p t0=1' under the default
    schedule auto was likewise dropped without a word (the run reported t0=1.9e4); refused where
    the field was not given (given with it, as a result's params are, it passes). `defaults`: the
    function's own defaults for the algorithm (problems.param_defaults), which pass as the
    algorithm's do (Shekel's hybrid_base=async is in a result's params under variant async)."""
    variant = getattr(params, "variant", None)
    by_name = {s.name: s for s in specs(type(params))}
    for key in given or {}:
        spec = by_name[key]
        if not spec.applies_to(variant) and getattr(params, key) != (defaults or {}).get(key, spec.default):
            raise ConfigError(f"parameter '{key}' has no effect under variant {variant}; it applies to "
                              f"{', '.join(spec.variants)} (give variant={spec.variants[0]} or leave it out)")
        # only where that field was left at its default: a result's params (schedule auto with the
        # fitted t0 it reports) still go back as they are
        field, fitted_value, given_value = (fitted or {}).get(key, (None, None, None))
        if (field is not None and field not in given and getattr(params, field) == fitted_value
                and getattr(params, key) != spec.default):
            raise ConfigError(f"parameter '{key}' has no effect under {field} {fitted_value}, the default "
                              f"(the run fits it to the budget); give {field}={given_value} or leave it out")


def changed_fields(old: Any, new: Any) -> dict[str, tuple[Any, Any]]:
    """Fields whose values differ between two Params instances of one class."""
    return {f.name: (getattr(old, f.name), getattr(new, f.name))
            for f in dataclasses.fields(old) if getattr(old, f.name) != getattr(new, f.name)}
