"""Stepping a batched grid in pieces small enough for Stop, without changing its numbers.

One iteration of a batched grid is one iteration of every run at once: a 200-run pattern-search
grid (rastrigin 10-D, 1e7 evaluations a run: 10,000 walkers a run, 2 M in all) spent 12 s on its
first iteration here, and Stop waited for it. Where one iteration is more than the runner's
SLICE_WORK coordinates and the algorithm can split it (``iteration_slices``: a pattern search
yields between coordinates), the grid goes slice by slice, as a run alone does in the Runner.
The slices run the same array code in the same order, so a grid's rows never depend on them.
"""
from __future__ import annotations

from .. import runner


class BatchStepper:
    """Whole iterations, or one slice of a large one, per call; budget checks between iterations."""

    def __init__(self, algo, state, budget):
        self.algo, self.state, self.budget = algo, state, budget
        self._slices = None  # the unfinished iteration's slice generator, if one is under way

    @property
    def mid_iteration(self) -> bool:
        return self._slices is not None

    def budget_spent(self) -> bool:
        """Every run's budget spent. Only asked between iterations: an iteration that was started
        is finished (its cut evaluations read +inf, as in an unsliced step)."""
        algo, state, budget = self.algo, self.state, self.budget
        if self.mid_iteration:
            return False
        if budget.max_evals is not None and state.evals >= budget.max_evals * algo.groups:
            return True
        return budget.max_iters is not None and state.iteration >= budget.max_iters

    def advance(self, iters: int) -> int:
        """Run `iters` whole iterations, or one slice of a large iteration; returns the iterations
        the chunk counts as (1 for a slice, so chunks never grow past one iteration)."""
        algo = self.algo
        if self._slices is None and algo.iteration_work() > runner.SLICE_WORK:
            self._slices = algo.iteration_slices(self.state, runner.SLICE_WORK)
        if self._slices is None:
            algo.step(self.state, iters)
            return iters
        try:
            next(self._slices)
        except StopIteration:
            self._slices = None
        return 1

    def cut(self) -> None:
        """Stopped part-way through an iteration: close it where it stands (points, values and
        each run's best agree at a slice's end) and record the evaluations of each run that has
        reached the target by now, as the end of an iteration would (the slices leave that to
        the iteration's end, so that slicing never moves a run's reached_at)."""
        if self._slices is None:
            return
        self._slices.close()
        self._slices = None
        self.algo.update_best(self.state, self.state.X, self.state.f)
