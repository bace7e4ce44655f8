"""GPU: classic PSO with 2, 4 or 8 lanes per particle (pso_classic_lanes) is the same run as with a
thread per particle (pso_classic): every particle's position, velocity and personal best, every
swarm's best, the run's best and its evaluations, for fold objectives (rastrigin, ackley,
schwefel_2_26: terms shuffled between lanes and accumulated in coordinate order) and one that is not
(rosenbrock: evaluated whole after the lanes wrote the point), both dtypes, swarms of one block and
swarms spread over several blocks (the group barrier, particles counted per block), dimensions whose
last Philox block or last round of blocks is partly idle, a max_evals cut and both places of a
particle's state (shared or global memory). SPSO-2011 likewise (pso_spso_rows_lanes against
pso_spso_rows, links and their redraws too). The CPU side (the choice of lanes): test_pso_lanes.py."""
from __future__ import annotations

import numpy as np
import pytest

from solvers.config import Budget
from solvers.cuda.particle_swarm import LANES_ENV, ParticleSwarmCuda
from solvers.cuda.resident import multiprocessors
from solvers.rng import ArrayRNG
from tests.gpu_run import build, everything, same

pytestmark = pytest.mark.gpu

STATE = ("V", "P", "Pf", "f", "swarm_best_f", "swarm_best_i")
SPSO_STATE = STATE + ("epochs", "redrawn")
CHUNKS = [3, 2]
# (walkers, swarms): 100 swarms of 20 (a block per swarm at every lane count, 160 threads at 8
# lanes, on devices of fewer than 200 multiprocessors), one swarm of 300 (several blocks meeting
# at the group barrier: 38 blocks of 64 threads at 8 lanes)
SIZES = [(20, 100), (300, 1)]


def _run(cupy, lanes, problem, dim, dtype, walkers, swarms, chunks=CHUNKS, budget=None, variant="classic", seed=5,
         knobs=None):
    """(the algorithm's launch, everything(), host copies of the swarm state) after init and chunks;
    SPSO's state holds its link epochs and redraw flags, and the first particles' links. `knobs`:
    other solver attributes to set before init."""
    algo = build(cupy, "particle_swarm", {"variant": variant, "swarms": swarms}, problem=problem, dim=dim,
                 walkers=walkers, dtype=dtype)
    algo.lanes = lanes
    for name, value in (knobs or {}).items():
        setattr(algo, name, value)
    algo.swarms_per_block = 1  # the unpacked kernels at every lane count
    if budget is not None:
        algo.plan(budget)
    state = algo.init(ArrayRNG(cupy, seed))
    for k in chunks:
        algo.step(state, k)
    keys = STATE if variant == "classic" else SPSO_STATE
    host = {key: cupy.asnumpy(cupy.asarray(getattr(state, key))) for key in keys}
    if variant != "classic":
        host["links"] = cupy.asnumpy(algo.links_of(state, np.arange(min(50, walkers * swarms))))
    return algo._launch, everything(algo, state), host


def _same_state(a, b):
    for key in a:  # _run's keys: classic or SPSO state (and SPSO's links)
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)


def _each_lane_count_is_one_run(run, one, laned):
    """`run(lanes)` (_run's result) with a thread per particle (kernel `one`), then with 2, 4 and 8
    lanes (kernel `laned`): the same run every time, bit for bit. Returns the thread-per-particle
    state and the laned launches."""
    base_launch, base, base_state = run(1)
    assert base_launch.kernel == one and base_launch.lanes == 1
    launches = []
    for lanes in (2, 4, 8):
        launch, got, state = run(lanes)
        assert launch.kernel == laned and launch.lanes == lanes
        assert same(base, got), lanes
        _same_state(base_state, state)
        launches.append(launch)
    assert len(np.unique(base_state["Pf"])) > 1  # particles that moved apart, not a trivial run
    return base_state, launches


