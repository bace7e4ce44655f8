"""Studies: many runs (algorithms x functions x dims x seeds x parameter sets x engines x budgets)
on a Dask cluster, each run's result a row of a CSV written as it arrives; ``--resume`` continues,
running again the runs whose rows record a failure (``--keep-failed`` keeps those rows instead).

``solvers.study("grid.json", "grid.csv")`` from Python, ``main.py study grid.json`` from a shell.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Callable, Mapping

from ..errors import ConfigError
from .cluster import open_client
from .execute import Outcome, execute
from .spec import Study, load_study
from .table import COLUMNS, ResultTable, parquet_modules, read_rows, write_parquet

__all__ = ["study", "load_study", "Study", "Outcome", "COLUMNS", "read_rows", "register_cli"]


def study(source: str | Path | Mapping, output: str | Path | None = None, *, scheduler: str | None = None,
          resume: bool = False, keep_failed: bool = False, workers: int | None = None, cpu: bool = False,
          progress: bool = False, parquet: bool = False, on_row: Callable[[dict], None] | None = None,
          on_start: Callable[[object], None] | None = None) -> Outcome:
    """Run a study file (or mapping) on Dask and write its table; returns counts and the dashboard link.

    ``scheduler``: address of a running Dask scheduler, else an embedded local cluster is started
    (``workers`` processes, or one per GPU). ``resume``: keep an existing table of this study and run
    what it lacks, and the runs it records as failed (their rows replaced), unless ``keep_failed``.
    ``on_start(client)`` is called once the cluster is up (the CLI prints the dashboard link).
    """
    from ..reproduce.report import git_revision  # noqa: PLC0415

    if keep_failed and not resume:
        raise ConfigError("keep_failed needs resume: it keeps the failed rows of a resumed table")
    spec = load_study(source)
    path = Path(output) if output is not None else spec.output
    if path is None:
        if isinstance(source, Mapping):
            raise ConfigError("name an output table (the study has no 'output')")
        path = Path(source).with_suffix(".csv")
    if path.suffix.lower() == ".parquet":
        raise ConfigError("the streamed table is a CSV (name it .csv); add --parquet for a Parquet copy")
    if parquet:  # before the runs: the whole study ran, then exit 2 for the missing pyarrow
        parquet_modules("nothing was run")
    revision = git_revision()
    with ResultTable(path, resume=resume) as table:
        _check_same_study(table, spec, path)
        retry = set() if keep_failed else set(table.failed)
        if all(r["key"] in table.done and r["key"] not in retry for r in spec.runs):
            outcome = Outcome(0, len(spec.runs), 0, len(spec.runs), 0.0, None)
        else:
            with open_client(scheduler, workers=workers, cpu=cpu) as client:
                if on_start is not None:
                    on_start(client)
                if retry:  # only now: a cluster that cannot start leaves the table untouched
                    table.drop_failed()
                outcome = execute(client, spec.runs, table, revision, task_seconds=spec.task_seconds,
                                  progress=progress, on_row=on_row)
        outcome.retried = len(retry & table.done)  # before close() writes back any not rerun
        outcome.kept_failed = len(table.failed) if keep_failed else 0
    if parquet:
        write_parquet(path, path.with_suffix(".parquet"))
    return outcome


def _check_same_study(table: ResultTable, spec: Study, path: Path) -> None:
    """A resumed table must hold runs of this study only: resuming another study's table (or one
    whose study file was since changed) would mix two set-ups in one file under one name."""
    foreign = table.done - {r["key"] for r in spec.runs}
    if foreign:
        raise ConfigError(f"{path} holds {len(foreign)} runs that this study does not have (another study's "
                          "table, or the study file changed since): name another output")


def register_cli(sub) -> None:
    """Add ``main.py study`` to the command line."""
    p = sub.add_parser("study", help="run a study file (runs as a product) on Dask; results to a CSV")
    p.add_argument("file", help="study JSON: algorithms, functions, dims, seeds, params, engine(s), budget(s)")
    p.add_argument("--out", "-o", default=None, help="result CSV (default: the study's 'output', else FILE.csv)")
    p.add_argument("--resume", action="store_true",
                   help="continue a study: skip finished runs, run again the runs that failed")
    p.add_argument("--keep-failed", action="store_true",
                   help="with --resume: keep the rows of failed runs instead of running them again")
    p.add_argument("--scheduler", default=None, metavar="tcp://HOST:8786",
                   help="use a running Dask scheduler (default, or 'local': an embedded local cluster)")
    p.add_argument("--workers", type=int, default=None,
                   help="embedded cluster: worker processes (default: one per GPU, else one per core)")
    p.add_argument("--cpu", action="store_true", help="embedded cluster: CPU workers even where GPUs exist")
    p.add_argument("--parquet", action="store_true", help="also write FILE.parquet at the end (needs pyarrow)")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress line")
    p.set_defaults(func=cmd_study)


def cmd_study(args) -> int:
    def started(client) -> None:
        if not args.quiet:
            print(f"study: Dask dashboard {client.dashboard_link}", file=sys.stderr, flush=True)

    if args.keep_failed and not args.resume:
        raise ConfigError("--keep-failed needs --resume (it keeps the failed rows of a resumed table)")
    load_study(args.file)  # bad files stop here, before a cluster starts
    try:
        out = study(args.file, args.out, scheduler=args.scheduler, resume=args.resume,
                    keep_failed=args.keep_failed, workers=args.workers, cpu=args.cpu,
                    progress=not args.quiet, parquet=args.parquet, on_start=started)
    except KeyboardInterrupt:
        print("main.py: study interrupted; finished runs are in the table, continue with --resume",
              file=sys.stderr)
        return 130
    print(summary(out))
    return 0


def summary(out: Outcome) -> str:
    """The study's last line: what ran now (retried runs among it), what was kept, what failed."""
    retried = f" ({out.retried} of them failed before)" if out.retried else ""
    kept = (f" ({out.kept_failed} of them failed, kept by --keep-failed: resume without it to run them "
            "again)") if out.kept_failed else ""
    failed = f", {out.failed} failed (see the 'failure' column)" if out.failed else ""
    return (f"study: {out.written} runs written{retried}, {out.resumed} already done{kept}{failed}; "
            f"{out.total} in all")
