"""Numba's disk cache in a folder keyed by the numba sources (solvers/numba/__init__.py): Numba keys a
cached kernel by its own file, so a kernel would keep stale code after a function it calls changed."""
from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pytest

import solvers.numba as numba_package


@pytest.fixture
def clean_env(monkeypatch, tmp_path):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.delenv("MULTIWALK_NUMBA_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(numba_package, "_CACHE_FOLDER", None)  # decide again, as a new process
    config = sys.modules.get("numba.core.config")
    saved = getattr(config, "CACHE_DIR", None)
    yield tmp_path
    if config is not None:
        config.CACHE_DIR = saved


def test_the_folder_is_named_by_a_hash_of_the_numba_and_problem_sources(clean_env, monkeypatch):
    """solvers/problems too: tables the kernels read (Shekel's constants) are frozen into them."""
    import os

    here = Path(numba_package.__file__).parent
    digest = hashlib.sha1()
    for path in sorted([*here.glob("*.py"), *(here.parent / "problems").rglob("*.py")]):
        digest.update(path.relative_to(here.parent).as_posix().encode() + b"\0" + path.read_bytes())
    folder = numba_package.use_versioned_cache()
    assert folder == str(clean_env / "multiwalk" / "numba" / digest.hexdigest()[:16])
    assert os.environ["NUMBA_CACHE_DIR"] == folder
    config = sys.modules.get("numba.core.config")
    if config is not None:  # numba already imported: its config follows
        assert config.CACHE_DIR == folder
    # decided once per process: sources changing under a running window do not move it
    monkeypatch.setenv("XDG_CACHE_HOME", str(clean_env / "elsewhere"))
    assert numba_package.use_versioned_cache() == folder
    # a child process (a Dask worker) sees the marker and recomputes for its own sources
    monkeypatch.setattr(numba_package, "_CACHE_FOLDER", None)
    assert numba_package.use_versioned_cache().startswith(str(clean_env / "elsewhere"))


def test_a_cache_folder_the_user_chose_is_kept(clean_env, monkeypatch):
    import os

    monkeypatch.setenv("NUMBA_CACHE_DIR", "/somewhere/mine")
    assert numba_package.use_versioned_cache() is None
    assert os.environ["NUMBA_CACHE_DIR"] == "/somewhere/mine"
