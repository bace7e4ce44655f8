"""The cuda DE's launch shape, on the host alone (no CuPy, no kernels, an H100's numbers): which
kernel, block and shared memory a population gets. The runs on the device: test_gpu_de_wide.py."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

import solvers.cuda.differential_evolution as de
from solvers.cuda.differential_evolution import MAX_BLOCK, WIDE_MAX_BLOCK, DifferentialEvolutionCuda
from solvers.params import make_params
from solvers.problems import get_problem

SMS = 132  # an H100's multiprocessors
OPTIN = 227 * 1024  # the shared memory an H100 block may opt in to


class _Kernels:
    def get(self, name):
        return name  # the launch shape reads only its name and attributes it does not have


def _resident(kernel, block, shared_bytes):
    """64 registers a thread (every DE kernel's bounds), 2,048 threads, 228 KB a multiprocessor."""
    return min(65536 // (64 * block), 2048 // block, (228 * 1024) // (shared_bytes + 1024), 32) * SMS


def _shape(monkeypatch, walkers, populations=1, dim=30, dtype="float32", optin=OPTIN, **knobs):
    import solvers.cuda.resident as resident_module

    monkeypatch.setattr(resident_module, "multiprocessors", lambda *a: SMS)
    monkeypatch.setattr(de, "multiprocessors", lambda *a: SMS)
    monkeypatch.setattr(de, "resident_blocks", _resident)
    monkeypatch.setattr(de, "allow_shared", lambda kernel, nbytes: None)
    monkeypatch.setattr(de, "shared_optin", lambda *a: optin)
    algo = object.__new__(DifferentialEvolutionCuda)
    algo.xp = SimpleNamespace(cuda=SimpleNamespace(runtime=SimpleNamespace(getDevice=lambda: 0)))
    algo.params = make_params(DifferentialEvolutionCuda.Params, {"walkers": walkers, "populations": populations})
    algo.problem = get_problem("rastrigin", dim)
    algo.dtype = np.dtype(dtype)
    algo._group_values = None
    algo.kernels = _Kernels()
    for name, value in knobs.items():
        setattr(algo, name, value)
    return algo._launch_shape()


def test_one_population_of_131072_runs_the_wide_kernel_in_blocks_of_1024(monkeypatch):
    launch = _shape(monkeypatch, 131_072)
    assert launch.kernel == "de_generations_wide"
    assert (launch.shape.block, launch.shape.per_group) == (WIDE_MAX_BLOCK, 128) and launch.scratch_shared
    # picks and bounce lists (32 bytes a thread in float) and 32 warps' scratch of 33 x 30 values
    assert launch.shared_bytes == 1024 * 32 + 32 * 33 * 30 * 4


@pytest.mark.parametrize("walkers, populations, dim, dtype, optin, knobs, block", [
    (131_072, 1, 30, "float64", OPTIN, {}, MAX_BLOCK),  # double's scratch does not fit one block
    (131_072, 1, 60, "float32", OPTIN, {}, MAX_BLOCK),  # nor float's at d = 60
    (131_072, 1, 30, "float32", 99 * 1024, {}, MAX_BLOCK),  # a device with less shared memory
    (1_100, 64, 30, "float32", OPTIN, {}, MAX_BLOCK),  # 46% of the threads idle in blocks of 1,024
    (16_384, 1, 30, "float32", OPTIN, {}, 128),  # few warps: de_generations, spread over 128 blocks
    (131_072, 1, 30, "float32", OPTIN, {"block": 64}, 64),  # a lowered block caps every kernel
    (131_072, 1, 30, "float32", OPTIN, {"wide_block": 256}, MAX_BLOCK),
    (70_000, 1, 6, "float32", OPTIN, {}, WIDE_MAX_BLOCK),  # 0.7% more idle threads than blocks of 256
])
def test_blocks_of_1024_only_where_they_fit_and_leave_no_more_threads_idle(
        monkeypatch, walkers, populations, dim, dtype, optin, knobs, block):
    launch = _shape(monkeypatch, walkers, populations, dim, dtype, optin, **knobs)
    assert launch.shape.block == block, launch


def test_the_scratch_goes_to_global_memory_where_told_or_where_four_blocks_would_not_fit(monkeypatch):
    assert not _shape(monkeypatch, 131_072, scratch_shared_max=0).scratch_shared
    # blocks of 256: 56 KB each at most (four a multiprocessor), less where a block may have less
    four = _shape(monkeypatch, 131_072, dim=30, dtype="float32", wide_block=256)
    assert four.scratch_shared and four.shared_bytes <= 56 * 1024
    # (39,872 bytes with the scratch: more than a block of a device with 32 KB may have)
    small = _shape(monkeypatch, 131_072, dim=30, dtype="float32", optin=32 * 1024, wide_block=256)
    assert not small.scratch_shared and small.shared_bytes == 256 * 32
