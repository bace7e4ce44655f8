"""A save that fails leaves the previous file intact (issue 17, item 4). The disk-full case is
injected (ENOSPC from the flush to disk, and from a writer half-way), since mounting a small
file system needs privileges CI does not have."""
from __future__ import annotations

import errno
import os
from pathlib import Path

import numpy as np
import pytest

from solvers import RunConfig, atomic_write
from solvers.atomic_write import SaveError, atomic_path, atomic_write_text, check_writable_folder
from solvers.config_io import load_config, save_config

OLD = "the previous file, which must survive\n"


@pytest.fixture
def disk_full(monkeypatch):
    """Every flush to disk fails as on a full disk."""
    def fsync(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(atomic_write.os, "fsync", fsync)


def assert_intact(path: Path) -> None:
    assert path.read_text() == OLD
    leftovers = [p.name for p in path.parent.iterdir() if p.name != path.name]
    assert leftovers == [], leftovers  # no temporary file left behind


def config():
    return RunConfig.build("pattern_search", "sphere", 2, max_iters=1)


def test_text_save_replaces_atomically_and_keeps_permissions(tmp_path):
    path = tmp_path / "a.txt"
    path.write_text(OLD)
    path.chmod(0o640)
    atomic_write_text(path, "new\n")
    assert path.read_text() == "new\n" and (path.stat().st_mode & 0o777) == 0o640


def test_disk_full_keeps_every_old_file(tmp_path, disk_full, qtbot):
    pytest.importorskip("PyQt6")
    import pyqtgraph as pg

    from gui import export

    widget = pg.PlotWidget()
    qtbot.addWidget(widget)
    widget.plot([0, 1, 2], [1, 0, 1])
    widget.resize(200, 150)
    savers = {
        "setup.json": lambda p: save_config(config(), p),
        "runs.csv": lambda p: export.write_histories_csv(p, [{"history": [[1, 0.1, 2.0]]}]),
        "view.png": lambda p: export.save_png(widget, p),
        "report.md": lambda p: atomic_write_text(p, "# report\n"),
    }
    for name, save in savers.items():
        path = tmp_path / name
        path.write_text(OLD)
        with pytest.raises(SaveError, match="No space left on device"):
            save(path)
        assert_intact(path)
        path.unlink()
    recorder = export.Recorder(widget, fps=50, max_frames=10, max_width=100)
    recorder.grab_frame()
    path = tmp_path / "anim.gif"
    path.write_text(OLD)
    with pytest.raises(SaveError):
        recorder.save(path)
    assert_intact(path)


def test_writer_failing_half_way_keeps_the_old_file(tmp_path):
    path = tmp_path / "half.bin"
    path.write_text(OLD)
    with pytest.raises(SaveError, match="No space left"):
        with atomic_path(path) as tmp:
            tmp.write_bytes(b"x" * 4096)  # the 4 KB fragment of the defect
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    assert_intact(path)


def test_writer_that_writes_nothing_is_a_failure(tmp_path):
    path = tmp_path / "empty.png"
    path.write_text(OLD)
    with pytest.raises(SaveError, match="0 bytes"):
        with atomic_path(path):
            pass  # like libpng's "Write Error" that still returned
    assert_intact(path)


def test_save_into_a_missing_or_read_only_folder(tmp_path):
    with pytest.raises(SaveError, match="cannot write"):
        save_config(config(), tmp_path / "missing" / "a.json")
    with pytest.raises(SaveError, match="cannot write to the output folder"):
        check_writable_folder("/proc/multiwalk")
    good = save_config(config(), tmp_path / "a.json")
    assert load_config(good) == config()


def test_plots_and_reports_use_the_atomic_saver(tmp_path, disk_full):
    pytest.importorskip("matplotlib")
    from solvers.reproduce import plots

    path = tmp_path / "p.png"
    path.write_text(OLD)
    fig = plots._figure() if hasattr(plots, "_figure") else None
    if fig is None:
        from matplotlib.figure import Figure

        fig = Figure()
    fig.add_subplot().plot(np.arange(3))
    with pytest.raises(SaveError):
        plots._save(fig, path)
    assert_intact(path)


@pytest.fixture
def small_filesystem(tmp_path):
    """A 64 KiB tmpfs where the machine allows mounting one (root on Linux), else skip: the
    injected-failure tests above cover the same path without privileges."""
    import subprocess

    mount_point = tmp_path / "small"
    mount_point.mkdir()
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount_point)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {proc.stderr.strip() or proc.returncode}")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", str(mount_point)], check=False)


def test_a_really_full_disk_keeps_the_old_files(small_filesystem):
    pytest.importorskip("PyQt6")
    from gui import export

    setup = small_filesystem / "setup.json"
    save_config(config(), setup)
    before_setup = setup.read_bytes()
    csv_path = small_filesystem / "runs.csv"
    csv_path.write_text(OLD)
    filler = small_filesystem / "filler"
    with pytest.raises(OSError):
        with open(filler, "wb") as fh:
            while True:
                fh.write(b"\0" * 4096)
                fh.flush()
    big_history = [{"history": np.ones((5000, 3)), "params": {}}]
    with pytest.raises(SaveError, match="No space left"):
        export.write_histories_csv(csv_path, big_history)
    with pytest.raises(SaveError):
        save_config(config().replace(seed=7), setup)
    assert csv_path.read_text() == OLD
    assert setup.read_bytes() == before_setup and load_config(setup) == config()
    assert sorted(p.name for p in small_filesystem.iterdir()) == ["filler", "runs.csv", "setup.json"]
