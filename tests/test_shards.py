"""A run split into shards over devices (solvers/shards.py) equals the unsplit run.

On the CPU the shards share the one "device" (devices=(0, 0)): the split and merge logic, the
walker offsets of the numba engine's Philox streams, the ShardRNG of the numpy engine, the hard
max_evals cap per shard and the synchronous annealing's exchange through the host are all exercised
here; tests/test_gpu_shards.py repeats the equality on the cuda engine.
"""
from __future__ import annotations

import numpy as np
import pytest

from shard_cases import CASES, PSO_CASES, assert_same_run, run_case
from solvers.algorithms.base import SnapshotData
from solvers.config import RunConfig
from solvers.engines import get_engine
from solvers.errors import ConfigError
from solvers.runner import Runner
from solvers.shards import (merge_snapshots, parse_devices, resolve_devices, split_counts,
                            walker_major_share)


@pytest.mark.parametrize("algorithm,params,budget", CASES)
def test_numpy_split_equals_unsplit(algorithm, params, budget):
    whole = run_case(algorithm, params, budget)
    for devices in ((0, 0), "0,0,0"):
        assert_same_run(whole, run_case(algorithm, params, budget, devices=devices))
    if "max_evals" in budget:
        assert whole[0].evals <= budget["max_evals"]  # the hard cap holds, split or not


@pytest.mark.parametrize("algorithm,params,budget", CASES)
def test_numba_split_equals_unsplit(algorithm, params, budget):
    if not get_engine("numba").available:
        pytest.skip(get_engine("numba").status()[1])
    whole = run_case(algorithm, params, budget, engine="numba")
    assert_same_run(whole, run_case(algorithm, params, budget, engine="numba", devices=(0, 0, 0)))
    if "max_evals" in budget:  # a hard cap on numba too: the cut iteration's shards, some with 0
        assert whole[0].evals == budget["max_evals"]


@pytest.mark.parametrize("algorithm,params,budget", CASES)
def test_numba_split_equals_unsplit_on_plateaus(algorithm, params, budget):
    # the step function: walkers of several shards end on the same best value. numba folds the
    # best once a chunk by the smallest (value, walker) pair, which the merge of the shards' bests
    # (the lower shard on equal values) keeps: the unsplit run's point (11 of these runs reported
    # another point of the same value before that rule)
    if not get_engine("numba").available:
        pytest.skip(get_engine("numba").status()[1])
    whole = run_case(algorithm, params, budget, engine="numba", problem="step", dim=2)
    for devices in ((0, 0), (0, 0, 0)):
        assert_same_run(whole, run_case(algorithm, params, budget, engine="numba", devices=devices,
                                         problem="step", dim=2))


def test_one_device_by_number_equals_default():
    algorithm, params, budget = CASES[0]
    assert_same_run(run_case(algorithm, params, budget), run_case(algorithm, params, budget, devices="0"))


def test_devices_parsed_and_checked():
    assert parse_devices(None) is None
    assert parse_devices("all") == "all"
    assert parse_devices(" 0, 1 ") == (0, 1)
    assert parse_devices([1, 1]) == (1, 1)
    for bad in ("", "0,x", "-1", 1.5, True, object()):
        with pytest.raises(ConfigError):
            parse_devices(bad)
    numpy = get_engine("numpy")
    assert resolve_devices(numpy, "all") == (0,)
    with pytest.raises(ConfigError, match="device 2 does not exist: engine 'numpy' has only device 0"):
        resolve_devices(numpy, "0,2")


def test_unsplittable_runs_refused_with_a_reason():
    for algorithm, params in (("multidirectional_search", {}),
                              ("simulated_annealing", {"variant": "hybrid"})):
        with pytest.raises(ConfigError, match="cannot be split over devices"):
            RunConfig.build(algorithm, "sphere", 2, params=params, devices=(0, 0))
    with pytest.raises(ConfigError, match="3 walkers cannot be split over 4 devices"):
        Runner(RunConfig.build("pattern_search", "sphere", 2, params={"walkers": 3},
                               devices=(0, 0, 0, 0))).run()
    with pytest.raises(ConfigError, match="1 populations cannot be split over 2 devices"):
        Runner(RunConfig.build("differential_evolution", "sphere", 2, params={"walkers": 8},
                               devices=(0, 0))).run()
    with pytest.raises(ConfigError, match="2 swarms cannot be split over 3 devices"):
        Runner(RunConfig.build("particle_swarm", "sphere", 2, params={"walkers": 8, "swarms": 2},
                               devices=(0, 0, 0))).run()


