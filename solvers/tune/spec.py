"""A tuning grid: one or two of an algorithm's declared numeric parameters, each over a range.

An axis is written ``name=lo:hi:n`` (n values from lo to hi, linear) or ``name=lo:hi:n:log``
(geometric). Everything is checked against the parameter's declaration (solvers/params.py) before
anything runs; a bad axis raises ConfigError with one line.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from ..errors import ConfigError
from ..params import ParamSpec, specs

MAX_AXES = 2
MAX_POINTS = 1024  # values on one axis (the window's map shows at most 32)
MAX_SEEDS = 4096
MAX_GROUPS = 2**20  # settings x seeds: independent runs in one grid


@dataclass(frozen=True)
class Axis:
    """One varied parameter and its values (ints for int parameters), in increasing order."""

    name: str
    lo: float
    hi: float
    points: int
    log: bool
    values: tuple

    def label(self) -> str:
        return f"{self.name}={self.lo:g}:{self.hi:g}:{self.points}{':log' if self.log else ''}"


def _number(text: str, what: str, spec_text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ConfigError(f"grid '{spec_text}': {what} must be a number, got '{text}'") from None
    if not math.isfinite(value):
        raise ConfigError(f"grid '{spec_text}': {what} must be finite, got '{text}'")
    return value


def split_axis(text: str) -> tuple[str, float, float, int, bool]:
    """(name, lo, hi, points, log) of ``name=lo:hi:n[:log]``; ConfigError on bad syntax."""
    name, sep, rest = str(text).partition("=")
    name = name.strip()
    if not sep or not name:
        raise ConfigError(f"grid '{text}': expected NAME=LO:HI:N or NAME=LO:HI:N:log")
    parts = [p.strip() for p in rest.split(":")]
    log = False
    if len(parts) == 4:
        if parts[3].lower() not in ("log", "lin"):
            raise ConfigError(f"grid '{text}': the 4th field must be 'log' or 'lin', got '{parts[3]}'")
        log = parts[3].lower() == "log"
        parts = parts[:3]
    if len(parts) != 3:
        raise ConfigError(f"grid '{text}': expected NAME=LO:HI:N or NAME=LO:HI:N:log")
    lo = _number(parts[0], "the lower end", text)
    hi = _number(parts[1], "the upper end", text)
    try:
        points = int(parts[2])
    except ValueError:
        raise ConfigError(f"grid '{text}': the number of values must be an integer, got '{parts[2]}'") from None
    return name, lo, hi, points, log


def tunable(algorithm_cls, variant=None) -> dict[str, str]:
    """name -> "" for the parameters a grid may vary, or the reason it may not."""
    out = {}
    structural = getattr(algorithm_cls, "structural_params", {})
    for s in specs(algorithm_cls.Params):
        if s.kind not in (int, float):
            out[s.name] = "only numeric parameters can be a grid axis"
        elif s.name in structural:
            out[s.name] = structural[s.name]
        elif s.auto:
            out[s.name] = "it is sized from the budget ('auto'); set it with --param"
        else:
            out[s.name] = ""
    return out


def build_axis(text: str, algorithm_cls) -> Axis:
    """Parse and check one axis against `algorithm_cls`'s declared parameters."""
    name, lo, hi, points, log = split_axis(text)
    by_name: dict[str, ParamSpec] = {s.name: s for s in specs(algorithm_cls.Params)}
    spec = by_name.get(name)
    if spec is None:
        raise ConfigError(f"grid '{text}': {algorithm_cls.name} has no parameter '{name}' "
                          f"(grid axes: {', '.join(n for n, why in tunable(algorithm_cls).items() if not why)})")
    why = tunable(algorithm_cls)[name]
    if why:
        raise ConfigError(f"grid '{text}': '{name}' cannot be a grid axis: {why}")
    if not 1 <= points <= MAX_POINTS:
        raise ConfigError(f"grid '{text}': the number of values must be from 1 to {MAX_POINTS}, got {points}")
    if hi < lo:
        raise ConfigError(f"grid '{text}': inverted range (upper end {hi:g} below lower end {lo:g})")
    if points > 1 and hi == lo:
        raise ConfigError(f"grid '{text}': empty range ({points} values from {lo:g} to {hi:g})")
    if points == 1 and hi != lo:
        raise ConfigError(f"grid '{text}': one value needs LO = HI (or give more values)")
    for end in (lo, hi):
        try:
            spec.coerce(end) if spec.kind is float else spec.coerce(int(round(end)))
        except ConfigError as exc:
            raise ConfigError(f"grid '{text}': {exc}") from None
    if log and lo <= 0:
        raise ConfigError(f"grid '{text}': a log axis needs a lower end above 0, got {lo:g}")
    raw = np.geomspace(lo, hi, points) if log else np.linspace(lo, hi, points)
    if spec.kind is int:
        values = tuple(int(v) for v in np.unique(np.round(raw).astype(np.int64)))
        if len(values) != points:
            raise ConfigError(f"grid '{text}': '{name}' is an integer and the range holds only "
                              f"{len(values)} distinct values for {points} points")
    else:
        values = tuple(float(v) for v in raw)
        values = (float(lo),) + values[1:-1] + ((float(hi),) if points > 1 else ())
    return Axis(name=name, lo=lo, hi=hi, points=points, log=log, values=values)


