"""SolverWorker and RunController: signal order, error messages, refusal of a second start, joins."""
from __future__ import annotations

import pytest

pytest.importorskip("PyQt6")
from PyQt6 import QtCore  # noqa: E402

import solvers  # noqa: E402
from solvers import ConfigError, DeviceMemoryError, EngineUnavailable, RunConfig  # noqa: E402

from gui.controller import RunController  # noqa: E402
from gui.worker import SolverWorker, describe_error  # noqa: E402

pytestmark = pytest.mark.gui
TIMEOUT_MS = 20_000


def small_config(algorithm: str = "pattern_search", **budget) -> RunConfig:
    budget = budget or {"max_iters": 20}
    cls = solvers.get_algorithm(algorithm)
    walkers = next(s for s in solvers.params.specs(cls.Params) if s.name == "walkers")
    return RunConfig.build(algorithm, "sphere", 2, params={"walkers": max(walkers.lo or 1, 16)},
                           **budget)


@pytest.fixture
def controller():
    """A RunController that is shut down (thread joined) even when the test fails."""
    ctrl = RunController()
    yield ctrl
    ctrl.shutdown()


def recorder(obj, names):
    """Append (signal name, args) for each of obj's signals in `names`, in arrival order."""
    events = []
    for name in names:
        getattr(obj, name).connect(lambda *args, n=name: events.append((n, args)))
    return events


@pytest.mark.parametrize("algorithm", solvers.list_algorithms())
def test_worker_signal_order_on_its_thread(qtbot, algorithm):
    worker = SolverWorker(small_config(algorithm))
    thread = QtCore.QThread()
    worker.moveToThread(thread)
    events = recorder(worker, ["sigStarted", "sigStatus", "sigSnapshot", "sigErrored", "sigFinished"])
    thread.started.connect(worker.run)
    worker.sigFinished.connect(thread.quit)
    with qtbot.waitSignal(thread.finished, timeout=TIMEOUT_MS):
        thread.start()
    thread.wait()
    names = [name for name, _ in events]
    assert names[0] == "sigStarted" and names[-1] == "sigFinished"
    assert "sigErrored" not in names
    assert names.count("sigFinished") == 1
    assert ("sigStatus", ("running",)) in events
    snaps = [args[0] for name, args in events if name == "sigSnapshot"]
    assert len(snaps) >= 2 and snaps[-1].finished and not any(s.finished for s in snaps[:-1])
    iterations = [s.iteration for s in snaps]
    assert iterations == sorted(iterations)
    result = events[-1][1][0]
    assert result.iterations == 20 and result.best_f == snaps[-1].best_f


def test_worker_error_comes_before_finished_none(qtbot, monkeypatch):
    cls = solvers.get_algorithm("pattern_search")

    def boom(self, state, iterations):
        raise ValueError("no good")

    monkeypatch.setattr(cls, "step", boom)
    worker = SolverWorker(small_config())
    thread = QtCore.QThread()
    worker.moveToThread(thread)
    events = recorder(worker, ["sigErrored", "sigFinished"])
    thread.started.connect(worker.run)
    worker.sigFinished.connect(thread.quit)
    with qtbot.waitSignal(thread.finished, timeout=TIMEOUT_MS):
        thread.start()
    thread.wait()
    assert events == [("sigErrored", ("ValueError: no good",)), ("sigFinished", (None,))]


class _FakeCupyError(Exception):
    pass


def test_describe_error_gives_one_clear_line():
    assert describe_error(ConfigError("bad value")) == "bad value"
    assert describe_error(EngineUnavailable("engine 'cuda' is not available: x")).startswith("engine")
    assert describe_error(DeviceMemoryError("needs 3 GiB, 1 GiB free")) == \
        "Out of GPU memory: needs 3 GiB, 1 GiB free"
    oom = type("OutOfMemoryError", (_FakeCupyError,), {"__module__": "cupy.cuda.memory"})
    assert describe_error(oom("Out of memory allocating 1,000 bytes\nmore")).startswith(
        "Out of GPU memory: Out of memory allocating 1,000 bytes")
    cuda = type("CUDARuntimeError", (_FakeCupyError,), {"__module__": "cupy_backends.cuda.api.runtime"})
    assert describe_error(cuda("cudaErrorIllegalAddress: an illegal memory access")) == \
        "CUDA error (CUDARuntimeError): cudaErrorIllegalAddress: an illegal memory access"
    assert describe_error(MemoryError()).startswith("Out of memory on the host")
    assert describe_error(RuntimeError("first\nsecond")) == "RuntimeError: first"
    assert "\n" not in describe_error(KeyError("k"))


