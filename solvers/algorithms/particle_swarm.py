"""Particle swarm optimisation: the classic global-best PSO and SPSO-2011, many swarms at once.

Seed 003 ("Implementation of Global Minimum Search using Particle Swarm Optimisation in CUDA",
MMI713, 2021) gives the classic pseudocode and runs SPSO-2011 with an adaptive random topology,
one swarm per run and many runs at once. Here ``swarms`` independent swarms of ``walkers``
particles move together; rows ``[s * walkers, (s + 1) * walkers)`` of every array are swarm s.

``classic`` (the seed's pseudocode, Kennedy & Eberhart 1995 with inertia):
    v <- omega v + phi_p r_p (p - x) + phi_g r_g (g - x),  x <- x + lr v,
with r_p, r_g ~ U(0, 1) per dimension, p the particle's best and g its swarm's best point.
The seed gives no values; the defaults omega = 0.7298, phi_p = phi_g = 1.49618 are Clerc &
Kennedy's constriction coefficients (IEEE TEC 6(1), 2002) in inertia form, as recommended by
Eberhart & Shi (CEC 2000). Velocities start as U(-|up - lo|, |up - lo|) per the seed.

``spso2011`` (M. Clerc, "Standard Particle Swarm Optimisation", 2012 description of SPSO-2011):
    each particle informs K particles of its swarm drawn at random and itself; l is the best
    previous position among the particle's informants; G is the centre of x, x + c (p - x) and
    x + c (l - x) (of the first two when l is the particle's own p); x' is drawn at random in the
    hypersphere of centre G and radius |G - x|; v <- w v + x' - x; x <- x + v,
    with w = 1 / (2 ln 2) and c = 1/2 + ln 2. Velocities start as U(lo - x, up - x).
    The point x' follows Clerc's own alea_sphere (SPSO-2011 C code and Clerc & Omran's Matlab
    port): a uniform direction and a radius U(0, 1) |G - x|. The text calls this "uniform"; it is
    uniform in the radius, not in the volume (U^(1/d)), and so denser near G. We follow the code:
    the volume-uniform draw puts x' almost on the sphere's surface in high dimension (on the 10-D
    sphere, one swarm of 40, 300 iterations: best 150 with it against 5e-15 with Clerc's draw).
    As Clerc writes (and his C code does), the K draws are with replacement, so a particle may
    draw the same target twice or itself: it informs at most K others. The links of a swarm are
    redrawn after an iteration in which that swarm's best value did not improve.

Choices for the parallel version: all particles of a swarm move at once (synchronous update, as
in the seed's GPU code) instead of Clerc's one-by-one update in random order; a swarm's best and
the informants' bests are refreshed once per iteration after all particles are evaluated.
Random numbers are drawn for every swarm every iteration (new links included, used only where a
swarm asks for them), so a swarm's trajectory never depends on other swarms' objective values,
and a run splits over devices by whole swarms exactly (solvers/shards.py: ``split_field``).

Bounds (both variants): SPSO-2011's confinement. A coordinate that leaves the box is set to the
bound it crossed and that velocity component becomes -0.5 v. Every position is thus in the box
and is evaluated; one evaluation per particle per iteration.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..arrays import array_module, to_numpy
from ..params import param
from .base import Algorithm, SnapshotData, State
from .groups import MAX_TOTAL, check_total, group_best, group_spread, grouped
from .registry import register_algorithm

SPSO_W = 1.0 / (2.0 * math.log(2.0))  # Clerc 2012: inertia w = 1/(2 ln 2) ~ 0.721
SPSO_C = 0.5 + math.log(2.0)  # Clerc 2012: acceleration c = 1/2 + ln 2 ~ 1.193
LINKED_SAMPLE = 64  # at most this many sampled particles of one swarm get their links drawn


@dataclass(frozen=True)
class ParticleSwarmParams:
    variant: str = param("spso2011", choices=("classic", "spso2011"), title="Variant",
                         tip="classic: global-best PSO of the seed's pseudocode; spso2011: Clerc's SPSO-2011")
    walkers: int = param(0, lo=2, hi=MAX_TOTAL, step=8, title="Particles per swarm", auto=True,
                         tip="Particles in each swarm (SPSO-2011 default: 40; the seed uses 32 and 64); "
                             "auto: 40, fewer if the budget would allow under 50 iterations")
    swarms: int = param(0, lo=1, hi=MAX_TOTAL, step=1, title="Swarms", auto=True,
                        tip="Independent swarms run at once (the seed's 'runs'; its largest is 50); "
                            "auto: one swarm in a run (50 when built without a budget, as in benches)")
    informants: int = param(3, lo=1, hi=64, step=1, title="Informants K (spso2011)", variants=("spso2011",),
                            tip="Each particle informs K random particles of its swarm (Clerc: 3)")
    omega: float = param(0.7298, lo=0.0, hi=1.5, step=0.01, title="Inertia omega (classic)", live=True, variants=("classic",),
                         tip="Weight of the previous velocity (Clerc & Kennedy 2002: 0.7298)")
    phi_p: float = param(1.49618, lo=0.0, hi=4.0, step=0.05, title="Cognitive phi_p (classic)", live=True, variants=("classic",),
                         tip="Pull toward the particle's own best (Clerc & Kennedy 2002: 1.49618)")
    phi_g: float = param(1.49618, lo=0.0, hi=4.0, step=0.05, title="Social phi_g (classic)", live=True, variants=("classic",),
                         tip="Pull toward the swarm's best (Clerc & Kennedy 2002: 1.49618)")
    lr: float = param(1.0, lo=0.01, hi=2.0, step=0.05, title="Learning rate lr (classic)", live=True, variants=("classic",),
                      tip="Position step x <- x + lr v of the seed's pseudocode (1 = standard PSO)")

    def check(self) -> None:
        check_total(self.walkers, self.swarms, "swarms")


@dataclass
class ParticleSwarmState(State):
    V: Any = None  # (n, d) velocities
    P: Any = None  # (n, d) each particle's best point
    Pf: Any = None  # (n,) its value
    swarm_best_x: Any = None  # (swarms, d)
    swarm_best_f: Any = None  # (swarms,)
    links: Any = None  # spso2011: (n, K) global index of each particle each particle informs
    redrawn: Any = None  # spso2011: (swarms,) whether the links were redrawn after the last iteration


def draw_links(rng, swarms: int, particles: int, k: int):
    """(n, k) targets: particle i of swarm s informs particles s * particles + U{0..particles-1}.

    Drawn with replacement, as in Clerc's SPSO-2011 (a target may repeat or be i itself).
    """
    xp = rng.xp
    local = rng.integers(0, particles, (swarms, particles, k))
    offset = (xp.arange(swarms) * particles)[:, None, None]
    return (local + offset).reshape(swarms * particles, k)


def informant_best(links, values):
    """Index of the best-valued informant of every particle: itself and all i with j in links[i].

    A segmented minimum without scatter operations (CuPy has no minimum.at): every edge
    (source i -> target j, self-edges included) gets the key j * n + rank of values[i]; after one
    sort the first edge of each target's segment carries its best source. Ranks come from a stable
    sort of the values (equal values: the lower index ranks first) and are unique, so the key sort
    needs no stability and NumPy and CuPy pick the same informant.
    """
    xp = array_module(values)
    n, k = links.shape
    ranks = xp.empty(n, dtype=xp.int64)
    ranks[xp.argsort(values, kind="stable")] = xp.arange(n, dtype=xp.int64)
    sources = xp.broadcast_to(xp.arange(n, dtype=xp.int64)[:, None], (n, k + 1)).reshape(-1)
    targets = xp.concatenate([links.astype(xp.int64), xp.arange(n, dtype=xp.int64)[:, None]],
                             axis=1).reshape(-1)
    order = xp.argsort(targets * n + ranks[sources])
    sorted_targets = targets[order]
    first = xp.concatenate([xp.ones(1, dtype=bool), sorted_targets[1:] != sorted_targets[:-1]])
    return sources[order][first]  # one segment per target, in target order (self-edges)


def _linked_swarm(sample: np.ndarray, particles: int) -> int:
    """The swarm whose links a snapshot draws: the one with the most sampled particles (the first
    such); -1 for an empty sample."""
    if sample.size == 0:
        return -1
    return int(np.bincount(sample // particles).argmax())


@register_algorithm
class ParticleSwarm(Algorithm):
    name = "particle_swarm"
    title = "Particle swarm (classic / SPSO-2011)"
    Params = ParticleSwarmParams
    reference = ("Seed 003 (PSO in CUDA, MMI713 2021); Clerc, Standard Particle Swarm Optimisation "
                 "(SPSO-2011), 2012")
    walker_word = "particles"
    group_params = ("omega", "phi_p", "phi_g", "lr")  # classic: one value per swarm in a grid
    split_field = "swarms"  # independent swarms: a split run is exact (solvers/shards.py)
    # the swarm (this object's index) whose links the snapshot's overlay draws: None, the one with
    # the most sampled particles; a shard of a split run is told the unsplit run's choice (-1 or
    # past its swarms: none of its own, so its overlay is empty) by split_before_snapshot
    link_swarm: int | None = None
    structural_params = {**Algorithm.structural_params,
                         "swarms": "a grid's runs are its swarms (one per setting and seed)",
                         "informants": "it sets the shape of every swarm's link table"}

    def params_for_groups(self, params, groups: int):
        return dataclasses.replace(params, swarms=params.swarms * groups)

    @classmethod
    def split_unit_walkers(cls, params) -> int:
        return int(params.walkers)  # a swarm's particles

    @staticmethod
    def split_before_snapshot(algo, sample: np.ndarray, walker0: int) -> None:
        """A shard's snapshot draws the links of the swarm the unsplit run would pick from the
        whole run's `sample` (its swarm with the most sampled particles), or none."""
        m = int(algo.params.walkers)
        chosen = _linked_swarm(np.asarray(sample), m)
        algo.link_swarm = -1 if chosen < 0 else chosen - int(walker0) // m

    def memory_words_per_walker(self) -> float:
        # X, V, the personal bests, two random matrices and a temporary: measured 7.1-8.0 d + 10
        return 7.5 * self.problem.dim + 12.0

    def memory_extra_bytes(self) -> int:
        # per-swarm best points and neighbour tables
        return int(4 * self.params.swarms * (self.problem.dim + 4) * self.dtype.itemsize)

    def total_walkers(self) -> int:
        return int(self.params.walkers * self.params.swarms)

    def auto_values(self, params, max_evals):
        swarms = params.swarms or (50 if self.budget is None else 1)
        return {"swarms": swarms, "walkers": self.auto_count(40, float(swarms), lo=2)}

    def init(self, rng) -> ParticleSwarmState:
        xp, p = self.xp, self.params
        n, d = self.total_walkers(), self.problem.dim
        X = self.uniform_points(rng, n)
        if p.variant == "classic":
            V = rng.uniform(-self.span, self.span, (n, d), self.dtype)
        else:
            V = rng.uniform(self.lower - X, self.upper - X, (n, d), self.dtype)
        state = ParticleSwarmState(X=X, f=None, best_x=X[0].copy(),
                                   best_f=xp.asarray(np.inf, dtype=self.dtype), V=V)
        state.f = self.evaluate(state, X)
        state.P, state.Pf = X.copy(), state.f.copy()
        state.swarm_best_x, state.swarm_best_f = group_best(state.P, state.Pf, p.swarms)
        if p.variant == "spso2011":
            state.links = draw_links(rng, p.swarms, p.walkers, p.informants)
            state.redrawn = xp.ones(p.swarms, dtype=bool)
        self.update_best(state, X, state.f)
        self._rng = rng
        return state

    def step(self, state: ParticleSwarmState, iterations: int) -> None:
        move = self._move_classic if self.params.variant == "classic" else self._move_spso2011
        for _ in range(iterations):
            if self.budget_spent(state):
                return
            move(state)
            self._confine(state)
            self._evaluate_and_remember(state)

    # --- one iteration ---------------------------------------------------------------------------
    def _move_classic(self, state: ParticleSwarmState) -> None:
        p, rng = self.params, self._rng
        shape = state.X.shape
        r_p = rng.random(shape, self.dtype)
        r_g = rng.random(shape, self.dtype)
        X3, V3 = grouped(state.X, p.swarms), grouped(state.V, p.swarms)
        g = state.swarm_best_x[:, None, :]
        # numbers, or in a tuning grid (n, 1) columns of per-swarm values, grouped to (swarms, m, 1)
        omega, phi_p, phi_g = (self._swarm_value(name) for name in ("omega", "phi_p", "phi_g"))
        V3 = (omega * V3 + phi_p * grouped(r_p, p.swarms) * (grouped(state.P, p.swarms) - X3)
              + phi_g * grouped(r_g, p.swarms) * (g - X3))
        state.V = V3.reshape(shape)
        state.X = state.X + self.row_value("lr") * state.V

    def _swarm_value(self, name: str):
        value = self.row_value(name)
        return value if isinstance(value, (int, float)) else grouped(value, self.params.swarms)

    def _move_spso2011(self, state: ParticleSwarmState) -> None:
        xp, rng = self.xp, self._rng
        X, P = state.X, state.P
        n, d = X.shape
        best = informant_best(state.links, state.Pf)
        # G - x is c (p + l - 2x) / 3, or c (p - x) / 2 when the best informant is the particle
        # itself; then l = p, so both cases are c k (p + l - 2x) with k = 1/3 or 1/4 per particle
        own = best == xp.arange(n)
        k = xp.where(own, 0.25, 1.0 / 3.0).astype(self.dtype)
        to_centre = (SPSO_C * k)[:, None] * (P + P[best] - 2.0 * X)
        radius = xp.sqrt((to_centre ** 2).sum(axis=1))
        direction = rng.normal((n, d), self.dtype)
        norm = xp.sqrt((direction ** 2).sum(axis=1))
        # Clerc's alea_sphere: uniform direction, radius U(0, 1) |G - x| (not U^(1/d): see docstring)
        scale = radius * rng.random(n, self.dtype) / xp.maximum(norm, xp.finfo(self.dtype).tiny)
        # x' - x = (G - x) + (x' - G)
        state.V = SPSO_W * state.V + to_centre + scale[:, None] * direction
        state.X = X + state.V

    def _confine(self, state: ParticleSwarmState) -> None:
        """SPSO-2011 confinement: clamp to the box, reverse and halve the offending velocity."""
        xp = self.xp
        outside = (state.X < self.lower) | (state.X > self.upper)
        state.V = xp.where(outside, -0.5 * state.V, state.V)
        state.X = self.clip(state.X)

    def _evaluate_and_remember(self, state: ParticleSwarmState) -> None:
        xp, p = self.xp, self.params
        state.f = self.evaluate(state, state.X)
        better = state.f < state.Pf
        state.P = xp.where(better[:, None], state.X, state.P)
        state.Pf = xp.where(better, state.f, state.Pf)
        previous = state.swarm_best_f
        state.swarm_best_x, state.swarm_best_f = group_best(state.P, state.Pf, p.swarms)
        if p.variant == "spso2011":
            # drawn for every swarm so that the random stream is the same whatever the values
            fresh = draw_links(self._rng, p.swarms, p.walkers, p.informants)
            state.redrawn = ~(state.swarm_best_f < previous)
            redraw = xp.repeat(state.redrawn, p.walkers)
            state.links = xp.where(redraw[:, None], fresh, state.links)
        state.iteration += 1
        self.update_best(state, state.X, state.f)

    # --- drawing ---------------------------------------------------------------------------------
    def snapshot(self, state: ParticleSwarmState, sample: np.ndarray) -> SnapshotData:
        p = self.params
        data = super().snapshot(state, sample)
        data.overlays["velocities"] = to_numpy(state.V[sample])
        diagonal = float(np.linalg.norm(self.problem.upper - self.problem.lower))
        spread = to_numpy(group_spread(state.X, p.swarms, diagonal))
        swarm_best = to_numpy(state.swarm_best_f)
        speed = to_numpy(self.xp.sqrt((state.V ** 2).sum(axis=1)).mean()) / diagonal
        data.extras["swarm spread (x box diagonal)"] = float(spread.mean())
        data.extras["mean speed (x box diagonal)"] = float(speed)
        data.extras["swarm best (median)"] = float(np.median(swarm_best))
        data.extras["swarm best (worst)"] = float(swarm_best.max())
        if p.variant == "spso2011":
            data.overlays["links"] = self._sample_links(state, np.asarray(sample))
            data.extras["swarms that redrew links"] = float(to_numpy(state.redrawn).mean())
        return data

    def _sample_links(self, state: ParticleSwarmState, sample: np.ndarray) -> np.ndarray:
        """(e, 2) pairs of sample positions (i informs j, i != j) among sampled particles of one swarm.

        The swarm is the one with the most sampled particles (the first such; in a shard of a split
        run, the unsplit run's choice: link_swarm), and at most LINKED_SAMPLE of its sampled
        particles, so the overlay stays readable.
        """
        m = self.params.walkers
        chosen = _linked_swarm(sample, m) if self.link_swarm is None else int(self.link_swarm)
        if sample.size == 0 or not 0 <= chosen < self.params.swarms:
            return np.zeros((0, 2), dtype=np.int64)
        swarm_of = sample // m
        positions = np.flatnonzero(swarm_of == chosen)[:LINKED_SAMPLE]
        position_of = np.full(m, -1, dtype=np.int64)  # local particle -> sample position
        position_of[sample[positions] - chosen * m] = positions
        targets = to_numpy(state.links[sample[positions]]) - chosen * m  # (k, K) local
        target_positions = position_of[targets]
        sources = np.broadcast_to(positions[:, None], targets.shape)
        keep = (target_positions >= 0) & (target_positions != sources)
        pairs = np.stack([sources[keep], target_positions[keep]], axis=1)
        return np.unique(pairs, axis=0) if pairs.size else pairs.reshape(0, 2).astype(np.int64)
