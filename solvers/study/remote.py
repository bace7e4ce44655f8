"""One long job on a Dask worker, its items streamed back as they come (the window's Speedup sweep
and Tune tabs "on the cluster").

A sweep or a tuning grid is one job, not many tasks: its timings are only comparable when every
point is measured on the same machine (a speedup is a ratio of two measurements taken in the same
run), and a batched grid is one launch anyway. The job runs on one worker (its GPU and its cores);
its progress items travel back through a ``distributed.Queue`` and Stop reaches it through a
``distributed.Event``, so the window stays as live as with a local run.
"""
from __future__ import annotations

import threading
import uuid
from typing import Any, Callable, Iterator

_END = "__multiwalk_end__"
POLL_S = 0.2  # how often both sides look for Stop and for the job's end


def _job(fn: Callable, args: tuple, queue_name: str, event_name: str) -> int:
    """Runs on the worker: fn(*args, cancel=threading.Event, emit=callable) yields items, each put on
    the queue; a set Event sets `cancel` (watched on a thread). Returns how many items were sent."""
    from distributed import Event, Queue  # noqa: PLC0415

    queue, stop = Queue(queue_name), Event(event_name)
    cancel, done = threading.Event(), threading.Event()

    def watch() -> None:
        while not done.is_set():
            if stop.is_set():
                cancel.set()
                return
            done.wait(POLL_S)

    watcher = threading.Thread(target=watch, name="multiwalk-stop-watch", daemon=True)
    watcher.start()
    sent = 0
    try:
        for item in fn(*args, cancel=cancel, emit=queue.put):
            queue.put(item)
            sent += 1
    finally:
        done.set()
        queue.put(_END)
    return sent


def stream(client, fn: Callable, *args: Any, cancel: threading.Event) -> Iterator[Any]:
    """Run generator function ``fn(*args, cancel=..., emit=...)`` as one task on a worker of
    `client` and yield what it yields (and what it passes to ``emit``) here, in order, as it comes.

    Setting `cancel` stops the job (between its items, as a local run stops). An exception of the
    job is raised here; a lost worker raises distributed's error.
    """
    from distributed import Event, Queue  # noqa: PLC0415

    tag = uuid.uuid4().hex
    queue_name, event_name = f"multiwalk-items-{tag}", f"multiwalk-stop-{tag}"
    queue, stop = Queue(queue_name, client=client), Event(event_name, client=client)
    future = client.submit(_job, fn, args, queue_name, event_name, pure=False, key=f"multiwalk-job-{tag}")
    stopping = False
    try:
        while True:
            if cancel.is_set() and not stopping:
                stop.set()
                stopping = True
            try:
                item = queue.get(timeout=POLL_S)
            except TimeoutError:
                if future.status == "error":
                    future.result()  # raises the job's exception here
                if future.status == "cancelled":
                    raise RuntimeError("the cluster cancelled the job (its worker was lost?)") from None
                continue
            if isinstance(item, str) and item == _END:
                future.result()
                return
            yield item
    finally:
        if not future.done():
            stop.set()
            future.cancel()


def dashboard_link(client) -> str:
    """The cluster's dashboard address, or '' where it has none."""
    try:
        return str(client.dashboard_link or "")
    except Exception:  # noqa: BLE001 - a scheduler without a dashboard
        return ""
