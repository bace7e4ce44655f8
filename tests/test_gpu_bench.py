"""The benchmark command: records, ratios and errors (numpy engine here; every engine on a GPU)."""
from __future__ import annotations

import json

import pytest

from solvers import bench
from solvers.bench import SUITES, Case, add_ratios, device_targets, measure, targets
from solvers.cli import main


def test_quick_suite_on_numpy_writes_one_record_per_measurement(tmp_path, capsys):
    out = tmp_path / "bench.json"
    md = tmp_path / "bench.md"
    assert main(["bench", "--suite", "quick", "--engines", "numpy", "--json", str(out), "--md", str(md)]) == 0
    data = json.loads(out.read_text())
    records = data["records"]
    assert len(records) == len(SUITES["quick"]())
    for r in records:
        for key in ("algorithm", "variant", "problem", "dim", "walkers", "engine", "dtype", "iterations",
                    "evaluations", "seconds", "evals_per_second", "device", "versions"):
            assert key in r, key
        assert r["evaluations"] > 0 and r["seconds"] > 0
        assert r["evals_per_second"] == pytest.approx(r["evaluations"] / r["seconds"])
    assert "numpy" in data["environment"]
    assert "| algorithm |" in md.read_text()
    assert "evals/s" in capsys.readouterr().out


def test_counts_are_the_algorithms_own():
    rec = measure(Case("pattern_search", "rastrigin", 3, 50, 4), "numpy", "float64", False, 0, 1)
    assert rec["evaluations"] == 2 * 3 * 50 * 4  # the timed iterations only (warm-up excluded)
    e2e = measure(Case("pattern_search", "rastrigin", 3, 50, 4, mode="end_to_end"), "numpy",
                  "float64", False, 0, 1)
    assert e2e["evaluations"] == 50 + 2 * 3 * 50 * 4  # init included end to end


def test_ratios_and_targets():
    base = {"variant": "", "problem": "rastrigin", "dim": 30, "walkers": 131072, "dtype": "float32",
            "mode": "rate", "fast_math": False}
    recs = [dict(base, algorithm="evaluation_only", engine="cuda", evals_per_second=20e9, seconds=1),
            dict(base, algorithm="pattern_search", engine="cuda", evals_per_second=12e9, seconds=1),
            dict(base, algorithm="pattern_search", engine="numpy", evals_per_second=12e6, seconds=1)]
    add_ratios(recs)
    assert recs[1]["fraction_of_eval_only"] == pytest.approx(0.6)
    assert recs[1]["speedup_vs_numpy"] == pytest.approx(1000)
    assert any(line.startswith("MET: pattern_search") for line in targets(recs))
    recs[1]["fraction_of_eval_only"] = 0.4
    assert any(line.startswith("NOT MET: pattern_search") for line in targets(recs))


def test_targets_are_the_data_files(monkeypatch):
    """Every target line follows bench_targets.toml: change a number there, the verdict follows."""
    data = bench.load_targets()
    assert data == bench.TARGETS and data["engine"] == "cuda"
    base = {"variant": "", "problem": "ackley", "dim": 20, "walkers": 15360, "dtype": "float32",
            "mode": "end_to_end", "fast_math": False, "engine": "cuda", "seconds": 0.9e-3,
            "speedup_vs_numpy": 3000}
    pso = dict(base, algorithm="particle_swarm", problem="rastrigin", dim=30, walkers=16384,
               mode="rate", evals_per_second=5e9, params={"swarms": 1})  # one swarm, as the suite's
    split = dict(pso, algorithm="pattern_search", devices="0,1", speedup_vs_one_device=1.85)
    records = [dict(base, algorithm="pattern_search"), pso]
    assert [line.split(":")[0] for line in targets(records)] == ["MET", "MET", "MET"]
    assert "target >= 1.9x" in device_targets([split])[0]
    table1 = dict(data["table1"], end_to_end_ms=0.5, speedup_vs_numpy=4000)
    rates = dict(data["one_group_rate"], particle_swarm={"16384": 6e9})
    monkeypatch.setitem(bench.TARGETS, "table1", table1)
    monkeypatch.setitem(bench.TARGETS, "one_group_rate", rates)
    monkeypatch.setitem(bench.TARGETS, "split_over_2_devices", {"default": 1.7})
    lines = targets(records)
    assert [line.split(":")[0] for line in lines] == ["NOT MET", "MET", "NOT MET"]
    assert "target <= 0.5 ms" in lines[0] and "NOT MET: >= 4000x" in lines[1] and "(target >= 6 G/s)" in lines[2]
    assert "target >= 1.7x" in device_targets([split])[0]


@pytest.mark.parametrize("argv", [["bench"], ["bench", "-a", "nope"], ["bench", "-a", "pattern_search",
                                                                     "--engines", "tpu"],
                                  ["bench", "-a", "pattern_search", "-f", "nope"],
                                  ["bench", "-a", "pattern_search", "--walkers", "0"]])
def test_bad_input_is_one_line_and_exit_2(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "error" in err


@pytest.mark.gpu
def test_quick_suite_on_every_engine(tmp_path):
    out = tmp_path / "bench.json"
    assert main(["bench", "--suite", "quick", "--engines", "numpy,cupy,cuda", "--json", str(out)]) == 0
    records = json.loads(out.read_text())["records"]
    assert {r["engine"] for r in records} == {"numpy", "cupy", "cuda"}
    assert not [r for r in records if "error" in r]
    for r in records:
        if r["engine"] != "numpy" and r["mode"] == "rate":
            assert r["speedup_vs_numpy"] is not None
