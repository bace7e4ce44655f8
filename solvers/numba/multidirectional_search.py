"""Multi-directional search (Torczon; seed 001) on the numba engine (kernels/multidirectional_search.cu
on CPU cores), many starts at once.

Same Params, moves, extreme-barrier bounds, collapse test and restarts as
solvers/algorithms/multidirectional_search.py: reflection r_i = v0 - (v_i - v0) (rejected unevaluated
if a vertex leaves the box); if min f(r) < f(v0) the expansion v0 - mu (v_i - v0) is tried and taken
when better, else the contraction v0 + theta (v_i - v0); the best vertex is swapped to the head.
Fresh simplices draw their base point as the cuda kernel does (Philox stream INIT for the first one,
RESTART at draw t * ceil(n / P) for a restart at iteration t). ``prange`` runs over starts, each a
whole chunk of iterations; each start keeps the best head it ever had, so a restart never loses it.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit, prange

from ..algorithms.multidirectional_search import MultidirectionalSearch, MultidirectionalSearchState
from ..algorithms.simplex import SIZES_BLOCK
from . import functions, philox
from .base import PJIT, WORKERS, NumbaAlgorithm, claim_counter, claim_walkers, thread_blocks


@njit(nogil=True, cache=True)
def _head(S, F):
    """Swap the first best vertex to position 0 (no sort; ties keep the current head)."""
    k = 0
    for v in range(1, F.shape[0]):
        if F[v] < F[k]:
            k = v
    if k != 0:
        for j in range(S.shape[1]):
            S[0, j], S[k, j] = S[k, j], S[0, j]
        F[0], F[k] = F[k], F[0]


@njit(nogil=True, cache=True)
def _size(S, span):
    """Largest |v - v0| over vertices and coordinates, as a fraction of the box's side."""
    size = 0.0
    for v in range(1, S.shape[0]):
        for j in range(S.shape[1]):
            size = max(size, abs(S[v, j] - S[0, j]) / span[j])
    return size


@njit(nogil=True, cache=True)
def _fresh(S, F, x, lower, upper, seed, s, stream, draw, edge, single, fid, bad, granted):
    """A fresh axis simplex at a Philox point (axis_simplices), its first `granted` vertices
    evaluated (the others +inf: max_evals), best to the head."""
    n = S.shape[1]
    for j in range(n):
        lo = lower[j]
        hi = upper[j]
        base = min(lo + (hi - lo) * S.dtype.type(philox.uniform_at(seed, s, stream, draw, j, single)), hi)
        h = edge * (hi - lo)
        step = h if base + h <= hi else -h
        for v in range(n + 1):
            S[v, j] = base + step if v == j + 1 else base
    _evaluate_all(S, F, x, fid, bad, s, granted)
    _head(S, F)


@njit(nogil=True, cache=True)
def _evaluate_all(S, F, x, fid, bad, s, granted):
    """F[v] = f(vertex v) for v < granted, +inf for the others (max_evals)."""
    for v in range(S.shape[0]):
        if v >= granted:
            F[v] = np.inf
            continue
        for j in range(S.shape[1]):
            x[j] = S[v, j]
        F[v] = S.dtype.type(functions.counted(fid, x, bad, s))


@njit(nogil=True, cache=True)
def _inside(S, c, lower, upper):
    for v in range(1, S.shape[0]):
        for j in range(S.shape[1]):
            t = S[0, j] + c * (S[v, j] - S[0, j])
            if not (t >= lower[j] and t <= upper[j]):
                return False
    return True


@njit(nogil=True, cache=True)
def _trials(S, c, out, x, fid, bad, s, granted):
    """out[v] = f(v0 + c (v_v - v0)) for the trial vertices v = 1..granted, +inf for the others
    (max_evals); their minimum."""
    lowest = np.inf
    for v in range(1, S.shape[0]):
        if v > granted:
            out[v] = np.inf
            continue
        for j in range(S.shape[1]):
            x[j] = S[0, j] + c * (S[v, j] - S[0, j])
        out[v] = S.dtype.type(functions.counted(fid, x, bad, s))
        lowest = min(lowest, out[v])
    return lowest


