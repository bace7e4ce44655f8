"""GPU: the contract every algorithm x variant keeps on every GPU engine, parametrised over the
registries (algorithms, their choice parameters, engines), so a new algorithm, variant or engine is
tested here without editing a case table:

- walkers, the best point and the simplices stay in the box; evaluations are counted exactly (the
  numpy engine's count where that count is fixed, within the per-iteration bound where it depends
  on the values); the phase a schedule fixes is the numpy engine's; the best improves, is the value
  of its point and, where bests only improve, one the algorithm remembers;
- ``max_evals`` is a hard cap, reached;
- the same seed repeats whatever the chunking (and, on kernels, the launch shape); another seed
  differs;
- medians over seeds agree with the numpy engine (slow; per-case margins for the cuda kernels:
  tests/test_gpu_parity.py).

What is particular to one kernel (lane groups, staging, high dimension, out of memory...) is in
tests/test_gpu_kernels.py and tests/test_gpu_mds_pso_de.py; the shared openings in tests/gpu_run.py.
"""
from __future__ import annotations

import functools
import sys

import numpy as np
import pytest

import solvers
from solvers.algorithms import list_algorithms
from solvers.arrays import to_numpy
from solvers.cuda import cuda_algorithms
from solvers.engines import get_engine, reference_class
from solvers.rng import ArrayRNG
from tests.gpu_run import GPU_ENGINES, build, everything, run, same
from tests.variants import QUICK_ITERATIONS, variant_cases

# registered algorithms, then benchmark-only ones with a kernel (evaluation_only)
ALGORITHMS = list_algorithms() + [a for a in cuda_algorithms() if a not in list_algorithms()]
CASES = variant_cases(ALGORITHMS)
CASE_IDS = [c[2] for c in CASES]
WALKERS = 100  # per swarm / population
DIM = 5
ITERATIONS = QUICK_ITERATIONS  # every quick run has reached its last phase (the hybrid polishes)
# where an algorithm whose bests only improve keeps them (without restart the best is one of these)
REMEMBERED = {"pattern_search": lambda s: s.f, "multidirectional_search": lambda s: s.values[:, 0],
              "particle_swarm": lambda s: s.Pf, "differential_evolution": lambda s: s.f}


def _supported(engine, algorithm):
    ok, reason = get_engine(engine).supports(algorithm)
    if not ok:
        pytest.skip(f"{engine}: {reason}")


def _sized(params: dict, walkers: int) -> dict:
    """The case's params with `walkers` per swarm / population (the case's own size is smaller)."""
    return {**params, "walkers": walkers}


REFERENCE_SEEDS = (11, 12, 13, 14)  # two seeds were not enough: the hybrid's counts cluster


@functools.lru_cache(maxsize=None)
def _reference(algorithm, items, dtype):
    """The numpy engine's (evaluations after init, evaluations, iterations, phase) after ITERATIONS
    in two chunks, one per seed of REFERENCE_SEEDS: an entry equal for every seed is fixed by the
    algorithm, not by the values."""
    out = []
    for seed in REFERENCE_SEEDS:
        algo = build(np, algorithm, dict(items), engine="numpy", dim=DIM, dtype=dtype)
        state = algo.init(ArrayRNG(np, seed))
        init_evals = state.evals
        algo.step(state, 13)
        algo.step(state, ITERATIONS - 13)
        out.append((init_evals, state.evals, state.iteration, getattr(state, "phase", None)))
    return out


