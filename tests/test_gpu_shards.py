"""GPU: a cuda run split into shards equals the unsplit run (2 shards on one device everywhere;
every GPU of the host where there are several). The CPU side of the same checks: test_shards.py."""
from __future__ import annotations

import pytest

from shard_cases import CASES, assert_same_run, run_case
from solvers.engines import get_engine

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("algorithm,params,budget", CASES)
def test_cuda_two_shards_on_one_device_equal_unsplit(algorithm, params, budget):
    whole = run_case(algorithm, params, budget, engine="cuda")
    assert_same_run(whole, run_case(algorithm, params, budget, engine="cuda", devices=(0, 0)))
    assert_same_run(whole, run_case(algorithm, params, budget, engine="cuda", devices="all"))


def test_cuda_split_over_every_gpu_equals_unsplit():
    count = get_engine("cuda").device_count()
    if count < 2:
        pytest.skip(f"one GPU here ({count}); the split over several runs on a multi-GPU machine")
    algorithm, params, budget = CASES[2]
    params = dict(params, walkers=4096)
    assert_same_run(run_case(algorithm, params, budget, engine="cuda"),
                    run_case(algorithm, params, budget, engine="cuda", devices=tuple(range(count))))
