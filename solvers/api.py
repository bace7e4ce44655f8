"""``solvers.run``: one call that validates, runs and returns a result, like scipy.optimize."""
from __future__ import annotations

from typing import Mapping

from .algorithms import get_algorithm
from .config import DEFAULT_DTYPE, DEFAULT_ENGINE, DEFAULT_SEED, RunConfig
from .errors import ConfigError
from .params import refuse_unused
from .problems.base import Problem, param_defaults
from .runner import RunResult, Runner


def run(algorithm: str, problem: str | Problem, engine: str = DEFAULT_ENGINE, *, dim: int | None = None,
        seed: int | None = DEFAULT_SEED, max_evals: int | None = None, max_iters: int | None = None,
        max_seconds: float | None = None, params: Mapping | None = None, dtype: str = DEFAULT_DTYPE,
        fast_math: bool = False, bounds: tuple[float, float] | None = None,
        precision: str | None = None, threads: int | None = None, devices=None) -> RunResult:
    """Minimise `problem` with `algorithm` on `engine` within the budget; the same seed repeats.

    ``max_evals`` is a hard cap on every engine (``evals <= max_evals``: the iteration that would
    pass it is made only by the walkers it allows; README "Python API"); ``max_iters`` and
    ``max_seconds`` stop at an iteration boundary. Compiling (numba, CuPy) is done before the clock
    starts, so ``result.seconds`` and ``max_seconds`` count the run alone.
    "auto" parameters are fitted to the budget; ``result.params`` holds the effective values.

    `problem` is what the CLI calls ``--function`` (``--problem`` there too), or a Problem object,
    which is run itself: its function, box, f_min and x_min (RunConfig.problem_object), never
    another function found by its name (a Problem under a built-in's or an ``expr:`` name that is
    not that function is refused). `precision` is another name for `dtype` (the window's word),
    give either.
    ``threads``: CPU threads of the numba engine (None: every core); other engines ignore it.
    ``devices``: split the run over devices, ``"all"`` or ``[0, 1]`` (None: one device; see
    solvers/shards.py for which algorithms split and how).
    """
    if precision is not None:
        if dtype not in (DEFAULT_DTYPE, precision):
            raise ConfigError(f"precision={precision!r} and dtype={dtype!r} differ; give one of them")
        dtype = precision
    config = RunConfig.build(algorithm, problem, dim, params=params, engine=engine, dtype=dtype,
                             seed=seed, max_evals=max_evals, max_iters=max_iters,
                             max_seconds=max_seconds, fast_math=fast_math, sample_size=1,
                             bounds=bounds, threads=threads, devices=devices)
    refuse_unused(config.params, params, get_algorithm(config.algorithm).fitted_params,
                  param_defaults(problem, config.algorithm))
    # compiled before the clock starts, as `main.py run` does: on numba's first use r.seconds was
    # the JIT's ~10 s and max_seconds=1 ended before the first iteration (README: compilation
    # never counts in a timing)
    return Runner(config, compile_first=True).run()
