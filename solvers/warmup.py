"""``python main.py warmup [--all]``: compile the kernels of the engines that compile (the cuda and
numba engines, and CuPy's element-wise kernels of the cupy engine, which compile when a run first
iterates) ahead of a lesson; on numba also the kernels every typed expression shares.

The engines keep compiled code on disk (CuPy's cache, CUPY_CACHE_DIR, default
~/.cupy/kernel_cache, for cupy and cuda; Numba's, ~/.cache/multiwalk/numba/<hash of the sources>,
for numba: Engine.cache_dir), so a run that would otherwise spend its first seconds compiling
starts at once. Without ``--all``: every algorithm with a fused kernel on the window's first
functions (sphere, rastrigin, ackley, himmelblau) in float64 and float32; with ``--all``: on every
function that has a CUDA functor. An engine that is not available here (no GPU) is named on stderr
with the reason; where no compiling engine is available (no GPU and no numba) it prints one line
and exits with status 2.
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from .errors import ConfigError, EngineUnavailable

CLASSROOM_FUNCTIONS = ("sphere", "rastrigin", "ackley", "himmelblau")
# on an engine whose kernels serve every typed expression (numba), one of them warms them all
WARM_EXPRESSION = "expr: sum(x[i]**2)"
DTYPES = ("float64", "float32")


def cache_dir() -> Path:
    """Where CuPy keeps compiled kernels (its CUPY_CACHE_DIR rule)."""
    return Path(os.environ.get("CUPY_CACHE_DIR") or os.path.expanduser("~/.cupy/kernel_cache"))


def compiling_engines() -> list:
    """The registered engines whose first use compiles code (a disk cache keeps it)."""
    from .engines import get_engine, list_engines  # noqa: PLC0415

    return [get_engine(e) for e in list_engines()
            if get_engine(e).compiles or get_engine(e).compiles_when_run]


def warm_targets(all_functions: bool, engine=None) -> list[tuple[str, str]]:
    """(algorithm, function) pairs `engine` (default: the first that compiles) can run, for the
    chosen set of functions."""
    from .algorithms import list_algorithms  # noqa: PLC0415
    from .problems import get_definition, list_problems  # noqa: PLC0415

    engine = engine or compiling_engines()[0]

    functions = [n for n in list_problems() if get_definition(n).cuda_functor] if all_functions \
        else [n for n in CLASSROOM_FUNCTIONS if n in list_problems()]
    if engine.shares_expression_kernels:
        functions = functions + [WARM_EXPRESSION]
    pairs = []
    for algorithm in list_algorithms():
        try:
            engine.algorithm_class(algorithm)
        except (EngineUnavailable, ConfigError):
            continue  # no fused kernel for this algorithm
        pairs += [(algorithm, f) for f in functions]
    return pairs


def cmd_warmup(args) -> int:
    engines = compiling_engines()
    ready = [e for e in engines if e.available]
    if not ready:
        print("main.py warmup: nothing to compile: " + "; ".join(
            f"the {e.name} engine is not available here ({e.status()[1]})" for e in engines),
            file=sys.stderr)
        return 2
    for e in engines:
        if not e.available:  # said, so a lesson does not count on a GPU engine warmed here
            print(f"skipped: the {e.name} engine is not available here ({e.status()[1]})",
                  file=sys.stderr, flush=True)
    failed = total = 0
    t_all = time.perf_counter()
    for engine in ready:
        pairs = warm_targets(args.all, engine)
        total += 2 * len(pairs)
        print(f"compiling the {engine.name} engine's kernels of {len(pairs)} algorithm x function "
              f"pairs ({', '.join(DTYPES)}) into its cache: {engine.cache_dir()}", flush=True)
        failed += _compile(engine.name, pairs)
    print(f"done in {time.perf_counter() - t_all:.0f} s; later runs start without compiling "
          f"(caches: {', '.join(sorted({str(e.cache_dir()) for e in ready}))})")
    return 1 if failed and failed == total else 0


def _compile(engine: str, pairs) -> int:
    """Build every pair in every dtype on `engine` (and run an iteration where only running
    compiles); the number that failed."""
    from .config import RunConfig  # noqa: PLC0415
    from .engines import get_engine  # noqa: PLC0415
    from .runner import Runner  # noqa: PLC0415

    by_running = get_engine(engine).compiles_when_run

    failed = 0
    for algorithm, function in pairs:
        for dtype in DTYPES:
            t0 = time.perf_counter()
            try:
                # building the solver compiles (or loads from the disk cache) its kernels
                config = RunConfig.build(algorithm, function, None, params={"walkers": 64},
                                         engine=engine, dtype=dtype, max_iters=1, sample_size=1)
                runner = Runner(config)
                runner.run() if by_running else runner.prepare()
            except (ConfigError, EngineUnavailable) as exc:
                failed += 1
                print(f"  {algorithm} x {function} ({dtype}): not compiled: {exc}", flush=True)
                continue
            print(f"  {algorithm} x {function} ({dtype}): {time.perf_counter() - t0:.1f} s", flush=True)
    return failed


def register_cli(sub) -> None:
    warm = sub.add_parser("warmup", help="compile the cuda, cupy and numba engines' kernels ahead of "
                                         "a lesson (cached on disk)")
    warm.add_argument("--all", action="store_true",
                      help="every function with a CUDA functor, not only the classroom ones")
    warm.set_defaults(func=cmd_warmup)
