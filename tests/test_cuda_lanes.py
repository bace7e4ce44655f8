"""The cuda pattern search's thread mapping (lanes per walker), chosen on the host: no GPU needed."""
from __future__ import annotations

import pytest

from solvers.cuda.pattern_search import PatternSearchCuda
from solvers.problems import get_problem

SMS = 132  # an H100


def mapping(function: str, dim: int, lanes=None):
    """A PatternSearchCuda with only what _lanes reads (no CuPy, no kernels)."""
    algo = object.__new__(PatternSearchCuda)
    algo.problem = get_problem(function, dim)
    algo.lanes = lanes
    algo.sm_count = lambda: SMS
    return algo


@pytest.mark.parametrize("function", ["ackley", "rastrigin", "sphere"])
def test_a_fold_gets_one_paired_lane_at_the_table_1_size(function):
    # 15,360 walkers (116 per multiprocessor): one lane evaluating each coordinate's two trials in
    # one pass measured 0.62 ms against 0.86 ms for two lanes (issue 14)
    algo = mapping(function, 20)
    assert algo.pairs_trials()
    assert algo._lanes(15360) == 1


def test_other_functions_keep_the_group_mapping():
    algo = mapping("rosenbrock", 20)
    assert not algo.pairs_trials()
    assert algo._lanes(15360) == 2
    assert algo._lanes(SMS * PatternSearchCuda.GROUP_BELOW_THREADS_PER_SM) == 1


def test_few_walkers_keep_groups_even_for_a_fold():
    algo = mapping("ackley", 20)
    below = SMS * PatternSearchCuda.FOLD_ONE_LANE_WALKERS_PER_SM - 1
    assert algo._lanes(below) > 1
    assert algo._lanes(below + 1) == 1


def test_a_forced_lane_count_is_kept_and_checked():
    assert mapping("ackley", 20, lanes=4)._lanes(15360) == 4
    with pytest.raises(ValueError, match="lanes must be"):
        mapping("ackley", 20, lanes=3)._lanes(15360)
