"""GPU: a cuda run split into shards equals the unsplit run (2 shards on one device everywhere;
every GPU of the host where there are several). The CPU side of the same checks: test_shards.py."""
from __future__ import annotations

import pytest

from shard_cases import CASES, PSO_CASES, assert_same_run, run_case
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


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("algorithm,params,budget", PSO_CASES)
def test_cuda_pso_split_equals_unsplit_in_every_launch_shape(algorithm, params, budget, dtype):
    """Swarms of 200 (few swarms: each spread over several blocks meeting at a global barrier,
    SPSO's informant keys in global memory) and the small cases' one block per swarm (keys in
    shared memory), float32 (one packed informant key) and float64 (two rounds), the max_evals cut
    included: the kernels' walker0 keys every draw, the shards' local link targets and snapshot."""
    big = dict(params, walkers=200, swarms=3)
    # the cut iteration's 230 evaluations: 230 of shard 0 (0,0: 400 particles), 200 + 30 (0,0,0)
    big_budget = {"max_evals": 200 * 3 * 5 + 230} if "max_evals" in budget else budget
    for case in ((params, budget), (big, big_budget)):
        whole = run_case(algorithm, *case, engine="cuda", dtype=dtype)
        for devices in ((0, 0), (0, 0, 0)):
            assert_same_run(whole, run_case(algorithm, *case, engine="cuda", devices=devices, dtype=dtype))
