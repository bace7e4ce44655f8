"""GPU: differential evolution's two ordinary kernels, de_generations (trials built and rows selected
8 at a time) and de_generations_wide (4 at a time, which the host takes where many warps share a
multiprocessor), must give the same run bit for bit: populations of one block and over several,
rows that are not whole warps or batches, several gene chunks, the trial scratch in global memory,
a max_evals cut inside a generation, odd and even generation counts. The two share the generation
loop (the buffers by parity, the barrier's count, the best read back from f), so a fault there is
not theirs to find: the best is checked against the population itself here, and the loop against
the tree before it by scripts/kernel_digests.py (issue 14's rule) and against other chunkings by
tests/test_gpu_contract.py."""
from __future__ import annotations

import numpy as np
import pytest

from solvers.arrays import to_numpy
from solvers.rng import ArrayRNG
from tests.gpu_run import build, everything, same

pytestmark = pytest.mark.gpu


def _run(cupy, wide, dtype, dim, walkers, populations, chunks=(3, 4), knobs=None, problem="rastrigin"):
    algo = build(cupy, "differential_evolution", {"populations": populations}, problem=problem, dim=dim,
                 walkers=walkers, dtype=dtype)
    algo.wide = wide
    for name, value in (knobs or {}).items():
        setattr(algo, name, value)
    state = algo.init(ArrayRNG(cupy, 5))
    for k in chunks:
        algo.step(state, k)
    assert algo._launch.kernel == ("de_generations_wide" if wide else "de_generations")  # the kernel launched
    return everything(algo, state) + (to_numpy(state.trials), to_numpy(state.accepted))


def _same(a, b) -> bool:
    return same(a[:6], b[:6]) and np.array_equal(a[6], b[6]) and np.array_equal(a[7], b[7])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("dim, walkers, populations, knobs", [
    (7, 100, 9, None),  # populations of one block, rows not whole warps nor batches
    (40, 70, 3, None),  # two gene chunks
    (30, 3000, 1, None),  # one population over 12 blocks, its barrier
    (6, 200, 2, {"block": 32, "scratch_shared_max": 0}),  # spread over blocks, scratch in global memory
    (6, 70_000, 1, None),  # the wide kernel in blocks of 1,024 (one a multiprocessor), the other in 256
    (6, 70_000, 1, {"scratch_shared_max": 0}),  # the same, the scratch in global memory
])
def test_wide_and_narrow_kernels_give_the_same_run(cupy, dtype, dim, walkers, populations, knobs):
    assert _same(_run(cupy, True, dtype, dim, walkers, populations, knobs=knobs),
                 _run(cupy, False, dtype, dim, walkers, populations, knobs=knobs))


@pytest.mark.parametrize("chunks", [(1,), (2, 5), (4, 4, 1)])
def test_the_same_run_after_any_generation_count_and_a_budget_cut(cupy, chunks):
    # 96 x 2 individuals: the budget ends 37 trials into a generation (the last launch's f read back
    # for the best includes targets that kept their value)
    knobs = {"max_evals": 96 * 2 * sum(chunks) + 37}  # the initial 192, then 192 a generation
    wide = _run(cupy, True, "float32", 30, 96, 2, chunks=chunks, knobs=knobs)
    assert _same(wide, _run(cupy, False, "float32", 30, 96, 2, chunks=chunks, knobs=knobs))
    positions, fitness, best_f, best_x = wide[:4]
    assert best_f == float(np.min(fitness))  # greedy: the run's best is the population's smallest value
    assert np.array_equal(best_x, positions[int(np.argmin(fitness))])  # and its point


