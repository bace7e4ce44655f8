"""Differential evolution DE/rand/1/bin, many independent populations at once.

Storn & Price, "Differential Evolution - a simple and efficient heuristic for global optimization
over continuous spaces", J. Global Optimization 11, 1997, as summarised by seed 004 (Kralj,
"Differential Evolution with parallelised objective functions using CUDA"). Per generation and per
individual i of a population:
    mutant   v = x_r1 + F (x_r2 - x_r3), with r1, r2, r3, i distinct members of i's population;
    trial    u_j = v_j if U(0, 1) <= Cr or j = j_rand (one random gene always from the mutant),
             else x_j;
    selection x_i <- u if f(u) <= f(x_i) (greedy, ties go to the trial as in the seed's eq. 3).
All trials of a generation are built from the same population, then selected (Storn & Price's
generational scheme); one evaluation per individual per generation.

Defaults: F = 0.5 (Storn & Price: "0.5 is usually a good initial choice", F in [0, 2]; the seed
quotes [0.5, 1]) and Cr = 0.9 (the seed recommends [0.8, 1]; Storn & Price suggest trying 0.9 or 1
for a quick solution). Both may change mid-run.

Bounds: a mutant component outside the box is redrawn uniformly between the base vector x_r1
and the bound it crossed ("bounce-back", Price, Storn & Lampinen, Differential Evolution: A
Practical Approach to Global Optimization, 2005). Storn & Price 1997 leave bounds open. We prefer
bounce-back to clipping, which piles individuals on the faces of the box (and makes optima on a
face too easy to find), and to reflection, which still leaves the box when F |x_r2 - x_r3| is
wider than the box. Trial components taken from x are inside already, so every trial is in the box.

Populations are independent: rows ``[g * walkers, (g + 1) * walkers)`` are population g, indices
r1, r2, r3 are drawn inside it, and the random stream does not depend on objective values.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..arrays import array_module, to_numpy
from ..params import param
from .base import Algorithm, SnapshotData, State
from .groups import MAX_TOTAL, check_total, group_argmin, group_spread
from .registry import register_algorithm



@dataclass(frozen=True)
class DifferentialEvolutionParams:
    walkers: int = param(0, lo=4, hi=MAX_TOTAL, step=8, title="Individuals per population", auto=True,
                         tip="NP of each population, at least 4 (the seed tests 16 to 64; Storn & "
                             "Price suggest 5 to 10 times the dimension); auto: 64, fewer if the "
                             "budget would allow under 50 generations")
    populations: int = param(0, lo=1, hi=MAX_TOTAL, step=1, title="Populations", auto=True,
                             tip="Independent populations evolved at once; auto: one in a run "
                                 "(32 when built without a budget, as in benches)")
    F: float = param(0.5, lo=0.0, hi=2.0, step=0.05, title="Mutation factor F", live=True,
                     tip="Weight of the difference x_r2 - x_r3 (Storn & Price: 0.5 to start, range 0-2)")
    Cr: float = param(0.9, lo=0.0, hi=1.0, step=0.05, title="Crossover rate Cr", live=True,
                      tip="Probability that a gene comes from the mutant (seed: 0.8 to 1)")

    def check(self) -> None:
        check_total(self.walkers, self.populations, "populations")


@dataclass
class DifferentialEvolutionState(State):
    trials: Any = None  # (n, d) the last generation's trial vectors
    accepted: Any = None  # (n,) whether each trial replaced its target


def draw_distinct_indices(rng, groups: int, members: int):
    """r1, r2, r3 (each (groups * members,), global row indices) distinct from each other and from i.

    No rejection loop: r_m is drawn from the members - m values left and shifted past each
    excluded index in increasing order, which maps it uniformly onto the allowed set with a fixed
    number of random draws.
    """
    xp = rng.xp
    shape = (groups, members)
    i = xp.broadcast_to(xp.arange(members)[None, :], shape)
    excluded = i[..., None]
    picks = []
    for m in range(1, 4):
        r = rng.integers(0, members - m, shape)
        for k in range(m):  # `excluded` is sorted along its last axis
            r = r + (r >= excluded[..., k])
        picks.append(r)
        excluded = xp.sort(xp.concatenate([excluded, r[..., None]], axis=-1), axis=-1)
    offset = (xp.arange(groups) * members)[:, None]
    return tuple((r + offset).reshape(-1) for r in picks)


def bounce_back(V, base, lower, upper, u):
    """Components of V outside [lower, upper] redrawn between `base` (inside) and the bound; u ~ U(0, 1)."""
    xp = array_module(V)
    below = V < lower
    bound = xp.where(below, lower, upper)
    return xp.where(below | (V > upper), bound + u * (base - bound), V)


def binomial_crossover(rng, X, V, Cr):
    """Trial vectors and the mask of genes taken from V: U(0,1) <= Cr, or j = j_rand (always one)."""
    xp = rng.xp
    n, d = X.shape
    take = rng.random((n, d), X.dtype) <= Cr
    j_rand = rng.integers(0, d, n)
    take = take | (xp.arange(d)[None, :] == j_rand[:, None])
    return xp.where(take, V, X), take


@register_algorithm
class DifferentialEvolution(Algorithm):
    name = "differential_evolution"
    title = "Differential evolution (DE/rand/1/bin)"
    Params = DifferentialEvolutionParams
    rows_move_at_ties = True  # a trial of the same value replaces its target
    reference = "Storn & Price 1997, DE/rand/1/bin; seed 004 (Kralj, DE with CUDA)"
    walker_word = "individuals"
    group_params = ("F", "Cr")  # one value per population in a grid
    split_field = "populations"  # independent populations: a split run is exact (solvers/shards.py)
    structural_params = {**Algorithm.structural_params,
                         "populations": "a grid's runs are its populations (one per setting and seed)"}

    def params_for_groups(self, params, groups: int):
        return dataclasses.replace(params, populations=params.populations * groups)

    @classmethod
    def split_unit_walkers(cls, params) -> int:
        return int(params.walkers)  # a population's individuals

    def memory_words_per_walker(self) -> float:
        # X, the trial, the donors' differences and the crossover mask: measured 8.3-8.8 d + 5
        return 9.0 * self.problem.dim + 8.0

    def memory_extra_bytes(self) -> int:
        return int(4 * self.params.populations * (self.problem.dim + 4) * self.dtype.itemsize)

    def total_walkers(self) -> int:
        return int(self.params.walkers * self.params.populations)

    def auto_values(self, params, max_evals):
        populations = params.populations or (32 if self.budget is None else 1)
        return {"populations": populations, "walkers": self.auto_count(64, float(populations), lo=4)}

    def init(self, rng) -> DifferentialEvolutionState:
        xp, n = self.xp, self.total_walkers()
        X = self.uniform_points(rng, n)
        state = DifferentialEvolutionState(X=X, f=None, best_x=X[0].copy(),
                                           best_f=xp.asarray(np.inf, dtype=self.dtype))
        state.f = self.evaluate(state, X)
        state.trials = X.copy()  # no trial yet: drawn where the individuals are
        state.accepted = xp.zeros(n, dtype=bool)
        self.update_best(state, X, state.f)
        self._rng = rng
        return state

    def step(self, state: DifferentialEvolutionState, iterations: int) -> None:
        xp, p, rng = self.xp, self.params, self._rng
        for _ in range(iterations):
            if self.budget_spent(state):
                return
            X = state.X
            r1, r2, r3 = draw_distinct_indices(rng, p.populations, p.walkers)
            base = X[r1]
            # F and Cr: numbers, or in a tuning grid (n, 1) columns of per-population values
            mutant = base + self.row_value("F") * (X[r2] - X[r3])
            mutant = bounce_back(mutant, base, self.lower, self.upper, rng.random(X.shape, self.dtype))
            trials, _ = binomial_crossover(rng, X, mutant, self.row_value("Cr"))
            f_trials = self.evaluate(state, trials)
            accepted = f_trials <= state.f
            state.X = xp.where(accepted[:, None], trials, X)
            state.f = xp.where(accepted, f_trials, state.f)
            state.trials, state.accepted = trials, accepted
            state.iteration += 1
            self.update_best(state, trials, f_trials)

    def snapshot(self, state: DifferentialEvolutionState, sample: np.ndarray) -> SnapshotData:
        p = self.params
        data = super().snapshot(state, sample)
        data.overlays["trials"] = to_numpy(state.trials[sample])
        diagonal = float(np.linalg.norm(self.problem.upper - self.problem.lower))
        spread = to_numpy(group_spread(state.X, p.populations, diagonal))
        # greedy selection keeps every population's best, so its current minimum is its best ever
        population_best = to_numpy(group_argmin(state.f, p.populations)[1])
        data.extras["population spread (x box diagonal)"] = float(spread.mean())
        data.extras["success rate (last generation)"] = float(to_numpy(state.accepted).mean())
        data.extras["population best (median)"] = float(np.median(population_best))
        data.extras["population best (worst)"] = float(population_best.max())
        return data
