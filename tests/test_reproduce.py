"""``main.py reproduce``: every paper's quick report is written with the paper's numbers beside ours."""
from __future__ import annotations

import importlib
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

import solvers
from solvers.cli import main as cli_main
from solvers.reproduce import PAPERS, select_papers
from solvers.reproduce.context import Context, Measurement, speedup
from solvers.reproduce.report import Report, Table

ROOT = Path(__file__).resolve().parents[1]
NOT_A_VALUE = ("", "n/a", "—", "lost")


def markdown_tables(text: str) -> list[tuple[list[str], list[list[str]]]]:
    """(header, rows) of every Markdown table in `text`."""
    tables, lines = [], text.splitlines()
    for i in range(len(lines) - 1):
        if lines[i].startswith("|") and re.match(r"^\|( --- \|)+$", lines[i + 1]) and \
                (i == 0 or not lines[i - 1].startswith("|")):
            cells = lambda line: [c.strip() for c in line.strip().strip("|").split(" | ")]  # noqa: E731
            header, rows = cells(lines[i]), []
            for line in lines[i + 2:]:
                if not line.startswith("|"):
                    break
                rows.append(cells(line))
            tables.append((header, rows))
    return tables


def is_value(cell: str) -> bool:
    """A measured or published number, not a placeholder such as n/a [1]."""
    return bool(re.search(r"\d", cell)) and not cell.startswith(("n/a", "—"))


def paper_and_ours_filled(text: str, paper_lost: bool) -> bool:
    """Some row of some table has a paper cell (a number, or 'lost' where the seed lost it) and one
    of our CPU/GPU cells holding a number."""
    for header, rows in markdown_tables(text):
        paper_cols = [k for k, h in enumerate(header) if h.startswith("Paper")]
        our_cols = [k for k, h in enumerate(header) if h.startswith(("CPU", "GPU", "V1", "V2", "Best"))]
        for row in rows:
            paper_ok = any((row[k] == "lost") if paper_lost else is_value(row[k]) for k in paper_cols)
            if paper_ok and any(is_value(row[k]) for k in our_cols):
                return True
    return False


def numba_columns_filled(text: str) -> bool:
    """Every table with a numpy CPU time column also has numba and numba1 time columns, and each of
    their cells holds a time or n/a with its reason under the table."""
    found = False
    for header, rows in markdown_tables(text):
        if not any(h.startswith("CPU ms") or h.startswith("CPU s") for h in header):
            continue
        cols = [k for k, h in enumerate(header) if h.startswith(("numba ", "numba1 "))]
        names = {header[k].split()[0] for k in cols}
        assert names == {"numba", "numba1"}, header
        for row in rows:
            for k in cols:
                cell = row[k]
                assert is_value(cell) or cell == "not run" or re.match(r"n/a \[\d+\]( / n/a \[\d+\])?$", cell), row
        found = True
    return found


@pytest.mark.parametrize("pid, name, module, aliases", PAPERS, ids=[p[1] for p in PAPERS])
def test_quick_report_has_paper_numbers_beside_ours_and_plots(tmp_path, capsys, pid, name, module, aliases):
    code = cli_main(["reproduce", pid, "--quick", "--engine", "numpy,numba,numba1", "--out", str(tmp_path)])
    out = capsys.readouterr()
    assert code == 0, out.err
    report = tmp_path / f"{name}.md"
    assert report.is_file(), out.out
    text = report.read_text(encoding="utf-8")
    assert "Quick mode" in text and "reproduce" in text and "--quick" in text
    for fact in ("GPU", "CPU", "NumPy", "Precision", "Seed"):
        assert f"| {fact}" in text or fact in text
    assert paper_and_ours_filled(text, paper_lost=(pid == "002")), text
    # the compiled CPU baselines: their columns in every speedup table, and their CPU in the header
    assert numba_columns_filled(text), text
    cpu_row = next(line for line in text.splitlines() if line.startswith("| CPU |"))
    assert "numba engine:" in cpu_row and "numba1 engine:" in cpu_row
    images = re.findall(r"!\[[^\]]*\]\(([^)]+\.png)\)", text)
    assert images, "the report shows no plot"
    for image in images:
        path = tmp_path / image
        assert path.name.startswith(f"{name}_") and path.is_file()
        with Image.open(path) as png:
            png.load()
            assert png.format == "PNG" and png.size[0] > 100 and png.size[1] > 100


