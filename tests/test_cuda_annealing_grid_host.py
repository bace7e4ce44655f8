"""The cuda engine's annealing grids, host side, without a GPU: SimulatedAnnealingCuda's launches,
schedules, per-run bests, broadcasts and budget cuts driven over kernels emulated in NumPy.

The emulated kernels follow kernels/simulated_annealing.cu statement by statement (the move, the
Metropolis rule, each chain's best of the launch and its lazy copy B, the in-kernel schedule of
``sa_anneal``, the tie rule of the best reductions) with their own random numbers keyed as Philox
is (run key, chain index within the run, stream, global iteration). So a grid must equal its runs
alone here exactly as on the GPU, and this checks what the host adds: launches cut at every run's
level ends, each run's temperature, acceptance counts, best point and budget. tests/test_gpu_tune.py
checks the real kernels on the GPU machine.
"""
from __future__ import annotations

import itertools
import types

import numpy as np
import pytest

import solvers
from solvers.algorithms.base import Algorithm
from solvers.cuda.simulated_annealing import SimulatedAnnealingCuda
from solvers.params import make_params
from solvers.rng import ArrayRNG, GroupedRNG

STREAM_INIT, STREAM_STEP = 1, 3


def _draws(key, chain, stream, draw):
    return np.random.default_rng([int(key), int(chain), stream, int(draw)])


def _replaces_best(value, i, best_f, best_i, moves) -> bool:
    """reduce.cuh's mw_replaces_best: a smaller value, or the same finite value at a smaller walker
    index (at the same index too where `moves`)."""
    if value < best_f:
        return True
    held = int(np.ravel(best_i)[0])
    return bool(value == best_f and np.isfinite(value) and (i < held or (moves and i == held)))


