"""A grid's kernels compile before its clock starts (README: compilation never counts in a timing).

An engine that compiles when a run first iterates (numba's step kernels, CuPy's element-wise
kernels: Engine.compiles_when_run) compiled inside a grid's first chunk: with a cold Numba cache the
first row of a one-run-at-a-time grid read 23.0 s (the others 0.5 ms) and the grid 5.2e3 evals/s.
`main.py run` warms up first (Runner(compile_first=True)); a grid does it once, by the measuring
rule's warm-up (solvers/measure.py) on a throwaway state of its batch, or of its first run (the
others run the same kernels: one algorithm, function and dtype, the axes only numbers). The cuda
engine compiles when a run is built, which ``prepare`` does (the probe, the batch), before any clock.
"""
from __future__ import annotations

from typing import Callable

from .. import measure
from ..rng import ArrayRNG, GroupedRNG


def warm_batch(algo, engine, seeds, stop: Callable[[], bool]) -> bool:
    """Compile a batch's kernels: its warm-up on a state of its own, dropped afterwards. False if
    stop() asked to end first (asked between the compiles of the initial points and the step)."""
    if not engine.compiles_when_run:
        return True
    return _warm(algo, engine, lambda: algo.init(GroupedRNG(engine.xp, list(seeds))), stop)


def warm_run(config, stop: Callable[[], bool]) -> bool:
    """Compile the kernels of a run of `config`: its warm-up on a throwaway build; as warm_batch."""
    from ..engines import get_engine  # noqa: PLC0415

    engine = get_engine(config.engine)
    if not engine.compiles_when_run:
        return True
    # building compiles numba's kernels of the initial points
    algo = engine.build(config.algorithm, config.make_problem(), config.params, config.dtype,
                        config.fast_math, budget=config.budget, threads=config.threads)
    return _warm(algo, engine, lambda: algo.init(ArrayRNG(engine.xp, config.seed)), stop)


def _warm(algo, engine, init: Callable, stop: Callable[[], bool]) -> bool:
    # Stop cannot interrupt a compile; it is asked between them, as a run did before this
    # (a run stopped before its first chunk never compiled its step kernels)
    if stop():
        return False
    state = init()
    if stop():
        return False
    measure.warm_up(algo, engine, state=state)  # the step's kernels, then what runs later
    return True
