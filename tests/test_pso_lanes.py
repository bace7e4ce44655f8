"""How many lanes a classic PSO particle gets on the cuda engine (solvers/cuda/particle_swarm.py): the
automatic choice and the overrides. Runs without a GPU; tests/test_gpu_pso_lanes.py checks on the
GPU that a run with lanes is the same run."""
from __future__ import annotations

import numpy as np
import pytest

import solvers.cuda.particle_swarm as pso
from solvers.cuda.particle_swarm import LANES_ENV, ParticleSwarmCuda, choose_lanes, requested_lanes
from solvers.errors import ConfigError
from solvers.params import make_params
from solvers.problems import get_problem

SMS = 132  # an H100 or H200


@pytest.mark.parametrize("particles, lanes", [(1024, 8), (16384, 8), (16896, 8), (17000, 4), (65536, 2),
                                              (67584, 2), (67585, 1), (131072, 1)])
def test_lanes_while_particles_per_multiprocessor_are_few(particles, lanes):
    # rastrigin 30-D float32: 15 Philox blocks per move; particles x lanes within 1,024 per multiprocessor
    assert choose_lanes(particles, SMS, 15) == lanes
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
    algo = object.__new__(ParticleSwarmCuda)
    algo.params = make_params(ParticleSwarmCuda.Params, {"walkers": walkers, "swarms": swarms, "variant": variant})
    algo.problem = get_problem("rastrigin", dim)
    algo.dtype = np.dtype(dtype)
    algo.lanes = lanes
    algo._group_values = None
    return algo


def test_the_choices_run_from_the_most_lanes_down_to_one(monkeypatch):
    monkeypatch.delenv(LANES_ENV, raising=False)
    assert algorithm(monkeypatch)._lane_choices(1) == [8, 4, 2, 1]
    assert algorithm(monkeypatch, walkers=1024)._lane_choices(1) == [8, 4, 2, 1]
    assert algorithm(monkeypatch, walkers=131072)._lane_choices(1) == [1]
    assert algorithm(monkeypatch, walkers=65536)._lane_choices(1) == [2, 1]
    # double: a coordinate per Philox block, so 3-D has 3 blocks: 2 lanes at most
    assert algorithm(monkeypatch, walkers=1024, dim=3, dtype="float64")._lane_choices(1) == [2, 1]


def test_grids_packed_blocks_and_spso_keep_a_thread_per_particle(monkeypatch):
    monkeypatch.delenv(LANES_ENV, raising=False)
    assert algorithm(monkeypatch, variant="spso2011")._lane_choices(1) == [1]
    assert algorithm(monkeypatch, variant="spso2011", lanes=4)._lane_choices(1) == [1]
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
    assert algorithm(monkeypatch)._lane_choices(1) == [8, 4, 2, 1]
    monkeypatch.setenv(LANES_ENV, "5")
    with pytest.raises(ConfigError, match=LANES_ENV):
        algorithm(monkeypatch)._lane_choices(1)
