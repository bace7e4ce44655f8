"""The measuring rule's warm-up compiles every numba kernel a timed run can reach, not only those of
its first iteration (solvers/measure.py warm_up, Algorithm.warm_kernels): a kernel first used later
(MDS's iteration cut by max_evals, the SA hybrid's Nelder-Mead polishing) compiled inside the timed
window on a cold cache (14.4 s against 0.010 s warm for an MDS run).

Checked on numba's dispatchers: after Runner(compile_first=True).prepare() (the warm-up) the run
adds no specialisation to any kernel of solvers.numba, whether the cache compiles it or loads it.
In a fresh process, so that kernels this pytest process compiled for other tests cannot hide a miss.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("numba")

from solvers import RunConfig, Runner  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

# (algorithm, function, dim, params, max_evals): runs on numba that end in the rare path
CASES = {
    "mds_cut": ("multidirectional_search", "rastrigin", 4, {"walkers": 8}, 1000),
    "sa_hybrid_polish": ("simulated_annealing", "sphere", 3, {"walkers": 32, "variant": "hybrid"}, 20000),
}

SCRIPT = r"""
import json, sys
import numba
from numba.core.registry import CPUDispatcher
from solvers import RunConfig, Runner

def specialisations():
    out = {}
    for name, module in list(sys.modules.items()):
        if name.startswith("solvers.numba"):
            for attr, value in vars(module).items():
                if isinstance(value, CPUDispatcher):
                    out[f"{name}.{attr}"] = {str(s) for s in value.signatures}
    return out

cases = json.loads(sys.argv[1])
report = {}
for key, (algorithm, function, dim, params, max_evals) in cases.items():
    config = RunConfig.build(algorithm, function, dim, params=params, engine="numba", max_evals=max_evals)
    runner = Runner(config, compile_first=True)
    runner.prepare()
    before = specialisations()
    result = runner.run()
    after = specialisations()
    new = {k: sorted(v - before.get(k, set())) for k, v in after.items() if v - before.get(k, set())}
    report[key] = {"new": new, "phase": getattr(runner.state, "phase", None),
                   "stop": result.stop_reason}
print(json.dumps(report))
"""


def test_no_numba_kernel_compiles_after_the_warm_up():
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", SCRIPT, json.dumps(CASES)], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-2000:]
    report = json.loads(out.stdout.strip().splitlines()[-1])
    # the runs do reach the rare paths
    assert report["mds_cut"]["stop"] == "max_evals"
    assert report["sa_hybrid_polish"]["phase"] == "polish"
    for key, entry in report.items():
        assert entry["new"] == {}, f"{key}: compiled inside the timed run: {entry['new']}"


@pytest.mark.parametrize("key", sorted(CASES))
def test_the_warm_up_changes_no_number(key):
    """Same seed, bit-identical results with and without the warm-up (it works on copies)."""
    algorithm, function, dim, params, max_evals = CASES[key]
    config = RunConfig.build(algorithm, function, dim, params=params, engine="numba",
                             max_evals=max_evals, seed=7)
    warm, plain = Runner(config, compile_first=True).run(), Runner(config).run()
    assert (warm.evals, warm.iterations, warm.stop_reason) == (plain.evals, plain.iterations,
                                                               plain.stop_reason)
    assert warm.best_f == plain.best_f and np.array_equal(warm.best_x, plain.best_x)
    assert warm.nonfinite_evals == plain.nonfinite_evals
