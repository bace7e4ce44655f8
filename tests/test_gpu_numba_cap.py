"""max_evals cuts the same iteration alike on the numba and cuda engines (issue 10): both split a
chunk into full iterations and one cut iteration the same way (capped_iterations), so they make the
same number of evaluations, and where their random streams agree (Philox keyed by walker: initial
points, pattern search's deterministic moves) the same trials. Runs on the GPU only."""
from __future__ import annotations

import numpy as np
import pytest

import solvers
from solvers.algorithms import get_algorithm
from solvers.engines import get_engine
from solvers.problems import get_problem
from solvers.rng import ArrayRNG

pytest.importorskip("numba")

from test_numba_cap import IDS, VARIANTS  # noqa: E402

pytestmark = pytest.mark.gpu


def _runs(algorithm, params, max_evals, dim=6):
    return [solvers.run(algorithm, "rastrigin", engine=engine, dim=dim, seed=3, max_evals=max_evals,
                        params=params) for engine in ("numba", "cuda")]


@pytest.mark.parametrize("algorithm, params, exact", VARIANTS, ids=IDS)
@pytest.mark.parametrize("walkers, max_evals", [(37, 12_345), (0, 20_011), (200, 150)])
def test_numba_counts_as_cuda_under_the_cap(algorithm, params, exact, walkers, max_evals):
    if algorithm == "multidirectional_search" and walkers == 200:
        walkers = 40  # 150 evaluations below the starts' vertices: the initial simplices are cut
    numba, cuda = _runs(algorithm, dict(params, walkers=walkers) if walkers else params, max_evals)
    assert numba.evals <= max_evals and cuda.evals <= max_evals
    if exact or numba.stop_reason == cuda.stop_reason == "max_evals":
        assert numba.evals == cuda.evals, (numba.evals, cuda.evals)


def test_pattern_search_cut_takes_the_same_trials():
    # the same initial points (Philox INIT) and moves: after 2 full iterations and 100 of the 3rd's
    # 240 trials (40 walkers, 3-D sphere) both engines hold the same walkers; as many as cuda's
    # numbering allows have moved along coordinate 1 and none along coordinate 2
    problem = get_problem("sphere", 3)
    p = get_algorithm("pattern_search").Params(walkers=40)
    states = []
    for engine in ("numba", "cuda"):
        built = get_engine(engine)
        algo = built.build("pattern_search", problem, p, np.float64)
        algo.max_evals = 40 + 2 * 240 + 100
        state = algo.init(ArrayRNG(built.xp, 11))  # the same seed: the same Philox key
        algo.step(state, 5)
        assert state.evals == algo.max_evals and state.iteration == 3
        states.append(np.asarray(state.X.get() if hasattr(state.X, "get") else state.X))
    # the same decisions (a flip would move a walker by a whole step); rounding of the objective
    # may differ between the engines in the last bits only
    np.testing.assert_allclose(states[0], states[1], rtol=1e-12)
