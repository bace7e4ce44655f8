"""How many lanes a PSO particle gets on the cuda engine (solvers/cuda/particle_swarm.py): the
automatic choice and the overrides, classic and SPSO-2011. Runs without a GPU;
tests/test_gpu_pso_lanes.py checks on the GPU that a run with lanes is the same run."""
from __future__ import annotations

import numpy as np
import pytest

import solvers.cuda.particle_swarm as pso
from solvers.cuda.particle_swarm import LANES_ENV, ParticleSwarmCuda, choose_lanes, requested_lanes
from solvers.errors import ConfigError
from solvers.params import make_params
from solvers.problems import get_problem

SMS = 132  # an H100 or H200
L2 = 50 * 1024 * 1024  # an H100's L2 (SPSO's _tc_rows reads it)


@pytest.mark.parametrize("particles, lanes", [(1024, 8), (2112, 8), (2113, 4), (16384, 4), (16896, 4),
                                              (16897, 1), (65536, 1), (131072, 1)])
def test_lanes_while_particles_per_multiprocessor_are_few(particles, lanes):
    # rastrigin 30-D float32: 8 Philox blocks per move (four coordinates a block); the H100's measured choice
    # (LANES_BY_PARTICLES_PER_SM: 8 lanes up to 16 particles per multiprocessor, 4 up to 128)
    assert choose_lanes(particles, SMS, 8) == lanes
    assert lanes == 1 or particles * lanes <= pso.LANES_THREADS_PER_SM * SMS


@pytest.mark.parametrize("blocks, lanes", [(1, 1), (2, 2), (3, 2), (4, 4), (7, 4), (8, 8), (30, 8)])
def test_no_lane_without_a_philox_block_of_the_move(blocks, lanes):
    assert choose_lanes(1024, SMS, blocks) == lanes


def test_requested_lanes():
    assert requested_lanes(None) is None
    assert requested_lanes(" Auto ") is None
    assert requested_lanes("") is None
    for k in (1, 2, 4, 8):
        assert requested_lanes(str(k)) == k
        assert requested_lanes(k) == k
    for bad in ("0", "3", "16", "-2", "two", "1.5"):
        with pytest.raises(ConfigError, match=LANES_ENV):
            requested_lanes(bad)


def algorithm(monkeypatch, walkers=16384, swarms=1, variant="classic", dim=30, dtype="float32", lanes=None):
    """A ParticleSwarmCuda with only what _lane_choices reads (no CuPy, no kernels)."""
    monkeypatch.setattr(pso, "multiprocessors", lambda: SMS)
    monkeypatch.setattr(pso, "l2_cache_bytes", lambda xp: L2)
    algo = object.__new__(ParticleSwarmCuda)
    algo.xp = None
    algo.params = make_params(ParticleSwarmCuda.Params, {"walkers": walkers, "swarms": swarms, "variant": variant})
    algo.problem = get_problem("rastrigin", dim)
    algo.dtype = np.dtype(dtype)
    algo.lanes = lanes
    algo._group_values = None
    return algo


def test_the_choices_run_from_the_most_lanes_down_to_one(monkeypatch):
    monkeypatch.delenv(LANES_ENV, raising=False)
    assert algorithm(monkeypatch)._lane_choices(1) == [4, 2, 1]
    assert algorithm(monkeypatch, walkers=1024)._lane_choices(1) == [8, 4, 2, 1]
    assert algorithm(monkeypatch, walkers=131072)._lane_choices(1) == [1]
    assert algorithm(monkeypatch, walkers=65536)._lane_choices(1) == [1]
    # double: a coordinate per Philox block, so 3-D has 3 blocks: 2 lanes at most
    assert algorithm(monkeypatch, walkers=1024, dim=3, dtype="float64")._lane_choices(1) == [2, 1]


