"""One snapshot per algorithm, whatever the engine: every engine's snapshot of every algorithm x
variant has the reference's extras and overlays (same names, same shapes, same kinds of value) in
every phase of a run. GPU engines are checked by the gpu-marked cases."""
from __future__ import annotations

import numpy as np
import pytest

from solvers.engines import get_engine, list_engines, reference_engine
from solvers.problems import get_problem
from solvers.rng import ArrayRNG
from tests.variants import QUICK_ITERATIONS, variant_cases

CASES = variant_cases()
ENGINES = [pytest.param(name, marks=pytest.mark.gpu) if get_engine(name).is_gpu else name
           for name in list_engines() if not get_engine(name).is_reference]
CHECKPOINTS = (0, 1, 4, QUICK_ITERATIONS)  # iterations after init at which snapshots are compared


def _layout(data) -> tuple[dict, dict]:
    """Names of the extras with the kind of each value, names of the overlays with their shapes
    (less the first length where it depends on the values: the links and simplices drawn)."""
    extras = {k: "text" if isinstance(v, str) else "number" for k, v in data.extras.items()}
    overlays = {k: np.shape(v)[1:] if k in ("links", "simplices") else np.shape(v)
                for k, v in data.overlays.items()}
    return extras, overlays


def _snapshots(engine_name: str, algorithm: str, params: dict) -> list:
    engine = get_engine(engine_name)
    ok, reason = engine.supports(algorithm)
    if not ok:
        pytest.skip(f"{engine_name}: {reason}")
    problem = get_problem("rastrigin", 3)
    algo = engine.build(algorithm, problem, engine.algorithm_class(algorithm).Params(**params), np.float64)
    state = algo.init(ArrayRNG(engine.xp, 11))
    sample = np.arange(0, algo.total_walkers(), 5)
    layouts, done = [], 0
    for at in CHECKPOINTS:
        algo.step(state, at - done)
        done = at
        layouts.append(_layout(algo.snapshot(state, sample)))
    return layouts


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("algorithm, params", [c[:2] for c in CASES], ids=[c[2] for c in CASES])
def test_snapshot_layout_is_the_references(engine, algorithm, params):
    expected = _snapshots(reference_engine().name, algorithm, params)
    got = _snapshots(engine, algorithm, params)
    for at, (want, have) in zip(CHECKPOINTS, zip(expected, got)):
        assert have == want, f"after {at} iterations"


def test_quick_runs_reach_every_phase():
    """The checkpoints see the hybrid polishing and pattern search restarting (else the layout test
    would compare only the first phase)."""
    hybrid = next(p for a, p, _ in CASES if a == "simulated_annealing" and p.get("variant") == "hybrid")
    extras, overlays = _snapshots("numpy", "simulated_annealing", hybrid)[-1]
    assert "simplices" in overlays and "polishing simplices active" in extras
    restart = next(p for a, p, _ in CASES if a == "pattern_search" and p.get("restart"))
    assert QUICK_ITERATIONS > restart["round_iterations"]
