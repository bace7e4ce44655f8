"""GPU: SPSO-2011's second pass reads G - x from the rows its first pass stored (tc_rows, the host's
choice where the swarm's rows stay in L2) or computes it again from the informant's point; both must
give the same run, bit for bit, in one block (keys in shared memory) and over many blocks."""
from __future__ import annotations

import pytest

from solvers.rng import ArrayRNG
from tests.gpu_run import build, everything, same

pytestmark = pytest.mark.gpu


def _run(cupy, dtype, walkers, swarms, tc_rows):
    algo = build(cupy, "particle_swarm", {"variant": "spso2011", "swarms": swarms}, problem="rastrigin",
                 dim=7, walkers=walkers, dtype=dtype)
    algo.tc_rows = tc_rows
    state = algo.init(ArrayRNG(cupy, 11))
    for k in (3, 5):
        algo.step(state, k)
    assert algo._launch.kernel == ("pso_spso_rows" if tc_rows else "pso_spso")  # the kernel launched
    assert (state.ZT.shape[0] == 14) == tc_rows
    return everything(algo, state)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("walkers, swarms", [(40, 3), (5000, 1)])
def test_stored_and_recomputed_g_minus_x_give_the_same_run(cupy, dtype, walkers, swarms):
    assert same(_run(cupy, dtype, walkers, swarms, True), _run(cupy, dtype, walkers, swarms, False))


def test_rows_are_stored_where_the_swarm_fits_half_the_l2(cupy):
    from solvers.cuda.base import l2_cache_bytes

    small = build(cupy, "particle_swarm", {"variant": "spso2011", "swarms": 1}, problem="rastrigin",
                  dim=30, walkers=1024, dtype="float32")
    assert small._tc_rows()
    past = l2_cache_bytes(cupy) // (2 * 5 * 30 * 4) + 1024  # particles whose rows pass half the L2
    large = build(cupy, "particle_swarm", {"variant": "spso2011", "swarms": 1}, problem="rastrigin",
                  dim=30, walkers=past, dtype="float32")
    assert not large._tc_rows()
    # the memory check counts G - x's rows only where they are allocated: d rows of n values
    with_rows = small.bytes_needed(1024)
    small.tc_rows = False
    assert with_rows - small.bytes_needed(1024) == 30 * 4 * 1024
