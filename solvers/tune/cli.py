"""``main.py tune``: a parameter grid from the shell; every bad input is one line and exit 2."""
from __future__ import annotations

import signal
import sys
import threading

import numpy as np

from ..errors import ConfigError, one_line
from ..json_safe import strict_dumps

MAX_PRINTED = 32  # a map with more rows or columns is listed as its best cells instead
BEST_LISTED = 10


def register_cli(sub) -> None:
    """Add ``main.py tune`` to the command line."""
    from ..cli import _parse_bounds, _parse_param  # noqa: PLC0415
    from ..engines import list_engines, reference_engine  # noqa: PLC0415
    from . import DEFAULT_TOLERANCE  # noqa: PLC0415

    p = sub.add_parser("tune", help="run a grid of 1-2 parameters x seeds; a map of the final errors")
    p.add_argument("--algorithm", "-a", required=True, help="registry name (see 'list')")
    p.add_argument("--function", "--problem", "-f", dest="function", required=True,
                   help="problem name (see 'list') or 'expr: ...'")
    p.add_argument("--dim", "-d", type=int, default=None, help="dimension (default: the function's)")
    p.add_argument("--grid", "-g", action="append", default=[], required=True, metavar="NAME=LO:HI:N[:log]",
                   help="a parameter axis: N values from LO to HI (linear, or geometric with :log); "
                        "give it once or twice")
    p.add_argument("--seeds", type=int, default=4, help="runs per setting, seeds SEED, SEED+1, ... (default 4)")
    p.add_argument("--seed", "-s", type=int, default=0, help="first seed (default 0)")
    budget = p.add_mutually_exclusive_group(required=True)
    budget.add_argument("--max-evals", type=float, default=None, help="evaluations per run")
    budget.add_argument("--max-iters", type=float, default=None, help="iterations per run")
    p.add_argument("--engine", "-e", default=reference_engine().name, choices=list_engines())
    p.add_argument("--precision", "--dtype", dest="dtype", default="float64", choices=("float32", "float64"))
    p.add_argument("--fast-math", action="store_true", help="cuda engine: fast intrinsics")
    p.add_argument("--threads", type=int, default=None, metavar="N", help="numba engine: CPU threads")
    p.add_argument("--bounds", type=_parse_bounds, default=None, metavar="LOWER,UPPER",
                   help="search this box instead of the function's own")
    p.add_argument("--param", "-p", action="append", default=[], type=_parse_param, metavar="NAME=VALUE",
                   help="a fixed parameter of every run (repeatable)")
    p.add_argument("--f-min", type=float, default=None, metavar="VALUE",
                   help="a typed function's known minimum (errors and success are measured from it)")
    p.add_argument("--tolerance", type=float, default=None,
                   help=f"success: final best within this of the known minimum (default {DEFAULT_TOLERANCE:g})")
    p.add_argument("--csv", metavar="FILE", default=None,
                   help="write one row per run: parameters, seed, best_f, evals, seconds, reached_at")
    p.add_argument("--json", action="store_true", help="print the table (rows and cells) as JSON")
    p.set_defaults(func=cmd_tune)


def cmd_tune(args) -> int:
    from ..atomic_write import check_writable_file  # noqa: PLC0415
    from ..cli import refuse_ignored_engine_options  # noqa: PLC0415
    from . import DEFAULT_TOLERANCE, prepare, refuse_unused_params  # noqa: PLC0415

    refuse_ignored_engine_options(args.engine, args.threads, args.fast_math)
    if args.csv is not None:
        check_writable_file(args.csv, "CSV file")
    tolerance = DEFAULT_TOLERANCE if args.tolerance is None else args.tolerance
    tuning = prepare(args.algorithm, args.function, args.grid, seeds=args.seeds, first_seed=args.seed,
                     dim=args.dim, engine=args.engine, max_evals=args.max_evals,
                     max_iters=args.max_iters, params=dict(args.param), dtype=args.dtype,
                     tolerance=tolerance, fast_math=args.fast_math, bounds=args.bounds,
                     threads=args.threads, f_min=args.f_min)
    refuse_unused_params(tuning, dict(args.param))
    if args.tolerance is not None and tuning.table.f_min is None:
        # success is measured from the known minimum: without one the tolerance would be ignored
        raise ConfigError(f"--tolerance needs a known minimum, and {args.function} has none"
                          + (": give it with --f-min" if tuning.table.problem.startswith("expr:") else ""))
    interrupted = []

    def first_interrupt(signum, frame) -> None:
        """Ctrl+C while the grid runs: stop it at its next check (between chunks, slices of a large
        iteration, or runs; a numba compile runs to its end), so the runs so far are written and
        printed; the handler before it is back for a second Ctrl+C, which ends at once (main.py)."""
        interrupted.append(signum)
        signal.signal(signal.SIGINT, previous)

    # a handler can only be set on the main thread (a caller on another thread keeps its own)
    on_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, first_interrupt) if on_main else None
    try:
        # untimed; a first Ctrl+C meanwhile ends the grid as it starts, the compile under way done
        _compile(tuning, args.engine, stop=lambda: bool(interrupted))
        table = tuning.run(stop=lambda: bool(interrupted))
    except KeyboardInterrupt:  # a second Ctrl+C: the grid's runs are lost
        lost = f"; no run was written to {args.csv}" if args.csv is not None else ""
        print(f"main.py: interrupted{lost}", file=sys.stderr)
        return 130
    finally:
        if on_main:
            signal.signal(signal.SIGINT, previous)
    if args.csv is not None:
        table.save_csv(args.csv)
    if args.json:
        print(strict_dumps(table.to_dict()))
    else:
        print_table(table)
    if table.stop_reason == "stopped":  # a Ctrl+C after the last run changed nothing: exit 0
        kept = f", written to {args.csv}" if args.csv is not None else ""
        print(f"main.py: interrupted; {_kept(table)}{kept}", file=sys.stderr)
        return 130
    return 0