@njit(nogil=True, cache=True)
def _second_trial(S, F, lower, upper, mu, theta, r_ok, r_min):
    """(success, coefficient of the second trial simplex, whether it is evaluated) after the
    reflection: the expansion where it succeeded (if inside the box), else the contraction."""
    success = r_ok and r_min < F[0]
    c2 = -mu if success else theta
    second_ok = (not success) or _inside(S, c2, lower, upper)
    return success, c2, second_ok


@njit(nogil=True, cache=True)
def _move(S, F, FR, F2, x, lower, upper, mu, theta, fid, bad, s):
    """One move of Torczon's method for one active start; returns its evaluations."""
    n = S.shape[1]
    T = S.dtype.type
    evals = 0
    r_ok = _inside(S, T(-1), lower, upper)
    r_min = np.inf
    if r_ok:
        r_min = _trials(S, T(-1), FR, x, fid, bad, s, n)
        evals += n
    success, c2, second_ok = _second_trial(S, F, lower, upper, mu, theta, r_ok, r_min)
    second_min = np.inf
    if second_ok:
        second_min = _trials(S, c2, F2, x, fid, bad, s, n)
        evals += n
    _take(S, F, FR, F2, success, c2, second_ok, r_min, second_min)
    return evals


@njit(nogil=True, cache=True)
def _take(S, F, FR, F2, success, c2, second_ok, r_min, second_min):
    """The move's new simplex: the second trial where it won (or the contraction), else the
    reflection; the best vertex to the head."""
    n = S.shape[1]
    T = S.dtype.type
    take_second = (success and second_ok and second_min < r_min) or not success
    c = c2 if take_second else T(-1)
    for v in range(1, n + 1):
        for j in range(n):
            S[v, j] = S[0, j] + c * (S[v, j] - S[0, j])
        F[v] = F2[v] if take_second else FR[v]
    _head(S, F)


@njit(**PJIT)
def mds_init(simplices, values, active, keep_f, keep_x, lower, upper, span, fid, seed, edge, tol,
             single, evals, generate, allow, bad):
    """New starts: a fresh simplex each (generate) or the simplices given, evaluated, best to the
    head, active unless collapsed. max_evals: only the first `allow` vertices (start by start, as
    the reference evaluates them) are evaluated, the others read +inf."""
    m, n1, n = simplices.shape
    blocks = thread_blocks(m)
    counter = claim_counter()
    for worker in prange(min(WORKERS, blocks)):  # each claims blocks of walkers until none are left
        x = np.empty(n, dtype=np.float64)
        i0, i1 = claim_walkers(counter, blocks, m)
        while i0 < i1:
            for s in range(i0, i1):
                granted = min(n1, max(0, allow - s * n1))
                if generate:
                    _fresh(simplices[s], values[s], x, lower, upper, seed, s, philox.STREAM_INIT,
                           np.uint64(0), edge, single, fid, bad, granted)
                else:
                    _evaluate_all(simplices[s], values[s], x, fid, bad, s, granted)
                    _head(simplices[s], values[s])
                active[s] = _size(simplices[s], span) >= tol
                keep_f[s] = values[s, 0]
                for j in range(n):
                    keep_x[s, j] = simplices[s, 0, j]
                evals[s] = granted
            i0, i1 = claim_walkers(counter, blocks, m)