def test_controller_refuses_a_second_start_and_joins(qtbot, controller):
    config = small_config(max_iters=10**9)
    with qtbot.waitSignal(controller.sigSnapshot, timeout=TIMEOUT_MS):
        assert controller.start(config)
    assert controller.is_running
    assert not controller.start(config), "a second concurrent start must be refused"
    thread = controller.thread
    with qtbot.waitSignal(controller.sigFinished, timeout=TIMEOUT_MS) as finished:
        controller.stop()
        assert controller.is_stopping
        assert not controller.start(config), "no start while the previous run is still stopping"
    assert finished.args[0].stop_reason == "stopped"
    assert thread.isFinished() and not controller.is_running  # joined before sigFinished
    with qtbot.waitSignal(controller.sigFinished, timeout=TIMEOUT_MS):
        assert controller.start(small_config())


def test_shutdown_joins_at_once_and_drops_stale_signals(qtbot, controller):
    seen = []
    controller.sigSnapshot.connect(seen.append)
    assert controller.start(small_config(max_iters=10**9))
    qtbot.waitUntil(lambda: bool(seen) and seen[-1].iteration > 50, timeout=TIMEOUT_MS)
    thread = controller.thread
    controller.shutdown()  # the worker's final snapshot and sigFinished are queued, unseen
    assert thread.isFinished() and controller.thread is None
    # whatever the first worker queued before it was joined must not reach a later run
    second = small_config(max_iters=3)
    seen.clear()
    with qtbot.waitSignal(controller.sigFinished, timeout=TIMEOUT_MS):
        assert controller.start(second)
    assert seen and all(s.iteration <= 3 for s in seen)
    assert sum(s.finished for s in seen) == 1
    controller.shutdown()  # safe when idle


def test_update_params_goes_through_the_runner_rules(qtbot, controller):
    with pytest.raises(ConfigError):
        controller.update_params({"restart": True})  # no run
    cls = solvers.get_algorithm("pattern_search")
    specs = solvers.params.specs(cls.Params)
    frozen = next(s for s in specs if not s.live and s.kind is float)
    live = next(s for s in specs if s.live and s.kind is int)
    with qtbot.waitSignal(controller.sigSnapshot, timeout=TIMEOUT_MS):
        assert controller.start(small_config(max_iters=10**9), paused=True)
    assert controller.is_paused
    with pytest.raises(ConfigError, match="only change on reset"):
        controller.update_params({frozen.name: frozen.default * 2})
    controller.update_params({live.name: live.default + 1})
    with qtbot.waitSignal(controller.sigSnapshot, timeout=TIMEOUT_MS):
        controller.step_once()
    assert getattr(controller._worker.runner.config.params, live.name) == live.default + 1
    controller.shutdown()


def test_a_compile_at_the_first_iteration_is_not_in_the_runs_time(qtbot, jit_cupy):
    """numba and cupy compile at their first iterations; the window's runs (and the compare tab's)
    counted that in their seconds, rate and max_seconds budget: DE on a new typed function on numba
    with 0.5 s made 0 iterations in '1.43 s'. The worker now compiles before the clock starts."""
    compiled = jit_cupy  # the fake cupy engine whose first step sleeps compile_seconds
    compile_seconds = compiled.seconds = 1.0
    config = RunConfig.build("pattern_search", "sphere", 2, params={"walkers": 16}, engine="cupy",
                             max_seconds=compile_seconds / 5)
    worker = SolverWorker(config)
    thread = QtCore.QThread()
    worker.moveToThread(thread)
    results = []
    worker.sigFinished.connect(results.append)
    thread.started.connect(worker.run)
    worker.sigFinished.connect(thread.quit)
    with qtbot.waitSignal(thread.finished, timeout=TIMEOUT_MS):
        thread.start()
    thread.wait()
    result = results[0]
    assert compiled and result.stop_reason == "max_seconds" and result.iterations > 0
    assert result.seconds < compile_seconds / 2, result.seconds


def test_stop_during_a_compile_says_what_it_waits_for(qtbot, controller):
    # a numba or CUDA compile cannot be interrupted: Stop then says it waits for it (and that the
    # compile is kept), elsewhere "stopping" as before
    from gui.controller import STOPPING_AFTER_COMPILE

    class Worker:  # stands for the SolverWorker: stop() is all Stop calls
        stopped = 0

        def stop(self):
            Worker.stopped += 1

    seen = []
    controller.sigStatus.connect(seen.append)
    for status, said in (("compiling the numba engine (once)", STOPPING_AFTER_COMPILE),
                         ("compiling kernels", STOPPING_AFTER_COMPILE),
                         ("first iteration", STOPPING_AFTER_COMPILE), ("running", "stopping")):
        controller._worker, controller._stopping = Worker(), False
        controller._on_worker_status(status)
        controller.stop()
        assert seen[-1] == said, status
    assert Worker.stopped == 4
    controller._worker, controller._stopping = None, False


def test_the_compile_stop_has_short_forms_for_a_narrow_status_bar():
    from gui.controller import STOPPING_AFTER_COMPILE
    from gui.status_words import status_forms

    forms = status_forms(STOPPING_AFTER_COMPILE, small_config())
    assert forms[0] == STOPPING_AFTER_COMPILE and len(forms) == 3
    assert [len(f) for f in forms] == sorted((len(f) for f in forms), reverse=True)
