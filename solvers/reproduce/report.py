"""Markdown reports: the machine and command up front, then tables with the paper's numbers beside ours.

A report is built section by section (text, tables, images, notes) and written as DIR/<paper>.md;
the differences from the paper are collected as the experiments run and listed at the end.
Plots are drawn into a hidden staging folder beside it and moved into place only when the report is
written, so a run stopped half-way (Ctrl+C, a crash) leaves the previous report and its plots as
they were, never a finished-looking report beside plots of another run.
"""
from __future__ import annotations

import datetime as _dt
import math
import os
import platform
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from ..atomic_write import SaveError, atomic_write_text

LOST = "lost"  # the paper's value did not survive the seed's text extraction
NA = "n/a"


# --- number formatting ------------------------------------------------------------------------------
def num(x, digits: int = 3) -> str:
    """A value with `digits` significant digits; n/a for None/NaN."""
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return NA
    x = float(x)
    if x == 0:
        return "0"
    if abs(x) >= 1e7 or abs(x) < 1e-3:
        return f"{x:.{max(digits - 1, 0)}e}"
    if abs(x) >= 10 ** digits:
        return f"{x:,.0f}"
    return f"{x:.{digits}g}"


def fixed(x, places: int = 3) -> str:
    """A value with a fixed number of decimals, like the papers print theirs; n/a for None/NaN."""
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return NA
    return f"{float(x):,.{places}f}"


def ms(seconds) -> str:
    """Seconds shown as milliseconds."""
    if seconds is None or not math.isfinite(seconds):
        return NA
    return num(seconds * 1e3, 3)


def rate(evals_per_second) -> str:
    if evals_per_second is None or not math.isfinite(evals_per_second):
        return NA
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if evals_per_second >= scale:
            return f"{evals_per_second / scale:.3g} {unit}/s"
    return f"{evals_per_second:.3g} /s"


def times(ratio, marked: bool = False) -> str:
    """A speedup such as 124x; a dagger marks a ratio of rates rather than of times."""
    if ratio is None or not math.isfinite(ratio):
        return NA
    text = f"{ratio:.3g}x" if ratio < 1000 else f"{ratio:,.0f}x"
    return text + (" †" if marked else "")


# --- the machine ---------------------------------------------------------------------------------
def baseline_text(ctx) -> str:
    from .baselines import header_text  # noqa: PLC0415 - baselines imports this module

    return header_text(ctx)