def test_spso_takes_lanes_where_its_rows_kernel_runs(monkeypatch):
    monkeypatch.delenv(LANES_ENV, raising=False)
    # float: 4 normals per Philox block, 8 blocks for 30-D; the same table as classic
    assert algorithm(monkeypatch, variant="spso2011")._lane_choices(1) == [4, 2, 1]
    assert algorithm(monkeypatch, walkers=1024, variant="spso2011")._lane_choices(1) == [8, 4, 2, 1]
    assert algorithm(monkeypatch, variant="spso2011", lanes=2)._lane_choices(1) == [2]
    # double: a thread per particle unless lanes are asked for (measured in float only)
    assert algorithm(monkeypatch, walkers=1024, variant="spso2011", dtype="float64")._lane_choices(1) == [1]
    assert algorithm(monkeypatch, walkers=1024, variant="spso2011", dtype="float64", lanes=4)._lane_choices(1) == [4]
    # the laned kernel is pso_spso_rows': none where the rows pass half the L2 (131,072: 78 MB) or
    # a swarm fits a block (the *_local kernels gather from P's columns), forced or not
    assert algorithm(monkeypatch, walkers=131072, variant="spso2011", lanes=4)._lane_choices(1) == [1]
    assert algorithm(monkeypatch, walkers=256, swarms=4, variant="spso2011", lanes=4)._lane_choices(1) == [1]
    forced = algorithm(monkeypatch, variant="spso2011", lanes=4)
    forced.tc_rows = False
    assert forced._lane_choices(1) == [1]


def test_grids_and_packed_blocks_keep_a_thread_per_particle(monkeypatch):
    monkeypatch.delenv(LANES_ENV, raising=False)
    assert algorithm(monkeypatch, walkers=40, swarms=100)._lane_choices(4) == [1]  # packed
    grid = algorithm(monkeypatch)
    grid._group_values = {"omega": np.ones(2)}
    assert grid._lane_choices(1) == [1]


def test_the_class_attribute_and_the_environment_force_the_lanes(monkeypatch):
    monkeypatch.setenv(LANES_ENV, "1")
    assert algorithm(monkeypatch)._lane_choices(1) == [1]
    monkeypatch.setenv(LANES_ENV, "4")
    assert algorithm(monkeypatch, walkers=131072)._lane_choices(1) == [4]
    assert algorithm(monkeypatch, lanes=2)._lane_choices(1) == [2]  # the attribute before the environment
    monkeypatch.setenv(LANES_ENV, "auto")
    assert algorithm(monkeypatch)._lane_choices(1) == [4, 2, 1]
    monkeypatch.setenv(LANES_ENV, "5")
    with pytest.raises(ConfigError, match=LANES_ENV):
        algorithm(monkeypatch)._lane_choices(1)


class _Kernels:
    """Stands for the compiled module: get(name) records which kernel the shape asked for."""

    def __init__(self):
        self.names = []

    def get(self, name):
        self.names.append(name)
        return name


