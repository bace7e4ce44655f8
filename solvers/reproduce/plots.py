"""PNG plots for the reports, drawn with matplotlib's Agg canvas (no GUI toolkit, no pyplot).

matplotlib is imported only when a plot is drawn, so the rest of ``solvers`` never needs it; the
Figure + FigureCanvasAgg pair never selects an interactive backend, so no Qt is loaded.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from ..atomic_write import atomic_path
from ..errors import ConfigError

DPI = 110
SIZE = (6.4, 4.0)


@dataclass
class Series:
    """One line or one set of bars: label, x values (or categories) and y values (NaN = missing)."""

    label: str
    x: Sequence
    y: Sequence[float]
    style: dict = field(default_factory=dict)


def _figure(width: float = SIZE[0]):
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: PLC0415
        from matplotlib.figure import Figure  # noqa: PLC0415
    except ImportError as exc:
        raise ConfigError(f"report plots need matplotlib ({exc}); install it with "
                          "'pip install -r requirements.txt'") from None
    fig = Figure(figsize=(width, SIZE[1]), dpi=DPI)
    FigureCanvasAgg(fig)
    return fig


def _finite(values) -> list[float]:
    return [float(v) for v in values if v is not None and math.isfinite(float(v))]


def _save(fig, path: Path) -> Path:
    fig.tight_layout()
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png")
    return path


def line_plot(path: Path, title: str, xlabel: str, ylabel: str, series: Sequence[Series], *,
              logx: bool = False, logy: bool = False, hline: float | None = None) -> Path | None:
    """Lines with markers; NaN points are left out. None when no series has a point to draw."""
    drawn = [s for s in series if _finite(s.y)]
    if not drawn:
        return None
    fig = _figure()
    ax = fig.add_subplot(1, 1, 1)
    for s in drawn:
        pts = [(float(x), float(y)) for x, y in zip(s.x, s.y)
               if y is not None and math.isfinite(float(y)) and (not logy or float(y) > 0)]
        if not pts:
            continue
        xs, ys = zip(*pts)
        ax.plot(xs, ys, label=s.label, **({"marker": "o", "markersize": 3} | s.style))
    if hline is not None:
        ax.axhline(hline, color="grey", linewidth=0.8, linestyle=":")
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    ax.set_title(title, fontsize=10)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    return _save(fig, path)


def bar_plot(path: Path, title: str, ylabel: str, categories: Sequence[str], series: Sequence[Series], *,
             logy: bool = False) -> Path | None:
    """Grouped bars, one group per category; NaN (or, on a log axis, <= 0) bars are left out."""
    drawn = [s for s in series if _finite(s.y)]
    if not drawn or not categories:
        return None
    fig = _figure(max(SIZE[0], 0.28 * len(categories)))  # room for every category's label
    ax = fig.add_subplot(1, 1, 1)
    width = 0.8 / len(drawn)
    for k, s in enumerate(drawn):
        xs, ys = [], []
        for i, y in enumerate(s.y):
            if y is None or not math.isfinite(float(y)) or (logy and float(y) <= 0):
                continue
            xs.append(i - 0.4 + width * (k + 0.5))
            ys.append(float(y))
        ax.bar(xs, ys, width=width, label=s.label, **s.style)
    ax.set_xticks(range(len(categories)))
    ax.set_xticklabels(categories, rotation=45 if len(categories) > 5 else 0, ha="right"
                       if len(categories) > 5 else "center", fontsize=8)
    if logy:
        ax.set_yscale("log")
    ax.set_title(title, fontsize=10)
    ax.set_ylabel(ylabel)
    ax.set_axisbelow(True)
    ax.grid(True, axis="y", which="both", alpha=0.3)
    ax.legend(fontsize=8)
    return _save(fig, path)
