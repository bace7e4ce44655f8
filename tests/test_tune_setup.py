"""Tuning set-up files and presets (solvers/tune/setup.py), a clicked cell's run, pauses not timed."""
from __future__ import annotations

import json
import time

import numpy as np
import pytest

from solvers.config import RunConfig
from solvers.errors import ConfigError
from solvers.runner import Runner
from solvers.tune import TuneSetup, load_setup, prepare, save_setup, setting_config
from solvers.tune.setup import list_presets

PSO = RunConfig.build("particle_swarm", "himmelblau", 2, params={"variant": "classic", "phi_p": 1.2},
                      seed=4, max_evals=1500)


def test_every_tuning_preset_loads_strictly_and_prepares():
    presets = list_presets()
    algorithms = set()
    for _name, path, description in presets:
        setup = load_setup(path)
        tuning = prepare(**setup.arguments())  # every check a grid makes, nothing runs
        algorithms.add(setup.config.algorithm)
        assert description and setup.name.startswith("Tune seed")
        assert len(tuning.table.grid.axes) == 2 and tuning.table.grid.groups >= 256
    assert algorithms == {"pattern_search", "multidirectional_search", "simulated_annealing",
                          "particle_swarm", "differential_evolution"}  # one per seed paper


def test_setup_round_trip_and_bad_files_are_refused_with_one_line(tmp_path):
    setup = TuneSetup(config=PSO, axes=("omega=0.2:1:3", "phi_g=0.5:2.5:2:log"), seeds=3,
                      tolerance=0.01, name="mine")
    path = save_setup(setup, tmp_path / "grid.json")
    assert load_setup(path) == setup
    args = setup.arguments()
    assert args["params"] == {"variant": "classic", "phi_p": 1.2}  # defaults and axes left out
    assert (args["first_seed"], args["max_evals"], args["tolerance"]) == (4, 1500, 0.01)
    good = json.loads(path.read_text())
    for change, words in [({"format": "multiwalk-run"}, "not a Multiwalk tuning set-up"),
                          ({"axes": ["omega=2:3:4"]}, "must be in [0, 1.5]"),
                          ({"axes": "omega=0.2:1:3"}, "'axes' must be a list"),
                          ({"seeds": 0}, "seeds must be an integer"),
                          ({"tolerance": -1}, "'tolerance' must be"),
                          ({"extra": 1}, "unknown field 'extra'"),
                          ({"setup": {**good["setup"], "budget": {"max_seconds": 5}}}, "budget per run")]:
        (tmp_path / "bad.json").write_text(json.dumps({**good, **change}))
        with pytest.raises(ConfigError) as err:
            load_setup(tmp_path / "bad.json")
        assert words in str(err.value) and "\n" not in str(err.value)
        assert str(err.value).startswith("bad.json: ")


def test_a_cells_setting_run_alone_is_that_cells_first_seed():
    setup = TuneSetup(config=PSO, axes=("omega=0.3:0.9:2",), seeds=2)
    table = prepare(**setup.arguments()).run()
    config = setting_config(PSO, table, 1)
    assert config.params.omega == 0.9 and config.params.phi_p == 1.2 and config.seed == 4
    row = next(r for r in table.rows if r.setting == 1 and r.seed == 4)
    alone = Runner(config.replace(sample_size=1)).run()
    assert (alone.best_f, alone.evals) == (row.best_f, row.evals)


def test_hold_pauses_between_chunks_and_is_not_timed():
    holds, seen = [], []

    def hold():
        holds.append(1)
        if len(holds) == 2:
            time.sleep(0.5)  # a paused window waits here

    tuning = prepare("particle_swarm", "himmelblau", ["omega=0.3:0.9:2"], seeds=1, max_evals=3000)
    table = tuning.run(hold=hold, on_progress=seen.append)
    assert len(holds) >= 2 and table.complete
    assert table.seconds < 0.4 and all(p.seconds < 0.4 for p in seen)
    fractions = [p.fraction for p in seen]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert seen[-1].reached is not None and len(seen[-1].reached) == 2
    assert np.all(np.isnan(seen[-1].reached) | (seen[-1].reached > 0))


def test_a_typed_function_with_its_box_and_known_minimum(tmp_path):
    typed = RunConfig.build("particle_swarm", "expr: (x1-1)**2 + (x2+2)**2 + 3", 2, bounds=(-5, 5),
                            f_min=3.0, params={"variant": "classic"}, max_evals=3000)
    setup = load_setup(save_setup(TuneSetup(config=typed, axes=("omega=0.2:1:3",), seeds=2),
                                  tmp_path / "typed.json"))
    assert setup.config.bounds == (-5.0, 5.0) and setup.config.f_min == 3.0
    table = prepare(**setup.arguments()).run()
    assert table.batched and table.f_min == 3.0
    assert [c.success_rate for c in table.cells()][0] == 1.0  # errors measured from the typed f*
