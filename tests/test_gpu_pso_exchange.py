"""GPU: the swarm-best exchange of a swarm spread over many blocks (kernels/particle_swarm.cu:
pso_scan_partials). Past 128 blocks every warp of a block reads a share of the partials instead of
one warp reading them all; the swarm's best, and so the whole run, must not depend on which, nor on
the block size: one swarm of 9,000 in 141 blocks of 64 (every warp reads) against at most 128
blocks of up to 256 threads (one warp reads; 71 of 128 on an H100), classic PSO and SPSO-2011,
both dtypes. And one classic swarm of 131,072 in blocks of 1,024 threads (pso_classic's own cap,
CLASSIC_MAX_BLOCK) against the same swarm in blocks of 128. And swarms of several blocks batched
over several launches (fewer resident than there are): the classic exchange's tagged slots and
SPSO's barrier counters start afresh in every launch, so the run is the one launch's. And the v of a
block's first warps in shared memory beside x (pso_classic's v warps), however many, give the run of
v in global memory."""
from __future__ import annotations

import pytest

from solvers.rng import ArrayRNG
from tests.gpu_run import build, everything, same

pytestmark = pytest.mark.gpu


def _run(cupy, variant, dtype, block, walkers=9000, dim=7, swarms=1, v_warps=None):
    algo = build(cupy, "particle_swarm", {"variant": variant, "swarms": swarms}, problem="rastrigin", dim=dim,
                 walkers=walkers, dtype=dtype)
    algo.block = block
    algo.lanes = 1
    algo.v_warps = v_warps
    state = algo.init(ArrayRNG(cupy, 7))
    for k in (3, 4):
        algo.step(state, k)
    return algo._launch, everything(algo, state)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("variant", ["classic", "spso2011"])
def test_many_blocks_read_the_partials_together_and_agree(cupy, variant, dtype):
    narrow, a = _run(cupy, variant, dtype, 64)
    wide, b = _run(cupy, variant, dtype, 256)
    assert narrow.shape.per_group > 128 >= wide.shape.per_group > 1, (narrow.shape, wide.shape)
    assert same(a, b)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_classic_blocks_of_1024_give_the_run_of_blocks_of_128(cupy, dtype):
    from solvers.cuda.particle_swarm import MAX_BLOCK, classic_block_cap
    from solvers.cuda.resident import shared_optin

    wide, a = _run(cupy, "classic", dtype, MAX_BLOCK, walkers=131072, dim=5)
    narrow, b = _run(cupy, "classic", dtype, 128, walkers=131072, dim=5)
    assert wide.shape.block == classic_block_cap(shared_optin()) > MAX_BLOCK, wide.shape
    assert narrow.shape.block == 128, narrow.shape
    assert same(a, b)


@pytest.mark.parametrize("variant", ["classic", "spso2011"])
def test_swarms_batched_over_launches_give_the_run_of_one_launch(cupy, monkeypatch, variant):
    import solvers.cuda.particle_swarm as pso

    whole, a = _run(cupy, variant, "float32", 64, walkers=3000, swarms=5)
    real = pso.resident_blocks
    # 100 blocks resident: 2 swarms of 47 blocks a launch, 3 launches a step
    monkeypatch.setattr(pso, "resident_blocks", lambda kernel, block, shared: min(100, real(kernel, block, shared)))
    batched, b = _run(cupy, variant, "float32", 64, walkers=3000, swarms=5)
    assert whole.shape.groups_per_launch >= 5 and whole.shape.per_group == 47, whole.shape  # one launch
    assert batched.shape.groups_per_launch == 2 and batched.shape.per_group == 47, batched.shape
    assert same(a, b)


@pytest.mark.parametrize(("dtype", "dim"), [("float32", 30), ("float64", 15)])
def test_v_of_some_warps_in_shared_memory_gives_the_run_of_v_in_global_memory(cupy, dtype, dim):
    from solvers.cuda.particle_swarm import MAX_BLOCK, V_WARPS_SHIFT, X_SHARED

    runs = {warps: _run(cupy, "classic", dtype, MAX_BLOCK, walkers=131072, dim=dim, v_warps=warps)
            for warps in (0, 3, None)}
    assert (runs[0][0].flags, runs[0][0].kernel) == (X_SHARED, "pso_classic"), runs[0][0]
    assert (runs[3][0].flags, runs[3][0].kernel) == (X_SHARED | 3 << V_WARPS_SHIFT, "pso_classic_vwarps"), runs[3][0]
    most = runs[None][0].flags >> V_WARPS_SHIFT
    assert 3 < most < 32 and runs[None][0].flags & 0xFF == X_SHARED, runs[None][0]
    assert same(runs[0][1], runs[3][1])
    assert same(runs[0][1], runs[None][1])