def _compile(tuning, engine_name: str, stop) -> None:
    """Compile the grid's kernels before its clock; said on stderr once it takes a while (numba's
    from a cold cache: ~23 s here), as `run` says it."""
    from ..cli import COMPILE_NOTICE_S, PROG  # noqa: PLC0415
    from ..engines import get_engine  # noqa: PLC0415

    if not tuning.compiles:
        return
    text = f"{PROG}: {get_engine(engine_name).compile_message}, not counted in the grid's time ..."
    notice = threading.Timer(COMPILE_NOTICE_S, print, (text,), {"file": sys.stderr, "flush": True})
    notice.daemon = True
    notice.start()
    try:
        tuning.compile(stop)
    finally:
        notice.cancel()


def _kept(table) -> str:
    """What an interrupted grid kept, in words."""
    if table.batched:  # one batched run: every run stopped at the evaluations it had reached
        return f"all {len(table.rows):,} runs stopped part-way, each row its best so far"
    return f"{len(table.rows):,} of {table.grid.groups:,} runs finished"


def print_table(table) -> None:
    grid = table.grid
    shape = " x ".join(str(n) for n in grid.shape)
    print(f"{table.algorithm} on {table.problem} (d={table.dim}), engine {table.engine}, {table.dtype}: "
          f"{shape} settings x {len(grid.seeds)} seeds = {grid.groups:,} runs")
    print(f"path        {table.path}")
    known = "f_min unknown: the map shows best f" if table.f_min is None else (
        f"error = best f - f_min ({table.f_min:.6g}); success: error <= {table.tolerance:g}")
    print(f"measure     {known}")
    for note in table.notes:
        print(f"note: {one_line(note)}", file=sys.stderr)
    cells = table.cells()
    if not cells:
        print("no run finished")
        return
    axes = grid.axes
    if len(axes) == 2 and max(grid.shape) <= MAX_PRINTED and len(cells) == np.prod(grid.shape):
        medians = np.array([c.median for c in cells]).reshape(grid.shape)
        print(f"median final error: rows {axes[0].name}, columns {axes[1].name}")
        print(f"{'':>10} " + " ".join(f"{v:>9.4g}" for v in axes[1].values))
        for value, line in zip(axes[0].values, medians):
            print(f"{value:>10.4g} " + " ".join(f"{m:>9.3g}" for m in line))
    else:
        listed = sorted(cells, key=lambda c: c.median)[:BEST_LISTED] if len(cells) > MAX_PRINTED else cells
        if listed is not cells:
            print(f"the {len(listed)} best of {len(cells)} settings by median final error:")
        for c in listed:
            print(f"  {_setting(c.params):<32} {_summary(c, len(grid.seeds))}")
    best = min(cells, key=lambda c: (c.median, c.q3))
    print(f"best        {_setting(best.params)}: {_summary(best, len(grid.seeds))}")
    rate = sum(r.evals for r in table.rows) / table.seconds if table.seconds > 0 else float("nan")
    print(f"{table.stop_reason} {len(table.rows):,} of {grid.groups:,} runs in {table.seconds:.3f} s "
          f"({rate:.4g} evals/s)")


def _setting(params: dict) -> str:
    return ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in params.items())


def _summary(cell, seeds: int) -> str:
    text = f"median {cell.median:.3g} [{cell.q1:.3g}, {cell.q3:.3g}], best {cell.best:.3g}, worst {cell.worst:.3g}"
    if cell.success_rate is not None:
        text += f", success {round(cell.success_rate * cell.runs)}/{cell.runs}"
    if cell.evals_to_tolerance is not None:
        text += f", {cell.evals_to_tolerance:,.0f} evals to tolerance"
    return text


__all__ = ["register_cli", "cmd_tune", "print_table", "ConfigError"]
