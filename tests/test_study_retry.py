"""--resume runs failed study runs again: the table layer (atomic drop, rows put back when a retry
is cut short), a study on an in-process Dask cluster (so a faked engine reaches its worker) whose
'cuda' runs fail until the engine is made available, and the refusals (one line, exit 2)."""
from __future__ import annotations

import json
import os
from collections import Counter

import pytest

import solvers
from solvers.cli import main as cli_main
from solvers.errors import ConfigError
from solvers.runner import Runner
from solvers.study import read_rows
from solvers.study.table import COLUMNS, ResultTable

distributed = pytest.importorskip("distributed")

# 2 engines x 2 seeds: the two 'cuda' runs fail while that engine is unavailable
SPEC = {"algorithms": ["pattern_search"], "functions": ["sphere"], "dims": [2], "seeds": 2,
        "engines": ["numpy", "cuda"], "params": [{"walkers": 16}], "budget": {"max_evals": 500}}
UNAVAILABLE = {"status": (False, "no CUDA device (test)")}
AVAILABLE = {"status": (True, "fake device (test)")}


@pytest.fixture(scope="module")
def cluster():
    """Workers in this process (threads), so monkeypatched engines and counters reach them; tcp, so
    the CLI's --scheduler accepts its address."""
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tcp",
                                  dashboard_address=":0", silence_logs=40) as c:
        yield c


@pytest.fixture
def runs(monkeypatch):
    """Counts Runner.run per (engine, seed): proof of what a resume ran again."""
    seen = Counter()
    real = Runner.run

    def counted(self, *args, **kwargs):
        seen[(self.config.engine, self.config.seed)] += 1
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Runner, "run", counted)
    return seen


def _table(path) -> tuple[list[dict], dict[str, str]]:
    """The rows, and each key's failure text; asserts a valid table (header, one row per key)."""
    assert path.read_text().splitlines()[0] == ",".join(COLUMNS)
    rows = read_rows(path)
    keys = [r["key"] for r in rows]
    assert len(keys) == len(set(keys)), "a run has two rows"
    assert not [p for p in os.listdir(path.parent) if p.endswith(".tmp.csv")], "a temporary file is left"
    return rows, {r["key"]: r["failure"] for r in rows}


def _row(key: str, failure: str = "") -> dict:
    return {"key": key, "algorithm": "pattern_search", "best_f": 0.5, "failure": failure}


# -- the table ----------------------------------------------------------------------------------

def test_drop_failed_replaces_the_file_atomically_and_keeps_the_good_rows(tmp_path):
    out = tmp_path / "t.csv"
    with ResultTable(out, resume=False) as t:
        for row in (_row("a"), _row("b", "EngineUnavailable: no GPU"), _row("c")):
            t.append(row)
    inode = out.stat().st_ino
    with ResultTable(out, resume=True) as t:
        assert t.done == {"a", "b", "c"} and set(t.failed) == {"b"}
        assert t.drop_failed() == 1 and t.done == {"a", "c"}
        assert out.stat().st_ino != inode  # a new file moved over the old: never half written
        assert [r["key"] for r in read_rows(out)] == ["a", "c"]
        assert t.append(_row("b")) and not t.append(_row("b"))  # the new outcome, once
    rows, failures = _table(out)
    assert [r["key"] for r in rows] == ["a", "c", "b"] and failures["b"] == ""
    assert rows[0]["best_f"] == "0.5"  # good rows written back as they were


def test_a_retry_cut_short_puts_back_the_failed_rows_it_did_not_replace(tmp_path):
    out = tmp_path / "t.csv"
    with ResultTable(out, resume=False) as t:
        for row in (_row("a", "RuntimeError: x"), _row("b", "RuntimeError: y"), _row("c")):
            t.append(row)
    with ResultTable(out, resume=True) as t:
        t.drop_failed()
        t.append(_row("a"))  # then Ctrl+C: b never ran again
    rows, failures = _table(out)
    assert failures == {"a": "", "b": "RuntimeError: y", "c": ""}
    with ResultTable(out, resume=True) as t:
        assert set(t.failed) == {"b"}  # the next resume retries it


def test_a_rewrite_that_fails_leaves_the_table_as_it_was(tmp_path, monkeypatch):
    out = tmp_path / "t.csv"
    with ResultTable(out, resume=False) as t:
        t.append(_row("a"))
        t.append(_row("b", "RuntimeError: x"))
    before = out.read_bytes()

    def full_disk(*args):
        raise OSError(28, "No space left on device")

    with ResultTable(out, resume=True) as t:
        monkeypatch.setattr(os, "replace", full_disk)
        with pytest.raises(ConfigError, match="No space left"):
            t.drop_failed()
        monkeypatch.undo()
        assert set(t.failed) == {"b"} and out.read_bytes() == before
        assert t.append(_row("c"))  # still appending to the table
    assert [r["key"] for r in read_rows(out)] == ["a", "b", "c"]


# -- a study ------------------------------------------------------------------------------------

