"""Every preset in assets/presets loads through config_io, validates and runs; the seeds are covered."""
from __future__ import annotations

import json
import re

import pytest

from solvers import config_io
from solvers.algorithms import list_algorithms
from solvers.config import Budget
from solvers.params import make_params
from solvers.runner import Runner

PRESET_FILES = sorted(config_io.PRESETS_DIR.glob("*.json"))


def test_every_preset_file_is_listed_with_a_name_and_description():
    assert len(PRESET_FILES) >= 10
    listed = config_io.list_presets()
    assert [p for _, p, _ in listed] == PRESET_FILES  # none skipped as unreadable
    names = [n for n, _, _ in listed]
    assert len(set(names)) == len(names), "preset names must be unique in the menu"
    assert all(d.strip() for _, _, d in listed)


@pytest.mark.parametrize("path", PRESET_FILES, ids=[p.stem for p in PRESET_FILES])
def test_preset_loads_strictly_and_keeps_its_values(path):
    config = config_io.load_config(path)  # a wrong algorithm, function or parameter name fails here
    data = json.loads(path.read_text())
    assert data["version"] == config_io.VERSION
    assert data.get("source"), "say which seed (or 'classroom demo') a preset comes from"
    params = config.params_dict()
    for key, value in data.get("params", {}).items():
        assert params[key] == value
    assert config.dim == data["dim"] and config.problem == data["problem"]


@pytest.mark.parametrize("path", PRESET_FILES, ids=[p.stem for p in PRESET_FILES])
def test_preset_runs_an_iteration_on_numpy(path):
    config = config_io.load_config(path)
    # fewer walkers keep this fast; the point is that the preset's setting runs at all
    small = {"walkers": min(config.params.walkers, 512)}
    config = config.replace(engine="numpy", params=make_params(type(config.params), small, base=config.params),
                            budget=Budget(max_iters=2), sample_size=16)
    result = Runner(config).run()
    assert result.iterations >= 1 and result.evals > 0


def _sources():
    return [json.loads(p.read_text()).get("source", "") for p in PRESET_FILES]


@pytest.mark.parametrize("seed", ["000", "001", "002", "003", "004"])
def test_every_seed_paper_has_a_preset(seed):
    assert any(re.search(rf"\bseed {seed}\b", s) for s in _sources())


def test_every_algorithm_has_a_classroom_2d_demo():
    demos = [config_io.load_config(p) for p in PRESET_FILES if p.stem.startswith("class_")]
    assert {c.algorithm for c in demos if c.dim == 2} == set(list_algorithms())


@pytest.mark.parametrize("stem, expected", [
    ("seed000_pattern_search_ackley_20d",
     dict(algorithm="pattern_search", problem="ackley", dim=20, walkers=15360,
          budget=Budget(max_iters=20))),
    ("seed001_mds_portfolio_15",
     dict(algorithm="multidirectional_search", problem="portfolio_variance", dim=15, walkers=20000,
          budget=Budget(max_evals=20000 * 10000))),
    ("seed001_mds_schwefel_15",
     dict(algorithm="multidirectional_search", problem="schwefel_2_26", dim=15, walkers=100000,
          budget=Budget(max_evals=100000 * 10000))),
    ("seed002_sa_sync_schwefel_16d",
     dict(algorithm="simulated_annealing", problem="schwefel", dim=16, walkers=16384,
          budget=Budget(max_iters=114500))),  # 1145 levels from 1000 to 0.01002 by 0.99 (no reheat)
])
def test_seed_settings_are_the_papers(stem, expected):
    config = config_io.load_config(config_io.PRESETS_DIR / f"{stem}.json")
    assert config.algorithm == expected["algorithm"]
    assert config.problem == expected["problem"] and config.dim == expected["dim"]
    assert config.params.walkers == expected["walkers"]
    assert config.budget == expected["budget"]


def test_de_presets_cover_the_small_populations():
    sizes = sorted(config_io.load_config(p).params.walkers for p in PRESET_FILES
                   if p.stem.startswith("seed004_"))
    assert sizes == [16, 32, 64]
