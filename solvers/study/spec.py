"""A study file: runs as a product (algorithms x functions x dims x seeds x parameter sets x engines x
dtypes x budgets), validated as a whole before anything starts.

Each run is a plain dict (JSON types only, so it crosses to any Dask worker unchanged) and carries
``key``: a stable hash of everything that decides its result, which ``--resume`` uses to skip it.
"""
from __future__ import annotations

import hashlib
import itertools
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from ..config import RunConfig
from ..errors import ConfigError

KEYS = {"algorithms", "functions", "dims", "seeds", "params", "engines", "engine", "dtypes", "dtype",
        "budgets", "budget", "bounds", "output", "task_seconds"}
BUDGET_KEYS = ("max_evals", "max_iters", "max_seconds")
# Every run is built and checked before the study starts (about 0.15 ms each, and a dict kept for
# the whole study): a grid past this is refused from its size, before any run is built (a 'seeds'
# count of 1e9 used to fill memory in the check and a million runs took minutes with no word).
MAX_RUNS = 100_000


@dataclass(frozen=True)
class Study:
    """A validated study: its runs in a fixed order, and where its table goes (None: caller says)."""

    runs: tuple[dict, ...]
    output: Path | None
    task_seconds: float = 2.0


def run_key(run: Mapping[str, Any]) -> str:
    """Stable across processes and machines: sorted-key JSON of the run's configuration."""
    fields = {k: run[k] for k in ("algorithm", "function", "dim", "seed", "params", "engine", "dtype",
                                  "budget", "bounds")}
    return hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()[:16]


def load_study(source: str | Path | Mapping) -> Study:
    """A Study from a JSON file or an already parsed mapping; ConfigError (one line) if anything is wrong."""
    base = None
    if not isinstance(source, Mapping):
        path = Path(source)
        try:
            text = path.read_text(encoding="utf-8-sig")  # a byte-order mark (Notepad) is no JSON error
        except OSError as exc:
            raise ConfigError(f"cannot read study file {path}: {exc.strerror or exc}") from None
        except UnicodeDecodeError:
            raise ConfigError(f"{path} is not a UTF-8 text file") from None
        try:
            source = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{path} is not valid JSON: {exc.msg} (line {exc.lineno})") from None
        # what the JSON parser refuses beyond syntax (as config_io's reader does)
        except RecursionError:
            raise ConfigError(f"{path}: nested too deeply to be a study file") from None
        except ValueError as exc:  # e.g. an integer of more than 4300 digits
            raise ConfigError(f"{path}: not a usable JSON file ({exc})") from None
        base = path.parent
        if not isinstance(source, Mapping):
            raise ConfigError(f"{path}: a study file holds one JSON object")
    unknown = sorted(set(source) - KEYS)
    if unknown:
        raise ConfigError(f"unknown study key '{unknown[0]}' (known: {', '.join(sorted(KEYS))})")
    for one, many in (("engine", "engines"), ("dtype", "dtypes"), ("budget", "budgets")):
        if one in source and many in source:
            raise ConfigError(f"give '{one}' or '{many}', not both")

    algorithms = _names(source, "algorithms", required=True)
    functions = _names(source, "functions", required=True)
    dims = _list(source, "dims", [None])
    for d in dims:
        if d is not None and (isinstance(d, bool) or not isinstance(d, int) or d < 1):
            raise ConfigError(f"dims must hold integers >= 1 (or null for the function's own), got {d!r}")
    seeds = source.get("seeds", [0])
    if isinstance(seeds, int) and not isinstance(seeds, bool):
        if seeds < 1:
            raise ConfigError(f"seeds as a count must be >= 1, got {seeds}")
        if seeds > MAX_RUNS:
            raise ConfigError(f"seeds as a count must be at most {MAX_RUNS:,} (a study's runs), got {seeds:,}")
        seeds = list(range(seeds))
    seeds = _list({"seeds": seeds}, "seeds", [0])
    engines = _list(source, "engines", None) or [source.get("engine", "numpy")]
    dtypes = _list(source, "dtypes", None) or [source.get("dtype", "float64")]
    budgets = _list(source, "budgets", None) or [source.get("budget", {})]
    for b in budgets:
        if not isinstance(b, Mapping) or set(b) - set(BUDGET_KEYS):
            raise ConfigError(f"a budget is an object with {', '.join(BUDGET_KEYS)}, got {b!r}")
    param_sets = _param_sets(source.get("params", [{}]), algorithms)
    bounds = source.get("bounds")
    task_seconds = source.get("task_seconds", 2.0)
    # finite: JSON's Infinity and NaN passed '<= 0' and failed at the first batch (int(inf))
    if isinstance(task_seconds, bool) or not isinstance(task_seconds, (int, float)) \
            or not math.isfinite(task_seconds) or task_seconds <= 0:
        raise ConfigError(f"task_seconds must be a finite number > 0, got {task_seconds!r}")
    total = sum(len(param_sets[a]) for a in algorithms) * len(functions) * len(dims) * len(engines) \
        * len(dtypes) * len(budgets) * len(seeds)
    if total > MAX_RUNS:
        raise ConfigError(f"the study holds {total:,} runs, more than {MAX_RUNS:,}: "
                          "split it into several study files")

    runs, seen = [], set()
    for algorithm, function, dim, engine, dtype, budget, seed in itertools.product(
            algorithms, functions, dims, engines, dtypes, budgets, seeds):
        for params in param_sets[algorithm]:
            where = f"run {len(runs) + 1} ({algorithm} on {function}" + (f", d={dim}" if dim else "") + ")"
            try:
                cfg = RunConfig.build(algorithm, function, dim, params=params, engine=engine, dtype=dtype,
                                      seed=seed, sample_size=1, bounds=bounds, **budget)
            except ConfigError as exc:
                raise ConfigError(f"{where}: {exc}") from None
            run = {"algorithm": algorithm, "function": function, "dim": cfg.dim, "seed": cfg.seed,
                   "params": cfg.params_dict(), "engine": engine, "dtype": dtype,
                   "budget": {k: getattr(cfg.budget, k) for k in BUDGET_KEYS},
                   "bounds": list(cfg.bounds) if cfg.bounds else None}
            run["key"] = run_key(run)
            if run["key"] in seen:
                raise ConfigError(f"{where} repeats an earlier run (same configuration and seed)")
            seen.add(run["key"])
            runs.append(run)
    output = source.get("output")
    if output is not None:
        if not isinstance(output, str) or not output.strip():
            raise ConfigError(f"output must be a file name, got {output!r}")
        output = (base / output) if base is not None and not Path(output).is_absolute() else Path(output)
    return Study(tuple(runs), output, float(task_seconds))


