"""Where a study runs: an existing Dask scheduler, or an embedded local cluster.

Embedded: on a machine with usable GPUs, one worker per GPU (dask-cuda's LocalCUDACluster where it is
installed, otherwise Nanny workers each pinned with CUDA_VISIBLE_DEVICES and a ``GPU`` resource);
without GPUs (or with ``cpu=True``) one single-threaded worker process per core, because runs hold
the GIL in NumPy's small operations and separate processes are what scale.
"""
from __future__ import annotations

import contextlib
import os
import re
from typing import Iterator

from ..engines import gpu_status
from ..errors import ConfigError


LOCAL = "local"  # --scheduler local: an embedded cluster on this machine
WORKER_PRELOAD = "solvers.study.worker_setup"


def add_scheduler_option(parser, what: str) -> None:
    """The --scheduler option of every command that can spread its independent runs over Dask."""
    parser.add_argument("--scheduler", default=None, metavar="local|tcp://HOST:8786",
                        help=f"run {what} on Dask: 'local' starts a cluster on this machine (one worker "
                             "per GPU, else per core), an address uses a running scheduler")


_ADDRESS = re.compile(r"^(?:(?:tcp|tls|ucx)://)?[A-Za-z0-9_.\-\[\]:]+:\d{1,5}$")


def check_scheduler(text: str | None) -> str | None:
    """A scheduler as typed (a window's setting, a CLI option): None for none (run here), "local",
    or an address such as tcp://host:8786; ConfigError with one line otherwise."""
    text = (text or "").strip()
    if not text:
        return None
    if text.lower() == LOCAL:
        return LOCAL
    if not _ADDRESS.match(text):
        raise ConfigError(f"not a Dask scheduler address: '{text}' (use 'local' or tcp://host:8786)")
    # the pattern takes five digits: tcp://host:99999 was accepted, then failed only after the
    # job's 10 s connection timeout as 'cannot reach', not as the typo it is
    port = int(text.rsplit(":", 1)[1])
    if not 1 <= port <= 65535:
        raise ConfigError(f"not a Dask scheduler address: '{text}' (the port must be 1 to 65535)")
    return text


def gpu_count() -> int:
    ok, _ = gpu_status()
    if not ok:
        return 0
    import cupy  # noqa: PLC0415

    return int(cupy.cuda.runtime.getDeviceCount())


@contextlib.contextmanager
def open_client(scheduler: str | None = None, *, workers: int | None = None,
                cpu: bool = False) -> Iterator["distributed.Client"]:  # noqa: F821
    """A connected Client; an embedded cluster is started here and shut down on exit."""
    # as typed on the command line: 'study/bench/reproduce --scheduler nonsense' reached Dask and
    # was an internal error (ValueError: missing port number)
    scheduler = check_scheduler(scheduler) if scheduler is not None else None
    try:
        from distributed import Client  # noqa: PLC0415
    except ImportError:
        raise ConfigError("studies need dask.distributed: pip install 'dask[distributed]'") from None
    if scheduler == LOCAL:
        scheduler = None
    if scheduler is not None:
        try:
            client = Client(scheduler, timeout="10s")
        except (OSError, TimeoutError) as exc:
            raise ConfigError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None
        with client:
            yield client
        return
    if workers is not None and workers < 1:
        raise ConfigError(f"--workers must be >= 1, got {workers}")
    cluster = _local_cluster(workers, cpu)
    with cluster, Client(cluster) as client:
        yield client


def _local_cluster(workers: int | None, cpu: bool):
    from distributed import LocalCluster  # noqa: PLC0415

    gpus = 0 if cpu else gpu_count()
    # any free port; errors only; workers leave Ctrl+C to the client (worker_setup says why)
    quiet = {"dashboard_address": ":0", "silence_logs": 40, "preload": [WORKER_PRELOAD]}
    if gpus == 0:
        n = workers or os.cpu_count() or 1
        return LocalCluster(n_workers=n, threads_per_worker=1, processes=True, **quiet)
    n = min(workers or gpus, gpus)
    try:
        from dask_cuda import LocalCUDACluster  # noqa: PLC0415

        return LocalCUDACluster(CUDA_VISIBLE_DEVICES=list(range(n)), threads_per_worker=1, **quiet)
    except ImportError:
        pass
    from distributed import Nanny, Scheduler, SpecCluster  # noqa: PLC0415

    specs = {f"gpu{i}": {"cls": Nanny, "options": {"nthreads": 1, "resources": {"GPU": 1},
                                                  "preload": [WORKER_PRELOAD],
                                                  "env": {"CUDA_VISIBLE_DEVICES": str(i)}}}
             for i in range(n)}
    return SpecCluster(workers=specs, scheduler={"cls": Scheduler, "options": {"dashboard_address": ":0"}},
                       silence_logs=40)