@pytest.mark.parametrize("args, fragment", [
    (["reproduce", "nope", "--quick"], "unknown paper 'nope'"),
    (["reproduce", "000", "--quick", "--engine", "tpu"], "unknown engine 'tpu'"),
    (["reproduce", "000", "--quick", "--dtype", "float16"], "invalid choice"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, args, fragment):
    out = subprocess.run([sys.executable, "main.py", *args, "--out", str(tmp_path / "r")], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0], out.stderr
    assert not (tmp_path / "r").exists() or not any((tmp_path / "r").iterdir())


def test_paper_names_ids_and_all_select_the_same_modules():
    assert [p[1] for p in select_papers("all")] == [p[1] for p in PAPERS]
    for pid, name, module, aliases in PAPERS:
        assert select_papers(pid) == select_papers(name) == [(pid, name, module)]
        for alias in aliases:
            assert select_papers(alias) == [(pid, name, module)]
        assert importlib.import_module(f"solvers.reproduce.{module}").PAPER.name == name


def test_gpu_columns_are_filled_when_a_gpu_engine_runs(tmp_path):
    """The GPU-column code path, with the numpy engine standing in for the GPU (no GPU in CI)."""
    module = importlib.import_module("solvers.reproduce.particle_swarm")
    ctx = Context(["numpy"], quick=True, command="test")
    ctx.gpu_candidates = ["numpy"]  # the stand-in: every "GPU" measurement runs on numpy
    ctx.start_allowance(60)
    report = Report(module.PAPER, ctx, "float32", tmp_path)
    module.run(ctx, report)
    text = report.write(1.0).read_text(encoding="utf-8")
    header, rows = markdown_tables(text)[1]  # table 1 (runs); table 0 is the set-up
    gpu_ms, ratio = header.index("GPU ms"), header.index("Speedup")
    assert all(is_value(r[gpu_ms]) and r[ratio].endswith("x") for r in rows)
    # the same engine on both sides: the ratio of rates of identical runs is near 1
    speeds = [float(r[ratio].rstrip("x")) for r in rows]
    assert 0.2 < float(np.median(speeds)) < 5.0


def test_speedup_is_a_ratio_of_rates_marked_when_a_run_was_capped():
    cpu = Measurement("numpy", ok=True, seconds=2.0, evals=1000)
    gpu = Measurement("cuda", ok=True, seconds=0.01, evals=1000)
    assert speedup(cpu, gpu) == (pytest.approx(200.0), False)
    capped = Measurement("numpy", ok=True, seconds=2.0, evals=100, capped=True)
    ratio, marked = speedup(capped, gpu)
    assert ratio == pytest.approx(2000.0) and marked  # 1e5 evals/s over 50 evals/s
    assert capped.seconds_for(1000) == pytest.approx(20.0)  # 1000 evaluations at 50 per second
    assert np.isnan(speedup(Measurement("numpy", reason="not run"), gpu)[0])


def test_table_footnotes_each_reason_once():
    t = Table(["a", "b"])
    t.add(t.missing("no such function"), t.missing("no such function"))
    t.add(t.missing("out of memory"), "1")
    text = t.markdown()
    assert "n/a [1] | n/a [1]" in text and "n/a [2]" in text
    assert text.count("no such function") == 1 and "[2] out of memory" in text


def test_extrapolations_use_the_algorithms_real_counts():
    """The reports extrapolate capped CPU runs from these counts; they must match real runs."""
    from solvers.reproduce.annealing import iterations, levels
    from solvers.reproduce.multidirectional import iterations_for
    from solvers.reproduce.pattern_search import evals_of

    r = solvers.run("pattern_search", "sphere", dim=3, max_iters=4, params={"walkers": 10})
    assert r.evals == evals_of(10, 3, 4)
    for n in (5, 15, 30):
        k = iterations_for(n, 10000)
        assert n + 1 + 2 * n * k <= 10000 < n + 1 + 2 * n * (k + 1)
    # one full annealing schedule: the run's last level ends exactly at the budget
    schedule = dict(t0=10.0, t_min=1.0, alpha=0.5, chain_length=3)
    assert levels(schedule) == 4  # 10 -> 5 -> 2.5 -> 1.25 -> 0.625
    r = solvers.run("simulated_annealing", "sphere", dim=2, max_iters=iterations(schedule),
                    params={"walkers": 4, "variant": "sync", "schedule": "fixed", **schedule})
    assert r.evals == 4 * (1 + iterations(schedule))


def test_gpu_side_falls_back_from_cuda_and_says_why(monkeypatch):
    """Where the cuda engine cannot run, the next GPU engine runs and the note says so. The
    condition is forced (the cuda run is refused as if there were no device), so the test means
    the same on a machine with a GPU."""
    ctx = Context(["numpy"], quick=True)
    ctx.gpu_candidates = ["cuda", "numpy"]  # numpy stands in for the cupy engine
    real_config = ctx._config

    def refuse_cuda(engine, *args, **kwargs):
        if engine == "cuda":
            raise solvers.EngineUnavailable("engine 'cuda' is not available: no device (forced by the test)")
        return real_config(engine, *args, **kwargs)

    monkeypatch.setattr(ctx, "_config", refuse_cuda)
    ctx.start_allowance(60)
    m = ctx.measure("gpu", "pattern_search", "sphere", 2, {"walkers": 8}, dtype="float64", max_iters=2)
    assert m.ok and m.engine == "numpy" and m.evals == 8 * (1 + 2 * 2 * 2)
    note = ctx.gpu_note("pattern_search")
    assert "numpy engine" in note and "cuda engine could not run it" in note
    assert ("pattern_search", "sphere") in ctx.fallbacks
    # out of time: measurements are skipped with the reason, never run
    ctx.start_allowance(0)
    skipped = ctx.measure("cpu", "pattern_search", "sphere", 3, {"walkers": 8}, dtype="float64", max_iters=1)
    assert not skipped.ok and "allowance" in skipped.reason and ctx.skipped == 1


def test_reproduce_runs_where_qt_cannot_be_imported(tmp_path):
    """The GPU machine has no PyQt6: block Qt's import and run main.py reproduce end to end."""
    code = (
        "import sys, importlib.abc\n"
        "class NoQt(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('PyQt6', 'PySide6', 'pyqtgraph', 'gui'):\n"
        "            raise ImportError('blocked: ' + name)\n"
        "sys.meta_path.insert(0, NoQt())\n"
        "import main\n"
        f"sys.exit(main.main(['reproduce', '004', '--quick', '--engine', 'numpy',\n"
        f"                    '--out', {str(tmp_path)!r}]))\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    assert (tmp_path / "differential_evolution.md").is_file()


def test_an_interrupted_run_leaves_the_previous_report_and_plots_as_they_were(tmp_path, monkeypatch, capsys):
    """Ctrl+C after Table 1's plot: the plots used to be drawn straight into --out, so the older
    report there kept its tables but showed this run's Table 1 plot (QA: 'reproduce 000 --quick'
    stopped by SIGINT). Now plots are staged and moved in only with the report."""
    from solvers.reproduce import pattern_search

    old = {"pattern_search.md": b"# an older report\n", "pattern_search_table1_time.png": b"older plot"}
    for name, data in old.items():
        (tmp_path / name).write_bytes(data)

    def stop(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(pattern_search, "table4", stop)
    code = cli_main(["reproduce", "000", "--quick", "--engine", "numpy", "--out", str(tmp_path)])
    assert code == 130, capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == old  # nothing new, nothing hidden left
