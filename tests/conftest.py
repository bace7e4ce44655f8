"""Shared test set-up: offscreen Qt, the gpu marker's skip, the ``cupy`` fixture, and a guard against
leaked threads."""
from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def pytest_collection_modifyitems(config, items):
    from solvers.engines import gpu_status

    ok, reason = gpu_status()
    if ok:
        return
    skip = pytest.mark.skip(reason=f"no usable CUDA device: {reason}")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


def _runs_the_numba_suite(session) -> bool:
    """Whether the selected tests include every tests/test_numba_*.py file (the whole suite, CI,
    or the numba subset): then they will compile most of the numba engine's kernels."""
    wanted = {p.name for p in Path(__file__).parent.glob("test_numba_*.py")}
    selected = {item.path.name for item in session.items}
    return bool(wanted) and wanted <= selected


def pytest_collection_finish(session):
    """Start the compilations that selected tests will wait for on the core the test process
    leaves idle (CI has two; pytest uses one): a test module's ``start_in_background(items)``
    (nvcc units: tests/test_kernels_compile.py), and, where the numba tests run, the numba
    kernels in a second process (tests/numba_prewarm.py says how the two share the work).
    MULTIWALK_PREWARM=0 turns both off; =1 forces the numba one."""
    flag = os.environ.get("MULTIWALK_PREWARM", "")
    if session.config.option.collectonly or flag == "0":
        return
    by_module: dict = {}
    for item in session.items:
        module = getattr(item, "module", None)
        if module is not None and hasattr(module, "start_in_background"):
            by_module.setdefault(module, []).append(item)
    for module, items in by_module.items():
        module.start_in_background(items)
    if os.name != "posix" or (flag != "1" and not _runs_the_numba_suite(session)):
        return
    import subprocess  # noqa: PLC0415
    import tempfile  # noqa: PLC0415

    import solvers.numba  # noqa: F401 - picks the cache folder both processes use
    from numba_prewarm import cache_save_lock  # noqa: PLC0415

    if not cache_save_lock():
        return
    log = tempfile.TemporaryFile()
    proc = subprocess.Popen([sys.executable, str(Path(__file__).with_name("numba_prewarm.py"))],
                            stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
    session.config.stash[_PREWARM] = (proc, log)


_PREWARM = pytest.StashKey[tuple]()


def pytest_sessionfinish(session):
    """Stop the numba prewarm if the tests ended first (it only fills a cache)."""
    proc, log = session.config.stash.get(_PREWARM, (None, None))
    if proc is None:
        return
    if proc.poll() is None:
        proc.terminate()
    proc.wait()
    log.seek(0)
    text = log.read().decode(errors="replace").strip()
    log.close()
    if text:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(f"numba prewarm (tests/numba_prewarm.py) said:\n{text}")


@pytest.fixture(scope="module")
def cupy():
    """CuPy for the gpu-marked tests (skipped where it is not installed)."""
    return pytest.importorskip("cupy")


@pytest.fixture(autouse=True)
def no_leaked_threads():
    """Fail a test that leaves a Python thread running (workers must be stopped and joined)."""
    before = set(threading.enumerate())
    yield
    deadline = time.monotonic() + 5.0
    while True:
        leaked = [t for t in threading.enumerate() if t not in before and t.is_alive() and not t.daemon]
        if not leaked or time.monotonic() > deadline:
            break
        time.sleep(0.02)
    assert not leaked, f"test left threads running: {[t.name for t in leaked]}"


class FakeEngine:
    """Stands in for a registered engine under its name: available or not (with a reason), running
    the numpy code, optionally without an implementation of some algorithms ("*" for all)."""

    def __new__(cls, name: str, status=(True, "fake device"), missing=(), **attributes):
        from solvers.engines.numpy import NumpyEngine
        from solvers.errors import EngineUnavailable

        class _Fake(NumpyEngine):
            is_reference = name == "numpy"

            def _probe(self):
                return tuple(status)

            def algorithm_class(self, algorithm):
                if "*" in missing or algorithm in missing:
                    raise EngineUnavailable(f"no fused CUDA kernel for '{algorithm}' (test)")
                return super().algorithm_class(algorithm)

        engine = _Fake()
        engine.name = name
        for key, value in attributes.items():  # flags such as compiles=True
            setattr(engine, key, value)
        return engine


@pytest.fixture
def fake_engines(monkeypatch):
    """fake_engines(name=FakeEngine(...) or (status, missing) kwargs): replace registered engines
    for one test; returns the registry's dict of engines."""
    from solvers.engines import registry

    def install(**engines):
        for name, spec in engines.items():
            engine = spec if not isinstance(spec, dict) else FakeEngine(name, **spec)
            monkeypatch.setitem(registry._ENGINES, name, engine)
        return registry._ENGINES

    return install


class Compiles(list):
    """The compiles a fake JIT engine made (one entry each); ``seconds``: how long each takes."""

    seconds = 0.5


@pytest.fixture
def jit_cupy(fake_engines, monkeypatch):
    """The fake cupy engine compiling as a JIT does: pattern search's first step sleeps
    Compiles.seconds; the list returned records that it happened (tests/test_cli.py,
    tests/test_tune_compile.py)."""
    from solvers.algorithms import get_algorithm

    compiled = Compiles()
    fake_engines(cupy={"compiles_when_run": True})  # the numpy code
    cls = get_algorithm("pattern_search")
    step = cls.step

    def step_compiling_at_first_call(self, state, iterations):
        if not compiled:
            compiled.append(True)
            time.sleep(compiled.seconds)
        return step(self, state, iterations)

    monkeypatch.setattr(cls, "step", step_compiling_at_first_call)
    return compiled


@pytest.fixture(scope="module")
def dask_cluster():
    """A one-worker local Dask cluster (worker in its own process), shared by a test module."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=":0", silence_logs=40) as cluster:
        yield cluster


@pytest.fixture(scope="module")
def dask_client(dask_cluster):
    """A Client of ``dask_cluster``."""
    distributed = pytest.importorskip("distributed")
    with distributed.Client(dask_cluster) as client:
        yield client
