"""Saves that never destroy the previous file: write a temporary file in the same folder, check
it, then ``os.replace`` it over the target (atomic on POSIX and Windows for one file system).

A full disk, a missing folder or a writer that fails half-way leaves the old file as it was and
raises ``SaveError`` with one clear line. Every saver (set-up JSON, CSV, GIF, PNG, reports, bench
output) goes through here.

    atomic_write_text(path, text)
    with atomic_path(path) as tmp:      # for writers that want a file name (imageio, Qt, matplotlib)
        writer.save(tmp)
"""
from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import Iterator

from .errors import ConfigError


class SaveError(ConfigError):
    """A file could not be written; the previous file, if any, is unchanged."""


PROBE_NAME = ".multiwalk-write-probe"


def _reason(exc: BaseException) -> str:
    return getattr(exc, "strerror", None) or str(exc) or type(exc).__name__


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike, *, min_bytes: int = 1) -> Iterator[Path]:
    """Yield a temporary path beside `path`; on a clean exit, check it holds at least `min_bytes`,
    flush it to disk and move it over `path`. On any failure the temporary file is removed, the old
    file is untouched and SaveError names the target."""
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp" + target.suffix,
                                        dir=folder)
        os.close(fd)
    except OSError as exc:
        raise SaveError(f"cannot write {target}: {_reason(exc)}") from None
    tmp = Path(tmp_name)
    try:
        yield tmp
        size = tmp.stat().st_size
        if size < min_bytes:
            raise SaveError(f"cannot write {target}: the writer produced {size} bytes")
        with open(tmp, "rb+") as fh:  # data on disk before the rename makes it visible
            os.fsync(fh.fileno())
        try:
            mode = target.stat().st_mode & 0o777
        except OSError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)  # mkstemp makes 0600; keep the old file's (or the usual) permissions
        os.replace(tmp, target)
    except SaveError:
        _remove(tmp)
        raise
    except (OSError, RuntimeError, ValueError) as exc:
        _remove(tmp)
        raise SaveError(f"cannot write {target}: {_reason(exc)}") from None
    except BaseException:
        _remove(tmp)
        raise


def _remove(tmp: Path) -> None:
    with contextlib.suppress(OSError):
        tmp.unlink()


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Replace `path` by `data` atomically; SaveError (old file intact) on failure."""
    with atomic_path(path, min_bytes=min(1, len(data))) as tmp:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
        if tmp.stat().st_size != len(data):
            raise SaveError(f"cannot write {path}: short write")
    return Path(path)


def atomic_write_text(path: str | os.PathLike, text: str, encoding: str = "utf-8") -> Path:
    """Replace `path` by `text` atomically; SaveError (old file intact) on failure."""
    return atomic_write_bytes(path, text.encode(encoding))


def check_writable_folder(folder: str | os.PathLike, what: str = "output folder") -> Path:
    """Create `folder` if needed and prove it writable with a probe file, before long work starts;
    SaveError with the reason otherwise."""
    out = Path(folder)
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / PROBE_NAME
        with open(probe, "wb") as fh:
            fh.write(b"probe")
        probe.unlink()
    except OSError as exc:
        raise SaveError(f"cannot write to the {what} '{out}': {_reason(exc)}") from None
    return out


def check_writable_file(path: str | os.PathLike, what: str = "output file") -> Path:
    """The folder of `path` exists (created if needed) and takes a new file; SaveError otherwise."""
    target = Path(path)
    if target.is_dir():
        raise SaveError(f"the {what} '{target}' is a folder")
    check_writable_folder(target.parent if str(target.parent) else Path("."), f"folder of the {what}")
    return target