class EmulatedKernels:
    """The kernels that SimulatedAnnealingCuda launches (annealing only), one chain at a time."""

    def __init__(self, algo):
        self.algo = algo

    def get(self, name):
        kernel = getattr(self, name)
        return lambda grid, block, args, shared_mem=0: kernel(*args)

    def _value(self, x):
        v = self.algo.dtype.type(self.algo.problem.evaluate(x[None, :].astype(self.algo.dtype))[0])
        return v if np.isfinite(v) else self.algo.dtype.type(np.inf)

    def sa_init(self, X, f, accepted, lower, upper, n, d, seed, walker0, gseeds, gsize):
        for i in range(int(n)):
            key, first = (int(gseeds[i // gsize]), i // gsize * gsize) if gsize > 0 else (int(seed), 0)
            u = _draws(key, int(walker0) + i - first, STREAM_INIT, 0).random(int(d)).astype(X.dtype)
            X[:, i] = lower + (upper - lower) * u
            f[i] = self._value(X[:, i])
            accepted[i] = 0

    def _chain(self, X, f, B, i, key, chain, first_iter, iterations, last, width, temperature, level):
        """One chain's proposals; `level(it, temp)` returns the temperature after iteration it."""
        T = X.dtype.type
        fi, chain_best, at_best, acc, count, temp = f[i], f[i], True, False, [], temperature
        for it in range(iterations):
            accepted_now = False
            if it + 1 < iterations or chain < last:
                r = _draws(key, chain, STREAM_STEP, first_iter + it)
                j, u, a = int(r.integers(0, X.shape[0])), T(r.random()), T(r.random())
                x, lo, hi = X[j, i], self.algo.lower[j], self.algo.upper[j]
                towards_lower = x - width * (T(1) - T(2) * u) * (x - lo)
                towards_upper = x + width * (T(2) * u - T(1)) * (hi - x)
                proposal = min(max(towards_lower if u < T(0.5) else towards_upper, lo), hi)
                point = X[:, i].copy()
                point[j] = proposal
                fn = self._value(point)
                with np.errstate(invalid="ignore", over="ignore"):
                    e = -(fn - fi) / T(temp)
                    acc = bool(e >= 0) or bool(a < np.exp(e))
                if acc:
                    if fn < chain_best:
                        chain_best, at_best = fn, True
                    elif at_best:
                        B[:, i] = X[:, i]
                        at_best = False
                    X[j, i], fi, accepted_now = proposal, fn, True
            count.append(accepted_now)
            temp = level(it, temp)
        f[i] = fi
        return chain_best, at_best, acc, count

    def sa_anneal(self, X, f, accepted, B, at_best, lower, upper, n, d, seed, walker0, first_iter,
                  iterations, temperature, level_iter, chain_length, alpha, t_min, t0, width,
                  width_power, last_chains, level_counts, part_f, part_i, ticket, best_f, best_x, best_i,
                  staged):
        assert width_power == 0.0  # the fixed schedule
        assert staged in (0, 1)  # chains' points in shared memory or not: the same numbers
        bests = np.empty(int(n), X.dtype)
        for i in range(int(n)):
            ends = []

            def level(it, temp):
                if (int(level_iter) + it + 1) % int(chain_length) == 0:
                    ends.append(it)
                    temp *= alpha
                    return t0 if temp <= t_min else temp
                return temp

            bests[i], at_best[i], accepted[i], count = self._chain(
                X, f, B, i, int(seed), int(walker0) + i, int(first_iter), int(iterations),
                int(last_chains), width, float(temperature), level)
            for slot, part in enumerate(np.split(np.asarray(count), [e + 1 for e in ends])):
                level_counts[slot] += np.uint64(part.sum())
        w = int(np.argmin(bests))  # the first of equal minima
        if _replaces_best(bests[w], w, best_f, best_i, False):
            best_x[...] = X[:, w] if at_best[w] else B[:, w]
            best_f[...], best_i[...] = bests[w], w

    def sa_anneal_groups(self, X, f, accepted, B, at_best, chain_best, lower, upper, n, d, gseeds,
                         gsize, gtemp, first_iter, iterations, width, last_chains, group_counts, staged):
        assert staged in (0, 1)
        for i in range(int(n)):
            g, chain = i // int(gsize), i % int(gsize)
            chain_best[i], at_best[i], accepted[i], count = self._chain(
                X, f, B, i, int(gseeds[g]), chain, int(first_iter), int(iterations), int(last_chains),
                width, float(gtemp[g]), lambda it, temp: temp)
            group_counts[g] += np.uint64(sum(count))

    def mw_argmin_update(self, f, XT, n, d, part_f, part_i, ticket, best_f, best_x, best_i, moves):
        w = int(np.argmin(f))
        if _replaces_best(f[w], w, best_f, best_i, bool(moves)):
            best_x[...], best_f[...], best_i[...] = XT[:, w], f[w], w

    def mw_broadcast_point(self, XT, f, n, d, src_x, src_f):
        XT[...] = src_x[:, None]
        f[...] = src_f


def emulated(params, dim=3, dtype=np.float32, max_evals=None, problem="rastrigin"):
    """SimulatedAnnealingCuda over the emulated kernels (NumPy arrays in place of CuPy's)."""
    algo = SimulatedAnnealingCuda.__new__(SimulatedAnnealingCuda)
    Algorithm.__init__(algo, solvers.get_problem(problem, dim),
                       make_params(SimulatedAnnealingCuda.Params, params), xp=np, dtype=dtype)
    algo.fast_math, algo.kernels = False, EmulatedKernels(algo)
    algo.require_memory = lambda nbytes: None
    algo.plan(types.SimpleNamespace(max_evals=max_evals, max_iters=None))
    return algo


def _steps(algo, state, iterations, chunks):
    done = 0
    for chunk in itertools.cycle(chunks):
        if done >= iterations or algo.evals_left(state) == 0:
            return
        chunk = min(chunk, iterations - done)
        algo.step(state, chunk)
        done += chunk


ALPHA_LENGTH = [dict(alpha=a, chain_length=c) for a in (0.5, 0.9) for c in (3, 7)]
T0_TMIN = [dict(t0=t0, t_min=t_min) for t0 in (20.0, 80.0) for t_min in (0.1, 5.0)]


@pytest.mark.parametrize("variant, dtype, max_evals, iterations, chunks, settings, problem", [
    ("sync", np.float32, None, 40, [5], ALPHA_LENGTH, "rastrigin"),
    ("sync", np.float64, 200, 60, [7, 3], ALPHA_LENGTH, "rastrigin"),  # the budget cuts an iteration
    ("async", np.float32, 173, 60, [11], ALPHA_LENGTH, "rastrigin"),
    ("async", np.float64, None, 30, [4, 9], ALPHA_LENGTH, "rastrigin"),
    ("sync", np.float32, None, 30, [6], T0_TMIN, "rastrigin"),
    # plateaus: chains tie on a run's best value (a run's best point by the same rule as alone)
    ("sync", np.float32, None, 40, [1], ALPHA_LENGTH, "step"),
    ("async", np.float64, None, 40, [3, 1], ALPHA_LENGTH, "step"),
])
def test_grid_equals_runs_alone_over_emulated_kernels(variant, dtype, max_evals, iterations, chunks, settings,
                                                      problem):
    m, seeds = 6, (3, 4)
    pairs = [(setting, seed) for setting in settings for seed in seeds]
    base = {"schedule": "fixed", "variant": variant, "t0": 50.0, "t_min": 0.5}
    groups = len(pairs)
    grid = emulated({**base, "walkers": m * groups}, dtype=dtype, max_evals=max_evals, problem=problem)
    grid.set_groups(groups, {k: [s[k] for s, _ in pairs] for k in settings[0]})
    state = grid.init(GroupedRNG(np, [seed for _, seed in pairs]))
    _steps(grid, state, iterations, chunks)
    for g, (setting, seed) in enumerate(pairs):
        alone = emulated({**base, "walkers": m, **setting}, dtype=dtype, max_evals=max_evals, problem=problem)
        run = alone.init(ArrayRNG(np, seed))
        _steps(alone, run, iterations, chunks[::-1])  # other launch boundaries: the same numbers
        rows = slice(g * m, (g + 1) * m)
        assert np.array_equal(state.XT[:, rows], run.XT) and np.array_equal(state.f[rows], run.f)
        assert state.group_best_f[g] == run.best_f and state.evals // groups == run.evals
        assert np.array_equal(state.schedule.best_x[:, g], run.best_x)
        assert (state.schedule.temperature[g], state.schedule.level[g]) == (run.temperature, run.level)
    assert len(set(state.group_best_f.tolist())) > 1


def test_each_run_keeps_its_schedule_and_sync_broadcasts_within_it():
    algo = emulated({"schedule": "fixed", "variant": "sync", "walkers": 24, "t0": 10.0, "t_min": 1.0}, dim=4)
    algo.set_groups(3, {"alpha": (0.5, 0.9, 0.5), "chain_length": (3, 4, 3)})
    state = algo.init(GroupedRNG(np, [11, 12, 11]))
    algo.step(state, 12)  # launches end at 3, 4, 6, 8, 9 and 12
    sched = state.schedule
    assert list(sched.level) == [4, 3, 4] and list(sched.rounds) == [1, 0, 1]
    assert state.evals == 24 * 13
    X = state.X.reshape(3, -1, 4)
    assert np.array_equal(X[0], X[2])
    for g in range(3):
        assert np.all(X[g] == sched.best_x[:, g])
    assert algo.snapshot(state, np.arange(4)).extras["temperature level"] == 4  # run 0's
