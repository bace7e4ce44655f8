"""How many classic PSO swarms share a block on the cuda engine (solvers/cuda/particle_swarm.py):
the automatic choice and the override. Runs without a GPU; tests/test_gpu_pso_packed.py checks on
the GPU that a packed run is the same run."""
from __future__ import annotations

import pytest

from solvers.cuda.particle_swarm import (PACKED_MAX_BLOCK, SWARMS_PER_BLOCK_ENV,
                                         choose_swarms_per_block, requested_swarms_per_block)
from solvers.errors import ConfigError


def busiest_warps(m: int, swarms: int, sms: int, k: int) -> int:
    return -(-(-(-swarms // k)) // sms) * (-(-k * m // 32))


def test_the_tuning_grid_packs_four_swarms_of_40_into_160_threads():
    # 2,048 runs of 40 on 132 multiprocessors (H100/H200): 20 warps on the busiest one, not 32
    assert choose_swarms_per_block(40, 2048, 132) == 4
    assert busiest_warps(40, 2048, 132, 4) == 20 and busiest_warps(40, 2048, 132, 1) == 32


@pytest.mark.parametrize("m, swarms", [(40, 50), (40, 132), (64, 4096), (32, 4096), (128, 4096)])
def test_no_packing_where_it_saves_nothing(m, swarms):
    # few swarms (packing would leave multiprocessors idle) or swarms filling whole warps
    assert choose_swarms_per_block(m, swarms, 132) == 1


@pytest.mark.parametrize("m", [2, 7, 20, 33, 40, 50, 64, 80])
@pytest.mark.parametrize("swarms", [1, 100, 1000, 2048, 100000])
def test_the_choice_is_the_cheapest_that_fits(m, swarms):
    k = choose_swarms_per_block(m, swarms, 132)
    assert 1 <= k and (k == 1 or -(-k * m // 32) * 32 <= PACKED_MAX_BLOCK)
    fits = range(1, max(1, PACKED_MAX_BLOCK // m) + 1)
    assert busiest_warps(m, swarms, 132, k) == min(busiest_warps(m, swarms, 132, j) for j in fits)


def test_requested_swarms_per_block():
    assert requested_swarms_per_block(None) is None
    assert requested_swarms_per_block(" auto ") is None
    assert requested_swarms_per_block("") is None
    assert requested_swarms_per_block("1") == 1
    assert requested_swarms_per_block(4) == 4
    for bad in ("0", "-2", "two", "1.5"):
        with pytest.raises(ConfigError, match=SWARMS_PER_BLOCK_ENV):
            requested_swarms_per_block(bad)
