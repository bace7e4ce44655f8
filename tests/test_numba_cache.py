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
    config = sys.modules.get("numba.core.config")
    saved = getattr(config, "CACHE_DIR", None)
    yield tmp_path
    if config is not None:
        config.CACHE_DIR = saved


def test_the_folder_is_named_by_a_hash_of_every_numba_source(clean_env, monkeypatch):
    import os

    digest = hashlib.sha1()
    for path in sorted(Path(numba_package.__file__).parent.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    folder = numba_package.use_versioned_cache()
    assert folder == str(clean_env / "multiwalk" / "numba" / digest.hexdigest()[:16])
    assert os.environ["NUMBA_CACHE_DIR"] == folder
    config = sys.modules.get("numba.core.config")
    if config is not None:  # numba already imported: its config follows
        assert config.CACHE_DIR == folder
    # a child process (a Dask worker) sees the marker and recomputes for its own sources
    assert numba_package.use_versioned_cache() == folder


def test_a_cache_folder_the_user_chose_is_kept(clean_env, monkeypatch):
    import os

    monkeypatch.setenv("NUMBA_CACHE_DIR", "/somewhere/mine")
    assert numba_package.use_versioned_cache() is None
    assert os.environ["NUMBA_CACHE_DIR"] == "/somewhere/mine"