def test_resume_runs_the_failed_runs_again_and_only_them(cluster, tmp_path, fake_engines, runs, capsys):
    spec, out = tmp_path / "s.json", tmp_path / "s.csv"
    spec.write_text(json.dumps(SPEC))
    cmd = ["study", str(spec), "--scheduler", cluster.scheduler_address, "-q"]
    fake_engines(cuda=UNAVAILABLE)
    assert cli_main(cmd) == 0
    assert "4 runs written, 0 already done, 2 failed" in capsys.readouterr().out
    rows, failures = _table(out)
    broken = {r["key"] for r in rows if r["engine"] == "cuda"}
    assert {k for k, f in failures.items() if f} == broken
    assert all("EngineUnavailable" in failures[k] for k in broken)
    good = {r["key"]: r for r in rows if r["key"] not in broken}

    fake_engines(cuda=AVAILABLE)  # the machine is fixed
    runs.clear()
    assert cli_main(cmd + ["--resume"]) == 0
    assert capsys.readouterr().out.strip() == \
        "study: 2 runs written (2 of them failed before), 2 already done; 4 in all"
    assert runs == {("cuda", 0): 1, ("cuda", 1): 1}  # the good runs did not run again
    rows, failures = _table(out)
    assert len(rows) == 4 and not any(failures.values())
    assert {r["key"] for r in rows} == broken | set(good)
    assert all(r == good[r["key"]] for r in rows if r["key"] in good)  # kept as they were

    runs.clear()  # nothing left: no run, no cluster needed
    assert cli_main(["study", str(spec), "--resume", "-q"]) == 0
    assert "0 runs written, 4 already done; 4 in all" in capsys.readouterr().out and not runs


def test_a_run_that_fails_again_is_one_row_counted_as_failed(cluster, tmp_path, fake_engines, runs):
    out = tmp_path / "s.csv"
    fake_engines(cuda=UNAVAILABLE)
    solvers.study(SPEC, out, scheduler=cluster.scheduler_address)
    runs.clear()
    again = solvers.study(SPEC, out, scheduler=cluster.scheduler_address, resume=True)
    assert (again.written, again.retried, again.failed, again.resumed) == (2, 2, 2, 2)
    assert sum(runs.values()) == 2
    rows, failures = _table(out)
    assert len(rows) == 4 and sum(bool(f) for f in failures.values()) == 2


def test_keep_failed_keeps_the_rows_and_says_how_to_retry(tmp_path, fake_engines, runs, capsys,
                                                          cluster):
    spec, out = tmp_path / "s.json", tmp_path / "s.csv"
    spec.write_text(json.dumps(SPEC))
    fake_engines(cuda=UNAVAILABLE)
    solvers.study(spec, out, scheduler=cluster.scheduler_address)
    before = out.read_bytes()
    fake_engines(cuda=AVAILABLE)
    runs.clear()
    assert cli_main(["study", str(spec), "--resume", "--keep-failed", "-q"]) == 0
    line = capsys.readouterr().out.strip()
    assert line == ("study: 0 runs written, 4 already done (2 of them failed, kept by --keep-failed: "
                    "resume without it to run them again); 4 in all")
    assert not runs and out.read_bytes() == before


def test_an_interrupted_retry_keeps_the_failures_it_did_not_replace(cluster, tmp_path, fake_engines):
    out = tmp_path / "s.csv"
    spec = dict(SPEC, task_seconds=1e-6)  # one run per task: the interrupt lands between runs
    fake_engines(cuda=UNAVAILABLE)
    solvers.study(spec, out, scheduler=cluster.scheduler_address)
    fake_engines(cuda=AVAILABLE)

    def interrupt(row):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        solvers.study(spec, out, scheduler=cluster.scheduler_address, resume=True, on_row=interrupt)
    rows, failures = _table(out)
    assert len(rows) == 4 and sum(bool(f) for f in failures.values()) == 1  # one retried, one kept
    done = solvers.study(spec, out, scheduler=cluster.scheduler_address, resume=True)
    assert (done.written, done.retried, done.failed) == (1, 1, 0)
    assert not any(_table(out)[1].values())


# -- refusals -----------------------------------------------------------------------------------

def test_keep_failed_without_resume_is_one_line_and_exit_2(tmp_path, capsys):
    spec = tmp_path / "s.json"
    spec.write_text(json.dumps(SPEC))
    assert cli_main(["study", str(spec), "--keep-failed", "-q"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--keep-failed needs --resume" in err
    assert not (tmp_path / "s.csv").exists()
    with pytest.raises(ConfigError, match="keep_failed needs resume"):
        solvers.study(spec, tmp_path / "s.csv", keep_failed=True)


def test_resuming_another_studys_table_is_one_line_and_exit_2(tmp_path, capsys):
    spec, other, out = tmp_path / "s.json", tmp_path / "other.json", tmp_path / "s.csv"
    spec.write_text(json.dumps(SPEC))
    other.write_text(json.dumps(dict(SPEC, budget={"max_evals": 600})))  # every key differs
    with ResultTable(out, resume=False) as t:
        t.append(_row("0123456789abcdef", "EngineUnavailable: no GPU"))  # not a run of s.json
    before = out.read_bytes()
    for study in (spec, other):
        assert cli_main(["study", str(study), "--out", str(out), "--resume", "-q"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "holds 1 runs that this study does not have" in err, err
        assert out.read_bytes() == before  # nothing dropped, nothing appended