@dataclass(frozen=True)
class Grid:
    """The axes (1 or 2) and the seeds of each setting; settings vary the last axis fastest."""

    axes: tuple[Axis, ...]
    seeds: tuple[int, ...]

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(a.points for a in self.axes)

    @property
    def settings(self) -> list[dict]:
        names = [a.name for a in self.axes]
        return [dict(zip(names, combo)) for combo in itertools.product(*(a.values for a in self.axes))]

    @property
    def groups(self) -> int:
        return math.prod(self.shape) * len(self.seeds)

    def pairs(self) -> list[tuple[int, dict, int]]:
        """(setting index, setting, seed) of every run, setting after setting: group g is
        setting g // seeds, seed g % seeds (the order of the groups in a batch)."""
        return [(i, setting, seed) for i, setting in enumerate(self.settings) for seed in self.seeds]


def build_grid(axis_texts, algorithm_cls, seeds: int, first_seed: int = 0) -> Grid:
    """Checked Grid of 1-2 axes and `seeds` seeds (first_seed, first_seed + 1, ...)."""
    if isinstance(axis_texts, str):
        axis_texts = [axis_texts]
    try:  # tune(..., grid=None) raised "TypeError: 'NoneType' object is not iterable"
        axis_texts = list(axis_texts)
    except TypeError:
        raise ConfigError(f"grid must be an axis 'NAME=LO:HI:N' or a list of one or two, "
                          f"got {type(axis_texts).__name__}") from None
    if not 1 <= len(axis_texts) <= MAX_AXES:
        raise ConfigError(f"give one or two grid axes (--grid NAME=LO:HI:N), got {len(axis_texts)}")
    axes = tuple(build_axis(t, algorithm_cls) for t in axis_texts)
    if len(axes) == 2 and axes[0].name == axes[1].name:
        raise ConfigError(f"grid: parameter '{axes[0].name}' is given twice")
    if isinstance(seeds, bool) or not isinstance(seeds, (int, np.integer)) or not 1 <= seeds <= MAX_SEEDS:
        raise ConfigError(f"seeds must be an integer from 1 to {MAX_SEEDS}, got {seeds!r}")
    if isinstance(first_seed, bool) or not isinstance(first_seed, (int, np.integer)) \
            or not 0 <= first_seed < 2**63 - MAX_SEEDS:
        raise ConfigError(f"the first seed must be an integer in [0, 2^63 - {MAX_SEEDS}), got {first_seed!r}")
    grid = Grid(axes=axes, seeds=tuple(range(int(first_seed), int(first_seed) + int(seeds))))
    if grid.groups > MAX_GROUPS:
        raise ConfigError(f"the grid has {' x '.join(map(str, grid.shape))} settings x {seeds} seeds = "
                          f"{grid.groups:,} runs; at most {MAX_GROUPS:,} (2^20)")
    return grid
