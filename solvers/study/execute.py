"""Running a study: batches of runs go to Dask workers, rows come back with ``as_completed`` and are
written the moment they arrive.

Batches are sized from the runs seen so far so that one task takes about ``task_seconds`` (a
millisecond task would be all scheduler overhead), but never so large that workers idle at the end.
A worker that dies takes its running tasks with it; Dask gives them to the survivors, and a batch
that fails as a whole is split and its runs retried alone, so one bad run cannot sink its neighbours.
"""
from __future__ import annotations

import math
import os
import sys
import time
import traceback
from collections import deque
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

from .spec import config_of
from .table import ResultTable

FIRST_BATCH = 1      # runs per task before anything is known about their length
MAX_IN_FLIGHT = 2    # tasks per worker kept queued, so a worker never waits for the client


def _worker_name() -> str:
    try:
        from distributed import get_worker  # noqa: PLC0415

        name = str(get_worker().name)
    except (ImportError, ValueError):
        name = "local"
    gpu = os.environ.get("CUDA_VISIBLE_DEVICES")
    return f"{name} (GPU {gpu})" if gpu else name


def _row_head(run: Mapping, revision: str, worker: str) -> dict:
    """The columns a row copies from its run, whether or not the run finished."""
    row = {k: run[k] for k in ("key", "algorithm", "function", "dim", "seed", "params", "engine", "dtype",
                               "budget")}
    row.update(worker=worker, git_revision=revision)
    return row


def run_one(run: Mapping, revision: str) -> dict:
    """Execute one study run and return its row; a failing run is a row with ``failure``, not a crash."""
    from ..runner import Runner  # noqa: PLC0415

    row = _row_head(run, revision, _worker_name())
    try:
        # compile_first, as `main.py run` and solvers.run: on a cold numba cache a study's numba
        # runs of 0.5 s reported 0 and 1 iterations in 12.1 and 13.6 s, 1,266 evaluations per second
        result = Runner(config_of(run), compile_first=True).run()
    except Exception as exc:  # noqa: BLE001 - the row records it; the study goes on
        lines = str(exc).strip().splitlines() or [""]
        row["failure"] = f"{type(exc).__name__}: {lines[0]}"
        if os.environ.get("MULTIWALK_DEBUG"):
            traceback.print_exc()
        return row
    row.update(best_f=result.best_f, f_min=result.f_min, evals=result.evals,
               iterations=result.iterations, seconds=result.seconds,
               evals_per_s=result.evals / result.seconds if result.seconds > 0 else None,
               stop_reason=result.stop_reason,
               error=None if result.f_min is None else result.best_f - result.f_min)
    return row


def run_batch(runs: Sequence[Mapping], revision: str) -> tuple[list[dict], float]:
    """Worker side: the rows of a batch and the wall time the batch took."""
    t0 = time.perf_counter()
    rows = [run_one(r, revision) for r in runs]
    return rows, time.perf_counter() - t0


@dataclass
class Outcome:
    """What a study did: rows written now, runs skipped as already done, rows written now that
    record a failure; ``retried``: runs among those written whose old row recorded a failure;
    ``kept_failed``: runs among the skipped whose row records a failure (--keep-failed)."""

    written: int
    resumed: int
    failed: int
    total: int
    seconds: float
    dashboard: str | None
    retried: int = 0
    kept_failed: int = 0


class Progress:
    """One line on stderr: rewritten in place on a terminal, a line every few seconds in a log."""

    def __init__(self, total: int, resumed: int, enabled: bool):
        self.total, self.resumed, self.enabled = total, resumed, enabled
        self.tty = enabled and sys.stderr.isatty()
        self.t0 = time.monotonic()
        self.last = 0.0

    def update(self, written: int, failed: int, workers: int, final: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if not final and now - self.last < (0.2 if self.tty else 5.0):
            return
        self.last = now
        done = written + self.resumed
        rate = written / (now - self.t0) if now > self.t0 else 0.0
        left = self.total - done
        eta = f", about {duration_words(left / rate)} left" if rate > 0 and left else ""
        bad = f", {failed} failed" if failed else ""
        line = (f"study: {done}/{self.total} runs ({self.resumed} resumed{bad}), {workers} workers, "
                f"{rate:.2f} runs/s{eta}")
        end = "\n" if final or not self.tty else ""
        print(("\r" + line + "\033[K") if self.tty else line, end=end, file=sys.stderr, flush=True)


def duration_words(seconds: float) -> str:
    """A time left in words: seconds below 90 s, then minutes, then hours."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def execute(client, runs: Sequence[Mapping], table: ResultTable, revision: str, *,
            task_seconds: float = 2.0, progress: bool = True,
            on_row: Callable[[dict], None] | None = None) -> Outcome:
    """Run every run whose key is not yet in ``table``, writing each row as it arrives."""
    from distributed import as_completed  # noqa: PLC0415

    todo = deque(r for r in runs if r["key"] not in table.done)
    resumed = len(runs) - len(todo)
    bar = Progress(len(runs), resumed, progress)
    written = failed = 0
    per_run = None  # seconds of wall time per run on a worker, learnt as batches return
    t0 = time.monotonic()

    def workers() -> int:
        return max(1, len(client.scheduler_info(n_workers=-1).get("workers", {})))

    def batch_size() -> int:
        if per_run is None:
            return FIRST_BATCH
        fair = math.ceil(len(todo) / (MAX_IN_FLIGHT * workers()))  # keep the tail spread over workers
        return max(1, int(min(fair, task_seconds / max(per_run, 1e-6))))  # min first: no int(inf)

    pending = as_completed()
    batches = {}

    def submit(batch: list) -> None:
        fut = client.submit(run_batch, batch, revision, pure=False, retries=1)
        batches[fut.key] = batch
        pending.add(fut)

    def top_up() -> int:
        n = workers()
        while todo and pending.count() < MAX_IN_FLIGHT * n:
            submit([todo.popleft() for _ in range(min(batch_size(), len(todo)))])
        return n

    n_workers = top_up()
    try:
        for fut in pending:
            batch = batches.pop(fut.key)
            if fut.status == "error":
                if len(batch) > 1:  # retry its runs one by one on whichever workers remain
                    for run in batch:
                        submit([run])
                    continue
                rows = [_lost_run(batch[0], revision, fut.exception())]
            else:
                rows, wall = fut.result()
                per_run = wall / len(rows) if per_run is None else 0.7 * per_run + 0.3 * wall / len(rows)
            fut.release()
            for row in rows:
                if table.append(row):
                    written += 1
                    failed += bool(row.get("failure"))
                    if on_row is not None:
                        on_row(row)
            n_workers = top_up()
            bar.update(written, failed, n_workers)
    finally:
        for fut in list(pending.futures):
            fut.cancel()
    bar.update(written, failed, n_workers, final=True)
    return Outcome(written, resumed, failed, len(runs), time.monotonic() - t0, client.dashboard_link)


def _lost_run(run: Mapping, revision: str, exc: BaseException) -> dict:
    """The row of a run whose task could not finish (its worker died every time it ran it)."""
    row = _row_head(run, revision, "")
    lines = str(exc).strip().splitlines() or [""]
    row.update(failure=f"{type(exc).__name__}: {lines[0]}")
    return row