@njit(**PJIT)
def mds_iterate(simplices, values, active, keep_f, keep_x, lower, upper, span, fid, seed, first_iter,
                iterations, edge, mu, theta, tol, restart, single, evals, last, bad):
    """`iterations` iterations of every start; evals[s] its evaluations, last[s] the iteration
    (+1) in which it last moved."""
    m, n1, n = simplices.shape
    per_point = philox.blocks_per_point_jit(n, single)  # Philox blocks of one point (uint64)
    blocks = thread_blocks(m)
    counter = claim_counter()
    for worker in prange(min(WORKERS, blocks)):  # each claims blocks of walkers until none are left
        x = np.empty(n, dtype=np.float64)
        FR = np.empty(n1, dtype=simplices.dtype)
        F2 = np.empty(n1, dtype=simplices.dtype)
        i0, i1 = claim_walkers(counter, blocks, m)
        while i0 < i1:
            for s in range(i0, i1):
                S = simplices[s]
                F = values[s]
                act = active[s]
                count = 0
                for it in range(iterations):
                    t = first_iter + it
                    if act:
                        count += _move(S, F, FR, F2, x, lower, upper, mu, theta, fid, bad, s)
                        act = _size(S, span) >= tol
                        last[s] = t + 1
                    elif restart:
                        _fresh(S, F, x, lower, upper, seed, s, philox.STREAM_RESTART,
                               np.uint64(t) * per_point, edge, single, fid, bad, n1)
                        count += n1
                        act = True  # as the reference: a fresh simplex is active
                    if F[0] < keep_f[s]:
                        keep_f[s] = F[0]
                        for j in range(n):
                            keep_x[s, j] = S[0, j]
                active[s] = act
                evals[s] = count
            i0, i1 = claim_walkers(counter, blocks, m)


# --- the iteration max_evals cuts -------------------------------------------------------------------
# Its trials are evaluated in the reference's order (solvers/algorithms/multidirectional_search.py:
# every start's reflection, then every start's second trial, then the restarts' fresh simplices,
# each in start order) up to the budget left; the rest read +inf, uncounted. Three parallel
# phases; the host turns each phase's wanted evaluations into grants by a prefix sum between them.
# (The cuda kernel grants in the order its starts claim, mw_claim: the same count.)

@njit(**PJIT)
def mds_cut_wants(simplices, active, lower, upper, want):
    """want[s] = n where start s is active and its reflection lies in the box, else 0."""
    m, n1, n = simplices.shape
    for s in prange(m):
        T = simplices.dtype.type
        want[s] = n if active[s] and _inside(simplices[s], T(-1), lower, upper) else 0


@njit(**PJIT)
def mds_cut_reflect(simplices, values, active, FR, lower, upper, mu, theta, fid, want, grant,
                    r_min, want2, bad):
    """Phase 2: the reflections' first grant[s] vertices evaluated; want2[s] = n where the
    second trial is evaluated."""
    m, n1, n = simplices.shape
    for s in prange(m):
        if not active[s]:
            want2[s] = 0
            continue
        T = simplices.dtype.type
        x = np.empty(n, dtype=np.float64)
        S = simplices[s]
        r_ok = want[s] > 0
        lowest = np.inf
        if r_ok:
            lowest = _trials(S, T(-1), FR[s], x, fid, bad, s, grant[s])
        r_min[s] = lowest
        success, c2, second_ok = _second_trial(S, values[s], lower, upper, mu, theta, r_ok, lowest)
        want2[s] = n if second_ok else 0


@njit(**PJIT)
def mds_cut_finish(simplices, values, active, keep_f, keep_x, FR, F2, lower, upper, span, fid, seed,
                   t, edge, mu, theta, tol, restart, single, want, r_min, want2, grant2, grant3,
                   last, bad):
    """Phase 3: the second trials' first grant2[s] vertices evaluated and the moves taken; the
    restarts' fresh simplices with their first grant3[s] vertices evaluated; the kept bests."""
    m, n1, n = simplices.shape
    per_point = philox.blocks_per_point_jit(n, single)  # Philox blocks of one point (uint64)
    for s in prange(m):
        S = simplices[s]
        F = values[s]
        x = np.empty(n, dtype=np.float64)
        if active[s]:
            r_ok = want[s] > 0
            success, c2, second_ok = _second_trial(S, F, lower, upper, mu, theta, r_ok, r_min[s])
            second_min = np.inf
            if want2[s] > 0:
                second_min = _trials(S, c2, F2[s], x, fid, bad, s, grant2[s])
            _take(S, F, FR[s], F2[s], success, c2, second_ok, r_min[s], second_min)
            active[s] = _size(S, span) >= tol
            last[s] = t + 1
        elif restart:
            _fresh(S, F, x, lower, upper, seed, s, philox.STREAM_RESTART,
                   np.uint64(t) * per_point, edge, single, fid, bad, grant3[s])
            active[s] = True
        if F[0] < keep_f[s]:
            keep_f[s] = F[0]
            for j in range(n):
                keep_x[s, j] = S[0, j]