def config_of(run: Mapping[str, Any]) -> RunConfig:
    """The RunConfig of one study run (on a worker: validated again, so a stale worker fails loudly)."""
    return RunConfig.build(run["algorithm"], run["function"], run["dim"], params=run["params"],
                           engine=run["engine"], dtype=run["dtype"], seed=run["seed"], sample_size=1,
                           bounds=tuple(run["bounds"]) if run["bounds"] else None, **run["budget"])


def _list(source: Mapping, key: str, default) -> list:
    value = source.get(key, default)
    if value is None:
        return value
    if not isinstance(value, list) or not value:
        raise ConfigError(f"'{key}' must be a non-empty list, got {value!r}")
    return value


def _names(source: Mapping, key: str, required: bool) -> list[str]:
    if required and key not in source:
        raise ConfigError(f"the study needs '{key}' (a list of names; 'main.py list' shows them)")
    names = _list(source, key, None)
    if not all(isinstance(n, str) for n in names):
        raise ConfigError(f"'{key}' must be a list of names, got {names!r}")
    return names


def _param_sets(value, algorithms: list[str]) -> dict[str, list[dict]]:
    """A list of sets for every algorithm, or {algorithm: [sets]} (missing algorithms: defaults)."""
    if isinstance(value, Mapping) and all(isinstance(v, list) for v in value.values()) and value:
        unknown = [a for a in value if a not in algorithms]
        if unknown:
            raise ConfigError(f"params names '{unknown[0]}', which is not in the study's algorithms")
        sets = {a: value.get(a, [{}]) for a in algorithms}
    elif isinstance(value, list) and value:
        sets = {a: value for a in algorithms}
    else:
        raise ConfigError("'params' must be a list of parameter sets, or {algorithm: [sets]}")
    for a, lst in sets.items():
        if not lst or not all(isinstance(p, Mapping) for p in lst):
            raise ConfigError(f"parameter sets of {a} must be a non-empty list of objects, got {lst!r}")
    return sets
