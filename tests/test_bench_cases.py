"""The benchmark suites' cases (solvers/bench.py): how many iterations each engine is timed over."""
from __future__ import annotations

import json

import pytest

from solvers.bench import SUITES
from solvers.engines import get_engine, list_engines

CPU_ENGINES = [e for e in list_engines() if not get_engine(e).is_gpu]


@pytest.mark.parametrize("suite", sorted(SUITES))
def test_cpu_engines_are_timed_over_numpys_iterations(suite):
    """A compiled CPU engine measures a rate over numpy's few iterations, not the GPU's many (the
    single-threaded numba1 row once took 126 s of the H100 suite's time on one case)."""
    for case in SUITES[suite]():
        for engine in CPU_ENGINES:
            assert case.iterations_for(engine) == case.iterations_for("numpy"), (suite, case, engine)
        if case.numpy_iterations is not None:
            assert case.iterations_for("numpy") == case.numpy_iterations


def test_bench_takes_algorithm_parameters(tmp_path, capsys):
    """-p NAME=VALUE sets a parameter of every case (e.g. DE's populations for a split over GPUs)."""
    from solvers.cli import main

    out = tmp_path / "b.json"
    assert main(["bench", "-a", "differential_evolution", "-n", "16", "-p", "populations=3", "-i", "1",
                 "--numpy-iterations", "1", "--engines", "numpy", "--json", str(out)]) == 0
    (record,) = json.loads(out.read_text())["records"]
    assert record["params"]["populations"] == "3" and record["evaluations"] == 16 * 3
    assert main(["bench", "-a", "differential_evolution", "-p", "populations=zero", "--engines", "numpy"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "populations" in err[0] and "integer" in err[0]


def test_a_one_group_target_is_decided_by_one_group_only():
    """Issue 4's one-swarm/one-population rates are not claimed for a run of many groups."""
    from solvers.bench import targets

    record = {"algorithm": "differential_evolution", "variant": "", "problem": "rastrigin", "dim": 30,
              "walkers": 1024, "engine": "cuda", "mode": "rate", "dtype": "float32", "fast_math": False,
              "evals_per_second": 3.3e9, "params": {"populations": "128"}, "label": "", "devices": None}
    assert not [t for t in targets([record]) if "one population" in t]
    record["params"] = {"populations": 1}
    assert [t for t in targets([record]) if "one population" in t]


def test_issue_14s_targets_are_decided_by_their_own_records():
    """bench_targets.toml [issue14]: each variant against its own target, one-swarm rates only for one
    swarm, the fraction of evaluation-only for the asynchronous annealer only."""
    from solvers.bench import targets

    base = {"problem": "rastrigin", "dim": 30, "engine": "cuda", "mode": "rate", "dtype": "float32",
            "fast_math": False, "label": "", "devices": None}
    classic = dict(base, algorithm="particle_swarm", variant="classic", walkers=16384,
                   evals_per_second=3.06e9, params={"swarms": 1})
    (line,) = [t for t in targets([classic]) if "issue 14" in t]
    assert line.startswith("MET: (issue 14) particle_swarm (classic)") and ">= 3 G/s" in line
    spso = dict(classic, variant="spso2011", evals_per_second=1.37e9)  # against its own target
    (line,) = [t for t in targets([spso]) if "issue 14" in t]
    assert line.startswith("NOT MET: (issue 14) particle_swarm (spso2011)") and ">= 1.5 G/s" in line
    slow = dict(classic, walkers=131072, evals_per_second=7.81e9)
    assert [t for t in targets([slow]) if "issue 14" in t] == [
        "NOT MET: (issue 14) particle_swarm (classic) rastrigin 30-D at 131,072 in one swarm: 7.81 G/s "
        "(target >= 8 G/s)"]
    assert not [t for t in targets([dict(classic, params={"swarms": 50})]) if "issue 14" in t]
    annealers = [dict(base, algorithm="simulated_annealing", variant=v, walkers=131072, evals_per_second=1e10,
                      fraction_of_eval_only=1.1) for v in ("async", "sync")]
    assert [t for t in targets(annealers) if "issue 14" in t] == [
        "NOT MET: (issue 14) simulated_annealing (async) at 110% of evaluation-only (target >= 120%)"]


def test_an_expression_row_is_compared_with_its_own_suites_twin():
    """Records pooled from two commands hold the built-in case twice: the expression row's ratio is
    against the twin its suite measured just before it, not the first one found."""
    from solvers.bench import EXPRESSION_LABEL, expression_targets

    base = {"algorithm": "evaluation_only", "variant": "", "dim": 30, "walkers": 131072, "engine": "cuda",
            "dtype": "float32", "fast_math": False, "mode": "rate", "problem": "rastrigin", "label": ""}
    records = [dict(base, evals_per_second=1e9),  # another command's measurement of the built-in
               dict(base, evals_per_second=2e9),  # the expressions suite's own twin
               dict(base, problem="expr: ...", label=EXPRESSION_LABEL + "rastrigin", evals_per_second=1.9e9)]
    (line,) = expression_targets(records)
    assert "95% of the built-in's rate" in line and line.startswith("MET")


def test_the_hybrid_annealing_case_reaches_the_polishing_it_is_named_for():
    # its label says "full schedule + polishing": under the auto schedule its T0 / T_min were
    # replaced and 8,000 iterations ended mid-annealing. The same schedule on fewer chains (numpy)
    import numpy as np

    from solvers.bench import solver_class
    from solvers.params import make_params
    from solvers.problems import get_problem
    from solvers.rng import ArrayRNG

    case = next(c for c in SUITES["h100"]() if c.params.get("variant") == "hybrid")
    cls = solver_class(case.algorithm, "numpy")
    algo = cls(get_problem(case.problem, case.dim), make_params(cls.Params, {**case.params, "walkers": 16}),
               xp=np, dtype="float64")
    state = algo.init(ArrayRNG(np, 1))
    algo.step(state, case.iterations)
    assert state.phase == "polish"