def _fixed(runs, *fields):
    """The value of `fields` shared by every reference run, or None where the runs differ."""
    values = {tuple(run[k] for k in fields) for run in runs}
    return values.pop() if len(values) == 1 else None


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("algorithm, params", [c[:2] for c in CASES], ids=CASE_IDS)
@pytest.mark.parametrize("engine", GPU_ENGINES)
def test_bounds_counts_improvement_and_best(cupy, engine, algorithm, params, dtype):
    _supported(engine, algorithm)
    params = _sized(params, WALKERS)
    algo = build(cupy, algorithm, params, dim=DIM, dtype=dtype, engine=engine)
    state = algo.init(ArrayRNG(cupy, 11))
    n, first, init_evals = algo.total_walkers(), float(state.best_f), state.evals
    algo.step(state, 13)
    algo.step(state, ITERATIONS - 13)
    positions, fitness, best_f, best_x, evals, iteration = everything(algo, state)
    problem = algo.problem
    assert positions.shape == (n, DIM)
    assert np.all(positions >= problem.lower) and np.all(positions <= problem.upper), "walker out of the box"
    assert np.all(best_x >= problem.lower) and np.all(best_x <= problem.upper)
    drawn = algo.snapshot(state, np.arange(n)).overlays.get("simplices")
    for simplices in (drawn, getattr(state, "simplices", None)):  # drawn ones, and all the state has
        if simplices is not None:  # multi-directional search's, the hybrid's Nelder-Mead
            simplices = to_numpy(simplices)
            assert np.all(simplices >= problem.lower) and np.all(simplices <= problem.upper)
    reference = _reference(algorithm, tuple(sorted(params.items())), dtype)
    assert (init_evals,) == _fixed(reference, 0), "the initial evaluations are not the reference's"
    fixed = _fixed(reference, 1, 2)
    if fixed is not None:  # a fixed count: exactly the reference's
        assert (evals, iteration) == fixed
    else:  # the count depends on the values: bounded by the per-iteration upper estimate
        assert init_evals < evals <= init_evals + iteration * algo.evals_per_iteration()
        assert iteration == ITERATIONS or (iteration < ITERATIONS and getattr(state, "done", False))
    phase = _fixed(reference, 3)
    if phase is not None:  # the phase at this point is fixed by the schedule (the hybrid's)
        assert (getattr(state, "phase", None),) == phase
    assert best_f < first, "the best value did not improve"
    assert best_f <= fitness.min() + 1e-12 * abs(fitness.min())
    f_at_best = float(problem.evaluate(best_x[None, :].astype(np.float64))[0])
    tol = 1e-9 if dtype == "float64" else 1e-4
    assert abs(f_at_best - best_f) <= tol * max(1.0, abs(best_f)), "the best is not its point's value"
    if algorithm in REMEMBERED and not params.get("restart"):
        remembered = to_numpy(REMEMBERED[algorithm](state))
        assert best_f <= remembered.min()
        assert best_f == remembered.min(), "bests only improve: the best is one remembered"


@pytest.mark.gpu
@pytest.mark.parametrize("algorithm, params", [c[:2] for c in CASES], ids=CASE_IDS)
@pytest.mark.parametrize("engine", GPU_ENGINES)
def test_max_evals_is_a_hard_cap(engine, algorithm, params):
    if algorithm not in list_algorithms():
        pytest.skip("benchmark-only: not run through the runner")
    _supported(engine, algorithm)
    budget = 7 * WALKERS * 3 + 13  # cuts an iteration part-way on every algorithm
    result = solvers.run(algorithm, "rastrigin", engine=engine, dim=DIM, seed=2, max_evals=budget,
                         params=_sized(params, WALKERS))
    assert result.evals <= budget
    assert result.stop_reason in ("max_evals", "converged")
    if result.stop_reason == "max_evals":
        assert result.evals == budget


def _narrow_shapes(algo, patch, all_knobs: bool) -> None:
    """Push a kernel into its other launch shapes, by the knobs it has: small blocks (a swarm or
    population spread over several, meeting at barriers); with all_knobs also working memory in
    global memory (simplices, trial rows, particles' state) and few resident blocks (batches of groups, threads owning
    several members). `patch` is a monkeypatch context, undone after the run."""
    if hasattr(algo, "block"):
        algo.block = 32
    if not all_knobs:
        return
    for knob in ("shared_limit", "scratch_shared_max"):
        if hasattr(algo, knob):
            setattr(algo, knob, 0)
    module = sys.modules[type(algo).__module__]
    if hasattr(module, "resident_blocks"):
        patch.setattr(module, "resident_blocks", lambda *a: 2)
    if hasattr(module, "SHARED_CHOICES"):  # own-particle arrays in global memory, not shared
        patch.setattr(module, "SHARED_CHOICES", (0,))


