"""``main.py reproduce``: the compiled CPU baselines (numba, numba1) beside the numpy one, the
warm-up of every CPU engine, the skipped-measurement count, and the report sentences that must
follow the measurements (issues 13 and 10)."""
from __future__ import annotations

import importlib
import re

import pytest

from solvers.engines import get_engine
from solvers.cli import main as cli_main
from solvers.reproduce import context as context_module
from solvers.reproduce.context import SKIPPED, Context, Measurement
from solvers.reproduce.report import Report
from tests.test_reproduce import is_value, markdown_tables

BASELINES = ["numpy", "numba", "numba1"]


def gpu_standin(engines=BASELINES) -> Context:
    """A quick context whose "GPU" is the numpy engine (no GPU here), with the numba baselines."""
    ctx = Context(engines, quick=True, command="test")
    ctx.gpu_candidates = ["numpy"]
    ctx.start_allowance(120)
    return ctx


def run_paper(tmp_path, module_name: str, ctx: Context) -> str:
    module = importlib.import_module(f"solvers.reproduce.{module_name}")
    report = Report(module.PAPER, ctx, ctx.dtype(module.PAPER.default_dtype), tmp_path)
    module.run(ctx, report)
    return report.write(1.0).read_text(encoding="utf-8")


def test_speedups_against_numba_and_numba1_when_a_gpu_runs(tmp_path):
    ctx = gpu_standin()
    text = run_paper(tmp_path, "particle_swarm", ctx)
    header, rows = markdown_tables(text)[1]
    for engine in ("numba", "numba1"):
        time_col, ratio_col = header.index(f"{engine} ms"), header.index(f"Speedup vs {engine}")
        assert all(is_value(r[time_col]) for r in rows), rows
        assert all(re.match(r"[\d.,]+x( †)?$", r[ratio_col]) for r in rows), rows
    # the header names the CPU and thread count each baseline ran on
    threads = get_engine("numba").max_threads()
    cpu_row = next(line for line in text.splitlines() if line.startswith("| CPU |"))
    assert f"{threads} thread" in cpu_row and "numba1 engine:" in cpu_row and "1 thread" in cpu_row


def test_unavailable_numba_keeps_its_columns_and_says_why(tmp_path, capsys, monkeypatch):
    for name in ("numba", "numba1"):
        monkeypatch.setattr(get_engine(name), "_status",
                            (False, "Numba is not installed (forced by the test)"))
    code = cli_main(["reproduce", "001", "--quick", "--engine", "numpy,numba,numba1", "--out", str(tmp_path)])
    assert code == 0, capsys.readouterr().err
    text = (tmp_path / "multidirectional_search.md").read_text(encoding="utf-8")
    header, rows = markdown_tables(text)[1]
    cols = [header.index("numba s"), header.index("numba1 s")]
    assert all(r[k].startswith("n/a [") for r in rows for k in cols)
    assert "numba unavailable: Numba is not installed (forced by the test)" in text
    assert "numba engine: unavailable (Numba is not installed" in text


def test_no_numba_columns_when_not_selected(tmp_path):
    ctx = Context(["numpy"], quick=True, command="test")
    ctx.start_allowance(60)
    text = run_paper(tmp_path, "multidirectional", ctx)
    assert "No compiled CPU baseline (numba, numba1) was selected" in text
    assert not any(h.startswith("numba") for header, _ in markdown_tables(text) for h in header)