def resident_h100(kernel, block, shared_bytes):
    """An H100's resident blocks: registers (64 a thread, 128 for the lanes kernels: their
    __launch_bounds__(512, 1)), threads, shared memory, 32 blocks."""
    registers = 128 if kernel.endswith("_lanes") else 64
    per_sm = min(65536 // (registers * block), 2048 // block, (228 * 1024) // (shared_bytes + 1024), 32)
    return per_sm * SMS


def shaped(monkeypatch, walkers, swarms=1, dim=30, dtype="float32", lanes=None, resident=resident_h100,
           optin=227 * 1024, variant="classic", block=None, v_warps=None):
    return built(monkeypatch, walkers, swarms, dim, dtype, lanes, resident, optin, variant, block,
                 v_warps)._launch_shape()


def built(monkeypatch, walkers, swarms=1, dim=30, dtype="float32", lanes=None, resident=resident_h100,
          optin=227 * 1024, variant="classic", block=None, v_warps=None):
    """shaped's ParticleSwarmCuda on an H100's numbers (fake kernels), before its launch shape."""
    import solvers.cuda.resident as resident_module

    monkeypatch.delenv(LANES_ENV, raising=False)
    monkeypatch.setattr(resident_module, "multiprocessors", lambda: SMS)
    monkeypatch.setattr(pso, "resident_blocks", resident)
    monkeypatch.setattr(pso, "allow_shared", lambda kernel, nbytes: None)
    monkeypatch.setattr(pso, "shared_optin", lambda: optin)
    # a multiprocessor's shared memory at most, and the system's 1 KB a block (an H100: 227 + 1 KB)
    monkeypatch.setattr(pso, "shared_per_multiprocessor", lambda: optin + 1024)
    monkeypatch.setattr(pso, "reserved_shared", lambda: 1024)
    algo = algorithm(monkeypatch, walkers=walkers, swarms=swarms, dim=dim, dtype=dtype, lanes=lanes,
                     variant=variant)
    if block is not None:
        algo.block = block
    algo.v_warps = v_warps
    algo.kernels = _Kernels()
    algo.swarms_per_block = None
    return algo


def test_one_swarm_of_16384_takes_4_lanes_in_as_many_blocks_as_before(monkeypatch):
    launch = shaped(monkeypatch, 16384)
    assert (launch.lanes, launch.kernel) == (4, "pso_classic_lanes")
    # 128 blocks of 512 threads (128 particles each), one per multiprocessor, x, v and p shared
    assert (launch.shape.per_group, launch.shape.block, launch.flags) == (128, 512, 15)  # x, v, p, draws
    # + the next move's 8 Philox blocks a particle (float: four coordinates' r_p, r_g a block)
    assert launch.shared_bytes == 30 * 4 + 3 * 128 * 30 * 4 + 128 * 8 * 16 + 15
    # 8 lanes forced: 256 blocks of 512 would be needed, one is resident a multiprocessor: the lanes
    # stay, in the 132 resident blocks, each group of 8 lanes then owning several particles
    eight = shaped(monkeypatch, 16384, lanes=8)
    assert (eight.lanes, eight.shape.per_group, eight.shape.block) == (8, 132, 512)
    one = shaped(monkeypatch, 16384, lanes=1)
    assert (one.lanes, one.kernel, one.shape.per_group, one.shape.block) == (1, "pso_classic", 128, 128)


def test_one_swarm_of_1024_and_of_131072(monkeypatch):
    small = shaped(monkeypatch, 1024)
    assert (small.lanes, small.shape.per_group, small.shape.block, small.flags) == (8, 128, 64, 15)
    assert small.shared_bytes == 30 * 4 + 3 * 8 * 30 * 4 + 8 * 8 * 16 + 15  # rows of 8 particles, not 64 threads
    large = shaped(monkeypatch, 131072)
    assert large.lanes == 1
    # 128 blocks of 1,024 (pso_classic's bounds), one a multiprocessor, x in shared memory as with
    # 256-thread blocks (x, v and p do not fit: 3 x 120 KB), and beside it the v of as many warps
    # as the rest of the 227 KB holds: 28 of 32 (3,840 bytes a warp)
    assert (large.shape.block, large.shape.per_group, large.flags) == (1024, 128, pso.X_SHARED | 28 << pso.V_WARPS_SHIFT)
    assert large.kernel == "pso_classic_vwarps"  # the move's two copies; the others keep pso_classic's code
    assert large.shared_bytes == 30 * 4 + 1024 * 30 * 4 + 28 * 32 * 30 * 4
    # an A100's 163 KB of opt-in shared memory: blocks of 512, x still shared, two blocks a
    # multiprocessor (256 blocks resident on 132), so the v of 14 warps, not 16 (one block's worth)
    a100 = shaped(monkeypatch, 131072, optin=163 * 1024)
    assert (a100.shape.block, a100.shape.per_group, a100.flags) == (512, 256, pso.X_SHARED | 14 << pso.V_WARPS_SHIFT)
    # 65,536: 64 blocks of 1,024 would leave half the multiprocessors idle: 128 of 512 (spread); x
    # and now all of v shared (the v of all 16 warps fits: the flag, not a count)
    half = shaped(monkeypatch, 65536)
    assert (half.shape.block, half.shape.per_group, half.flags) == (512, 128, pso.X_SHARED | pso.V_SHARED)
    assert half.kernel == "pso_classic"
    # 32,768: blocks of 256, below V_WARPS_MIN_BLOCK: x alone (v's loads measured no cost there)
    quarter = shaped(monkeypatch, 32768)
    assert (quarter.shape.block, quarter.flags, quarter.kernel) == (256, pso.X_SHARED, "pso_classic")
    # no v in shared memory where asked (ParticleSwarmCuda.v_warps = 0)
    none = shaped(monkeypatch, 131072, v_warps=0)
    assert (none.flags, none.kernel) == (pso.X_SHARED, "pso_classic")


def test_swarms_that_fit_one_large_block_keep_blocks_of_256(monkeypatch):
    # 100 swarms of 1,000: 4 blocks of 256 each (400 over 132 multiprocessors), not one of 1,024
    # each (100 multiprocessors busy, 32 idle)
    many = shaped(monkeypatch, 1000, swarms=100, lanes=1)
    assert (many.kernel, many.shape.block, many.shape.per_group) == ("pso_classic", 256, 4)
    # 4 swarms of 40,000: 40 blocks of 1,024 each (160 in all, 2 launches of 3 swarms and 1)
    big = shaped(monkeypatch, 40000, swarms=4, lanes=1)
    assert (big.shape.block, big.shape.per_group) == (1024, 40)


def test_classic_block_cap_keeps_the_shared_memory_a_thread_gets():
    assert pso.classic_block_cap(227 * 1024) == 1024  # H100: 192 KB + margin fit
    assert pso.classic_block_cap(163 * 1024) == 512   # A100
    assert pso.classic_block_cap(99 * 1024) == 512    # 96 KB + 1 KB margin
    assert pso.classic_block_cap(64 * 1024) == 256
    assert pso.classic_block_cap(48 * 1024) == 256    # never below MAX_BLOCK


def test_spso_with_lanes_at_16384_and_1024(monkeypatch):
    launch = shaped(monkeypatch, 16384, variant="spso2011")
    assert (launch.lanes, launch.kernel) == (4, "pso_spso_rows_lanes")
    # 128 blocks of 512 (128 particles each), x, v and p shared, keys in global memory (several blocks)
    assert (launch.shape.per_group, launch.shape.block, launch.flags, launch.keys_shared) == (128, 512, 7, False)
    small = shaped(monkeypatch, 1024, variant="spso2011")
    assert (small.lanes, small.kernel, small.shape.per_group, small.shape.block) == (8, "pso_spso_rows_lanes", 128, 64)
    one = shaped(monkeypatch, 16384, variant="spso2011", lanes=1)
    assert (one.lanes, one.kernel, one.shape.per_group, one.shape.block) == (1, "pso_spso_rows", 128, 128)


def test_spso_keeps_blocks_of_256_but_the_redraw_kernel_and_a_smaller_block_asked_for_is_kept(monkeypatch):
    # SPSO's kernels keep __launch_bounds__(256, 4) but pso_spso_redraw, which takes pso_classic's
    # blocks of up to 1,024 where no multiprocessor then holds more threads: 128 blocks of 1,024 for
    # one swarm of 131,072 (512 of 256 before: four a multiprocessor either way)
    monkeypatch.setattr(pso, "l2_cache_bytes", lambda xp: 50 * 2**20)  # an H100's
    spso = shaped(monkeypatch, 131072, variant="spso2011")
    # x alone in shared memory and the rows past the L2: the kernel that draws the normals again,
    # with the v of 19 warps beside x (the most that leave L1 REDRAW_L1_KEPT: below), and one grid
    # barrier an iteration (the rows, 64 MB, are 1.22 L2s: within ONE_BARRIER_L2)
    assert (spso.kernel, spso.shape.block, spso.shape.per_group) == ("pso_spso_redraw_one", 1024, 128)
    assert spso.flags == pso.X_SHARED | 19 << pso.V_WARPS_SHIFT
    assert spso.shared_bytes == 30 * 4 + 1024 * 30 * 4 + 19 * 32 * 30 * 4
    # 0.92 of the L2: the redraw kernel in 384 blocks of 256 (three a multiprocessor, where 96 of 1,024
    # hold 1,024), with one barrier an iteration (the rows fit the L2)
    mid = shaped(monkeypatch, 98304, variant="spso2011")  # and all of v beside x: three blocks of 61.5 KB
    assert (mid.kernel, mid.shape.block, mid.shape.per_group) == ("pso_spso_redraw_one", 256, 384)
    assert (mid.flags, mid.shared_bytes) == (pso.X_SHARED | pso.V_SHARED, 30 * 4 + 2 * 256 * 30 * 4)
    asked = shaped(monkeypatch, 131072, variant="spso2011", block=128)
    assert (asked.kernel, asked.shape.block, asked.shape.per_group) == ("pso_spso_redraw_one", 128, 1024)
    # within ONE_BARRIER_L2 at d = 40 (1.6 L2s), past it at d = 45 (1.83): two barriers an iteration
    assert shaped(monkeypatch, 131072, variant="spso2011", dim=40).kernel == "pso_spso_redraw_one"
    assert shaped(monkeypatch, 131072, variant="spso2011", dim=45).kernel == "pso_spso_redraw"
    assert shaped(monkeypatch, 65536, variant="spso2011").kernel == "pso_spso"  # 0.61: the normals stored
    # classic with block set below MAX_BLOCK (tests of the many-block exchange): that block
    small = shaped(monkeypatch, 9000, lanes=1, block=64)
    assert (small.kernel, small.shape.block) == ("pso_classic", 64)


def test_fewer_lanes_where_the_swarm_would_not_be_resident(monkeypatch):
    # a device that holds only 40 blocks of any shape: 4 and 2 lanes (128 blocks of 512 and 256) do
    # not fit: a thread per particle, threads owning several particles
    launch = shaped(monkeypatch, 16384, resident=lambda kernel, block, nbytes: 40)
    assert launch.lanes == 1 and launch.kernel == "pso_classic"
    # only 100 blocks of 512 but two of 256 per multiprocessor: 2 lanes, 128 blocks of 256
    launch = shaped(monkeypatch, 16384, resident=lambda kernel, block, nbytes: 100 if block == 512 else 2 * SMS)
    assert (launch.lanes, launch.shape.per_group, launch.shape.block) == (2, 128, 256)
    # forced lanes stay, every group then owning several particles (state in global memory)
    forced = shaped(monkeypatch, 16384, lanes=8, resident=lambda kernel, block, nbytes: 40)
    assert (forced.lanes, forced.shape.per_group, forced.flags) == (8, 40, 0)


def test_many_swarms_with_lanes_keep_a_block_per_swarm(monkeypatch):
    # 100 swarms of 20 (2,000 particles): 8 lanes, 160 threads, a block per swarm
    launch = shaped(monkeypatch, 20, swarms=100)
    assert (launch.lanes, launch.spb, launch.shape.per_group, launch.shape.block) == (8, 1, 1, 160)
    # a tuning grid's size, 2,048 swarms of 40: packed, a thread per particle
    packed = shaped(monkeypatch, 40, swarms=2048)
    assert (packed.lanes, packed.spb, packed.kernel) == (1, 4, "pso_classic_packed")


def test_the_draws_ahead_take_shared_memory_only_beside_the_state_and_where_it_fits(monkeypatch):
    import solvers.cuda.particle_swarm as pso

    def flags(**kwargs):
        return shaped(monkeypatch, 16384, **kwargs).flags

    assert flags() == pso.X_SHARED | pso.V_SHARED | pso.P_SHARED | pso.DRAWS_SHARED
    # an opt-in too small for the state and the draws together: the state keeps its place
    assert flags(optin=60 * 1024) == pso.X_SHARED | pso.V_SHARED | pso.P_SHARED
    monkeypatch.setattr(pso.ParticleSwarmCuda, "draws_ahead", False)
    assert flags() == pso.X_SHARED | pso.V_SHARED | pso.P_SHARED
    # the kernels with a thread per particle never draw ahead
    assert not shaped(monkeypatch, 131072).flags & pso.DRAWS_SHARED



@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("walkers", [16384, 8192, 4096])
def test_the_draws_never_take_the_kernel_s_static_shared_memory(monkeypatch, dtype, walkers):
    # shared_optin is the static and dynamic shared memory together: the draws, allowed above
    # shared_max, once came within ~105 bytes of the opt-in (16,384 float particles at d = 226),
    # where the lanes kernel's ~850 static bytes would not have fitted and the launch failed
    optin = 227 * 1024
    drawn = 0
    for dim in range(100, 600, 7) if dtype == "float32" else range(50, 460, 7):
        launch = shaped(monkeypatch, walkers, dim=dim, dtype=dtype, optin=optin)
        assert launch.shared_bytes + pso.STATIC_MARGIN <= optin, (dim, launch.flags)
        drawn += bool(launch.flags & pso.DRAWS_SHARED)
    assert drawn > 0  # the draws were taken at some of these sizes (the check is not vacuous)


def test_the_redraw_kernel_s_v_warps_leave_l1_its_share(monkeypatch):
    # pso_spso_redraw reads its first pass's rows through L1, which gets what the carveout of the
    # unified L1 / shared memory leaves: its blocks use at most the multiprocessor's shared memory
    # less REDRAW_L1_KEPT (an H100: 196 KB; 20 warps' v would take the block past it)
    monkeypatch.setattr(pso, "l2_cache_bytes", lambda xp: 50 * 2**20)
    launch = shaped(monkeypatch, 131072, variant="spso2011")
    used = launch.shared_bytes + 1024  # + the system's share (the static shared memory: none here)
    assert used <= 228 * 1024 - pso.REDRAW_L1_KEPT < used + 32 * 30 * 4
    # classic's v warps are not held to it: 28 of 32 (what the opt-in holds)
    assert shaped(monkeypatch, 131072).flags >> pso.V_WARPS_SHIFT == 28
    # an A100 (164 KB a multiprocessor, blocks of 512 two a multiprocessor): each block's share of
    # the 132 KB left is 66 KB, all but x's 60 KB: one warp's v (the rows, 64 MB, are 1.22 of the
    # 50 MB L2 shaped() gives: one grid barrier an iteration)
    a100 = shaped(monkeypatch, 131072, variant="spso2011", optin=163 * 1024)
    assert (a100.kernel, a100.shape.block, a100.flags) == ("pso_spso_redraw_one", 512,
                                                           pso.X_SHARED | 1 << pso.V_WARPS_SHIFT)
    # asked for none (v_warps = 0): x alone
    none = shaped(monkeypatch, 131072, variant="spso2011", v_warps=0)
    assert none.flags == pso.X_SHARED
    # blocks of 256 (98,304: three a multiprocessor): the same rule, all 8 warps' v within it; a
    # smaller block asked for (128) keeps x alone, as classic's blocks below V_WARPS_MIN_BLOCK do
    assert shaped(monkeypatch, 98304, variant="spso2011").flags == pso.X_SHARED | pso.V_SHARED
    assert shaped(monkeypatch, 131072, variant="spso2011", block=128).flags & ~pso.X_SHARED == 0


@pytest.mark.parametrize("walkers, swarms, dim", [(131072, 1, 30), (98304, 1, 30), (65536, 1, 30), (512, 1000, 8),
                                                  (2048, 400, 30), (131072, 1, 7), (40000, 4, 30)])
def test_the_memory_check_leaves_out_the_normals_only_where_the_redraw_kernel_runs(monkeypatch, walkers, swarms,
                                                                                   dim):
    # bytes_needed is asked before the launch shape exists: where it says the redraw kernel is
    # certain (no Z), the shape must run it; 1,000 swarms of 512 at d = 8 have 104 MB of rows in
    # all, yet each swarm's x, v and p fit shared memory (pso_spso with p shared, Z allocated)
    monkeypatch.setattr(pso, "l2_cache_bytes", lambda xp: 50 * 2**20)
    algo = built(monkeypatch, walkers, swarms, dim=dim, variant="spso2011")
    monkeypatch.setattr(pso, "l2_cache_bytes", lambda xp: 50 * 2**20)  # built() set its own L2 size
    sure = algo._redraw_sure(walkers * swarms)
    kernel = algo._launch_shape().kernel
    assert not sure or kernel in ("pso_spso_redraw", "pso_spso_redraw_global", "pso_spso_redraw_one"), (sure, kernel)
    # PR's second buffer counted wherever the one-barrier kernel runs
    assert kernel != "pso_spso_redraw_one" or algo._one_barrier_fits(walkers * swarms)
    if (walkers, swarms, dim) == (131072, 1, 30):
        assert sure  # the case it is for: Z's 15.7 MB (d = 30) not counted


def test_the_redraw_kernel_only_where_its_32_bit_offsets_reach(monkeypatch):
    # pso_spso_redraw addresses v (coordinate j at j times a stride up to n) and PR's 16-byte chunks
    # by 32-bit offsets: at 2^32 elements or more the host runs pso_spso, forced or not. A run has
    # at most 2^24 particles, so only from d = 253 (PR rows of 256): 2^24 - 32 particles fit, 2^24 - 31
    # (padded to 2^24, whole tiles of 32) do not
    for walkers, dim, fits in ((131072, 30, True), (2**24, 252, True), (2**24, 256, False),
                               (2**24 - 32, 256, True), (2**24 - 31, 256, False), (2**24 - 32, 257, False)):
        algo = algorithm(monkeypatch, walkers=walkers, variant="spso2011", dim=dim)
        assert algo._redraw_offsets_fit() is fits
        assert algo._redraw(0) is fits  # float, p not shared, past 3/4 of the L2
        algo.redraw = True
        assert algo._redraw(0) is fits