@pytest.mark.gpu
@pytest.mark.parametrize("algorithm, params", [c[:2] for c in CASES], ids=CASE_IDS)
@pytest.mark.parametrize("engine", GPU_ENGINES)
def test_same_seed_repeats_whatever_the_chunks_and_launch_shape(cupy, engine, algorithm, params,
                                                                monkeypatch):
    _supported(engine, algorithm)
    params = _sized(params, 70)  # not a multiple of the 32-thread blocks below
    kw = dict(dim=6, engine=engine)
    a = everything(*run(cupy, algorithm, params, [25], **kw))
    assert same(a, everything(*run(cupy, algorithm, params, [25], **kw))), "same seed, other numbers"
    assert same(a, everything(*run(cupy, algorithm, params, [1, 9, 15], **kw))), "chunks changed the run"
    for all_knobs in (False, True):
        with monkeypatch.context() as patch:
            algo = build(cupy, algorithm, params, **kw)
            _narrow_shapes(algo, patch, all_knobs)
            state = algo.init(ArrayRNG(cupy, 3))
            algo.step(state, 25)
            assert same(a, everything(algo, state)), f"the launch shape changed the run ({all_knobs=})"
    other = everything(*run(cupy, algorithm, params, [25], seed=4, **kw))
    assert not np.array_equal(a[0], other[0]), "another seed gave the same walkers"


@pytest.mark.gpu
@pytest.mark.slow
@pytest.mark.parametrize("algorithm, params", [c[:2] for c in CASES if c[0] in list_algorithms()],
                         ids=[c[2] for c in CASES if c[0] in list_algorithms()])
@pytest.mark.parametrize("engine", GPU_ENGINES)
def test_medians_agree_with_numpy(engine, algorithm, params):
    """Random streams differ between engines, so single runs differ; over 5 seeds the medians of the
    best value agree within a factor 2 plus 1 (a broken optimiser leaves several Rastrigin basins
    between them) and so do the evaluation counts (exactly where they are fixed)."""
    _supported(engine, algorithm)
    params = {**params, "walkers": 64}

    def runs(name):
        return [solvers.run(algorithm, "rastrigin", engine=name, dim=4, seed=s, max_iters=60,
                            params=params) for s in range(5)]

    ref, got = runs("numpy"), runs(engine)
    ref_evals, got_evals = [r.evals for r in ref], [r.evals for r in got]
    if len(set(ref_evals)) == 1:
        assert got_evals == ref_evals
    else:
        assert abs(np.median(got_evals) - np.median(ref_evals)) <= 0.2 * np.median(ref_evals)
    ref_best = np.median([r.best_f for r in ref])
    got_best = np.median([r.best_f for r in got])
    assert got_best <= 2 * ref_best + 1.0, f"{engine} median {got_best:.4g} vs numpy {ref_best:.4g}"
    assert ref_best <= 2 * got_best + 1.0, f"numpy median {ref_best:.4g} vs {engine} {got_best:.4g}"
    for r in got:
        assert np.isfinite(r.best_f) and r.iterations <= 60


def test_cases_cover_every_algorithm_and_variant():
    """Runs without a GPU too (collection is what matters): every registered algorithm, every value
    of its choice parameters, and every algorithm with a kernel are in the cases."""
    assert {c[0] for c in CASES} == set(ALGORITHMS)
    for algorithm in ALGORITHMS:
        for spec in reference_class(algorithm).param_specs():
            if spec.kind is bool or (spec.kind is str and spec.choices):
                seen = {p.get(spec.name, spec.default) for a, p, _ in CASES if a == algorithm}
                assert seen == set(spec.choices or (False, True)), (algorithm, spec.name)
    assert set(cuda_algorithms()) <= set(ALGORITHMS)
    # the kernels the cuda engine has had since parts 1 and 2: none may drop out of the registry
    assert {"evaluation_only", "pattern_search", "simulated_annealing", "multidirectional_search",
            "particle_swarm", "differential_evolution"} <= set(cuda_algorithms())
    assert "cuda" in GPU_ENGINES and "cupy" in GPU_ENGINES
