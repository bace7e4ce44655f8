"""Saving and loading run configurations (solvers/config_io.py)."""
from __future__ import annotations

import json

import pytest

from solvers import config_io
from solvers.algorithms import get_algorithm, list_algorithms
from solvers.config import RunConfig
from solvers.errors import ConfigError
from solvers.params import specs


def _non_default_params(algorithm: str) -> dict:
    """One changed value per numeric parameter (inside its limits), so a round trip is not vacuous."""
    out = {}
    for s in specs(get_algorithm(algorithm).Params):
        if s.kind is bool:
            out[s.name] = not s.default
        elif s.kind in (int, float) and s.hi is not None and s.default < s.hi:
            out[s.name] = s.default + (s.step or 1) if s.default + (s.step or 1) <= s.hi else s.hi
    return out


@pytest.mark.parametrize("algorithm", list_algorithms())
def test_round_trip_keeps_every_field(tmp_path, algorithm):
    config = RunConfig.build(algorithm, "rastrigin", 3, params=_non_default_params(algorithm),
                             engine="numpy", dtype="float32", seed=7, max_evals=1000, max_seconds=2.5,
                             fast_math=True, sample_size=100, snapshot_hz=12.0)
    path = config_io.save_config(config, tmp_path / "run.json", name="Mine", description="a test")
    loaded = config_io.load_config(path)
    assert loaded == config
    meta = config_io.read_meta(path)
    assert meta["name"] == "Mine" and meta["description"] == "a test"
    data = json.loads(path.read_text())
    assert data["version"] == config_io.VERSION and data["format"] == config_io.FORMAT


def test_threads_round_trip_and_absent_means_every_core(tmp_path):
    config = RunConfig.build("pattern_search", "rastrigin", 3, engine="numba", threads=2)
    path = config_io.save_config(config, tmp_path / "run.json")
    assert json.loads(path.read_text())["threads"] == 2
    assert config_io.load_config(path) == config
    path = config_io.save_config(config.replace(threads=None), tmp_path / "all.json")
    assert "threads" not in json.loads(path.read_text())
    assert config_io.load_config(path).threads is None


def test_missing_params_and_budget_take_defaults(tmp_path):
    path = tmp_path / "short.json"
    path.write_text(json.dumps({"version": 1, "algorithm": "pattern_search", "problem": "sphere"}))
    assert config_io.load_config(path) == RunConfig.build("pattern_search", "sphere")


BAD = [
    ({"algorithm": "pattern_search", "problem": "sphere"}, "missing 'version'"),
    ({"version": 99, "algorithm": "pattern_search", "problem": "sphere"}, "unsupported version 99"),
    ({"version": 1, "format": "other", "algorithm": "pattern_search", "problem": "sphere"},
     "not a Multiwalk run configuration"),
    ({"version": 1, "problem": "sphere"}, "missing 'algorithm'"),
    ({"version": 1, "algorithm": "no_such", "problem": "sphere"}, "unknown algorithm 'no_such'"),
    ({"version": 1, "algorithm": "pattern_search", "problem": "nope"}, "unknown function 'nope'"),
    ({"version": 1, "algorithm": "pattern_search", "problem": "sphere", "params": {"walkerz": 3}},
     "unknown parameter 'walkerz'"),
    ({"version": 1, "algorithm": "pattern_search", "problem": "sphere", "params": {"walkers": -1}},
     "parameter 'walkers' must be in"),
    ({"version": 1, "algorithm": "pattern_search", "problem": "sphere", "params": [1, 2]},
     "'params' must be an object"),
    ({"version": 1, "algorithm": "pattern_search", "problem": "sphere", "dim": "two"},
     "dimension must be an integer"),
    ({"version": 1, "algorithm": "pattern_search", "problem": "sphere", "engine": "tpu"},
     "unknown engine 'tpu'"),
    ({"version": 1, "algorithm": "pattern_search", "problem": "sphere", "budget": {"max_iter": 3}},
     "unknown budget field 'max_iter'"),
    ({"version": 1, "algorithm": "pattern_search", "problem": "sphere", "budget": {"max_iters": -1}},
     "max_iters must be > 0"),
    ({"version": 1, "algorithm": "pattern_search", "problem": "sphere", "colour": "red"},
     "unknown field 'colour'"),
    ({"version": 1, "algorithm": "pattern_search", "problem": "sphere", "fast_math": "yes"},
     "'fast_math' must be true or false"),
    ({"version": 1, "algorithm": 3, "problem": "sphere"}, "'algorithm' must be a string"),
    ({"version": 1, "algorithm": "pattern_search", "problem": "sphere", "threads": 0},
     "threads must be an integer from 1"),
    ({"version": 1, "algorithm": "pattern_search", "problem": "sphere", "threads": True},
     "threads must be an integer from 1"),
    ([1, 2, 3], "must be a JSON object"),
]


@pytest.mark.parametrize("data, words", BAD, ids=[w for _, w in BAD])
def test_bad_files_give_one_line_naming_the_file(tmp_path, data, words):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ConfigError) as info:
        config_io.load_config(path)
    message = str(info.value)
    assert message.startswith("bad.json: ")
    assert words in message
    assert "\n" not in message


def test_broken_json_and_missing_file(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"version": 1,\n "algorithm": }')
    with pytest.raises(ConfigError, match=r"broken.json: not valid JSON .* line 2"):
        config_io.load_config(path)
    with pytest.raises(ConfigError, match="cannot read"):
        config_io.load_config(tmp_path / "absent.json")
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ConfigError, match="binary.json"):
        config_io.load_config(binary)


def test_list_presets_reads_names_and_skips_broken_files(tmp_path):
    config = RunConfig.build("pattern_search", "sphere", 2)
    config_io.save_config(config, tmp_path / "b_second.json", name="Second", description="two")
    config_io.save_config(config, tmp_path / "a_first.json")
    (tmp_path / "c_broken.json").write_text("{")
    (tmp_path / "notes.txt").write_text("not a preset")
    listed = config_io.list_presets(tmp_path)
    assert [(n, p.name, d) for n, p, d in listed] == [
        ("a first", "a_first.json", ""), ("Second", "b_second.json", "two")]


def test_a_set_up_saved_with_a_byte_order_mark_loads(tmp_path):
    # a preset edited in Notepad ('UTF-8 with BOM') was refused: "not valid JSON (Unexpected UTF-8
    # BOM (decode using utf-8-sig) at line 1, column 1)"
    config = RunConfig.build("pattern_search", "rastrigin", 2, params={"walkers": 64}, max_iters=10)
    plain = config_io.save_config(config, tmp_path / "plain.json")
    marked = tmp_path / "marked.json"
    marked.write_bytes(b"\xef\xbb\xbf" + plain.read_bytes())
    assert config_io.load_config(marked) == config
