"""``python main.py warmup [--all]``: compile the cuda engine's kernels ahead of a lesson.

CuPy keeps compiled kernels in its disk cache (CUPY_CACHE_DIR, default ~/.cupy/kernel_cache), so
a run that would otherwise spend its first seconds compiling starts at once. Without ``--all``:
every algorithm with a fused kernel on the window's first functions (sphere, rastrigin, ackley,
himmelblau) in float64 and float32; with ``--all``: on every function that has a CUDA functor.
Without a usable GPU it prints one line and exits with status 2.
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from .errors import ConfigError, EngineUnavailable

CLASSROOM_FUNCTIONS = ("sphere", "rastrigin", "ackley", "himmelblau")
DTYPES = ("float64", "float32")


def cache_dir() -> Path:
    """Where CuPy keeps compiled kernels (its CUPY_CACHE_DIR rule)."""
    return Path(os.environ.get("CUPY_CACHE_DIR") or os.path.expanduser("~/.cupy/kernel_cache"))


def warm_targets(all_functions: bool) -> list[tuple[str, str]]:
    """(algorithm, function) pairs the cuda engine can run, for the chosen set of functions."""
    from .algorithms import list_algorithms  # noqa: PLC0415
    from .engines import algorithm_class  # noqa: PLC0415
    from .problems import get_definition, list_problems  # noqa: PLC0415

    functions = [n for n in list_problems() if get_definition(n).cuda_functor] if all_functions \
        else [n for n in CLASSROOM_FUNCTIONS if n in list_problems()]
    pairs = []
    for algorithm in list_algorithms():
        try:
            algorithm_class(algorithm, "cuda")
        except (EngineUnavailable, ConfigError):
            continue  # no fused kernel for this algorithm
        pairs += [(algorithm, f) for f in functions]
    return pairs


def cmd_warmup(args) -> int:
    from .config import RunConfig  # noqa: PLC0415
    from .engines import engine_status  # noqa: PLC0415
    from .runner import Runner  # noqa: PLC0415

    ok, reason = engine_status("cuda")
    if not ok:
        print(f"main.py warmup: nothing to compile: the cuda engine is not available here ({reason})",
              file=sys.stderr)
        return 2
    pairs = warm_targets(args.all)
    print(f"compiling the CUDA kernels of {len(pairs)} algorithm x function pairs "
          f"({', '.join(DTYPES)}) into CuPy's cache: {cache_dir()}", flush=True)
    failed = 0
    t_all = time.perf_counter()
    for algorithm, function in pairs:
        for dtype in DTYPES:
            t0 = time.perf_counter()
            try:
                # building the solver compiles (or loads from the disk cache) its kernels
                config = RunConfig.build(algorithm, function, None, params={"walkers": 64},
                                         engine="cuda", dtype=dtype, max_iters=1, sample_size=1)
                Runner(config).prepare()
            except (ConfigError, EngineUnavailable) as exc:
                failed += 1
                print(f"  {algorithm} x {function} ({dtype}): not compiled: {exc}", flush=True)
                continue
            print(f"  {algorithm} x {function} ({dtype}): {time.perf_counter() - t0:.1f} s", flush=True)
    print(f"done in {time.perf_counter() - t_all:.0f} s; later runs start without compiling "
          f"(cache: {cache_dir()})")
    return 1 if failed and failed == 2 * len(pairs) else 0


def register_cli(sub) -> None:
    warm = sub.add_parser("warmup", help="compile the cuda engine's kernels ahead of a lesson "
                                         "(cached on disk by CuPy)")
    warm.add_argument("--all", action="store_true",
                      help="every function with a CUDA functor, not only the classroom ones")
    warm.set_defaults(func=cmd_warmup)
