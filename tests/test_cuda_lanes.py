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


def test_other_functions_take_groups_below_the_measured_threshold():
    # rosenbrock 20-D on the H100 (scripts/ps_lanes.py): 1 lane best at 15,360 walkers, 4 lanes at
    # 8,448, 8 lanes at 1,024
    algo = mapping("rosenbrock", 20)
    assert not algo.pairs_trials()
    assert algo._lanes(15360) == 1
    assert algo._lanes(8448) == 4
    assert algo._lanes(1024) == 8


def test_few_walkers_keep_groups_even_for_a_fold():
    algo = mapping("ackley", 20)
    below = SMS * PatternSearchCuda.FOLD_ONE_LANE_WALKERS_PER_SM - 1
    assert algo._lanes(below) > 1
    assert algo._lanes(below + 1) == 1


def test_a_forced_lane_count_is_kept_and_checked():
    assert mapping("ackley", 20, lanes=4)._lanes(15360) == 4
    with pytest.raises(ValueError, match="lanes must be"):
        mapping("ackley", 20, lanes=3)._lanes(15360)
