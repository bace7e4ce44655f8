"""GPU: SPSO-2011's second pass reads G - x from the rows its first pass stored (tc_rows, the host's
choice where the swarm's rows stay in L2) or computes it again from the informant's point; the
informants are gathered from PR, the personal bests copied by particle (pr_rows, the host's choice
for swarms of more than 256 particles), or from P's columns; or the second pass draws the normals
again and reads w v + (G - x) from v's place (redraw: pso_spso_redraw, the host's choice where p is
not in shared memory). Every combination must give the same run, bit for bit, in one block (keys in
shared memory) and over many blocks."""
from __future__ import annotations

import numpy as np
import pytest

from solvers.rng import ArrayRNG
from tests.gpu_run import build, everything, same

pytestmark = pytest.mark.gpu


def _run(cupy, dtype, walkers, swarms, tc_rows, pr_rows=None, redraw=False, dim=7):
    algo = build(cupy, "particle_swarm", {"variant": "spso2011", "swarms": swarms}, problem="rastrigin",
                 dim=dim, walkers=walkers, dtype=dtype)
    algo.tc_rows, algo.pr_rows, algo.redraw = tc_rows, pr_rows, redraw
    algo.lanes = 1  # a thread per particle: the kernels compared here (lanes: test_gpu_pso_lanes.py)
    state = algo.init(ArrayRNG(cupy, 11))
    for k in (3, 5):
        algo.step(state, k)
    pr = algo._pr_rows()
    assert pr == (walkers > 256 if pr_rows is None else pr_rows)  # a swarm over several blocks
    import solvers.cuda.particle_swarm as pso

    # the redraw kernel with x through shared addresses where x is in shared memory (in float with one
    # barrier an iteration, the rows being in the L2), else its twin
    redrawn = "pso_spso_redraw" + (("_one" if dtype == "float32" else "") if algo._launch.flags & pso.X_SHARED
                                   else "_global")
    expected = ("pso_spso_rows" if tc_rows else redrawn if redraw else "pso_spso") + ("" if pr else "_local")
    assert algo._launch.kernel == expected  # the kernel launched
    assert (state.ZT.shape[0] == 2 * dim) == tc_rows
    assert (state.ZT.size == 1) == (expected == redrawn)  # no normals stored
    # rows padded to 4, whole tiles; the one-barrier kernel (the redraw kernel with x shared, in float)
    # two buffers of them and three global key sets
    one = expected == "pso_spso_redraw_one"
    assert state.PR.size == ((2 if one else 1) * -(-walkers * swarms // 32) * 32 * ((dim + 3) // 4 * 4) if pr else 1)
    if one:
        assert state.keys.size == 3 * walkers * swarms + 3 * swarms  # and three words a swarm
    return everything(algo, state)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("walkers, swarms", [(40, 3), (5000, 1)])
def test_stored_and_recomputed_g_minus_x_give_the_same_run(cupy, dtype, walkers, swarms):
    assert same(_run(cupy, dtype, walkers, swarms, True), _run(cupy, dtype, walkers, swarms, False))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("walkers, swarms", [(40, 3), (5000, 1)])
@pytest.mark.parametrize("tc_rows", [True, False])
def test_informants_from_rows_and_from_columns_give_the_same_run(cupy, dtype, walkers, swarms, tc_rows):
    # the launch copies P into PR, the new personal bests go to both; the gathers read either
    rows = _run(cupy, dtype, walkers, swarms, tc_rows, pr_rows=True)
    assert same(rows, _run(cupy, dtype, walkers, swarms, tc_rows, pr_rows=False))


def _launches(cupy, redraw, steps, one_barrier=None, max_evals=None):
    """A float swarm of 5,000 (pso_spso_redraw_one with x shared where redraw, or pso_spso_redraw
    where one_barrier is False, else pso_spso) after launches of `steps` iterations: its run, personal
    bests, link epochs and each launch's decision."""
    algo = build(cupy, "particle_swarm", {"variant": "spso2011", "swarms": 1}, problem="rastrigin",
                 dim=7, walkers=5000, dtype="float32")
    algo.tc_rows, algo.pr_rows, algo.redraw, algo.lanes = False, True, redraw, 1
    algo.one_barrier = one_barrier
    if max_evals is not None:
        algo.max_evals = max_evals
    state = algo.init(ArrayRNG(cupy, 5))
    decisions = []
    for k in steps:
        algo.step(state, k)
        decisions.append(int(state.redrawn[0]))
    assert algo._launch.kernel == (("pso_spso_redraw" if one_barrier is False else "pso_spso_redraw_one")
                                   if redraw else "pso_spso")
    return everything(algo, state), state.PT.get(), state.Pf.get(), int(state.epochs[0]), decisions


def test_one_barrier_kernel_gives_the_same_run_through_both_decisions_and_odd_launches(cupy):
    # pso_spso_redraw_one scatters its keys before its one barrier with the links the last redraw
    # decision predicts, again where the decision differs, and moves new bests' rows between PR's
    # buffers: 60 iterations in launches of 1 to 30 must match pso_spso's and pso_spso_redraw's
    # two-barrier runs exactly, through iterations that redraw the links and ones that keep them
    steps = (1, 2, 1, 17, 30, 3, 1, 5)
    one, redraw, two = (_launches(cupy, True, steps), _launches(cupy, True, steps, one_barrier=False),
                        _launches(cupy, False, steps))
    for other in (redraw, two):
        assert same(one[0], other[0])
        assert np.array_equal(one[1], other[1]) and np.array_equal(one[2], other[2])  # P, Pf
        assert one[3:] == other[3:]  # the links' epoch and every launch's last decision
    assert 0 < one[3] and 0 < sum(one[4]) < len(steps)  # links redrawn during the run, and kept


def test_one_barrier_kernel_gives_the_same_run_cut_by_max_evals_inside_a_launch(cupy):
    # a budget that ends inside the second launch: its last iteration made by the first 1,234
    # particles only (a launch of its own, after the whole iterations before it)
    steps, cap = (4, 9), 5000 * (1 + 6) + 1234
    one, redraw = _launches(cupy, True, steps, max_evals=cap), _launches(cupy, True, steps, False, cap)
    assert one[0][4] == cap  # evaluations
    assert same(one[0], redraw[0])
    assert np.array_equal(one[1], redraw[1]) and np.array_equal(one[2], redraw[2]) and one[3:] == redraw[3:]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("walkers, swarms", [(40, 3), (5000, 1)])
def test_normals_drawn_again_give_the_same_run(cupy, dtype, walkers, swarms):
    # pso_spso_redraw: p from the particle's PR row, w v + (G - x) in v's place, the normals drawn again
    redrawn = _run(cupy, dtype, walkers, swarms, False, pr_rows=True, redraw=True)
    assert same(_run(cupy, dtype, walkers, swarms, False, pr_rows=True), redrawn)


@pytest.mark.parametrize("choices", [(0,), (1, 0)])
def test_the_redraw_kernel_with_x_in_global_or_shared_memory_gives_the_same_run(cupy, monkeypatch, choices):
    # pso_spso_redraw_global (x not in shared memory: generic pointers) and pso_spso_redraw (x alone
    # shared, read through shared addresses; its new bests' rows stored by the warp) against pso_spso
    import solvers.cuda.particle_swarm as pso

    monkeypatch.setattr(pso, "SHARED_CHOICES", choices)
    runs = [_run(cupy, "float32", 5000, 1, False, pr_rows=True, redraw=redraw) for redraw in (False, True)]
    assert same(*runs)


@pytest.mark.parametrize("dim", [5, 6, 8, 9])
def test_normals_drawn_again_give_the_same_run_whatever_pair_d_cuts(cupy, dim):
    # float's Philox blocks hold two pairs: d = 5 and 9 cut the last block's first pair, d = 7 (above)
    # its second, d = 6 and 8 none; the redraw kernel's first pass makes |direction|^2 without the
    # normals of whole pairs and must add a cut pair's square as pso_normals does
    redrawn = _run(cupy, "float32", 5000, 1, False, pr_rows=True, redraw=True, dim=dim)
    assert same(_run(cupy, "float32", 5000, 1, False, pr_rows=True, dim=dim), redrawn)


@pytest.mark.parametrize("walkers", [131072, 98304])
def test_the_redraw_kernel_s_v_warps_give_the_same_run(cupy, walkers):
    # one swarm (rastrigin 30-D float32) as the host shapes it, pso_spso_redraw with v beside x: at
    # 131,072 the v of its first warps (19 of 32 in blocks of 1,024 on an H100), at 98,304 every
    # thread's (blocks of 256, V_SHARED), against v in global memory
    import solvers.cuda.particle_swarm as pso

    runs = []
    for v_warps in (None, 0):
        algo = build(cupy, "particle_swarm", {"variant": "spso2011", "swarms": 1}, problem="rastrigin",
                     dim=30, walkers=walkers, dtype="float32")
        algo.tc_rows, algo.redraw, algo.lanes, algo.v_warps = False, True, 1, v_warps
        state = algo.init(ArrayRNG(cupy, 5))
        for k in (3, 4):
            algo.step(state, k)
        launch = algo._launch
        # 98,304 fit the L2: one barrier an iteration (an H100; the same v warps either way)
        assert launch.kernel in ("pso_spso_redraw", "pso_spso_redraw_one")
        shared_v = launch.flags >> pso.V_WARPS_SHIFT or launch.flags & pso.V_SHARED
        if v_warps is None and not shared_v:
            pytest.skip(f"no v in shared memory on this device: blocks of {launch.shape.block}, flags {launch.flags}")
        assert bool(shared_v) == (v_warps is None)
        runs.append(everything(algo, state))
    assert same(*runs)


def test_redraw_where_p_is_not_in_shared_memory_and_the_rows_pass_the_l2(cupy, monkeypatch):
    import solvers.cuda.particle_swarm as pso

    def kernel(walkers, dtype="float32", choices=None, l2=None):
        with monkeypatch.context() as patch:
            if choices:
                patch.setattr(pso, "SHARED_CHOICES", choices)
            if l2:
                patch.setattr(pso, "l2_cache_bytes", lambda xp: l2)
            algo = build(cupy, "particle_swarm", {"variant": "spso2011", "swarms": 1}, problem="rastrigin",
                         dim=30, walkers=walkers, dtype=dtype)
            algo.tc_rows, algo.lanes = False, 1
            algo.init(ArrayRNG(cupy, 1))
            return algo._launch.kernel, algo._launch.flags & 7

    rows = (3 * 30 + 32) * 3000 * 4  # pso_spso's V, P, Z and PR rows of 3,000 float particles
    small_l2 = 4 * rows // 3 - 4  # 3/4 of it: just below the rows
    assert kernel(3000) == ("pso_spso", 7)  # x, v and p shared, the rows in the L2: the normals stored
    assert kernel(3000, choices=(3, 0)) == ("pso_spso", 3)  # p global but the rows in the L2
    assert kernel(3000, choices=(3, 0), l2=small_l2) == ("pso_spso_redraw_one", 3)  # the rows fit the L2
    # past ONE_BARRIER_L2 (the rows 2 L2s): two barriers an iteration
    assert kernel(3000, choices=(3, 0), l2=rows // 2) == ("pso_spso_redraw", 3)
    assert kernel(3000, choices=(0,), l2=small_l2) == ("pso_spso_redraw_global", 0)  # x not shared
    assert kernel(3000, choices=(3, 0), l2=small_l2 + 8) == ("pso_spso", 3)  # 3/4 of the L2 is the bound
    assert kernel(3000, choices=(7, 0), l2=small_l2) == ("pso_spso", 7)  # p shared
    assert kernel(3000, "float64", choices=(3, 0), l2=small_l2) == ("pso_spso", 3)  # measured in float only


def test_pr_is_counted_only_where_the_kernel_gathers_from_it(cupy):
    one = build(cupy, "particle_swarm", {"variant": "spso2011", "swarms": 1}, problem="rastrigin",
                dim=30, walkers=5000, dtype="float32")
    assert one._pr_rows()
    with_pr = one.bytes_needed(5000)
    one.pr_rows = False
    assert with_pr - one.bytes_needed(5000) == 32 * 4 * 5000  # rows of 30 padded to 32
    many = build(cupy, "particle_swarm", {"variant": "spso2011", "swarms": 8}, problem="rastrigin",
                 dim=30, walkers=256, dtype="float32")
    assert not many._pr_rows()  # swarms of a block's size: column gathers (even where spread over blocks)


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
    small.tc_rows, small.one_barrier = False, False  # (PR's second buffer is counted where it may run)
    assert with_rows - small.bytes_needed(1024) == 30 * 4 * 1024


def test_the_memory_check_counts_no_normals_where_the_redraw_kernel_runs(cupy):
    # one swarm of 131,072 float particles at d = 30: x, v and p (47 MB) cannot all be in shared
    # memory, the rows pass the L2: the redraw kernel, which stores no normals (Z), is certain
    large = build(cupy, "particle_swarm", {"variant": "spso2011", "swarms": 1}, problem="rastrigin",
                  dim=30, walkers=131072, dtype="float32")
    counted = large.bytes_needed(131072)
    state = large.init(ArrayRNG(cupy, 1))
    if not large._launch.kernel.startswith("pso_spso_redraw"):
        pytest.skip(f"this device runs {large._launch.kernel} at 131,072 (its L2 holds the rows)")
    assert state.ZT.size == 1
    # past the L2 (an H100's): two barriers an iteration, one PR buffer, one key set
    one = large._launch.kernel == "pso_spso_redraw_one"
    assert state.PR.size == (2 if one else 1) * 131072 * 32
    large.redraw = False  # pso_spso forced: its normals' d rows of n values are counted
    assert large.bytes_needed(131072) - counted == 30 * 4 * 131072 - (32 * 4 * 131072 if one else 0)
    # a swarm whose rows stay in the L2 (pso_spso_rows) counts both of Z's row sets, as before
    small = build(cupy, "particle_swarm", {"variant": "spso2011", "swarms": 1}, problem="rastrigin",
                  dim=30, walkers=1024, dtype="float32")
    assert not small._redraw_sure(1024)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_pr_rows_when_threads_own_several_particles(cupy, dtype, monkeypatch):
    # 700 particles on 2 resident blocks of 32 threads: each thread moves ~11 particles, the state
    # stays in global memory, and PR's launch copy and new-best rows run in the strided loops
    import solvers.cuda.particle_swarm as pso

    def narrow_run(pr_rows, redraw=None):
        with monkeypatch.context() as patch:
            patch.setattr(pso, "resident_blocks", lambda *a: 2)
            patch.setattr(pso, "SHARED_CHOICES", (0,))
            algo = build(cupy, "particle_swarm", {"variant": "spso2011", "swarms": 1}, problem="rastrigin",
                         dim=7, walkers=700, dtype=dtype)
            algo.block, algo.tc_rows, algo.pr_rows, algo.lanes = 32, not redraw, pr_rows, 1
            algo.redraw = redraw
            state = algo.init(ArrayRNG(cupy, 11))
            for k in (3, 5):
                algo.step(state, k)
            shape = algo._launch.shape
            assert shape.per_group * shape.block < 700  # threads own several particles
            assert algo._launch.kernel.endswith("_local") != pr_rows
            # x not in shared memory: the redraw kernel with generic pointers
            assert (algo._launch.kernel == "pso_spso_redraw_global") == bool(redraw)
            return everything(algo, state)

    wide = _run(cupy, dtype, 700, 1, tc_rows=True)  # the automatic shape: PR, a thread a particle
    assert same(wide, narrow_run(True))
    assert same(wide, narrow_run(False))
    assert same(wide, narrow_run(True, redraw=True))
