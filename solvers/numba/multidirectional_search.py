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

from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit, prange

from ..algorithms.multidirectional_search import MultidirectionalSearch, MultidirectionalSearchState
from . import functions, philox
from .base import PJIT, NumbaAlgorithm


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
def _fresh(S, F, x, lower, upper, seed, s, stream, draw, edge, single, fid, bad):
    """A fresh axis simplex at a Philox point (axis_simplices), evaluated, best to the head."""
    n = S.shape[1]
    for j in range(n):
        lo = lower[j]
        hi = upper[j]
        base = min(lo + (hi - lo) * S.dtype.type(philox.uniform_at(seed, s, stream, draw, j, single)), hi)
        h = edge * (hi - lo)
        step = h if base + h <= hi else -h
        for v in range(n + 1):
            S[v, j] = base + step if v == j + 1 else base
    _evaluate_all(S, F, x, fid, bad, s)
    _head(S, F)


@njit(nogil=True, cache=True)
def _evaluate_all(S, F, x, fid, bad, s):
    for v in range(S.shape[0]):
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
def _trials(S, c, out, x, fid, bad, s):
    lowest = np.inf
    for v in range(1, S.shape[0]):
        for j in range(S.shape[1]):
            x[j] = S[0, j] + c * (S[v, j] - S[0, j])
        out[v] = S.dtype.type(functions.counted(fid, x, bad, s))
        lowest = min(lowest, out[v])
    return lowest


@njit(nogil=True, cache=True)
def _move(S, F, FR, F2, x, lower, upper, mu, theta, fid, bad, s):
    """One move of Torczon's method for one active start; returns its evaluations."""
    n = S.shape[1]
    T = S.dtype.type
    evals = 0
    r_ok = _inside(S, T(-1), lower, upper)
    r_min = np.inf
    if r_ok:
        r_min = _trials(S, T(-1), FR, x, fid, bad, s)
        evals += n
    success = r_ok and r_min < F[0]
    c2 = -mu if success else theta
    second_ok = (not success) or _inside(S, c2, lower, upper)
    second_min = np.inf
    if second_ok:
        second_min = _trials(S, c2, F2, x, fid, bad, s)
        evals += n
    take_second = (success and second_ok and second_min < r_min) or not success
    c = c2 if take_second else T(-1)
    for v in range(1, n + 1):
        for j in range(n):
            S[v, j] = S[0, j] + c * (S[v, j] - S[0, j])
        F[v] = F2[v] if take_second else FR[v]
    _head(S, F)
    return evals


@njit(**PJIT)
def mds_init(simplices, values, active, keep_f, keep_x, lower, upper, span, fid, seed, edge, tol,
             single, evals, generate, bad):
    """New starts: a fresh simplex each (generate) or the simplices given, evaluated, best to the
    head, active unless collapsed."""
    m, n1, n = simplices.shape
    for s in prange(m):
        x = np.empty(n, dtype=np.float64)
        if generate:
            _fresh(simplices[s], values[s], x, lower, upper, seed, s, philox.STREAM_INIT, np.uint64(0),
                   edge, single, fid, bad)
        else:
            _evaluate_all(simplices[s], values[s], x, fid, bad, s)
            _head(simplices[s], values[s])
        active[s] = _size(simplices[s], span) >= tol
        keep_f[s] = values[s, 0]
        for j in range(n):
            keep_x[s, j] = simplices[s, 0, j]
        evals[s] = n1


@njit(**PJIT)
def mds_iterate(simplices, values, active, keep_f, keep_x, lower, upper, span, fid, seed, first_iter,
                iterations, edge, mu, theta, tol, restart, single, evals, last, bad):
    """`iterations` iterations of every start; evals[s] its evaluations, last[s] the iteration
    (+1) in which it last moved."""
    m, n1, n = simplices.shape
    per = 4 if single else 2
    per_point = (n + per - 1) // per
    for s in prange(m):
        S = simplices[s]
        F = values[s]
        x = np.empty(n, dtype=np.float64)
        FR = np.empty(n1, dtype=simplices.dtype)
        F2 = np.empty(n1, dtype=simplices.dtype)
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
                       np.uint64(t) * np.uint64(per_point), edge, single, fid, bad)
                count += n1
                act = True  # as the reference: a fresh simplex is active
            if F[0] < keep_f[s]:
                keep_f[s] = F[0]
                for j in range(n):
                    keep_x[s, j] = S[0, j]
        active[s] = act
        evals[s] = count


@dataclass
class MultidirectionalSearchNumbaState(MultidirectionalSearchState):
    keep_f: Any = None  # (starts,) best head each start ever had
    keep_x: Any = None  # (starts, n)


class MultidirectionalSearchNumba(NumbaAlgorithm, MultidirectionalSearch):
    """Compiled starts; snapshots inherited from the reference."""

    def memory_words_per_walker(self) -> float:
        d = self.problem.dim
        return (d + 1) * d + 2.0 * d + 3.0 * (d + 1) + 6.0  # simplex, values, kept best, scratch, NaN count

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
        mds_init(S, F, state.active, state.keep_f, state.keep_x, self.lower, self.upper, self.span,
                 self.fid, np.uint64(self._seed), T(p.edge), float(p.tol), self.single, evals, generate,
                 bad)
        state.evals += int(evals.sum())
        self.tally_nonfinite(state, bad)
        self._finish(state)
        return state

    def step(self, state: MultidirectionalSearchNumbaState, iterations: int) -> None:
        # a start's iteration makes at most 2 d evaluations (reflection, then expansion or
        # contraction): fused launches that never start an iteration past max_evals
        most = 2 * self.problem.dim * int(state.simplices.shape[0])
        for todo in self.budget_chunks(state, iterations, most):
            if state.done:
                return
            self._iterations(state, todo)

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