@pytest.mark.parametrize("wide", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("dim, walkers, populations, knobs", [
    (6, 256, 4, None),  # a tile a warp
    (40, 70, 3, None),  # two gene chunks, rows not whole warps
    (6, 200, 2, {"block": 32, "scratch_shared_max": 0}),  # over blocks, scratch in global memory
    (6, 300_000, 1, None),  # more tiles than resident warps: warps with several tiles copy every row
])
def test_a_launch_copies_only_stale_rows_and_gives_the_run_of_a_launch_a_generation(
        cupy, wide, dtype, dim, walkers, populations, knobs):
    # Within a launch, a rejected trial's row is copied into the next buffer only where that row is
    # stale (the generation before took its trial); a launch's first generation copies every one.
    # One launch of 60 generations against 60 launches of one: the same run, once most trials are
    # rejected two generations running (sphere converges: few are taken by the end).
    one = _run(cupy, wide, dtype, dim, walkers, populations, chunks=(60,), knobs=knobs, problem="sphere")
    each = _run(cupy, wide, dtype, dim, walkers, populations, chunks=(1,) * 60, knobs=knobs, problem="sphere")
    assert _same(one, each)
    assert 0.0 < float(np.mean(one[7])) < 0.5  # the last generation took some trials, and rejected most


def test_the_host_takes_the_wide_kernel_from_many_warps_a_multiprocessor(cupy):
    from solvers.cuda.differential_evolution import WIDE_WARPS_PER_SM
    from solvers.cuda.resident import multiprocessors

    warps = WIDE_WARPS_PER_SM * multiprocessors(int(cupy.cuda.runtime.getDevice()))
    many = build(cupy, "differential_evolution", {"populations": 1}, dim=30, walkers=32 * warps, dtype="float32")
    assert many._kernel_name() == "de_generations_wide"
    fewer = build(cupy, "differential_evolution", {"populations": 1}, dim=30, walkers=32 * warps - 32,
                  dtype="float32")
    assert fewer._kernel_name() == "de_generations"
    spread = build(cupy, "differential_evolution", {"populations": warps // 2}, dim=30, walkers=64,
                   dtype="float32")  # the same warps as many populations of two
    assert spread._kernel_name() == "de_generations_wide"
    spread.wide = False
    assert spread._kernel_name() == "de_generations"


@pytest.mark.parametrize("wide", [True, False])
@pytest.mark.parametrize("dim, walkers, populations", [
    (40, 3000, 1),  # two gene chunks (the first chunk's mask drawn ahead, the second inline), 12 blocks
    (6, 70_000, 1),  # the wide kernel in blocks of 1,024
    (40, 100, 9),  # populations of one block (the barrier a __syncthreads)
])
def test_picks_drawn_during_the_barrier_are_the_picks_drawn_inline(cupy, wide, dim, walkers, populations):
    # a launch's first generation draws its picks at the tile's start and every later one during
    # the barrier before it: launches of one generation each draw every pick inline
    ahead = _run(cupy, wide, "float32", dim, walkers, populations, chunks=(5,))
    inline = _run(cupy, wide, "float32", dim, walkers, populations, chunks=(1,) * 5)
    assert _same(ahead, inline)


def test_the_wide_kernel_runs_one_block_of_1024_a_multiprocessor_where_its_scratch_fits(cupy):
    from solvers.cuda.differential_evolution import MAX_BLOCK, WIDE_MAX_BLOCK
    from solvers.cuda.resident import shared_optin

    def shape(dim, dtype="float32", **knobs):
        algo = build(cupy, "differential_evolution", {"populations": 1}, dim=dim, walkers=131_072, dtype=dtype)
        algo.wide = True
        for name, value in knobs.items():
            setattr(algo, name, value)
        return algo._launch_shape()

    item = 4
    fits = 32 * (16 + 4 * item) * 32 + 32 * 33 * 30 * item <= shared_optin(int(cupy.cuda.runtime.getDevice()))
    wide = shape(30)
    assert wide.kernel == "de_generations_wide" and wide.scratch_shared
    assert wide.shape.block == (WIDE_MAX_BLOCK if fits else MAX_BLOCK)
    # a scratch too large for one block's shared memory: four blocks of 256 a multiprocessor
    assert shape(300).shape.block == MAX_BLOCK
    assert shape(30, block=64).shape.block == 64  # a lowered block caps every kernel
    assert shape(30, wide_block=512).shape.block == (512 if fits else MAX_BLOCK)
    assert not shape(30, scratch_shared_max=0).scratch_shared
    # populations that blocks of 1,024 would leave idle in part keep blocks of 256 (64 of 1,100:
    # 46% of the threads idle against 14%)
    many = build(cupy, "differential_evolution", {"populations": 64}, dim=30, walkers=1100, dtype="float32")
    many.wide = True
    assert many._launch_shape().shape.block == MAX_BLOCK
