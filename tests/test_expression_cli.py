"""The CLI takes typed expressions: run --function 'expr: ...' / --function-file, bench --function;
bad expressions are one line on stderr and exit code 2."""
from __future__ import annotations

import json

from solvers.bench import SUITES, expression_targets
from solvers.cli import main


def test_run_an_expression_with_negative_bounds(capsys):
    code = main(["run", "-a", "pattern_search", "--function", "expr: sum((x[i] - 1)**2)", "--dim", "3",
                 "--bounds", "-5,5", "--max-evals", "3000", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["problem"] == "expr: sum((x[i] - 1)**2)" and out["best_f"] < 1e-3


def test_run_from_a_function_file(tmp_path, capsys):
    path = tmp_path / "f.txt"
    path.write_text("sum(abs(x[i]))\n  + x1**2\n", encoding="utf-8")
    assert main(["run", "-a", "pattern_search", "--function-file", str(path), "-d", "2",
                 "--max-evals", "2000"]) == 0
    assert "expr: sum(abs(x[i]))   + x1**2 (d=2)" in capsys.readouterr().out


def test_a_function_file_saved_with_a_byte_order_mark_reads_as_without(tmp_path, capsys):
    # Notepad's 'UTF-8 with BOM': the mark was read as the first character and refused
    path = tmp_path / "f.txt"
    path.write_bytes("\ufeffexpr: x1**2 + x2**2\r\n".encode("utf-8"))
    assert main(["run", "-a", "pattern_search", "--function-file", str(path), "-d", "2",
                 "--max-iters", "2"]) == 0
    assert "pattern_search on expr: x1**2 + x2**2 (d=2)" in capsys.readouterr().out


def test_a_function_file_may_hold_comment_lines(tmp_path, capsys):
    # the lines are joined into one: a '# ...' line used to swallow the rest of the file, and the
    # run was refused with "the expression ends too early"
    path = tmp_path / "f.txt"
    path.write_text("# a bowl, shifted\nx1**2  # first term\n+ (x2 - 1)**2\n", encoding="utf-8")
    assert main(["run", "-a", "pattern_search", "--function-file", str(path), "-d", "2",
                 "--max-iters", "2"]) == 0
    out = capsys.readouterr().out
    assert "x1**2" in out and "(x2 - 1)**2" in out and "#" not in out.split("(d=2)")[0]


def test_bad_expressions_are_one_line_and_exit_2(tmp_path, capsys):
    (tmp_path / "binary.txt").write_bytes(b"\xff\xfe sum(x[i])")  # not UTF-8: was an internal error
    cases = [["--function", "expr: sum(x[i]) + __import__('os')"], ["--function", "expr: x9", "-d", "3"],
             ["--function-file", str(tmp_path / "missing.txt")], ["--function", "expr: 1/0"],
             ["--function-file", str(tmp_path / "binary.txt")]]
    for extra in cases:
        assert main(["run", "-a", "pattern_search", *extra, "--max-evals", "100"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err, err
    assert main(["run", "-a", "pattern_search", "--function", "expr: x1 + y"]) == 2
    assert "column 6: unknown name 'y'" in capsys.readouterr().err


def test_bench_times_an_expression_beside_the_builtin(tmp_path, capsys):
    out = tmp_path / "b.json"
    for problem in ("sphere", "expr: sum(x[i]**2)"):
        assert main(["bench", "-a", "evaluation_only", "--function", problem, "-d", "4", "-n", "64",
                     "-i", "2", "--engines", "numpy", "--dtype", "float32", "--repeats", "1",
                     "--bounds", "-100,100", "--json", str(out)]) == 0
        assert json.loads(out.read_text())["records"][0]["problem"] == problem
    assert "expr: sum(x[i]**2)" in capsys.readouterr().out


def test_expression_suite_pairs_each_expression_with_its_builtin():
    cases = SUITES["expressions"]()
    labels = {(c.algorithm, c.problem.startswith("expr:")) for c in cases}
    assert labels == {(a, e) for a in ("evaluation_only", "pattern_search", "particle_swarm")
                      for e in (False, True)}
    rec = {"algorithm": "evaluation_only", "variant": "", "dim": 30, "walkers": 8, "engine": "cuda",
           "dtype": "float32", "fast_math": False, "mode": "rate"}
    records = [{**rec, "problem": "rastrigin", "label": "", "evals_per_second": 100.0},
               {**rec, "problem": "expr: ...", "label": "expression of rastrigin", "evals_per_second": 95.0}]
    assert expression_targets(records) == [
        "MET: expression of rastrigin 30-D, evaluation_only, cuda, float32: 95% of the built-in's rate "
        "(target >= 90%)"]


def test_known_minimum_of_a_typed_function_is_reported_and_checked():
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]

    def cli(*args):
        return subprocess.run([sys.executable, "main.py", *args], cwd=root, capture_output=True,
                              text=True, timeout=120)
    ok = cli("run", "-a", "pattern_search", "-f", "expr: (x1-1)**2 + x2**2 + 3", "-d", "2",
             "--f-min", "3", "--max-iters", "3", "-n", "16", "--json")
    assert ok.returncode == 0, ok.stderr
    import json
    assert json.loads(ok.stdout)["f_min"] == 3.0
    for args, text in ((("-f", "sphere", "--f-min", "0"), "only be given for a typed function"),
                       (("-f", "expr: x1**2", "-d", "1", "--f-min", "nan"), "finite number")):
        bad = cli("run", "-a", "pattern_search", *args, "--max-iters", "1")
        assert bad.returncode == 2 and text in bad.stderr and len(bad.stderr.strip().splitlines()) == 1


def test_a_function_file_naming_a_builtin_is_an_expression_not_the_builtin(tmp_path, capsys):
    # a typed function cannot take a built-in's name (or its defaults: Shekel's annealing async):
    # the file's text is an expression, where 'shekel_5' is an unknown name; one line, exit 2
    path = tmp_path / "f.txt"
    path.write_text("shekel_5\n", encoding="utf-8")
    for extra in (["--function-file", str(path)], ["--function", "expr: shekel_5"]):
        assert main(["run", "-a", "simulated_annealing", *extra, "-d", "4", "--max-evals", "500"]) == 2
        captured = capsys.readouterr()
        assert captured.out == "" and captured.err.count("\n") == 1 and "Traceback" not in captured.err
        assert "unknown name 'shekel_5'" in captured.err, captured.err
