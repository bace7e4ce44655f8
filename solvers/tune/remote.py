"""A tuning grid as one job on a Dask worker (the window's Tune tab "on the cluster").

``solvers.study.remote.stream(client, tune_job, arguments, cancel=...)`` runs it: the grid is checked
and run on the worker (its engines, its GPU), and what the tab needs to fill its map arrives here as
it happens: ("prepared", table) once the grid is checked, ("progress", Progress) while it runs and
("finished", table) at the end (the rows so far after Stop). A ConfigError of ``prepare`` on the
worker is raised here as the same ConfigError (distributed re-raises the job's exception).
"""
from __future__ import annotations

import threading
import time
from typing import Callable, Iterator

from .execute import Progress

PROGRESS_INTERVAL_S = 0.2  # at most ~5 progress items a second travel through the scheduler


def tune_job(arguments: dict, *, cancel: threading.Event, emit: Callable) -> Iterator[tuple]:
    """Runs on the worker: ``prepare(**arguments)``, then the grid with Stop as `cancel`.

    Yields ("prepared", TuneTable without rows) and ("finished", TuneTable); progress goes through
    `emit` as ("progress", Progress), thinned to one every PROGRESS_INTERVAL_S (each carries every
    run's best so far, so a one-run-at-a-time grid of many short runs would otherwise send
    thousands of large items; the finished table has every row anyway) but always the last one.
    """
    from . import prepare  # noqa: PLC0415 - the package imports this module first

    tuning = prepare(**arguments)
    yield ("prepared", tuning.table)
    last = [float("-inf")]

    def on_progress(progress: Progress) -> None:
        now = time.monotonic()
        if progress.done >= progress.total or now - last[0] >= PROGRESS_INTERVAL_S:
            last[0] = now
            emit(("progress", progress))

    table = tuning.run(stop=cancel.is_set, on_progress=on_progress)
    yield ("finished", table)
