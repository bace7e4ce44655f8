"""A tuning grid's results: one row per run, reduced to one cell per setting; CSV and JSON."""
from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass, field

import numpy as np

from ..atomic_write import atomic_write_text
from .spec import Grid


@dataclass(frozen=True)
class TuneRow:
    """One (setting, seed) run: its final best value, evaluations and time.

    ``seconds``: on the batched path all runs share one launch, and each row carries the batch's
    time divided by its runs; on the one-run-at-a-time path, the run's own compute time.
    ``reached_at``: the run's evaluations when its best first got within the tolerance of f_min
    (at the end of that iteration), None if it never did or f_min is unknown."""

    setting: int
    params: dict
    seed: int
    best_f: float
    evals: int
    seconds: float
    reached_at: int | None = None


@dataclass(frozen=True)
class Cell:
    """The seeds of one setting, summarised: spread of the final errors and success."""

    setting: int
    params: dict
    runs: int
    median: float  # final error best_f - f_min (best_f where f_min is unknown)
    q1: float
    q3: float
    best: float
    worst: float
    success_rate: float | None  # share of seeds within the tolerance of f_min; None: f_min unknown
    evals_to_tolerance: float | None  # median over the seeds that got there; None: none did


def final_error(best_f: float, f_min: float | None) -> float:
    """best_f - f_min (clipped at 0 against rounding), or best_f where the minimum is unknown."""
    return best_f if f_min is None else max(0.0, best_f - f_min)


def reduce_cells(rows: list[TuneRow], grid: Grid, f_min: float | None, tolerance: float) -> list[Cell]:
    """One Cell per setting of `grid` that has rows (settings without rows are left out)."""
    by_setting: dict[int, list[TuneRow]] = {}
    for row in rows:
        by_setting.setdefault(row.setting, []).append(row)
    settings = grid.settings
    cells = []
    for index in sorted(by_setting):
        runs = by_setting[index]
        errors = np.array([final_error(r.best_f, f_min) for r in runs], dtype=np.float64)
        q1, median, q3 = (float(v) for v in np.quantile(errors, [0.25, 0.5, 0.75]))
        reached = [r.reached_at for r in runs if r.reached_at is not None]
        cells.append(Cell(setting=index, params=settings[index], runs=len(runs), median=median,
                          q1=q1, q3=q3, best=float(errors.min()), worst=float(errors.max()),
                          success_rate=None if f_min is None else float(np.mean(errors <= tolerance)),
                          evals_to_tolerance=float(np.median(reached)) if reached else None))
    return cells


@dataclass
class TuneTable:
    """What ``solvers.tune`` returns: the runs (``rows``), their cells and how they ran."""

    algorithm: str
    problem: str
    dim: int
    engine: str
    dtype: str
    grid: Grid
    base_params: dict  # effective parameters shared by every run (the axes' values vary)
    f_min: float | None
    tolerance: float
    batched: bool  # True: every (setting, seed) a group of one batched run
    path: str  # which path ran and why, in words
    rows: list[TuneRow] = field(default_factory=list)
    seconds: float = 0.0  # wall time of all the runs
    stop_reason: str = "finished"  # or "stopped": a stopped batch's rows hold each run's best so
    # far at the evaluations it got to; one run at a time keeps the runs that finished
    notes: tuple[str, ...] = ()

    @property
    def complete(self) -> bool:
        return len(self.rows) == self.grid.groups

    def cells(self) -> list[Cell]:
        return reduce_cells(self.rows, self.grid, self.f_min, self.tolerance)

    def columns(self) -> list[str]:
        return [a.name for a in self.grid.axes] + ["seed", "best_f", "evals", "seconds", "reached_at"]

    def to_csv(self) -> str:
        """One line per run: the axes' values, seed, final best, evaluations, seconds, reached_at."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(self.columns())
        for r in self.rows:
            writer.writerow([*(repr(r.params[a.name]) for a in self.grid.axes), r.seed, repr(r.best_f),
                             r.evals, f"{r.seconds:.6g}", "" if r.reached_at is None else r.reached_at])
        return out.getvalue()

    def save_csv(self, path) -> None:
        atomic_write_text(path, self.to_csv())

    def to_dict(self) -> dict:
        def number(x):
            return None if x is None or (isinstance(x, float) and math.isnan(x)) else x

        return {"algorithm": self.algorithm, "problem": self.problem, "dim": self.dim,
                "engine": self.engine, "dtype": self.dtype, "batched": self.batched, "path": self.path,
                "axes": [{"name": a.name, "lo": a.lo, "hi": a.hi, "points": a.points, "log": a.log,
                          "values": list(a.values)} for a in self.grid.axes],
                "seeds": list(self.grid.seeds), "base_params": self.base_params, "f_min": self.f_min,
                "tolerance": self.tolerance, "seconds": self.seconds, "stop_reason": self.stop_reason,
                "notes": list(self.notes),
                "rows": [{"params": r.params, "seed": r.seed, "best_f": r.best_f, "evals": r.evals,
                          "seconds": r.seconds, "reached_at": r.reached_at} for r in self.rows],
                "cells": [{"params": c.params, "runs": c.runs, "median": c.median, "q1": c.q1,
                           "q3": c.q3, "best": c.best, "worst": c.worst,
                           "success_rate": number(c.success_rate),
                           "evals_to_tolerance": number(c.evals_to_tolerance)} for c in self.cells()]}
