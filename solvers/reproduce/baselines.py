"""The compiled CPU baselines' columns: ``numba`` (every core) and ``numba1`` (one core, the papers'
sequential baseline) beside a table's numpy CPU column, their times and the GPU's speedup against
each. Measured by the same rule as the numpy column (context.compare: warm-up, time cap, a ratio of
rates marked † where a run was capped, its time extrapolated and marked ≈)."""
from __future__ import annotations

from typing import Callable, Mapping

from .context import Context, Measurement, speedup
from .report import Table, times

NOT_MEASURED = Measurement(engine="numba", reason="not measured")


def columns(ctx: Context, unit: str, suffix: str = "") -> list[str]:
    """Headers: each baseline's time in `unit`, then (with a GPU) the GPU's speedup against each."""
    cols = [f"{e} {unit}{suffix}" for e in ctx.baselines]
    if ctx.has_gpu:
        cols += [f"Speedup vs {e}{suffix}" for e in ctx.baselines]
    return cols


def time_cell(t: Table, m: Measurement, evals: int | None, fmt: Callable[[float], str]) -> str:
    """A baseline's time for `evals` evaluations (≈: extrapolated from a capped run's rate)."""
    if not m.ok:
        return t.missing(m.reason)
    text = fmt(m.seconds_for(evals))
    if m.capped:
        return f"≈ {text}" if evals is not None else f"{text} (capped)"
    return text


def cells(ctx: Context, t: Table, base: Mapping[str, Measurement], gpu: Measurement, evals: int | None,
          fmt: Callable[[float], str]) -> list[str]:
    """The cells under `columns`: times, then the GPU's speedups (n/a where either run is missing)."""
    runs = [base.get(e, NOT_MEASURED) for e in ctx.baselines]
    out = [time_cell(t, m, evals, fmt) for m in runs]
    if ctx.has_gpu:
        out += [times(*speedup(m, gpu)) for m in runs]
    return out


def header_text(ctx: Context) -> str:
    """The header's sentence on these columns (empty when no baseline was requested)."""
    if not ctx.baselines:
        return ("No compiled CPU baseline (numba, numba1) was selected (`--engine`), so the tables "
                "have no numba columns.")
    names = " and ".join(f"*{e}*" for e in ctx.baselines)
    return (f"Columns headed {names} are our compiled CPU engine (Numba) on every core the machine "
            "gives it and on one core (the papers' sequential baseline), measured like the numpy "
            "column (warmed up, then one run capped by the same time, ≈ and † likewise); *Speedup vs "
            "numba* and *vs numba1* are the GPU's speedups against them. Where numba cannot run, "
            "their cells say why.")


def difference_text(ctx: Context) -> str:
    """The report's note on the baselines among its differences from the paper (empty without them)."""
    if not ctx.baselines:
        return ""
    return ("Compiled CPU baselines: the numba1 columns (our compiled engine on one core) are the "
            "closest to the paper's sequential CPU code; the numba columns use every core the "
            "machine gives numba (the header names the CPU and thread count). Both run the same "
            "algorithm, problem, budget and seed as the numpy column, with their own random streams, "
            "and, like it, are capped by time where the table says ≈ or †.")