@pytest.mark.parametrize("walkers, swarms", SIZES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("problem, dim", [("rastrigin", 7), ("ackley", 30), ("schwefel_2_26", 11),
                                          ("rosenbrock", 13)])
def test_lanes_run_equals_a_thread_per_particle(cupy, problem, dim, dtype, walkers, swarms):
    _, launches = _each_lane_count_is_one_run(
        lambda lanes: _run(cupy, lanes, problem, dim, dtype, walkers, swarms), "pso_classic", "pso_classic_lanes")
    for launch in launches:
        if swarms == 1:
            assert launch.shape.per_group > 1, launch.shape
        elif 2 * swarms > multiprocessors():
            assert launch.shape.per_group == 1, launch.shape


@pytest.mark.parametrize("variant", ["classic", "spso2011"])
@pytest.mark.parametrize("lanes", [4, 8])
@pytest.mark.parametrize("shared", [(0,), (1 | 2 | 4,), (1,)])  # global state / x, v, p shared / x only
@pytest.mark.parametrize("draws", [True, False])  # classic: the move's Philox blocks drawn during the exchange
def test_lanes_with_a_max_evals_cut_and_either_state_place(cupy, monkeypatch, variant, lanes, shared, draws):
    import solvers.cuda.particle_swarm as pso

    monkeypatch.setattr(pso, "SHARED_CHOICES", shared)
    budget = Budget(max_evals=300 * 5 + 137)  # the cut iteration: particles 0..136 of 300
    runs = [_run(cupy, k, "rastrigin", 9, "float32", 300, 1, chunks=[2, 4], budget=budget, variant=variant,
                 knobs={"draws_ahead": draws}) for k in (1, lanes)]
    (base_launch, base, base_state), (launch, got, state) = runs
    assert launch.lanes == lanes and launch.flags & 7 == base_launch.flags == shared[0]
    assert bool(launch.flags & pso.DRAWS_SHARED) == (draws and variant == "classic")
    assert got[4] == base[4] == 300 * 5 + 137  # evaluations
    assert same(base, got)
    _same_state(base_state, state)


@pytest.mark.parametrize("variant, laned, large, one", [
    # classic at 131,072: x and the v of most warps in shared memory (pso_classic_vwarps)
    ("classic", "pso_classic_lanes", "pso_classic_vwarps", "pso_classic"),
    # SPSO at 131,072: rows past half the L2, so no lanes; x alone shared, so the normals drawn again
    # (with one grid barrier an iteration where the rows take at most ONE_BARRIER_L2 L2s: an H100's)
    ("spso2011", "pso_spso_rows_lanes", "pso_spso_redraw", "pso_spso_rows"),
])
def test_the_automatic_choice_on_the_device(cupy, monkeypatch, variant, laned, large, one):
    """One swarm of 16,384 or 1,024 (rastrigin 30-D float32) gets lanes, every particle its own with
    all of the swarm's blocks resident; 131,072 keep a thread per particle; MULTIWALK_PSO_LANES=1
    forces a thread per particle."""
    monkeypatch.setattr(ParticleSwarmCuda, "lanes", None)
    monkeypatch.delenv(LANES_ENV, raising=False)

    def launch(walkers):
        algo = build(cupy, "particle_swarm", {"variant": variant, "swarms": 1}, dim=30, walkers=walkers,
                     dtype="float32")
        algo.init(ArrayRNG(cupy, 1))
        return algo._launch

    for walkers in (16384, 1024):
        got = launch(walkers)
        assert got.lanes > 1 and got.kernel == laned, got
        assert got.shape.per_group * got.shape.block >= walkers * got.lanes, got  # resident
        assert got.flags != 0, got  # so the particles' state stays in shared memory
    big = launch(131072)
    assert (big.lanes, big.kernel.removesuffix("_one")) == (1, large)
    monkeypatch.setenv(LANES_ENV, "1")
    forced = launch(16384)
    assert (forced.lanes, forced.kernel) == (1, one)


def test_one_swarm_of_16384_draws_its_moves_during_the_exchange_and_is_the_same_run(cupy, monkeypatch):
    """The automatic shape of one swarm of 16,384 (rastrigin 30-D float32) keeps the move's Philox
    blocks in shared memory, drawn by warps 1.. while warp 0 exchanges (PSO_DRAWS_SHARED), and runs
    exactly as with the move drawing them; over launches of 1, 2 and 3 iterations (the first
    exchange of each launch draws for its first move)."""
    import solvers.cuda.particle_swarm as pso

    monkeypatch.setattr(ParticleSwarmCuda, "lanes", None)
    monkeypatch.delenv(LANES_ENV, raising=False)
    runs = [_run(cupy, None, "rastrigin", 30, "float32", 16384, 1, chunks=[1, 2, 3], knobs={"draws_ahead": draws})
            for draws in (True, False)]
    (ahead_launch, ahead, ahead_state), (launch, got, state) = runs
    assert ahead_launch.lanes > 1 and ahead_launch.flags & pso.DRAWS_SHARED, ahead_launch
    assert not launch.flags & pso.DRAWS_SHARED and launch.lanes == ahead_launch.lanes
    assert same(ahead, got)
    _same_state(ahead_state, state)


# ---- SPSO-2011 (pso_spso_rows_lanes) ------------------------------------------------------------
def _spso_run(cupy, lanes, problem, dim, dtype, walkers, swarms, chunks=(5, 10, 15), budget=None, knobs=None):
    """SPSO-2011 with `lanes` forced (_run's, seed 13: links redrawn within the run)."""
    return _run(cupy, lanes, problem, dim, dtype, walkers, swarms, chunks=chunks, budget=budget,
                variant="spso2011", seed=13, knobs=knobs)


@pytest.mark.parametrize("walkers, swarms", [(300, 1), (600, 2)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("problem, dim", [("rastrigin", 7), ("ackley", 30), ("rosenbrock", 13)])
def test_spso_lanes_run_equals_a_thread_per_particle(cupy, problem, dim, dtype, walkers, swarms):
    # the informants' keys (scattered by a share of the lanes each), |G - x|, |direction| and the
    # radius (squares added in coordinate order), the move, the objective, the new personal bests
    # and the links' redraws: all as pso_spso_rows makes them
    state, launches = _each_lane_count_is_one_run(
        lambda lanes: _spso_run(cupy, lanes, problem, dim, dtype, walkers, swarms), "pso_spso_rows",
        "pso_spso_rows_lanes")
    for launch in launches:
        assert launch.shape.per_group > 1, launch.shape  # several blocks: keys in global memory
    assert state["epochs"].max() >= 0  # links were redrawn at least once in the run


def test_spso_lanes_when_lane_groups_own_several_particles(cupy, monkeypatch):
    # 8 lanes for 700 particles on 4 resident blocks (of 512 threads, 64 particles): each group of
    # lanes moves several particles, the state stays in global memory (the strided loops with lanes)
    import solvers.cuda.particle_swarm as pso

    monkeypatch.setattr(pso, "resident_blocks", lambda kernel, block, nbytes: 4)
    base_launch, base, _ = _spso_run(cupy, 1, "rastrigin", 9, "float32", 700, 1)
    launch, got, _ = _spso_run(cupy, 8, "rastrigin", 9, "float32", 700, 1)
    assert launch.shape.per_group * launch.shape.block < 700 * 8 and launch.flags == 0, launch
    assert same(base, got)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_spso_lanes_swarms_batched_over_launches_give_the_run_of_one_launch(cupy, monkeypatch, dtype):
    # the lanes' exchange (pso_exchange_counted): tagged slots zeroed and tags counted from 1 in every
    # launch, the informants' keys in two sets by iteration parity, whole again after each iteration:
    # 5 swarms of 600 with 4 lanes, all in one launch, then two swarms a launch
    import solvers.cuda.particle_swarm as pso

    whole, a, a_state = _spso_run(cupy, 4, "rastrigin", 9, dtype, 600, 5)
    real = pso.resident_blocks
    per_group = whole.shape.per_group
    monkeypatch.setattr(pso, "resident_blocks",
                        lambda kernel, block, nbytes: min(2 * per_group, real(kernel, block, nbytes)))
    batched, b, b_state = _spso_run(cupy, 4, "rastrigin", 9, dtype, 600, 5)
    assert whole.kernel == batched.kernel == "pso_spso_rows_lanes" and per_group > 1, whole
    assert whole.shape.groups_per_launch >= 5 and batched.shape.groups_per_launch == 2, batched.shape
    assert same(a, b)
    _same_state(a_state, b_state)
    assert a_state["epochs"].max() >= 0  # links were redrawn at least once in the run


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_spso_lanes_with_the_keys_in_shared_memory(cupy, dtype):
    # swarms of one block keep their informants' keys in shared memory (keys_shared); the host takes
    # lanes for SPSO only where the informants come from PR, which it chooses for swarms over a
    # block, so this path is reached with pr_rows forced: 300 swarms of 40, one block each at every
    # lane count (320 threads at 8 lanes; with fewer swarms than multiprocessors the host spreads a
    # swarm over several blocks instead, and the keys go to global memory)
    state, launches = _each_lane_count_is_one_run(
        lambda lanes: _spso_run(cupy, lanes, "rastrigin", 13, dtype, 40, 300, knobs={"pr_rows": True}),
        "pso_spso_rows", "pso_spso_rows_lanes")
    for launch in launches:
        assert launch.shape.per_group == 1 and launch.keys_shared, launch
    assert state["epochs"].max() >= 0  # links were redrawn at least once in the run