def test_every_cpu_engine_warms_up_once_per_configuration_before_timing(monkeypatch):
    """numpy, numba and numba1 each run a two-iteration warm-up before their first timed run of a
    configuration, and not again for a second measurement of it (another seed, another budget)."""
    runs = []
    real = context_module.Runner

    class Recording(real):
        def run(self, *args, **kwargs):
            runs.append((self.config.engine, self.config.budget.max_iters, self.config.seed))
            return super().run(*args, **kwargs)

    monkeypatch.setattr(context_module, "Runner", Recording)
    ctx = Context(BASELINES, quick=True)
    ctx.start_allowance(60)
    for side in ("cpu", "numba", "numba1"):
        for seed, iters in ((0, 3), (1, 4)):
            m = ctx.measure(side, "pattern_search", "sphere", 3, {"walkers": 16}, dtype="float64",
                            max_iters=iters, seed=seed, cap_s=5.0)
            assert m.ok, m.reason
    for engine in BASELINES:
        mine = [(iters, seed) for e, iters, seed in runs if e == engine]
        assert mine == [(2, 0), (3, 0), (4, 1)], (engine, mine)  # one warm-up, then the timed runs
    assert ctx.warm_seconds > 0
    # another size is another configuration (on numba it may run another kernel: the wide path of
    # few swarms of many particles compiled inside a timed run when only a smaller size was warmed)
    runs.clear()
    m = ctx.measure("numba", "pattern_search", "sphere", 3, {"walkers": 32}, dtype="float64",
                    max_iters=3, seed=0, cap_s=5.0)
    assert m.ok and [(e, i) for e, i, _ in runs] == [("numba", 2), ("numba", 3)]


def test_skipped_measurements_are_listed_and_table5_says_how_many_runs_ran(tmp_path, monkeypatch):
    """The allowance runs out at the last Table 5 run: the header counts exactly that one, and the
    Step row's GPU mean says it averages 1 of 2 runs (the H100 report counted 5 where one n/a
    showed, because partly skipped rows averaged fewer runs silently)."""
    from solvers.reproduce import pattern_search

    ctx = gpu_standin(["numpy"])
    total = len(pattern_search.FUNCTIONS) * 2 * pattern_search.QUICK["t5_runs"]
    calls = []

    def remaining():
        calls.append(1)
        return 60.0 if len(calls) < total else -1.0

    monkeypatch.setattr(ctx, "remaining", remaining)
    report = Report(pattern_search.PAPER, ctx, "float32", tmp_path)
    pattern_search.table5(ctx, report, pattern_search.QUICK)
    text = report.write(1.0).read_text(encoding="utf-8")
    assert ctx.skipped == 1
    assert "**1 measurement(s) were skipped" in text
    assert "- pattern_search on GPU: `step`, n = 30, 256 walkers, restart, float32" in text
    header, rows = markdown_tables(text)[1]
    step = next(r for r in rows if "Step" in r[1])
    assert step[header.index("Mean best CPU / GPU")].endswith("(1 of 2 runs)")
    assert not any("runs)" in r[header.index("Mean best CPU / GPU")] for r in rows if r is not step)


def test_pattern_search_full_length_count_comes_from_table5(tmp_path):
    """The sentence on a 10 s run's evaluations is derived from Table 5's own counts (the H100
    report printed a literal 5.9e9 beside counts of 4.2e9-2.3e10 per 0.75 s run)."""
    from solvers.reproduce import pattern_search

    ctx = gpu_standin(["numpy"])
    report = Report(pattern_search.PAPER, ctx, "float32", tmp_path)
    pattern_search.table5(ctx, report, pattern_search.QUICK)
    text = report.write(1.0).read_text(encoding="utf-8")
    sentence = re.search(r"a full-length 10 s run of ours would make (?:about )?([\d.e+]+)(?: to ([\d.e+]+))? "
                         r"evaluations", text)
    assert sentence, text
    low, high = (float(v) for v in (sentence.group(1), sentence.group(2) or sentence.group(1)))
    # the GPU runs the table shows, by function: their mean rate x 10 s, the lowest and the highest
    runs = {}
    for key, m in ctx._done.items():
        if key[0] == "gpu" and key[9] == pattern_search.QUICK["t5_seconds"]:  # max_seconds: Table 5
            runs.setdefault(key[3], []).append(m.rate)
    assert len(runs) == len(pattern_search.FUNCTIONS)
    per_function = [sum(r) / len(r) * 10.0 for r in runs.values()]
    assert low == pytest.approx(min(per_function), rel=0.06)
    assert high == pytest.approx(max(per_function), rel=0.06)
    # and they are the table's counts per run scaled to 10 s (runs overshoot the limit a little)
    header, rows = markdown_tables(text)[1]
    col = header.index("Evaluations per run CPU / GPU")
    counts = [float(r[col].split(" / ")[1].replace(",", "")) * 10 / pattern_search.QUICK["t5_seconds"]
              for r in rows]
    assert max(counts) / 20 < high and low < min(counts) * 20
    assert "5.9e9" not in text and "1.6e+09 per 10 s run" in text
    assert "delta0 / 2^7" in text  # the seed's own step floor stays stated


