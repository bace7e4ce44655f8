"""A tuning set-up as a JSON file (the window's Save / Load set-up and its tuning presets).

A file holds the run configuration every grid run starts from (algorithm, function, dimension,
the other parameters, engine, precision, first seed and the budget PER RUN, exactly as a
``multiwalk-run`` file writes them), the one or two axes (``name=lo:hi:n[:log]``), the seeds per
setting and the success tolerance:

    {"format": "multiwalk-tune", "version": 1, "name": ..., "description": ..., "source": ...,
     "setup": {<a multiwalk-run configuration>}, "axes": ["F=0.1:1.2:12", "Cr=0:1:12"],
     "seeds": 4, "tolerance": 1e-4}

Loading checks everything a grid would check before it runs, so a bad file is refused with one
line. The presets shipped in ``assets/presets/tune`` (one per seed paper) are such files.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from .. import config_io
from ..algorithms import get_algorithm
from ..atomic_write import atomic_write_text
from ..config import RunConfig
from ..errors import ConfigError
from ..params import specs
from .spec import build_grid

FORMAT = "multiwalk-tune"
VERSION = 1
PRESETS_DIR = config_io.PRESETS_DIR / "tune"
_KEYS = ("format", "version", "name", "description", "source", "setup", "axes", "seeds", "tolerance")
DEFAULT_TOLERANCE = 1e-4  # success: best_f - f_min at most this (solvers.tune.DEFAULT_TOLERANCE)


def tune_arguments(config: RunConfig, axes: Sequence[str], seeds: int,
                   tolerance: float = DEFAULT_TOLERANCE) -> dict:
    """``solvers.tune.prepare``'s arguments for a grid over `axes` starting from `config`: its
    budget is each run's, its seed the first seed, its engine the grid's. Parameters left at their
    defaults are not fixed, so a grid may switch a variant its axes need (prepare says so)."""
    cls = get_algorithm(config.algorithm)
    declared = {s.name: s for s in specs(cls.Params)}
    names = {str(a).partition("=")[0].strip() for a in axes}
    params = {k: v for k, v in config.params_dict().items()
              if k not in names and k in declared and v != declared[k].default}
    budget = config.budget
    # a set-up built from a Problem object runs that object (RunConfig.problem_object), not its name
    problem = config.problem_object if config.problem_object is not None else config.problem
    return dict(algorithm=config.algorithm, problem=problem, grid=list(axes), seeds=seeds,
                first_seed=config.seed, dim=config.dim, engine=config.engine,
                max_evals=budget.max_evals, max_iters=budget.max_iters, params=params,
                dtype=config.dtype, tolerance=tolerance, fast_math=config.fast_math,
                bounds=config.bounds, threads=config.threads, f_min=config.f_min)


def setting_config(config: RunConfig, table, setting: int) -> RunConfig:
    """`config` (the set-up a grid started from) with cell `setting`'s parameters: one run of it
    with the first seed is the grid's run of that setting and seed (clicking a cell loads this)."""
    data = config_io.config_to_dict(config)
    data["params"] = {**data["params"], **table.setting_params(setting)}
    return config_io.config_from_dict(data)


@dataclass(frozen=True)
class TuneSetup:
    """What a tuning set-up file holds; ``arguments()`` are prepare's."""

    config: RunConfig
    axes: tuple[str, ...]
    seeds: int = 4
    tolerance: float = DEFAULT_TOLERANCE
    name: str = ""
    description: str = ""
    source: str = ""

    def arguments(self) -> dict:
        return tune_arguments(self.config, self.axes, self.seeds, self.tolerance)

    def to_dict(self) -> dict:
        data: dict[str, Any] = {"format": FORMAT, "version": VERSION}
        for key in ("name", "description", "source"):
            if getattr(self, key):
                data[key] = getattr(self, key)
        data.update({"setup": config_io.config_to_dict(self.config), "axes": list(self.axes),
                     "seeds": self.seeds, "tolerance": self.tolerance})
        return data


def setup_from_dict(data: Any) -> TuneSetup:
    """Validate a dict read from a file (axes checked against the algorithm); ConfigError if bad."""
    if not isinstance(data, Mapping):
        raise ConfigError("a tuning set-up must be a JSON object")
    if data.get("format") != FORMAT:
        raise ConfigError(f"not a Multiwalk tuning set-up (format '{data.get('format')}', "
                          f"expected '{FORMAT}')")
    version = data.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or not 1 <= version <= VERSION:
        raise ConfigError(f"unsupported version {version!r} (this program reads 1 to {VERSION})")
    unknown = [k for k in data if k not in _KEYS]
    if unknown:
        raise ConfigError(f"unknown field '{unknown[0]}' (known: {', '.join(_KEYS)})")
    for key in ("setup", "axes"):
        if key not in data:
            raise ConfigError(f"missing '{key}' field")
    try:
        config = config_io.config_from_dict(data["setup"])
    except ConfigError as exc:
        raise ConfigError(f"'setup': {exc}") from None
    axes = data["axes"]
    if isinstance(axes, str) or not isinstance(axes, list) or not all(isinstance(a, str) for a in axes):
        raise ConfigError(f"'axes' must be a list of 'NAME=LO:HI:N[:log]' strings, got {axes!r}")
    seeds = data.get("seeds", 4)
    tolerance = data.get("tolerance", DEFAULT_TOLERANCE)
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) \
            or not math.isfinite(tolerance) or tolerance < 0:
        raise ConfigError(f"'tolerance' must be a finite number >= 0, got {tolerance!r}")
    if config.budget.max_evals is None and config.budget.max_iters is None:
        raise ConfigError("'setup' needs a budget per run in evaluations or iterations (max_evals or max_iters)")
    build_grid(axes, get_algorithm(config.algorithm), seeds, config.seed)  # one clear line if bad
    return TuneSetup(config=config, axes=tuple(axes), seeds=int(seeds), tolerance=float(tolerance),
                     name=str(data.get("name") or ""), description=str(data.get("description") or ""),
                     source=str(data.get("source") or ""))


def save_setup(setup: TuneSetup, path: str | Path) -> Path:
    """Write `setup` as JSON (atomically: a failure keeps any old file)."""
    return atomic_write_text(Path(path), json.dumps(setup.to_dict(), indent=2) + "\n")


def load_setup(path: str | Path) -> TuneSetup:
    """Read and validate a tuning set-up file; ConfigError naming the file on any problem."""
    path = Path(path)
    data = config_io._read_json(path)
    try:
        setup = setup_from_dict(data)
    except ConfigError as exc:
        raise ConfigError(f"{path.name}: {exc}") from None
    return setup if setup.name else TuneSetup(**{**vars(setup), "name": path.stem.replace("_", " ")})


def list_presets(directory: str | Path | None = None) -> list[tuple[str, Path, str]]:
    """(name, path, description) of every tuning preset, sorted by file name; unreadable ones
    skipped (tests/test_tune_setup.py loads each strictly, so a broken preset fails CI)."""
    directory = Path(directory) if directory is not None else PRESETS_DIR
    out = []
    for path in sorted(directory.glob("*.json")):
        try:
            setup = load_setup(path)
        except ConfigError:
            continue
        out.append((setup.name, path, setup.description))
    return out
