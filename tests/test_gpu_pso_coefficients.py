"""Classic PSO's coefficients in float32 (r_p and r_g the halves of one Philox word, four coordinates a
block: kernels/particle_swarm.cu pso_coefficients) drawn alike by every classic cuda kernel and the
numba engine: the same particles after the same iterations, from the same seed, through each kernel
the host picks (a thread per particle, lanes with their draws made during the exchange, packed
swarms, the v of most warps in shared memory). The statistics of the halves: test_pso_coefficients.py.
Runs on the GPU only."""
from __future__ import annotations

import numpy as np
import pytest

from solvers.algorithms import get_algorithm
from solvers.engines import get_engine
from solvers.problems import get_problem
from solvers.rng import ArrayRNG

pytest.importorskip("numba")
pytestmark = pytest.mark.gpu

# (particles a swarm, swarms, dimensions, lanes: None the host's choice) and the kernel that runs
# them on an H100 (the host's choice at those sizes, tests/test_pso_lanes.py)
CASES = {
    "a thread per particle (pso_classic, lanes forced to 1)": (64, 1, 10, 1),
    "a thread per particle, odd dimension (7: a block's last words unused)": (200, 1, 7, 1),
    "2 lanes at 7-D, no draws ahead (blocks of 32)": (200, 1, 7, None),
    "8 lanes, draws during the exchange (pso_classic_lanes)": (1024, 1, 30, None),
    "packed swarms (pso_classic_packed: 2,048 of 40)": (40, 2048, 30, None),
    "v of most warps shared (pso_classic_vwarps)": (131072, 1, 30, None),
}


def _particles(engine: str, walkers: int, swarms: int, dim: int, iterations: int) -> np.ndarray:
    built = get_engine(engine)  # (cuda's lanes: set by the test)
    params = get_algorithm("particle_swarm").Params(walkers=walkers, swarms=swarms, variant="classic")
    algo = built.build("particle_swarm", get_problem("sphere", dim), params, np.float32)
    state = algo.init(ArrayRNG(built.xp, 11))  # the same seed: the same Philox key
    algo.step(state, iterations)
    return np.asarray(state.X.get() if hasattr(state.X, "get") else state.X)


@pytest.mark.parametrize("iterations", [1, 3])
@pytest.mark.parametrize("case", list(CASES))
def test_every_classic_kernel_draws_the_numba_engines_coefficients(case, iterations, monkeypatch):
    from solvers.cuda.particle_swarm import ParticleSwarmCuda

    walkers, swarms, dim, lanes = CASES[case]
    monkeypatch.setattr(ParticleSwarmCuda, "lanes", lanes)
    numba = _particles("numba", walkers, swarms, dim, iterations)
    cuda = _particles("cuda", walkers, swarms, dim, iterations)
    # a coefficient drawn from another half or word moves every particle by a fraction of its
    # distance to g (iteration 1: p = x) or to p and g (iteration 3) (sphere's box: [-100, 100]); the engines' float32 arithmetic differs in
    # rounding only (numba's objective in float64, the kernels' velocity by fused multiply-adds: a
    # few units in the last place), which may also flip a near-tied personal best here and there by
    # the third iteration (on the H100: 199 of 3.9 M coordinates at 131,072 particles)
    same = np.isclose(cuda, numba, rtol=1e-4, atol=1e-3).all(axis=1)
    assert same.mean() >= (1.0 if iterations == 1 else 0.999), (int((~same).sum()), len(same))
