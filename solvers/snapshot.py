"""The immutable snapshot a run publishes for drawing and charts (host arrays only)."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class Snapshot:
    """State of a run at one moment, copied to the host.

    ``positions``/``fitness`` are a bounded sample of walkers (``sample_index`` says which, fixed for
    the whole run so trails can be drawn). ``extras`` holds scalars for per-algorithm panels;
    ``overlays`` holds arrays for algorithm-specific drawing, with these keys where they apply:
    ``steps`` (k,) pattern-search step size of each sampled walker; ``simplices`` (m, d+1, d) a few
    multi-directional simplices; ``temperature`` (k,) and ``accepted`` (k,) annealing chains;
    ``velocities`` (k, d) and ``links`` (e, 2) (sample positions i -> j) for particle swarm;
    ``trials`` (k, d) differential-evolution trial vectors.
    """

    algorithm: str
    problem: str
    engine: str
    dim: int
    iteration: int
    evals: int
    seconds: float
    evals_per_second: float
    best_x: np.ndarray
    best_f: float
    positions: np.ndarray
    fitness: np.ndarray
    sample_index: np.ndarray
    walkers: int
    extras: dict = field(default_factory=dict)
    overlays: dict = field(default_factory=dict)
    finished: bool = False
    stop_reason: str = ""
    params: dict = field(default_factory=dict)  # effective parameters ("auto" resolved)
    warnings: tuple[str, ...] = ()  # shown in the window's status (e.g. too few iterations)
    nonfinite_evals: int | None = None  # evaluations that gave NaN/inf; None: not counted here