def grants(want: np.ndarray, left: int) -> np.ndarray:
    """Each start's share of `left` evaluations when the starts claim `want` in start order."""
    before = np.cumsum(want) - want
    return np.clip(left - before, 0, want).astype(np.int64)


@dataclass
class MultidirectionalSearchNumbaState(MultidirectionalSearchState):
    keep_f: Any = None  # (starts,) best head each start ever had
    keep_x: Any = None  # (starts, n)


class MultidirectionalSearchNumba(NumbaAlgorithm, MultidirectionalSearch):
    """Compiled starts; snapshots inherited from the reference."""

    def memory_words_per_walker(self) -> float:
        d = self.problem.dim
        return (d + 1) * d + 2.0 * d + 3.0 * (d + 1) + 6.0  # simplex, values, kept best, scratch, NaN count

    def memory_extra_bytes(self) -> int:
        # the snapshot's simplex sizes (the reference's): two temporaries of one block of simplices
        d = self.problem.dim
        return 2 * max(SIZES_BLOCK, d * d) * self.dtype.itemsize

    def init(self, rng) -> MultidirectionalSearchNumbaState:
        m, n = int(self.params.walkers), self.problem.dim
        self._seed = self.seed_from(rng)
        return self._new_state(np.empty((m, n + 1, n), dtype=self.dtype), generate=True)

    def state_from_simplices(self, simplices) -> MultidirectionalSearchNumbaState:
        """A state holding the given simplices (starts, n+1, n), evaluated and counted."""
        self._seed = getattr(self, "_seed", 0)
        S = np.array(simplices, dtype=self.dtype, order="C")
        return self._new_state(S, generate=False)

    def _new_state(self, S, generate: bool) -> MultidirectionalSearchNumbaState:
        p, m, n = self.params, S.shape[0], self.problem.dim
        T = self.dtype.type
        F = np.empty((m, n + 1), dtype=self.dtype)
        state = MultidirectionalSearchNumbaState(
            X=S[:, 0], f=F[:, 0], best_x=np.zeros(n, dtype=self.dtype),
            best_f=np.asarray(np.inf, dtype=self.dtype), simplices=S, values=F,
            active=np.zeros(m, dtype=np.bool_), keep_f=np.empty(m, dtype=self.dtype),
            keep_x=np.empty((m, n), dtype=self.dtype))
        evals = np.zeros(m, dtype=np.int64)
        bad = self.nonfinite_counter(m)
        self.use_threads()
        left = self.evals_left(state)  # max_evals below the vertices: the first ones only
        allow = m * (n + 1) if left is None else min(m * (n + 1), left)
        mds_init(S, F, state.active, state.keep_f, state.keep_x, self.lower, self.upper, self.span,
                 self.fid, np.uint64(self._seed), T(p.edge), float(p.tol), self.single, evals, generate,
                 np.int64(allow), bad)
        state.evals += int(evals.sum())
        self.tally_nonfinite(state, bad)
        self._finish(state)
        return state

    def step(self, state: MultidirectionalSearchNumbaState, iterations: int) -> None:
        remaining = int(iterations)
        while remaining > 0 and not state.done and self.evals_left(state) != 0:
            todo, left = self._allowance(state, remaining)
            if left is None:
                self._iterations(state, todo)
            else:
                self._cut_iteration(state, left)
            remaining -= todo

    def _allowance(self, state, iterations: int) -> tuple[int, int | None]:
        """(iterations to launch, evaluations the one iteration may make; None: no cap), the
        cuda engine's split: chunks that cannot pass max_evals run uncapped (a start's iteration
        makes at most 2 d evaluations: reflection, then expansion or contraction); the iteration
        that may pass it runs alone on what is left."""
        left = self.evals_left(state)
        most = 2 * self.problem.dim * int(state.simplices.shape[0])
        if left is None or left >= most * iterations:
            return iterations, None
        if left >= most:
            return left // most, None
        return 1, left

    def warm_kernels(self, state: MultidirectionalSearchNumbaState) -> None:
        """A run under max_evals ends with the cut iteration's own kernels (mds_cut_*), first
        called at its last iteration: one cut iteration of a copy of start 0 compiles them
        (same argument types as the run's, one evaluation granted)."""
        if self.max_evals is None and self.stops_at_budget:
            return  # no evaluation budget: never cut
        S, F = state.simplices[:1].copy(), state.values[:1].copy()
        scratch = dataclasses.replace(state, X=S[:, 0], f=F[:, 0], simplices=S, values=F,
                                      active=state.active[:1].copy(), keep_f=state.keep_f[:1].copy(),
                                      keep_x=state.keep_x[:1].copy())
        self._cut_iteration(scratch, 1)

    def _cut_iteration(self, state: MultidirectionalSearchNumbaState, left: int) -> None:
        """One iteration whose trials are evaluated in the reference's order up to `left`
        (see the phase kernels above)."""
        p, T = self.params, self.dtype.type
        S, F = state.simplices, state.values
        m = S.shape[0]
        want = np.zeros(m, dtype=np.int64)
        want2 = np.zeros(m, dtype=np.int64)
        r_min = np.empty(m, dtype=np.float64)
        FR, F2 = np.empty_like(F), np.empty_like(F)
        last = np.zeros(m, dtype=np.int64)
        bad = self.nonfinite_counter(m)
        self.use_threads()
        mds_cut_wants(S, state.active, self.lower, self.upper, want)
        grant = grants(want, left)
        left -= int(grant.sum())
        mds_cut_reflect(S, F, state.active, FR, self.lower, self.upper, T(p.expansion),
                        T(p.contraction), self.fid, want, grant, r_min, want2, bad)
        grant2 = grants(want2, left)
        left -= int(grant2.sum())
        want3 = np.where(state.active | (not p.restart), 0, self.problem.dim + 1).astype(np.int64)
        grant3 = grants(want3, left)
        mds_cut_finish(S, F, state.active, state.keep_f, state.keep_x, FR, F2, self.lower, self.upper,
                       self.span, self.fid, np.uint64(self._seed), np.int64(state.iteration),
                       T(p.edge), T(p.expansion), T(p.contraction), float(p.tol), bool(p.restart),
                       self.single, want, r_min, want2, grant2, grant3, last, bad)
        state.evals += int(grant.sum() + grant2.sum() + grant3.sum())
        self.tally_nonfinite(state, bad)
        self._finish(state)
        if state.done:
            state.iteration = max(state.iteration, int(last.max()))
        else:
            state.iteration += 1

    def _iterations(self, state: MultidirectionalSearchNumbaState, iterations: int) -> None:
        p, T = self.params, self.dtype.type
        m = state.simplices.shape[0]
        evals = np.zeros(m, dtype=np.int64)
        last = np.zeros(m, dtype=np.int64)
        bad = self.nonfinite_counter(m)
        self.use_threads()
        mds_iterate(state.simplices, state.values, state.active, state.keep_f, state.keep_x,
                    self.lower, self.upper, self.span, self.fid, np.uint64(self._seed),
                    np.int64(state.iteration), int(iterations), T(p.edge), T(p.expansion),
                    T(p.contraction), float(p.tol), bool(p.restart), self.single, evals, last, bad)
        state.evals += int(evals.sum())
        self.tally_nonfinite(state, bad)
        self._finish(state)
        if state.done:  # the reference stops counting iterations once every start has collapsed
            state.iteration = max(state.iteration, int(last.max()))
        else:
            state.iteration += int(iterations)

    def _finish(self, state) -> None:
        self.fold_best(state, state.keep_x, state.keep_f)
        state.done = not self.params.restart and not bool(state.active.any())
