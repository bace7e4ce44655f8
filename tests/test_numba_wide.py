"""The numba engine's two paths of particle swarm and differential evolution give the same run.

With many groups a launch runs a chunk of iterations with ``prange`` over swarms/populations; with
fewer groups than threads (one swarm of 131,072 particles used one core of sixteen) it runs one
iteration with ``prange`` over every walker (``NumbaAlgorithm.runs_wide``). Both use the same
per-walker helpers and Philox draws, so every array of the state is bit-identical.
"""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

import numba  # noqa: E402

from solvers.algorithms import get_algorithm  # noqa: E402
from solvers.numba import numba_algorithm  # noqa: E402
from solvers.numba.base import WIDE_MIN_WORK_PER_THREAD  # noqa: E402
from solvers.problems import get_problem  # noqa: E402
from solvers.rng import ArrayRNG  # noqa: E402

THREADS = min(2, numba.config.NUMBA_NUM_THREADS)
CASES = [  # (algorithm, params without the group count, the group count's field)
    ("particle_swarm", dict(variant="classic", walkers=24), "swarms"),
    ("particle_swarm", dict(variant="spso2011", walkers=24), "swarms"),
    ("particle_swarm", dict(variant="spso2011", walkers=24, informants=5), "swarms"),
    ("differential_evolution", dict(walkers=24), "populations"),
]
IDS = ["classic", "spso", "spso-k5", "de"]
FIELDS = ("X", "f", "P", "Pf", "V", "swarm_best_f", "epochs", "redrawn", "trials", "f_trials",
          "accepted")


def _algo(case, groups, dtype, wide, problem=None, dim=5, threads=THREADS, **attrs):
    algorithm, params, field = case
    p = get_algorithm(algorithm).Params(**params, **{field: groups})
    problem = problem if problem is not None else get_problem("rastrigin", dim)
    algo = numba_algorithm(algorithm)(problem, p, dtype=dtype, threads=threads)
    algo.wide = wide
    for key, value in attrs.items():
        setattr(algo, key, value)
    return algo


def _run(algo, steps):
    state = algo.init(ArrayRNG(np, 7))
    for iterations in steps:
        algo.step(state, iterations)
    return state


def _assert_same_state(a, b):
    for field in FIELDS:
        va, vb = getattr(a, field, None), getattr(b, field, None)
        assert (va is None) == (vb is None), field
        if va is not None:
            np.testing.assert_array_equal(np.asarray(va), np.asarray(vb), err_msg=field)
    assert float(a.best_f) == float(b.best_f)
    np.testing.assert_array_equal(a.best_x, b.best_x)
    assert (a.evals, a.iteration, int(a.nonfinite)) == (b.evals, b.iteration, int(b.nonfinite))


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("groups", [1, 3])
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_wide_and_grouped_paths_give_the_same_run(case, groups, dtype):
    """The wide path on 1 and on 2 threads (SPSO: the informants gathered by 1 or 2 threads, whose
    ranges of particles cut across swarms) equals the grouped path."""
    grouped = _run(_algo(case, groups, dtype, False), (1, 6, 4))
    assert grouped.iteration == 11
    if case[0] == "particle_swarm" and case[1]["variant"] == "spso2011":
        assert np.any(grouped.epochs >= 0)  # the links were redrawn at least once in 11 iterations
    for threads in sorted({1, THREADS}):
        _assert_same_state(grouped, _run(_algo(case, groups, dtype, True, threads=threads), (1, 6, 4)))


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_paths_agree_with_several_walkers_per_block(case, dtype):
    """More walkers than WALKER_BLOCKS: the wide kernels run blocks of several walkers, each block
    reusing its scratch (Philox blocks, velocities, the widened row) walker after walker."""
    from solvers.numba.base import WALKER_BLOCKS  # noqa: PLC0415

    algorithm, params, field = case
    case = (algorithm, dict(params, walkers=550), field)  # 2 groups: 1,100 walkers
    assert 2 * 550 > WALKER_BLOCKS
    grouped = _run(_algo(case, 2, dtype, False, dim=3), (1, 3))
    for threads in sorted({1, THREADS}):
        _assert_same_state(grouped, _run(_algo(case, 2, dtype, True, dim=3, threads=threads), (1, 3)))


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_paths_agree_under_a_budget_and_nonfinite_values(case):
    """A budget that ends mid-chunk and mid-iteration (max_evals a hard cap: the 5th iteration is
    made by its first 7 walkers only) and a box where some values are +inf (portfolio variance
    where sum(w) <= 0): same evaluations, counts and points."""
    problem = get_problem("portfolio_variance", 3).with_bounds(-1.0, 1.0)
    runs = []
    for wide in (False, True):
        algo = _algo(case, 2, np.float64, wide, problem=problem)
        algo.max_evals = 48 * 5 + 7  # 48 walkers: iterations start at 48, 96, ..., 240 evaluations
        runs.append(_run(algo, (3, 30)))
    assert (runs[0].evals, runs[0].iteration) == (48 * 5 + 7, 5)
    assert 0 < int(runs[0].nonfinite) < runs[0].evals
    _assert_same_state(*runs)


def test_differential_evolution_shard_keys_by_global_index():
    """A shard of a split run (walker0 > 0) draws the same numbers on both paths."""
    case = CASES[-1]
    runs = [_run(_algo(case, 2, np.float32, wide, walker0=96), (2, 5)) for wide in (False, True)]
    _assert_same_state(*runs)
    unshifted = _run(_algo(case, 2, np.float32, True), (2, 5))
    assert not np.array_equal(unshifted.X, runs[1].X)  # walker0 does change the draws


@pytest.mark.skipif(THREADS < 2, reason="numba may use one thread here")
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_rule_picks_wide_for_fewer_groups_than_threads(case):
    big = 2 * WIDE_MIN_WORK_PER_THREAD  # walkers in 1-D: enough work for 2 threads
    algorithm, params, field = case
    params = dict(params, walkers=big)
    wide = _algo((algorithm, params, field), 1, np.float64, None, dim=1, threads=2)
    assert wide.runs_wide(1)
    assert not _algo((algorithm, params, field), 2, np.float64, None, dim=1, threads=2).runs_wide(2)
    assert not _algo((algorithm, params, field), 1, np.float64, None, dim=1, threads=1).runs_wide(1)
    small = _algo(case, 1, np.float64, None, dim=2, threads=2)  # 24 particles in 2-D: one thread
    assert not small.runs_wide(1)


def test_step_takes_the_path_the_rule_picks(monkeypatch):
    """step() launches the wide kernel once per iteration exactly where runs_wide says so."""
    from solvers.numba import particle_swarm

    calls = {"wide": 0, "grouped": 0}
    for kernel, key in (("pso_classic_wide", "wide"), ("pso_classic", "grouped")):
        original = getattr(particle_swarm, kernel)

        def counting(*args, _original=original, _key=key):
            calls[_key] += 1
            return _original(*args)

        monkeypatch.setattr(particle_swarm, kernel, counting)
    for wide in (False, True):
        algo = _algo(CASES[0], 1, np.float64, None)
        monkeypatch.setattr(algo, "runs_wide", lambda groups, _wide=wide: _wide)
        algo.step(algo.init(ArrayRNG(np, 1)), 4)
    assert calls == {"wide": 4, "grouped": 1}
