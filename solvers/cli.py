"""The headless command line: ``run``, ``list`` and the commands other modules register (bench, ...).

Bad input never shows a traceback: it is one line on stderr and exit code 2.
"""
from __future__ import annotations

import argparse
import os
import sys
import threading
from typing import Sequence

from .errors import ConfigError, DeviceMemoryError, EngineUnavailable, one_line
from .json_safe import strict_dumps

PROG = "main.py"
COMPILE_NOTICE_S = 1.0  # `run` says "compiling" once a compile takes this long (a cached one is quiet)


class OneLineParser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line on stderr and exit code 2."""

    def error(self, message: str):  # noqa: D401 - argparse's hook
        self.exit(2, f"{one_line(self.prog)}: error: {one_line(message)}\n")


def _parse_param(text: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got '{text}'")
    return name.strip(), value.strip()


def _parse_bounds(text: str) -> tuple[float, float]:
    parts = text.split(",")
    try:
        if len(parts) != 2:
            raise ValueError
        return float(parts[0]), float(parts[1])
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected LOWER,UPPER, got '{text}'") from None


def build_parser() -> argparse.ArgumentParser:
    from .config import DEFAULT_DTYPE, DEFAULT_SEED, DTYPES  # noqa: PLC0415
    from .engines import list_engines, reference_engine  # noqa: PLC0415

    parser = OneLineParser(prog=PROG, description=(
        "Multiwalk: GPU-parallel derivative-free global optimisation. Without a command, opens the window."))
    sub = parser.add_subparsers(dest="command", parser_class=OneLineParser, metavar="COMMAND")

    run = sub.add_parser("run", help="run one algorithm on one function and print the result")
    run.add_argument("--algorithm", "-a", required=True, help="registry name (see 'list')")
    which = run.add_mutually_exclusive_group(required=True)
    which.add_argument("--function", "--problem", "-f", dest="function", help="problem name (see 'list') or a typed expression "
                       "'expr: 10*n + sum(x[i]**2 - 10*cos(2*pi*x[i]))' (README: Your own objective)")
    which.add_argument("--function-file", metavar="FILE",
                       help="read the expression from a text file (the 'expr:' prefix optional; several "
                            "lines are joined, '#' starts a comment to the end of its line)")
    run.add_argument("--dim", "-d", type=int, default=None, help="dimension (default: the function's)")
    run.add_argument("--engine", "-e", default=reference_engine().name, choices=list_engines())
    run.add_argument("--precision", "--dtype", dest="dtype", default=DEFAULT_DTYPE, choices=DTYPES,
                     help="floating-point precision of the walkers and the function (the window's "
                          "'Precision'; --dtype is the same option)")
    run.add_argument("--fast-math", action="store_true", help="cuda engine: fast intrinsics (__sinf, ...)")
    run.add_argument("--threads", type=int, default=None, metavar="N",
                     help="numba engine: CPU threads (default: every core)")
    run.add_argument("--devices", default=None, metavar="all|0,1",
                     help="split the run over these devices (GPUs of the cuda engine; 'all' = every "
                          "one; a repeated number puts two shards on one device); default: one device")
    run.add_argument("--bounds", type=_parse_bounds, default=None, metavar="LOWER,UPPER",
                     help="search this box instead of the function's own (same in every coordinate)")
    run.add_argument("--f-min", type=float, default=None, metavar="VALUE",
                     help="a typed function's known minimum (the error shown is best - VALUE)")
    run.add_argument("--walkers", "-n", type=int, default=None, help="shortcut for --param walkers=N (0 = auto, from the budget)")
    run.add_argument("--seed", "-s", type=int, default=DEFAULT_SEED)
    budget = run.add_mutually_exclusive_group()
    budget.add_argument("--max-evals", type=float, default=None, help="stop after this many evaluations")
    budget.add_argument("--max-iters", type=float, default=None, help="stop after this many iterations")
    budget.add_argument("--max-seconds", type=float, default=None, help="stop after this much compute time")
    run.add_argument("--param", "-p", action="append", default=[], type=_parse_param, metavar="NAME=VALUE",
                     help="algorithm parameter (repeatable); 'list' shows them with their ranges")
    run.add_argument("--json", action="store_true",
                     help="print the result as JSON (non-finite numbers: NaN as null, infinities as \"inf\"/\"-inf\")")
    run.set_defaults(func=cmd_run)

    lister = sub.add_parser("list", help="list algorithms (with parameters) and functions")
    lister.add_argument("--json", action="store_true")
    lister.set_defaults(func=cmd_list)

    # imported directly: a broken command module must fail loudly, not vanish from the CLI
    # (optional dependencies such as Dask are imported inside the commands that need them)
    import importlib  # noqa: PLC0415

    for name in ("bench", "reproduce", "study", "warmup"):
        importlib.import_module(f"{__package__}.{name}").register_cli(sub)
    importlib.import_module(f"{__package__}.tune.cli").register_cli(sub)
    return parser


def refuse_ignored_engine_options(engine_name: str, threads: int | None, fast_math: bool) -> None:
    """--threads or --fast-math on an engine that would ignore it is bad input (ConfigError): the
    run would go on as if the option had not been given (`run`, `tune`)."""
    from .engines import get_engine, list_engines  # noqa: PLC0415

    engine = get_engine(engine_name)
    if threads is not None and not engine.threads_choosable():
        takers = [e for e in list_engines() if get_engine(e).threads_choosable()]
        raise ConfigError(f"--threads: engine '{engine_name}' has no thread count to choose "
                          f"(engines that have: {', '.join(takers) or 'none'})")
    if fast_math and not engine.honours_fast_math:
        takers = [e for e in list_engines() if get_engine(e).honours_fast_math]
        raise ConfigError(f"--fast-math: engine '{engine_name}' has no fast-math switch "
                          f"(engines that have: {', '.join(takers) or 'none'})")


def cmd_run(args) -> int:
    from .config import RunConfig  # noqa: PLC0415
    from .engines import get_engine  # noqa: PLC0415
    from .algorithms import get_algorithm  # noqa: PLC0415
    from .params import refuse_unused  # noqa: PLC0415
    from .problems.base import param_defaults  # noqa: PLC0415
    from .runner import Runner  # noqa: PLC0415

    params = dict(args.param)
    if args.walkers is not None:
        if "walkers" in params:
            raise ConfigError(f"-n/--walkers {args.walkers} and -p walkers={params['walkers']} both "
                              "set the walkers; give one of them")
        params["walkers"] = args.walkers
    refuse_ignored_engine_options(args.engine, args.threads, args.fast_math)
    function = args.function if args.function_file is None else read_function_file(args.function_file)
    config = RunConfig.build(args.algorithm, function, args.dim, params=params, engine=args.engine,
                             dtype=args.dtype, seed=args.seed, max_evals=args.max_evals,
                             max_iters=args.max_iters, max_seconds=args.max_seconds,
                             fast_math=args.fast_math, sample_size=1, bounds=args.bounds, threads=args.threads,
                             f_min=args.f_min, devices=args.devices)
    refuse_unused(config.params, params, get_algorithm(config.algorithm).fitted_params,
                  param_defaults(config.problem, config.algorithm))
    early = set()  # warnings about the run ahead, printed before it starts
    compiling = get_engine(config.engine).compile_message
    notice: list[threading.Timer] = []  # a compile is announced once it takes noticeable time

    def status(text: str) -> None:
        for timer in notice:  # the phase it would announce is over
            timer.cancel()
        notice.clear()
        if text.startswith("warning: "):
            early.add(text[len("warning: "):])
            print(one_line(text), file=sys.stderr, flush=True)
        elif text == compiling:
            timer = threading.Timer(COMPILE_NOTICE_S, print, (f"{PROG}: {text}, not counted in the run's time ...",),
                                    {"file": sys.stderr, "flush": True})
            timer.daemon = True
            timer.start()
            notice.append(timer)

    # compiled before the clock starts, as every measurement does (README: compilation never counts)
    runner = Runner(config, on_status=status, compile_first=True)
    try:
        result = runner.run()
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    finally:
        status("")  # no notice after the run (or its error)
    if args.json:
        print(strict_dumps(result.to_dict()))  # NaN -> null, +/-inf -> "inf"/"-inf": valid JSON
        return 0
    rate = result.evals / result.seconds if result.seconds > 0 else float("nan")
    known = "" if result.f_min is None else f"   (known minimum {result.f_min:.10g})"
    print(f"{result.algorithm} on {result.problem} (d={result.dim}), engine {result.engine}, "
          f"{result.dtype}, seed {result.seed}")
    print(f"best f      {result.best_f:.10g}{known}")
    x = ", ".join(f"{v:.6g}" for v in result.best_x[:10]) + (", ..." if result.dim > 10 else "")
    print(f"best x      [{x}]")
    print(f"evaluations {result.evals}   iterations {result.iterations}   "
          f"{result.seconds:.3f} s   {rate:.4g} evals/s   stop: {result.stop_reason}")
    nonfinite = ("not counted on this engine" if result.nonfinite_evals is None else
                 f"{result.nonfinite_evals} evaluations gave NaN or inf (treated as +inf)")
    print(f"points      {result.points_per_iteration:,} per iteration "
          f"(walkers x groups)   non-finite: {nonfinite}")
    used = ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in result.params.items())
    print(f"parameters  {used}   (effective: 'auto' resolved for the budget)")
    for warning in result.warnings:
        if warning not in early:
            print(f"warning: {warning}", file=sys.stderr)
    return 0


def read_function_file(path: str) -> str:
    """The 'expr: ...' name of the expression in a text file (ConfigError naming the file)."""
    from .problems.custom import expression_name, is_expression  # noqa: PLC0415
    from .problems.expression import MAX_LENGTH  # noqa: PLC0415

    try:
        # utf-8-sig: a byte-order mark (Notepad's 'UTF-8 with BOM') was read as the expression's
        # first character and refused: "character '\ufeff' (U+FEFF) is not allowed"
        with open(path, encoding="utf-8-sig") as handle:
            text = handle.read(MAX_LENGTH * 4 + 1)  # a long file is refused by length, unread
    except OSError as exc:
        raise ConfigError(f"cannot read --function-file {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:  # has no strerror: caught apart, or the message itself would fail
        raise ConfigError(f"cannot read --function-file {path}: not a UTF-8 text file") from None
    # '#' to the end of a line is a comment (blanked, so columns stay): joined into one line, a
    # comment line swallowed the rest of the file ("the expression ends too early")
    text = "\n".join(_blank_comment(line) for line in text.split("\n"))
    # line breaks as spaces: one line for messages and set-ups, columns unchanged
    text = text.strip().replace("\r", " ").replace("\n", " ").replace("\t", " ")
    return text if is_expression(text) else expression_name(text)


def _blank_comment(line: str) -> str:
    """The line with '#' and what follows it as spaces (an expression has no '#' of its own)."""
    cut = line.find("#")
    return line if cut < 0 else line[:cut] + " " * (len(line) - cut)


def _join_negative_values(argv: list[str]) -> list[str]:
    """'--bounds -5,5' as '--bounds=-5,5': argparse would take '-5,5' for an option."""
    out: list[str] = []
    for arg in argv:
        if out and out[-1] == "--bounds" and arg.startswith("-") and not arg.startswith("--"):
            out[-1] = f"--bounds={arg}"
        else:
            out.append(arg)
    return out


def cmd_list(args) -> int:
    from .algorithms import get_algorithm, list_algorithms  # noqa: PLC0415
    from .engines import engine_status, get_engine, list_engines  # noqa: PLC0415
    from .params import specs  # noqa: PLC0415
    from .problems import get_problem, list_problems, get_definition  # noqa: PLC0415

    algorithms = []
    for name in list_algorithms():
        cls = get_algorithm(name)
        algorithms.append({"name": name, "title": cls.title, "reference": cls.reference, "params": [
            {"name": s.name, "default": s.default, "lo": s.lo, "hi": s.hi, "choices": s.choices,
             "live": s.live, "tip": s.tip} for s in specs(cls.Params)]})
    problems = []
    for name in list_problems():
        d = get_definition(name)
        p = get_problem(name)
        problems.append({"name": name, "title": d.title, "group": d.group, "source": d.source,
                         "dims": list(d.dims) if d.dims else f">={d.min_dim}", "default_dim": d.default_dim,
                         "lower": float(p.lower.min()), "upper": float(p.upper.max()), "f_min": p.f_min,
                         "param_defaults": {a: dict(v) for a, v in d.param_defaults.items()}})
    engines = [{"name": e, "available": engine_status(e)[0], "detail": engine_status(e)[1],
                "devices": get_engine(e).device_count()} for e in list_engines()]
    if args.json:
        print(strict_dumps({"algorithms": algorithms, "problems": problems, "engines": engines}))
        return 0
    print("Algorithms")
    for a in algorithms:
        print(f"  {a['name']:<24} {a['title']}")
        for p in a["params"]:
            rng = f"one of {', '.join(p['choices'])}" if p["choices"] else (
                f"[{p['lo']}, {p['hi']}]" if p["lo"] is not None else "true/false")
            live = " (live)" if p["live"] else ""
            print(f"      {p['name']:<20} default {p['default']!s:<8} {rng}{live}  {p['tip']}")
    print("\nFunctions")
    group = None
    for p in problems:
        if p["group"] != group:
            group = p["group"]
            print(f"  {group}")
        fmin = "unknown" if p["f_min"] is None else f"{p['f_min']:.6g}"
        print(f"      {p['name']:<18} d {str(p['dims']):<8} box [{p['lower']:g}, {p['upper']:g}]  "
              f"f_min {fmin}  {p['title']}")
        for algorithm, values in p["param_defaults"].items():  # its own defaults (Shekel: SA async)
            given = ", ".join(f"{k}={v}" for k, v in values.items())
            print(f"      {'':<18} {algorithm} defaults to {given} here")
    print("\nEngines")
    for e in engines:
        count = f" ({e['devices']} devices)" if e["devices"] > 1 else ""
        print(f"  {e['name']:<6} {'available' if e['available'] else 'unavailable'}: {e['detail']}{count}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the headless commands; returns the process exit code."""
    parser = build_parser()
    args = parser.parse_args(_join_negative_values(list(sys.argv[1:] if argv is None else argv)))
    if getattr(args, "func", None) is None:
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except (ConfigError, EngineUnavailable, DeviceMemoryError) as exc:
        print(f"{PROG}: error: {one_line(exc)}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # the reader left (`... --json | head`): nothing is wrong here. Python's recipe: point stdout
        # at /dev/null, or the interpreter's final flush fails again and prints a traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # what a shell reports for a writer ended by SIGPIPE
    except Exception as exc:  # a bug: still one line, the traceback only on request
        if os.environ.get("MULTIWALK_DEBUG"):
            raise
        print(f"{PROG}: internal error: {type(exc).__name__}: {one_line(exc)} "
              "(set MULTIWALK_DEBUG=1 for details)",
              file=sys.stderr)
        return 1
