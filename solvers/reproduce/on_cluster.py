"""``main.py reproduce ... --scheduler``: the selected papers as independent Dask tasks.

A paper's experiments share one time allowance and decide their sizes as they go, so the unit of
distribution is the paper (five tasks for ``all``), not the measurement. Each task writes its report
into a private folder on its worker and sends the files back; the client writes them into ``--out``,
so a remote cluster needs no shared file system. Rates measured while other papers run on the same
machine share its CPU cores: CPU-side speeds of concurrent papers are lower than a sequential run's.
"""
from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Callable, Sequence


def _paper_files(pid: str, options: dict) -> list[tuple[str, bytes]]:
    """Worker side: reproduce one paper into a temporary folder and return its files."""
    from . import reproduce  # noqa: PLC0415

    with tempfile.TemporaryDirectory(prefix=f"multiwalk-{pid}-") as tmp:
        reproduce(pid, out=tmp, **options)
        return [(p.name, p.read_bytes()) for p in sorted(Path(tmp).iterdir()) if p.is_file()]


def reproduce_on_cluster(paper: str, scheduler: str, *, engines: Sequence[str] | None, quick: bool,
                         out: str | Path, seed: int, dtype: str | None, command: str,
                         log: Callable[[str], None]) -> list[Path]:
    """Like ``reproduce`` (same arguments, validated here first), one task per paper."""
    from distributed import as_completed  # noqa: PLC0415

    from ..study.cluster import open_client  # noqa: PLC0415
    from . import select_papers, validate_options  # noqa: PLC0415
    from .context import output_dir  # noqa: PLC0415

    selected = select_papers(paper)
    validate_options(engines, dtype, seed)
    out_dir = output_dir(out)
    options = {"engines": list(engines) if engines else None, "quick": quick, "seed": seed, "dtype": dtype,
               "command": command}
    written = []
    with open_client(scheduler) as client:
        log(f"reproduce: {len(selected)} paper(s) on Dask, dashboard {client.dashboard_link}")
        futures = {client.submit(_paper_files, pid, options, pure=False, retries=1): (pid, name)
                   for pid, name, _ in selected}
        for fut in as_completed(futures):
            pid, name = futures[fut]
            files = fut.result()
            for file_name, data in files:
                (out_dir / file_name).write_bytes(data)
            report = out_dir / f"{name}.md"
            written.append(report if report.exists() else out_dir / files[0][0])
            log(f"[{pid} {name}] wrote {len(files)} file(s) into {out_dir}")
    order = {name: i for i, (_, name, _) in enumerate(selected)}
    return sorted(written, key=lambda p: order.get(p.stem, len(order)))
