"""Run configurations as JSON files, and the presets shipped in ``assets/presets``.

How to wire it (GUI "Save/Load configuration" and the preset menu; the CLI alike):
    from solvers import config_io
    config_io.save_config(config, path)                 # RunConfig -> JSON file
    try:
        config = config_io.load_config(path)            # validated RunConfig
    except ConfigError as exc:                          # bad file: one clear line, never a traceback
        show_message(str(exc))
    for name, path, description in config_io.list_presets():
        menu.addAction(name).setToolTip(description)    # then load_config(path)
    meta = config_io.read_meta(path)                    # {"name", "description", "source"} of a file
The file holds ``format``/``version`` plus every RunConfig field; ``params`` may list only the
parameters that differ from the defaults (presets do), loading fills the rest from the algorithm.
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Mapping

from .config import RunConfig
from .atomic_write import atomic_write_text
from .errors import ConfigError

FORMAT = "multiwalk-run"
VERSION = 1
PRESETS_DIR = Path(__file__).resolve().parents[1] / "assets" / "presets"

# Keys a file may hold; anything else is refused so a typo never passes silently.
# "pace": the iterations per second a classroom preset is best watched at (the window's speed
# slider); a run configuration itself has no pace, so the CLI ignores it.
_META_KEYS = ("format", "version", "name", "description", "source", "pace")
_CONFIG_KEYS = ("algorithm", "problem", "dim", "params", "engine", "dtype", "seed", "budget",
                "fast_math", "sample_size", "snapshot_hz", "bounds", "threads", "f_min", "devices")
_BUDGET_KEYS = ("max_evals", "max_iters", "max_seconds")
_REQUIRED = ("algorithm", "problem")


def config_to_dict(config: RunConfig, *, name: str = "", description: str = "",
                   source: str = "") -> dict:
    """A JSON-ready dict of `config` (every parameter written out), with optional metadata."""
    if config.problem_object is not None:
        # a file names its function: loaded, the name would find another callable, an expression's
        # default box or no known minimum in place of the object's own (RunConfig.problem_object)
        raise ConfigError(f"a run of a Problem object ('{config.problem}') cannot be written to a file, "
                          f"which names its function: build the configuration from a name")
    budget = {k: getattr(config.budget, k) for k in _BUDGET_KEYS if getattr(config.budget, k) is not None}
    data: dict[str, Any] = {"format": FORMAT, "version": VERSION}
    for key, value in (("name", name), ("description", description), ("source", source)):
        if value:
            data[key] = value
    data.update({"algorithm": config.algorithm, "problem": config.problem, "dim": config.dim,
                 "engine": config.engine, "dtype": config.dtype, "seed": config.seed,
                 "budget": budget, "params": config.params_dict(), "fast_math": config.fast_math,
                 "sample_size": config.sample_size, "snapshot_hz": config.snapshot_hz})
    if config.bounds is not None:  # the box of an "expr: ..." problem, or a built-in's override
        data["bounds"] = list(config.bounds)
    if config.threads is not None:  # CPU threads of the numba engine (absent: every core)
        data["threads"] = config.threads
    if config.f_min is not None:  # a typed function's known minimum (absent: unknown)
        data["f_min"] = config.f_min
    if config.devices is not None:  # a run split over devices: "all" or their numbers
        data["devices"] = config.devices if isinstance(config.devices, str) else list(config.devices)
    return data


def config_from_dict(data: Any) -> RunConfig:
    """Validate a dict read from a file and build the RunConfig; ConfigError with one line if bad."""
    if not isinstance(data, Mapping):
        raise ConfigError("a run configuration must be a JSON object")
    if data.get("format", FORMAT) != FORMAT:
        raise ConfigError(f"not a Multiwalk run configuration (format '{data.get('format')}')")
    version = data.get("version")
    if version is None:
        raise ConfigError("missing 'version' field")
    if isinstance(version, bool) or not isinstance(version, int) or not 1 <= version <= VERSION:
        raise ConfigError(f"unsupported version {version!r} (this program reads 1 to {VERSION})")
    unknown = [k for k in data if k not in _META_KEYS + _CONFIG_KEYS]
    if unknown:
        raise ConfigError(f"unknown field '{unknown[0]}' (known: {', '.join(_CONFIG_KEYS)})")
    missing = [k for k in _REQUIRED if k not in data]
    if missing:
        raise ConfigError(f"missing '{missing[0]}' field")
    for key in ("algorithm", "problem", "engine", "dtype"):
        if key in data and not isinstance(data[key], str):
            raise ConfigError(f"'{key}' must be a string, got {data[key]!r}")
    params = data.get("params") or {}
    if not isinstance(params, Mapping):
        raise ConfigError("'params' must be an object of name: value")
    budget = data.get("budget") or {}
    if not isinstance(budget, Mapping):
        raise ConfigError("'budget' must be an object with max_evals, max_iters or max_seconds")
    bad = [k for k in budget if k not in _BUDGET_KEYS]
    if bad:
        raise ConfigError(f"unknown budget field '{bad[0]}' (known: {', '.join(_BUDGET_KEYS)})")
    options = {k: data[k] for k in ("engine", "dtype", "seed", "fast_math", "sample_size",
                                    "snapshot_hz", "threads", "f_min", "devices") if k in data}
    if "fast_math" in options and not isinstance(options["fast_math"], bool):
        raise ConfigError(f"'fast_math' must be true or false, got {options['fast_math']!r}")
    for key in ("sample_size", "snapshot_hz"):
        value = options.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                                  or not math.isfinite(value)):
            raise ConfigError(f"'{key}' must be a number, got {value!r}")
    bounds = data.get("bounds")
    if bounds is not None and (not isinstance(bounds, list) or len(bounds) != 2):
        raise ConfigError(f"'bounds' must be [lower, upper], got {bounds!r}")
    return RunConfig.build(data["algorithm"], data["problem"], data.get("dim"), params=dict(params),
                           **{k: budget.get(k) for k in _BUDGET_KEYS}, bounds=bounds, **options)


def save_config(config: RunConfig, path: str | Path, *, name: str = "", description: str = "",
                source: str = "") -> Path:
    """Write `config` as JSON (UTF-8, indented); returns the path written."""
    path = Path(path)
    text = json.dumps(config_to_dict(config, name=name, description=description, source=source),
                      indent=2)
    return atomic_write_text(path, text + "\n")


def _read_json(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8-sig")  # a byte-order mark (Notepad) is no JSON error
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path.name}: not a text file") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path.name}: not valid JSON ({exc.msg} at line {exc.lineno}, "
                          f"column {exc.colno})") from None
    except RecursionError:
        raise ConfigError(f"{path.name}: nested too deeply to be a run configuration") from None
    except ValueError as exc:  # e.g. an integer of more than 4300 digits
        raise ConfigError(f"{path.name}: not a usable JSON file ({exc})") from None


def load_config(path: str | Path) -> RunConfig:
    """Read and validate a configuration file; ConfigError naming the file on any problem."""
    path = Path(path)
    data = _read_json(path)
    try:
        return config_from_dict(data)
    except ConfigError as exc:
        raise ConfigError(f"{path.name}: {exc}") from None


def read_meta(path: str | Path) -> dict:
    """The file's name/description/source (the file stem and empty strings where absent) and
    pace (iterations per second to watch it at; None: full speed)."""
    path = Path(path)
    data = _read_json(path)
    if not isinstance(data, Mapping):
        raise ConfigError(f"{path.name}: a run configuration must be a JSON object")
    return {"name": str(data.get("name") or path.stem.replace("_", " ")),
            "description": str(data.get("description") or ""),
            "source": str(data.get("source") or ""), "pace": _pace(data.get("pace"), path)}


def _pace(value: Any, path: Path) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < math.inf:
        raise ConfigError(f"{path.name}: 'pace' must be a positive number of iterations per second, "
                          f"got {value!r}")
    return float(value)


def list_presets(directory: str | Path | None = None) -> list[tuple[str, Path, str]]:
    """(name, path, description) of every preset, sorted by file name; unreadable files skipped.

    Skipping keeps a menu usable if one file is broken; tests/test_presets.py loads every file
    strictly, so a broken preset still fails CI.
    """
    directory = Path(directory) if directory is not None else PRESETS_DIR
    out = []
    for path in sorted(directory.glob("*.json")):
        try:
            meta = read_meta(path)
        except ConfigError:
            continue
        out.append((meta["name"], path, meta["description"]))
    return out
