"""Preload of the embedded cluster's worker processes (``LocalCluster(preload=[__name__])``).

Ctrl+C in a terminal sends SIGINT to the whole foreground process group, the worker processes
included: each raised KeyboardInterrupt in Dask's event loop and printed its traceback under the
client's "interrupted" line. The client alone handles Ctrl+C (it keeps the finished rows and closes
the cluster, which stops the workers), so the workers ignore SIGINT.
"""
from __future__ import annotations

import signal


def dask_setup(worker) -> None:  # noqa: ARG001 - Dask's preload interface
    signal.signal(signal.SIGINT, signal.SIG_IGN)