def cpu_model() -> str:
    """The CPU's model name from /proc/cpuinfo (platform.processor() elsewhere)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def library_versions() -> str:
    parts = [f"Python {platform.python_version()}", f"NumPy {np.__version__}"]
    cupy = sys.modules.get("cupy")
    if cupy is not None:
        try:
            runtime = cupy.cuda.runtime.runtimeGetVersion()
            driver = cupy.cuda.runtime.driverGetVersion()
            parts.append(f"CuPy {cupy.__version__} (CUDA runtime {runtime // 1000}.{runtime % 1000 // 10}, "
                         f"driver {driver // 1000}.{driver % 1000 // 10})")
        except Exception:  # noqa: BLE001 - versions are informative only
            parts.append(f"CuPy {cupy.__version__}")
    else:
        parts.append("CuPy not loaded")
    mpl = sys.modules.get("matplotlib")
    if mpl is not None:
        parts.append(f"matplotlib {mpl.__version__}")
    return ", ".join(parts)


def git_revision() -> str:
    """The commit that produced a report; MULTIWALK_REV names it where the tree has no .git (a copy
    sent to a GPU machine)."""
    root = Path(__file__).resolve().parents[2]
    if os.environ.get("MULTIWALK_REV"):
        return os.environ["MULTIWALK_REV"]
    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True,
                             text=True, timeout=5)
        if rev.returncode != 0:
            return "unknown"
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                               capture_output=True, text=True, timeout=5)
        return rev.stdout.strip() + (" with uncommitted changes" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


# --- building blocks -----------------------------------------------------------------------------
@dataclass
class Table:
    """A Markdown table; cells are strings (use the formatting helpers above)."""

    columns: Sequence[str]
    rows: list[list[str]] = field(default_factory=list)
    footnotes: list[str] = field(default_factory=list)

    def missing(self, reason: str) -> str:
        """A cell for a value that could not be measured; the reason goes under the table once."""
        reason = reason or "not measured"
        if reason not in self.footnotes:
            self.footnotes.append(reason)
        return f"{NA} [{self.footnotes.index(reason) + 1}]"

    def add(self, *cells) -> None:
        if len(cells) != len(self.columns):
            raise ValueError(f"row has {len(cells)} cells, table has {len(self.columns)} columns")
        self.rows.append([str(c) for c in cells])

    def markdown(self) -> str:
        def line(cells):
            return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

        out = [line(self.columns), "| " + " | ".join("---" for _ in self.columns) + " |"]
        out += [line(r) for r in self.rows]
        if self.footnotes:
            out.append("")
            out += [f"[{k}] {text}  " for k, text in enumerate(self.footnotes, 1)]
        return "\n".join(out)


@dataclass
class PaperInfo:
    """What the report says about the paper: its id, title, hardware, seed file."""

    id: str
    name: str
    title: str
    authors: str
    seed_file: str
    paper_gpu: str
    paper_cpu: str
    paper_software: str
    paper_precision: str
    default_dtype: str
    allowance_s: float  # full mode: the measurements stop once this much time has passed


class Report:
    """One paper's reproduction report."""

    def __init__(self, paper: PaperInfo, ctx, dtype: str, out_dir: Path):
        self.paper = paper
        self.ctx = ctx
        self.dtype = dtype
        self.out_dir = Path(out_dir)
        self.blocks: list[str] = []
        self.differences: list[str] = []
        self.images: list[Path] = []
        self.started = _dt.datetime.now(_dt.timezone.utc)

    def section(self, title: str, text: str = "") -> None:
        self.blocks.append(f"## {title}")
        if text:
            self.blocks.append(text.strip())

    def text(self, text: str) -> None:
        self.blocks.append(text.strip())

    def table(self, table: Table) -> None:
        self.blocks.append(table.markdown())

    def notes(self, lines: Sequence[str]) -> None:
        lines = [s for s in lines if s]
        if lines:
            self.blocks.append("\n".join(f"- {s}" for s in lines))

    def image(self, path: Path | None, alt: str) -> None:
        if path is None:
            return
        self.images.append(Path(path))
        self.blocks.append(f"![{alt}]({Path(path).name})")

    @property
    def staging(self) -> Path:
        """DIR/.<paper>.partial: the plots of a report not yet written."""
        return self.out_dir / f".{self.paper.name}.partial"

    def plot_path(self, suffix: str) -> Path:
        """Where a plot of this report is drawn: <paper>_<suffix>.png in the staging folder; write()
        moves it to DIR. Drawing straight into DIR let an interrupted run replace some of the plots
        of the report already there, which then showed numbers its tables did not hold."""
        try:
            self.staging.mkdir(exist_ok=True)
        except OSError as exc:
            raise SaveError(f"cannot write {self.staging}: {exc.strerror or exc}") from None
        return self.staging / f"{self.paper.name}_{suffix}.png"

    def discard(self) -> None:
        """Drop the plots of a report that will not be written (the run stopped early)."""
        shutil.rmtree(self.staging, ignore_errors=True)

    def difference(self, text: str) -> None:
        if text.strip():  # a note that does not apply to this run is empty
            self.differences.append(text.strip())

    # --- output ---------------------------------------------------------------------------------
    def header(self, elapsed: float) -> str:
        p, ctx = self.paper, self.ctx
        gpu_ok = ctx.has_gpu
        reasons: dict[str, list[str]] = {}
        for engine, why in ctx.unavailable.items():
            reasons.setdefault(why, []).append(engine)
        unavailable = "; ".join(f"{' and '.join(es)}: {why}" for why, es in reasons.items())
        gpu_desc = ctx.status[ctx.gpu_candidates[0]][1] if gpu_ok else (
            "none used (" + (unavailable or "no GPU engine selected") + ")")
        engines = [e for e in ctx.requested if e not in ctx.unavailable]
        engines_text = ", ".join(engines) if engines else "none"
        if unavailable:
            engines_text += f"; unavailable: {unavailable}"
        mode = ("**quick** (reduced sizes for a test run; not comparable with the paper)"
                if ctx.quick else "full")
        t = Table(["", "Paper", "This run"])
        t.add("GPU", p.paper_gpu, gpu_desc)
        cpu_text = (f"{cpu_model()}, {os.cpu_count()} logical cores; numpy engine (array code "
                    "vectorised over walkers, essentially one core)")
        for engine in ctx.baselines:
            cpu_text += f"; {engine} engine: {ctx.baseline_status(engine)}"
        t.add("CPU", p.paper_cpu, cpu_text)
        t.add("Software", p.paper_software, library_versions())
        t.add("Precision", p.paper_precision, self.dtype)
        t.add("Seed", "not given", str(ctx.seed))
        t.add("Engines used", "", engines_text)
        t.add("Mode", "", mode)
        t.add("Code", "", f"Multiwalk git {git_revision()}")
        warm = (f", {ctx.warm_seconds:.0f} s of it warm-up runs (which compile the GPU and numba "
                "kernels)"
                if ctx.warm_seconds >= 1 else "")
        t.add("Date", "", f"{self.started:%Y-%m-%d %H:%M} UTC; the measurements took {elapsed:.0f} s{warm}")
        lines = [f"# Reproduction: {p.title}",
                 "",
                 f"{p.authors}. Seed paper {p.id} (`shared/seeds/{p.seed_file}`).",
                 ""]
        if ctx.quick:
            lines += ["> **Quick mode.** Sizes are cut down so that the whole report runs in seconds on "
                      "a CPU; the numbers show the shape of each experiment only. The reports to read "
                      "come from a full run on a GPU machine.", ""]
        lines += [f"Produced by `{ctx.command}`.", "",
                  "Columns headed *Paper* hold the paper's numbers, typed in from the seed text; "
                  f"*{LOST}* marks a value that the seed's text extraction lost. Columns headed "
                  "*CPU* are our numpy engine, *GPU* our cuda engine (or the cupy engine where noted); "
                  "both ran in this run on this machine, with the same problem, parameters and budget. "
                  "A speedup is GPU evaluations per second over CPU evaluations per second, which is "
                  "the ratio of the times when both did the same evaluations; † marks a ratio of rates "
                  "where the CPU run was capped by time (or the counts differ), and CPU times marked ≈ "
                  "are extrapolated from that rate.", "",
                  baseline_text(ctx), "",
                  t.markdown(), ""]
        if not gpu_ok:
            lines += ["**No GPU engine was available or selected, so the tables show CPU columns only.**", ""]
        if ctx.skipped:
            lines += [f"**{ctx.skipped} measurement(s) were skipped because this paper's time allowance "
                      "was spent.** Each shows as n/a, or, in a table that averages runs, as fewer runs "
                      "(the cell says how many). They were:", ""]
            counts: dict[str, int] = {}
            for skip in ctx.skips:
                counts[skip] = counts.get(skip, 0) + 1
            lines += [f"- {skip}" + (f" ({k} runs)" if k > 1 else "") for skip, k in counts.items()]
            lines.append("")
        return "\n".join(lines)

    def render(self, elapsed: float) -> str:
        parts = [self.header(elapsed)] + self.blocks
        if self.differences:
            parts.append("## Differences from the paper, and the choices we made")
            parts.append("\n".join(f"- {d}" for d in self.differences))
        return "\n\n".join(parts).rstrip() + "\n"

    def write(self, elapsed: float) -> Path:
        """Move the plots into DIR, then write the Markdown that shows them (each move is atomic)."""
        for image in self.images:
            if image.parent == self.staging:
                try:
                    os.replace(image, self.out_dir / image.name)
                except OSError as exc:
                    raise SaveError(f"cannot write {self.out_dir / image.name}: {exc.strerror or exc}") from None
        path = atomic_write_text(self.out_dir / f"{self.paper.name}.md", self.render(elapsed))
        self.images = [self.out_dir / image.name for image in self.images]
        self.discard()
        return path
