"""Studies: many runs (algorithms x functions x dims x seeds x parameter sets x engines x budgets)
on a Dask cluster, each run's result a row of a CSV written as it arrives; ``--resume`` continues.

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
from .table import COLUMNS, ResultTable, read_rows, write_parquet

__all__ = ["study", "load_study", "Study", "Outcome", "COLUMNS", "read_rows", "register_cli"]


def study(source: str | Path | Mapping, output: str | Path | None = None, *, scheduler: str | None = None,
          resume: bool = False, workers: int | None = None, cpu: bool = False, progress: bool = False,
          parquet: bool = False, on_row: Callable[[dict], None] | None = None,
          on_start: Callable[[object], None] | None = None) -> Outcome:
    """Run a study file (or mapping) on Dask and write its table; returns counts and the dashboard link.

    ``scheduler``: address of a running Dask scheduler, else an embedded local cluster is started
    (``workers`` processes, or one per GPU). ``resume``: keep an existing table and run only what it
    lacks. ``on_start(client)`` is called once the cluster is up (the CLI prints the dashboard link).
    """
    from ..reproduce.report import git_revision  # noqa: PLC0415

    spec = load_study(source)
    path = Path(output) if output is not None else spec.output
    if path is None:
        if isinstance(source, Mapping):
            raise ConfigError("name an output table (the study has no 'output')")
        path = Path(source).with_suffix(".csv")
    if path.suffix.lower() == ".parquet":
        raise ConfigError("the streamed table is a CSV (name it .csv); add --parquet for a Parquet copy")
    revision = git_revision()
    with ResultTable(path, resume=resume) as table:
        if len(table.done) and all(r["key"] in table.done for r in spec.runs):
            outcome = Outcome(0, len(spec.runs), 0, len(spec.runs), 0.0, None)
        else:
            with open_client(scheduler, workers=workers, cpu=cpu) as client:
                if on_start is not None:
                    on_start(client)
                outcome = execute(client, spec.runs, table, revision, task_seconds=spec.task_seconds,
                                  progress=progress, on_row=on_row)
    if parquet:
        write_parquet(path, path.with_suffix(".parquet"))
    return outcome


def register_cli(sub) -> None:
    """Add ``main.py study`` to the command line."""
    p = sub.add_parser("study", help="run a study file (runs as a product) on Dask; results to a CSV")
    p.add_argument("file", help="study JSON: algorithms, functions, dims, seeds, params, engine(s), budget(s)")
    p.add_argument("--out", "-o", default=None, help="result CSV (default: the study's 'output', else FILE.csv)")
    p.add_argument("--resume", action="store_true", help="continue an interrupted study: skip finished runs")
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

    load_study(args.file)  # bad files stop here, before a cluster starts
    try:
        out = study(args.file, args.out, scheduler=args.scheduler, resume=args.resume, workers=args.workers,
                    cpu=args.cpu, progress=not args.quiet, parquet=args.parquet, on_start=started)
    except KeyboardInterrupt:
        print("main.py: study interrupted; finished runs are in the table, continue with --resume",
              file=sys.stderr)
        return 130
    failed = f", {out.failed} failed (see the 'failure' column)" if out.failed else ""
    print(f"study: {out.written} runs written, {out.resumed} already done{failed}; {out.total} in all")
    return 0