@pytest.mark.parametrize("engine", ["numpy", "numba"])
def test_spso_link_overlay_is_the_unsplit_runs_in_any_shard(engine):
    """The overlay shows the links of the swarm the unsplit run picks from the whole sample, drawn
    by the shard that holds it (a later shard: its local targets translated back), and none of the
    other shards' swarms."""
    if engine == "numba" and not get_engine("numba").available:
        pytest.skip(get_engine("numba").status()[1])
    params = {"variant": "spso2011", "walkers": 10, "swarms": 5, "informants": 4}
    runs = []
    for devices in (None, (0, 0), (0, 0, 0)):
        cfg = RunConfig.build("particle_swarm", "rastrigin", 3, params=params, engine=engine, seed=5,
                              devices=devices, max_iters=4)
        runner = Runner(cfg)
        runner.run()
        runs.append(runner)
    for heavy in range(5):  # every particle of swarm `heavy` sampled, two of every other swarm
        sample = np.unique(np.concatenate([np.arange(heavy * 10, heavy * 10 + 10),
                                           np.arange(50)[::5], np.arange(50)[1::5]]))
        whole = runs[0].algorithm.snapshot(runs[0].state, sample).overlays["links"]
        assert len(whole) > 0
        positions = np.flatnonzero(sample // 10 == heavy)
        assert np.isin(whole, positions).all()  # the heavy swarm's links only
        for split in runs[1:]:
            links = split.algorithm.snapshot(split.state, sample).overlays["links"]
            np.testing.assert_array_equal(links, whole)


def test_split_arithmetic():
    assert split_counts(10, 3) == [4, 3, 3]
    # one round per walker, walkers in order: 2 full rounds of 10, then walkers 0..4
    shares = [walker_major_share(25, 10, w0, n) for w0, n in ((0, 4), (4, 3), (7, 3))]
    assert shares == [4 * 2 + 4, 3 * 2 + 1, 3 * 2] and sum(shares) == 25
    assert walker_major_share(None, 10, 0, 4) is None


def test_snapshots_merge_rows_links_and_extras():
    a = SnapshotData(np.zeros((2, 2)), np.zeros(2), extras={"rate": 1.0, "level": 3},
                     overlays={"links": np.array([[0, 1]]), "steps": np.ones(2)})
    b = SnapshotData(np.ones((1, 2)), np.ones(1), extras={"rate": 4.0, "level": 3},
                     overlays={"links": np.array([[0, 0]]), "steps": np.zeros(1)})
    merged = merge_snapshots([a, b], [2, 1], np.array([1.0, 2.0]))
    assert merged.positions.shape == (3, 2) and merged.fitness.tolist() == [0, 0, 1]
    assert merged.overlays["links"].tolist() == [[0, 1], [2, 2]]  # b's sample starts at row 2
    assert merged.extras == {"rate": 3.0, "level": 3}


def test_cli_devices(capsys):
    from solvers.cli import main

    assert main(["run", "-a", "pattern_search", "-f", "sphere", "-d", "2", "-n", "8",
                 "--max-iters", "3", "--devices", "0,0"]) == 0
    assert main(["run", "-a", "pattern_search", "-f", "sphere", "-d", "2", "--devices", "3"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["main.py: error: device 3 does not exist: engine 'numpy' has only device 0 here"]


def test_bench_measures_the_split_beside_one_device(tmp_path, capsys):
    import json

    from solvers.cli import main

    out = tmp_path / "bench.json"
    assert main(["bench", "-a", "pattern_search", "-f", "sphere", "-d", "3", "-n", "64", "-i", "2",
                 "--numpy-iterations", "2", "--engines", "numpy", "--repeats", "1",
                 "--devices", "0,0", "--json", str(out)]) == 0
    records = json.loads(out.read_text())["records"]
    assert [r["devices"] for r in records] == [None, "0,0"]
    assert records[1]["evaluations"] == records[0]["evaluations"]
    assert records[1]["speedup_vs_one_device"] > 0
    assert "devices 0,0" in capsys.readouterr().out