def test_pattern_search_full_length_sentence_states_ours_beside_the_papers():
    from solvers.reproduce.pattern_search import PAPER_EVALS_10S, full_length_sentence

    assert PAPER_EVALS_10S == pytest.approx(1.6e9, rel=0.01)  # the paper's Table 1 rate x 10 s
    text = full_length_sentence({"gpu": [4.235e9 / 0.75, 2.345e10 / 0.75], "cpu": [1e6]})
    assert "5.6e+10 to 3.1e+11 evaluations" in text and "(35.2x to 195x the paper's)" in text
    assert "on the CPU" in full_length_sentence({"cpu": [1e6, 2e6]})
    assert "not known" in full_length_sentence({})


def test_fast_math_cell_gives_the_true_reason():
    """The H100 report said 'no GPU engine' for n = 20's fast-math cell although a GPU engine ran
    (its precise run had been skipped for time)."""
    from solvers.reproduce.multidirectional import fast_math_run

    ctx = gpu_standin(["numpy"])
    ran = []

    def measure():
        ran.append(1)
        return Measurement("cuda", reason=SKIPPED)

    skipped = fast_math_run(ctx, Measurement("cuda", reason=SKIPPED), measure)
    assert skipped.reason == SKIPPED and ran == [1]  # measured, so skipped and counted like the rest
    failed = fast_math_run(ctx, Measurement("cuda", reason="out of memory: too many starts"), measure)
    assert "precise GPU run failed (out of memory" in failed.reason and ran == [1]
    no_switch = fast_math_run(ctx, Measurement("cupy", ok=True, seconds=1.0, evals=10), measure)
    assert no_switch.reason == "the cupy engine has no fast-math switch"
    fast_math_run(ctx, Measurement("cuda", ok=True, seconds=1.0, evals=10), measure)
    assert ran == [1, 1]
    assert "no GPU engine" not in (skipped.reason + failed.reason + no_switch.reason)


def test_table10_text_says_which_runs_reached_the_cap():
    from solvers.reproduce.annealing import hybrid_capped_text

    done = Measurement("numpy", ok=True, seconds=0.5, evals=10)
    capped = Measurement("numpy", ok=True, seconds=5.0, evals=10, capped=True)
    rows = [("F", "f", 2, done, capped)] * 4
    assert hybrid_capped_text(rows) == ("in this run V2 finished within it on all 4 problems and "
                                        "the hybrid reached it on 4 of 4 problems")
    assert "V2 did not run" in hybrid_capped_text([("F", "f", 2, Measurement("numpy"), done)])


def test_table7_measures_again_rather_than_repeating_tables_1_2(tmp_path, monkeypatch):
    """Table 7's text says its times are a second measurement: the float32 CPU (numpy and numba)
    runs of Tables 1-2's configuration are run again, not read back from Tables 1-2."""
    from solvers.reproduce import annealing

    ctx = gpu_standin()
    calls = []
    real = ctx._measure

    def recording(side, algorithm, problem, dim, params, **kw):
        calls.append((side, params.get("variant"), kw["dtype"], kw["history_hz"], kw["cap_s"]))
        return real(side, algorithm, problem, dim, params, **kw)

    monkeypatch.setattr(ctx, "_measure", recording)
    report = Report(annealing.PAPER, ctx, "float32", tmp_path)
    annealing.versions(ctx, report, annealing.QUICK)
    annealing.precision(ctx, report, annealing.QUICK)
    cap = annealing.QUICK["cpu_cap_s"]
    for side in ("cpu", "numba", "numba1"):
        assert calls.count((side, "sync", "float32", None, cap)) == 2, (side, calls)
    text = report.write(1.0).read_text(encoding="utf-8")
    assert "its times are a second measurement" in text
