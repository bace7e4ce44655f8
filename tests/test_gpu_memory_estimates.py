"""GPU half of tests/test_memory_estimates.py (issue 17, item 2): on the cupy and cuda engines the
declared memory_estimate() covers what CuPy's memory pool had to hold during init and 4 steps."""
from __future__ import annotations

import pytest

from solvers.engines import get_engine
from solvers.rng import ArrayRNG
from tests.gpu_run import GPU_ENGINES, build

CASES = [("pattern_search", {}), ("multidirectional_search", {}), ("particle_swarm", {}),
         ("differential_evolution", {}), ("simulated_annealing", {"variant": "sync"})]


@pytest.mark.gpu
@pytest.mark.parametrize("engine", GPU_ENGINES)
@pytest.mark.parametrize("name, params", CASES, ids=[n for n, _ in CASES])
def test_estimate_covers_the_device_allocator(cupy, engine, name, params):
    """On the GPU engines the declared bytes cover what CuPy's memory pool had to hold."""
    pool = cupy.get_default_memory_pool()
    pool.free_all_blocks()
    algo = build(cupy, name, params, dim=30, walkers=4096, dtype="float32", engine=engine)
    before = pool.total_bytes()
    state = algo.init(ArrayRNG(cupy, 0))
    algo.step(state, 4)
    cupy.cuda.get_current_stream().synchronize()
    held = pool.total_bytes() - before  # the pool keeps freed blocks: about the peak
    needed = get_engine(engine).memory_needed(algo)  # what the engine's memory check asks for
    assert held <= needed, f"{engine}: pool held {held} B > the {needed} B the check asks for"
