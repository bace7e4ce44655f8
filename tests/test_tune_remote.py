"""A tuning grid as one job on a Dask worker (solvers/tune/remote.py): what travels pickles, the job
gives the rows of a local run, a ConfigError on the worker is raised here as itself, Stop keeps the
rows so far, and progress is thinned. One local cluster of one worker process for the module."""
from __future__ import annotations

import pickle
import threading

import numpy as np
import pytest

from solvers.errors import ConfigError
from solvers.study.remote import stream
from solvers.tune import Progress, TuneTable, prepare, tune_job

distributed = pytest.importorskip("distributed")

PSO = dict(algorithm="particle_swarm", problem="rastrigin", grid=["omega=0.3:0.9:2", "phi_g=1.0:2.0:2"],
           seeds=2, dim=2, engine="numpy", max_evals=2000, params={"variant": "classic"})


def _rows(table: TuneTable) -> list[tuple]:
    """The rows without their times (which differ between any two runs)."""
    return [(r.setting, r.params, r.seed, r.best_f, r.evals, r.reached_at) for r in table.rows]


def _local(arguments: dict) -> list:
    items: list = []
    for item in tune_job(arguments, cancel=threading.Event(), emit=items.append):
        items.append(item)
    return items


def test_what_the_job_sends_pickles():
    items = _local(PSO)
    assert [kind for kind, _ in items][0] == "prepared" and items[-1][0] == "finished"
    for kind, value in items:
        back = pickle.loads(pickle.dumps(value))
        assert type(back) is type(value)
        if isinstance(value, Progress):
            np.testing.assert_array_equal(back.best, value.best)
            np.testing.assert_array_equal(back.reached, value.reached)
            assert (back.done, back.total, back.fraction) == (value.done, value.total, value.fraction)
        else:
            assert back.grid == value.grid and back.path == value.path and _rows(back) == _rows(value)
    assert items[-1][1].complete and items[-1][1].stop_reason == "finished"


def test_the_job_on_a_cluster_gives_the_rows_of_a_local_run(dask_client):
    items = list(stream(dask_client, tune_job, PSO, cancel=threading.Event()))
    kinds = [kind for kind, _ in items]
    assert kinds[0] == "prepared" and kinds[-1] == "finished" and set(kinds[1:-1]) == {"progress"}
    last = items[-2][1]
    assert last.done == last.total == 8  # the last progress always travels
    local = prepare(**PSO).run()
    remote = items[-1][1]
    assert remote.batched and remote.complete and remote.path == local.path
    assert _rows(remote) == _rows(local)
    np.testing.assert_array_equal(last.best, [r.best_f for r in local.rows])


def test_a_config_error_on_the_worker_is_raised_here_as_itself(dask_client):
    refused = dict(PSO, algorithm="simulated_annealing", grid=["t_min=1:5000:2"], params={})
    with pytest.raises(ConfigError) as local:
        prepare(**refused)
    with pytest.raises(ConfigError) as remote:
        list(stream(dask_client, tune_job, refused, cancel=threading.Event()))
    assert type(remote.value) is ConfigError and str(remote.value) == str(local.value)
    assert "t_min" in str(remote.value)


def test_stop_reaches_the_job_and_keeps_the_rows_so_far(dask_client):
    # one run per (setting, seed) (the annealing hybrid's grids): 64 runs, stopped once the first
    # progress arrives
    arguments = dict(algorithm="simulated_annealing", problem="rastrigin", grid=["alpha=0.8:0.99:32"],
                     seeds=2, dim=2, engine="numpy", max_evals=50_000, params={"variant": "hybrid"})
    cancel = threading.Event()
    items = []
    for item in stream(dask_client, tune_job, arguments, cancel=cancel):
        items.append(item)
        if item[0] == "progress":
            cancel.set()
    table = items[-1][1]
    assert items[-1][0] == "finished" and not table.batched
    assert table.stop_reason == "stopped" and 1 <= len(table.rows) < table.grid.groups
    assert [r.seed for r in table.rows] == [0, 1] * (len(table.rows) // 2) + [0] * (len(table.rows) % 2)


def test_progress_is_thinned_but_the_last_is_sent():
    # 64 short runs one after another (the annealing hybrid's grids): one progress per run locally,
    # a few from the job
    arguments = dict(algorithm="simulated_annealing", problem="rastrigin", grid=["alpha=0.8:0.99:32"],
                     seeds=2, dim=2, engine="numpy", max_evals=200, params={"variant": "hybrid"})
    every: list[Progress] = []
    prepare(**arguments).run(on_progress=every.append)
    sent = [value for kind, value in _local(arguments) if kind == "progress"]
    assert len(every) == 64 and 1 <= len(sent) < 64
    assert sent[-1].done == 64 and sent[0].done == 1  # the first goes at once, the last always
