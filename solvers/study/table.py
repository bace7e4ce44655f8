"""The study's result table: a CSV that grows one fsynced row at a time, so a crash or a kill loses
no finished run, and ``--resume`` reads back which runs are done.

A resumed table's failed rows are run again by default: ``drop_failed`` takes them out in one
atomic rewrite (the file is the old table or the new one, never half of either), their new rows are
appended as they arrive, and ``close`` puts back the old row of any run that got no new one (Ctrl+C,
a cluster that failed), so only a hard kill can lose a failure record, and then the next --resume
simply runs that run again."""
from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path
from typing import Iterable, Mapping

from ..atomic_write import atomic_path
from ..errors import ConfigError

COLUMNS = ("key", "algorithm", "function", "dim", "seed", "params", "engine", "dtype", "budget",
           "best_f", "f_min", "error", "evals", "iterations", "seconds", "evals_per_s", "stop_reason",
           "failure", "worker", "git_revision")
FAILURE = COLUMNS.index("failure")


class ResultTable:
    """Append-only CSV of study rows; ``done`` holds the keys already written, ``failed`` the rows
    among them that record a failure (key -> the row's cells, as read)."""

    def __init__(self, path: str | Path, *, resume: bool):
        self.path = Path(path)
        self.done: set[str] = set()
        self.failed: dict[str, list[str]] = {}
        self._dropped: dict[str, list[str]] = {}  # failed rows taken out to be run again
        if self.path.is_dir():  # else "already holds results", and with --resume an internal error
            raise ConfigError(f"{self.path} is a folder: name the result table's CSV file")
        exists = self.path.exists() and self.path.stat().st_size > 0
        if exists and not resume:
            raise ConfigError(f"{self.path} already holds results: add --resume to continue that study, "
                              "or name another output")
        try:  # before any run: a table that cannot be written is bad input, one line
            if exists:
                self._recover()
            else:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = open(self.path, "a", newline="")
            if not exists or not self.path.stat().st_size:  # new, or a header cut short (_recover)
                self._write_line(COLUMNS)
        except OSError as exc:
            raise ConfigError(f"cannot write the study table {self.path}: {exc.strerror or exc}") from None

    def _recover(self) -> None:
        """Read the finished keys; drop a last line cut short by a kill in the middle of a write.

        The file is proven a study table (its header) before anything is cut: a file without a
        newline used to be emptied as 'a cut header' and then filled with headerless rows, so
        '--out study.json --resume' destroyed the study file itself."""
        data = self.path.read_bytes()
        cut = data.rfind(b"\n") + 1  # everything after the last newline is a cut line
        try:
            text = data[:cut].decode()
        except UnicodeDecodeError:
            raise ConfigError(f"{self.path} is not a study table (not UTF-8 text); name another output") from None
        reader = csv.reader(io.StringIO(text))
        header = next(reader, None)
        if header is None and _header_line().startswith(data):  # only a cut header: start afresh
            self.path.write_bytes(b"")
            return
        if header is None or tuple(header) != COLUMNS:
            raise ConfigError(f"{self.path} is not a study table of this version (its columns differ); "
                              "name another output")
        if cut < len(data):
            with open(self.path, "r+b") as fh:
                fh.truncate(cut)
        rows = [row for row in reader if row]
        self.done = {row[0] for row in rows}
        ran = {row[0] for row in rows if not _is_failure(row)}  # a key with any good row is done
        self.failed = {row[0]: row for row in rows if _is_failure(row) and row[0] not in ran}

    def _write_line(self, values: Iterable) -> None:
        buf = io.StringIO()
        csv.writer(buf).writerow(values)
        self._fh.write(buf.getvalue())  # one write per row, then flush + fsync: on disk before we go on
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def append(self, row: Mapping) -> bool:
        """Write one row unless its key is already there (a retried task may report a run twice)."""
        if row["key"] in self.done:
            return False
        self._write_line(_cell(row.get(c)) for c in COLUMNS)
        self.done.add(row["key"])
        return True

    def drop_failed(self) -> int:
        """Take the failed rows out of the table (one atomic rewrite) so their runs are run again;
        returns how many. Rows read back as strings are written again as the same text."""
        if not self.failed:
            return 0
        with open(self.path, newline="", encoding="utf-8") as fh:  # UTF-8, as _recover reads it
            rows = list(csv.reader(fh))[1:]
        kept = [row for row in rows if row and row[0] not in self.failed]
        self._fh.close()  # the rewrite replaces the file: append to the new one, not the old inode
        try:
            with atomic_path(self.path) as tmp:
                with open(tmp, "w", newline="", encoding="utf-8") as out:
                    csv.writer(out).writerows([COLUMNS, *kept])
        finally:
            self._fh = open(self.path, "a", newline="")
        self._dropped = dict(self.failed)
        self.done -= set(self.failed)
        self.failed = {}
        return len(self._dropped)

    def close(self) -> None:
        """Close the file, first writing back the old row of a dropped failed run that got no new
        row (interrupted): the table never loses a failure it has not replaced."""
        if self._fh.closed:
            return
        try:
            for key, row in self._dropped.items():
                if key not in self.done:
                    self._write_line(row)
                    self.done.add(key)
                    self.failed[key] = row
        except OSError:
            pass  # a full disk: the run is simply missing, and the next --resume runs it
        finally:
            self._dropped = {}
            self._fh.close()

    def __enter__(self) -> "ResultTable":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _is_failure(row: list[str]) -> bool:
    return len(row) > FAILURE and bool(row[FAILURE])


def _header_line() -> bytes:
    """The header as _write_line writes it."""
    buf = io.StringIO()
    csv.writer(buf).writerow(COLUMNS)
    return buf.getvalue().encode()


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True)
    if isinstance(value, float):
        return repr(value)
    return str(value)


def read_rows(path: str | Path) -> list[dict]:
    """The table's rows as dicts of strings (for tests and quick looks; pandas reads it too)."""
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def parquet_modules(done: str = "the CSV table is complete"):
    """pyarrow's csv and parquet modules; ConfigError where pyarrow is missing."""
    try:
        import pyarrow.csv as pacsv  # noqa: PLC0415
        import pyarrow.parquet as pq  # noqa: PLC0415
    except ImportError:
        raise ConfigError(f"--parquet needs pyarrow (pip install pyarrow); {done}") from None
    return pacsv, pq


def write_parquet(csv_path: Path, parquet_path: Path) -> None:
    """A Parquet copy of the finished table; ConfigError where pyarrow is missing."""
    pacsv, pq = parquet_modules()
    pq.write_table(pacsv.read_csv(csv_path), parquet_path)
