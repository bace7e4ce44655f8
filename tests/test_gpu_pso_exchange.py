"""GPU: the swarm-best exchange of a swarm spread over many blocks (kernels/particle_swarm.cu:
pso_scan_partials). Past 128 blocks every warp of a block reads a share of the partials instead of
one warp reading them all; the swarm's best, and so the whole run, must not depend on which, nor on
the block size: one swarm of 9,000 in 141 blocks of 64 (every warp reads) against at most 128
blocks of up to 256 threads (one warp reads; 71 of 128 on an H100), classic PSO and SPSO-2011,
both dtypes."""
from __future__ import annotations

import pytest

from solvers.rng import ArrayRNG
from tests.gpu_run import build, everything, same

pytestmark = pytest.mark.gpu


def _run(cupy, variant, dtype, block):
    algo = build(cupy, "particle_swarm", {"variant": variant, "swarms": 1}, problem="rastrigin", dim=7,
                 walkers=9000, dtype=dtype)
    algo.block = block
    algo.lanes = 1
    state = algo.init(ArrayRNG(cupy, 7))
    for k in (3, 4):
        algo.step(state, k)
    return algo._launch, everything(algo, state)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("variant", ["classic", "spso2011"])
def test_many_blocks_read_the_partials_together_and_agree(cupy, variant, dtype):
    narrow, a = _run(cupy, variant, dtype, 64)
    wide, b = _run(cupy, variant, dtype, 256)
    assert narrow.shape.per_group > 128 >= wide.shape.per_group > 1, (narrow.shape, wide.shape)
    assert same(a, b)
