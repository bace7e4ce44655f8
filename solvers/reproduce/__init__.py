"""``python main.py reproduce PAPER``: run a seed paper's experiments and write a Markdown report.

One module per seed paper holds the paper's numbers (typed in from the seed text, with the table
or figure they come from) and runs its experiments with our solvers; ``report`` writes the
Markdown, ``plots`` the PNGs (matplotlib's Agg canvas, imported lazily), ``context`` chooses the
engines and times the runs. Qt-free, like the rest of ``solvers``.
"""
from __future__ import annotations

import functools
import importlib
import sys
import time
from pathlib import Path

from ..errors import ConfigError

# Never the committed docs/reproduction (H100 reports) unless asked for with --out.
DEFAULT_OUT = "reproduction-out"
QUICK_ALLOWANCE_S = 120.0  # a safety net only: quick mode finishes in seconds

# id, report name (file stem and accepted alias), module in this package, extra aliases
PAPERS: tuple[tuple[str, str, str, tuple[str, ...]], ...] = (
    ("000", "pattern_search", "pattern_search", ()),
    ("001", "multidirectional_search", "multidirectional", ("multidirectional",)),
    ("002", "simulated_annealing", "annealing", ("annealing",)),
    ("003", "particle_swarm", "particle_swarm", ("pso",)),
    ("004", "differential_evolution", "differential_evolution", ("de",)),
)


def paper_keys() -> list[str]:
    return [k for pid, name, _, aliases in PAPERS for k in (pid, name, *aliases)] + ["all"]


def select_papers(key: str) -> list[tuple[str, str, str]]:
    """(id, name, module) of the papers `key` names; ConfigError for an unknown key."""
    key = str(key).strip().lower()
    if key == "all":
        return [(pid, name, module) for pid, name, module, _ in PAPERS]
    for pid, name, module, aliases in PAPERS:
        if key in (pid, name, *aliases) or (key.isdigit() and int(key) == int(pid)):
            return [(pid, name, module)]
    known = ", ".join(f"{pid} ({name})" for pid, name, _, _ in PAPERS)
    raise ConfigError(f"unknown paper '{key}' (known: {known}, or all)")


def parse_engines(values: list[str] | None) -> list[str] | None:
    if not values:
        return None
    return [e.strip() for v in values for e in v.split(",") if e.strip()]


def validate_options(engines: list[str] | None, dtype: str | None, seed) -> None:
    """ConfigError (one line) for a bad engine name, dtype or seed, before anything is created."""
    from ..config import check_dtype  # noqa: PLC0415
    from .context import Context  # noqa: PLC0415

    if dtype is not None:
        check_dtype(dtype)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ConfigError(f"seed must be an integer >= 0, got {seed!r}")
    Context(engines)


def reproduce(paper: str, *, engines: list[str] | None = None, quick: bool = False,
              out: str | Path = DEFAULT_OUT, seed: int = 0, dtype: str | None = None,
              command: str = "", log=None) -> list[Path]:
    """Run the experiments of `paper` (an id, a name or "all"); returns the reports written."""
    from .context import Context, output_dir  # noqa: PLC0415
    from .report import Report  # noqa: PLC0415

    selected = select_papers(paper)
    validate_options(engines, dtype, seed)
    log = log or (lambda text: None)
    probe = Context(engines)  # the names are valid (validate_options); can any of them run here?
    if engines and probe.unavailable and len(probe.unavailable) == len(probe.requested):
        reasons = "; ".join(f"{e}: {why}" for e, why in probe.unavailable.items())
        raise ConfigError(f"no requested engine can run here ({reasons})")
    out_dir = output_dir(out)  # created and probed before hours of experiments
    written = []
    for pid, name, module_name in selected:
        module = importlib.import_module(f"{__name__}.{module_name}")
        info = module.PAPER
        ctx = Context(engines, quick=quick, seed=seed, dtype=dtype, command=command, log=log)
        ctx.start_allowance(QUICK_ALLOWANCE_S if quick else info.allowance_s)
        report = Report(info, ctx, ctx.dtype(info.default_dtype), out_dir)
        log(f"[{pid} {name}] start ({'quick' if quick else 'full'} mode)")
        t0 = time.perf_counter()
        try:
            module.run(ctx, report)
        except BaseException:  # Ctrl+C or an error: no plots of this run beside an older report
            report.discard()
            raise
        elapsed = time.perf_counter() - t0
        path = report.write(elapsed)
        written.append(path)
        log(f"[{pid} {name}] wrote {path} and {len(report.images)} plot(s) in {elapsed:.1f} s")
    return written


def register_cli(subparsers) -> None:
    """Add the ``reproduce`` subcommand to the headless CLI."""
    from ..config import DEFAULT_SEED, DTYPES  # noqa: PLC0415
    from ..study.cluster import add_scheduler_option  # noqa: PLC0415

    parser = subparsers.add_parser(
        "reproduce", help="run a seed paper's experiments and write a Markdown report with plots",
        description="Run a seed paper's experiments with our solvers and write DIR/<paper>.md and "
                    "DIR/<paper>_*.png, with the paper's numbers beside ours.")
    parser.add_argument("paper", help="000..004, a name (pattern_search, multidirectional_search, "
                                      "simulated_annealing, particle_swarm, differential_evolution) or all")
    parser.add_argument("--engine", "-e", action="append", default=None, metavar="ENGINE",
                        help="engines to use (numpy, cupy, cuda, numba, numba1; repeat or comma-separate); "
                             "default: every available one")
    parser.add_argument("--quick", action="store_true",
                        help="reduced sizes (what the tests run): seconds a paper on the CPU; 'all' took "
                             "about a minute on 2 cores with numba compiling its kernels the first time")
    parser.add_argument("--out", "-o", default=DEFAULT_OUT, help=f"output folder (default {DEFAULT_OUT})")
    parser.add_argument("--seed", "-s", type=int, default=DEFAULT_SEED, help=f"base seed (default {DEFAULT_SEED})")
    parser.add_argument("--precision", "--dtype", dest="dtype", choices=DTYPES, default=None,
                        help="precision for every experiment (default: each paper's own)")
    add_scheduler_option(parser, "the selected papers (one task each)")
    parser.set_defaults(func=cmd_reproduce)


def _command_line(args) -> str:
    parts = ["python3 main.py reproduce", args.paper]
    for engine in parse_engines(args.engine) or []:
        parts += ["--engine", engine]
    if args.quick:
        parts.append("--quick")
    parts += ["--out", str(args.out)]
    if args.seed:
        parts += ["--seed", str(args.seed)]
    if args.dtype:
        parts += ["--dtype", args.dtype]
    return " ".join(parts)


def cmd_reproduce(args) -> int:
    def log(text: str) -> None:
        print(text, flush=True)

    run = reproduce
    if args.scheduler:
        from .on_cluster import reproduce_on_cluster  # noqa: PLC0415

        run = functools.partial(reproduce_on_cluster, scheduler=args.scheduler)
    try:
        written = run(args.paper, engines=parse_engines(args.engine), quick=args.quick,
                      out=args.out, seed=args.seed, dtype=args.dtype, command=_command_line(args), log=log)
    except KeyboardInterrupt:
        print("main.py: interrupted", file=sys.stderr)
        return 130
    for path in written:
        print(path)
    return 0
