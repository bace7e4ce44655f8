"""A tuning grid's results: one row per run, reduced to one cell per setting; CSV and JSON."""
from __future__ import annotations

import csv
import io
import math
import warnings
from dataclasses import dataclass, field

import numpy as np

from ..atomic_write import atomic_write_text
from .spec import Grid


@dataclass(frozen=True)
class TuneRow:
    """One (setting, seed) run: its final best value, evaluations and time.

    ``seconds``: on the batched path all runs share one launch, and each row carries the batch's
    time divided by its runs; on the one-run-at-a-time path, the run's own compute time; compiling
    never counted (solvers/tune/compiling.py).
    ``reached_at``: the run's evaluations at the end of the first iteration whose best is within
    the tolerance of f_min, whatever the chunking (solvers/tune/reach.py); None if it never got
    there, f_min is unknown, or the grid was stopped before a fused kernel's was found."""

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


@dataclass(frozen=True)
class CellStats:
    """Every setting's summary as arrays of length settings (NaN where a setting has no runs yet;
    success_rate NaN where f_min is unknown, evals_to_tolerance NaN where no seed got there)."""

    runs: np.ndarray
    median: np.ndarray
    q1: np.ndarray
    q3: np.ndarray
    best: np.ndarray
    worst: np.ndarray
    success_rate: np.ndarray
    evals_to_tolerance: np.ndarray


def cell_stats(errors: np.ndarray, reached: np.ndarray, tolerance: float, f_min_known: bool) -> CellStats:
    """Summarise (settings, seeds) arrays of final errors and evaluations to the tolerance, NaN for
    runs not done (or never reaching it): the window's live map and ``reduce_cells`` share this."""
    errors = np.asarray(errors, dtype=np.float64)
    reached = np.asarray(reached, dtype=np.float64)
    done = ~np.isnan(errors)
    runs = done.sum(axis=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # settings with no runs (or no hits): NaN
        q1, median, q3 = np.nanquantile(errors, [0.25, 0.5, 0.75], axis=1)
        best, worst = np.nanmin(errors, axis=1), np.nanmax(errors, axis=1)
        to_tolerance = np.nanmedian(reached, axis=1)
    # a run that never saw a finite value has error +inf, and numpy interpolates between two
    # infinities as inf - inf = NaN, which reads as "not run yet" (median of seeds all at +inf, or
    # of [1, 2, inf, inf]); errors are never NaN or -inf, so such a NaN is +inf
    q1, median, q3 = (np.where(np.isnan(q) & (runs > 0), np.inf, q) for q in (q1, median, q3))
    success = np.where(runs > 0, (done & (errors <= tolerance)).sum(axis=1) / np.maximum(runs, 1), np.nan)
    return CellStats(runs=runs, median=median, q1=q1, q3=q3, best=best, worst=worst,
                     success_rate=success if f_min_known else np.full(len(runs), np.nan),
                     evals_to_tolerance=to_tolerance)


def run_arrays(rows: list[TuneRow], grid: Grid, f_min: float | None) -> tuple[np.ndarray, np.ndarray]:
    """(settings, seeds) arrays of the rows' final errors and evaluations to the tolerance (NaN:
    no row, or never reached)."""
    seeds = {seed: k for k, seed in enumerate(grid.seeds)}
    shape = (math.prod(grid.shape), len(grid.seeds))
    errors, reached = np.full(shape, np.nan), np.full(shape, np.nan)
    for r in rows:
        errors[r.setting, seeds[r.seed]] = final_error(r.best_f, f_min)
        if r.reached_at is not None:
            reached[r.setting, seeds[r.seed]] = r.reached_at
    return errors, reached


def reduce_cells(rows: list[TuneRow], grid: Grid, f_min: float | None, tolerance: float) -> list[Cell]:
    """One Cell per setting of `grid` that has rows (settings without rows are left out)."""
    stats = cell_stats(*run_arrays(rows, grid, f_min), tolerance, f_min is not None)
    settings = grid.settings

    def number(values, i):
        return None if np.isnan(values[i]) else float(values[i])

    return [Cell(setting=i, params=settings[i], runs=int(stats.runs[i]), median=float(stats.median[i]),
                 q1=float(stats.q1[i]), q3=float(stats.q3[i]), best=float(stats.best[i]),
                 worst=float(stats.worst[i]), success_rate=number(stats.success_rate, i),
                 evals_to_tolerance=number(stats.evals_to_tolerance, i))
            for i in np.flatnonzero(stats.runs > 0)]


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
    switched: dict = field(default_factory=dict)  # fields set so the axes take effect (variant, ...)

    def setting_params(self, setting: int) -> dict:
        """What a single run of cell `setting` needs besides the shared form: the fields switched
        for the grid and the cell's axis values (clicking a cell loads these)."""
        return {**self.switched, **self.grid.settings[setting]}

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
