"""Evaluation only: draw uniform points, evaluate them, keep the minimum (pure random search).

Not an optimiser worth running: the benchmark's ceiling. Each iteration every walker evaluates one
fresh uniform point of the box, so an iteration costs exactly ``walkers`` evaluations (the initial
round counts the same). The array-code class runs on the numpy and cupy engines; the cuda class
(kernels/evaluation_only.cu) draws the coordinates with the in-kernel Philox generator as the
objective reads them, so its rate is what an objective alone costs on the GPU. Recorded by the
benchmark as algorithm ``evaluation_only``; it is not in the algorithm registry (the GUI and the
optimiser tests have no use for it).
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..arrays import to_numpy
from ..params import param
from ..algorithms.base import Algorithm, SnapshotData, State
from .base import CudaAlgorithm, CudaState, allocation_guard


# The kernel's box modes (kernels/evaluation_only.cu: EO_BOX_*).
BOX_CLAMP, BOX_FITS = 1, 2


def box_mode(lo, hi) -> int:
    """BOX_FITS when no uniform draw of [lo, hi] can round past hi, so the kernel may drop its min.

    The kernel makes a coordinate as fma(w * unit, k, lo) with w = hi - lo in the dtype, unit =
    2^-24 (float32) or 2^-53 (float64) and k an integer below 1 / unit; rounding is monotone, so if
    the exact value at the largest k is at most hi (a number of the dtype), every rounded draw is.
    Checked in exact rationals; else BOX_CLAMP (the min stays)."""
    dtype = np.asarray(lo).dtype
    bits = 24 if dtype == np.float32 else 53
    with np.errstate(over="ignore"):
        width = dtype.type(hi) - dtype.type(lo)
    if not np.isfinite(width):
        return BOX_CLAMP
    width = Fraction(float(width))
    top = Fraction(float(lo)) + width * Fraction(2**bits - 1, 2**bits)
    return BOX_FITS if top <= Fraction(float(hi)) else BOX_CLAMP


@dataclass(frozen=True)
class EvaluationOnlyParams:
    walkers: int = param(131072, lo=1, hi=2**26, step=1024, title="Walkers",
                         tip="Points drawn and evaluated per iteration")


class EvaluationOnly(Algorithm):
    """Array code (numpy and cupy engines)."""

    name = "evaluation_only"
    title = "Evaluation only (random points)"
    Params = EvaluationOnlyParams
    reference = "Benchmark ceiling: uniform random points, evaluated, minimum kept"

    def init(self, rng) -> State:
        X = self.uniform_points(rng, self.params.walkers)
        state = State(X=X, f=None, best_x=X[0].copy(),
                      best_f=self.xp.asarray(np.inf, dtype=self.dtype))
        state.f = self.evaluate(state, X)
        self.update_best(state, X, state.f)
        self._rng = rng
        return state

    def step(self, state: State, iterations: int) -> None:
        for _ in range(iterations):
            state.X = self.uniform_points(self._rng, self.params.walkers)
            state.f = self.evaluate(state, state.X)
            self.update_best(state, state.X, state.f)
            state.iteration += 1


class EvaluationOnlyCuda(CudaAlgorithm):
    """Fused kernel: Philox draws, evaluation and the minimum in one launch per chunk."""

    name = "evaluation_only"
    title = EvaluationOnly.title
    Params = EvaluationOnlyParams
    reference = EvaluationOnly.reference
    kernel_file = "evaluation_only.cu"

    def bytes_needed(self, n: int) -> int:
        return n * (self.dtype.itemsize + 8) + self.blocks(n) * (self.dtype.itemsize + 8)

    def init(self, rng) -> CudaState:
        xp, n = self.xp, int(self.params.walkers)
        self.require_memory(self.bytes_needed(n))
        with allocation_guard(xp):
            self.tracker = self.new_best(parts=self.blocks(n))
            state = CudaState(X=None, f=xp.empty(n, dtype=self.dtype), best_x=None, best_f=None,
                              seed=self.seed_from(rng))
            self._best_round = xp.empty(n, dtype=np.int64)
        self.link_best(state, self.tracker)
        self._rounds(state, first_round=0, rounds=1)
        return state

    def stage_bytes(self) -> int:
        """Dynamic shared memory per block for staged points (0: points generated as read).

        A fold functor folds each coordinate as drawn and needs no stage."""
        from kernels.loader import fold_functors  # noqa: PLC0415 - kernels imports without CuPy

        if self.problem.definition.cuda_functor in fold_functors():
            return 0
        return self.column_stage_bytes()

    def _rounds(self, state: CudaState, first_round: int, rounds: int) -> None:
        n = int(self.params.walkers)
        stage = self.stage_bytes()
        lo, hi, uniform = self.box_scalars()
        mode = box_mode(lo, hi) if uniform else 0
        self.launch("eo_rounds", n, self.lower, self.upper, np.int64(n), np.int32(self.problem.dim),
                    np.uint64(state.seed), np.int64(first_round), np.int32(rounds), state.f,
                    self._best_round, *self.tracker.args(), np.int32(1 if stage else 0),
                    lo, hi, np.int32(mode), shared_mem=stage)
        state.evals += n * rounds

    def step(self, state: CudaState, iterations: int) -> None:
        self._rounds(state, first_round=state.iteration + 1, rounds=int(iterations))
        state.iteration += int(iterations)

    def points(self, state: CudaState, sample: np.ndarray):
        """The sampled walkers' current points (regenerated from their counters), on the device."""
        idx = self.xp.asarray(np.asarray(sample, dtype=np.int64))
        out = self.xp.empty((idx.shape[0], self.problem.dim), dtype=self.dtype)
        self.launch("eo_points", idx.shape[0], idx, np.int32(idx.shape[0]), self.lower, self.upper,
                    np.int32(self.problem.dim), np.uint64(state.seed), np.int64(state.iteration), out)
        return out

    def snapshot(self, state: CudaState, sample: np.ndarray) -> SnapshotData:
        idx = np.asarray(sample, dtype=np.int64)
        return SnapshotData(positions=to_numpy(self.points(state, idx)),
                            fitness=to_numpy(state.f[self.xp.asarray(idx)]))
