"""A validated, frozen run configuration: everything needed to start a run, checked up front."""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from .engines import get_engine, list_engines
from .errors import ConfigError
from .params import make_params
from .problems import get_problem
from .shards import parse_devices, resolve_devices
from .problems.base import Problem, check_bounds, param_defaults, refuse_impostor
from .problems.custom import is_expression
from .algorithms import get_algorithm

# Defaults and limits of a run, declared once: RunConfig, solvers.run(), the CLI and the window read them.
DTYPES = ("float32", "float64")
DEFAULT_DTYPE = "float64"
DEFAULT_ENGINE = "numpy"  # the reference engine (the registry's is_reference)
DEFAULT_SEED = 0
DEFAULT_SAMPLE_SIZE = 4096  # walkers copied to the host per snapshot
DEFAULT_SNAPSHOT_HZ = 30.0
DEFAULT_MAX_ITERS = 100  # used only when no budget at all is given
MAX_SEED = 2**63
SNAPSHOT_HZ_RANGE = (0.01, 1000.0)  # below: the window would look frozen; above: copies dominate
MAX_SAMPLE_SIZE = 10_000_000
MAX_THREADS = 4096
# Room above the bounds for steps, velocities and differences (x + F (b - c), v = w v + ...) so that
# a run inside the box never overflows the chosen precision.
BOUNDS_HEADROOM = 16.0


def check_dtype(dtype) -> str:
    """`dtype`'s name if it is one of DTYPES; ConfigError with one line otherwise. NumPy's own
    float32/float64 (np.float32, np.dtype('float64')) are their names: the API refused them with
    "dtype must be float32 or float64, got '<class 'numpy.float32'>'"."""
    if isinstance(dtype, np.dtype) or (isinstance(dtype, type) and issubclass(dtype, np.generic)):
        dtype = np.dtype(dtype).name
    if not isinstance(dtype, str) or dtype not in DTYPES:
        raise ConfigError(f"dtype must be {' or '.join(DTYPES)}, got '{dtype}'")
    return dtype


def check_bounds_fit(lo: float, hi: float, dtype: str) -> None:
    """ConfigError unless the box [lo, hi] and its width stay well inside the range of `dtype`."""
    limit = float(np.finfo(dtype).max) / BOUNDS_HEADROOM
    width = hi - lo  # float64: may itself overflow to inf
    if max(abs(lo), abs(hi)) > limit or not math.isfinite(width) or width > limit:
        raise ConfigError(f"bounds [{lo:g}, {hi:g}] overflow {dtype}: the bounds and their width must "
                          f"stay below {limit:.3g}")


def bind_problem(problem, dim) -> tuple[Problem | None, Problem, str]:
    """(the object given or None, the bound Problem, its name) for a function's name or a Problem
    object (RunConfig.build, SweepSpec.build); ConfigError in one line for an object whose name
    finds another function or whose dimension is not `dim`."""
    if not isinstance(problem, Problem):
        return None, get_problem(problem, dim), problem
    # a name that finds another function would show in the result, the records and param_defaults
    refuse_impostor(problem)
    if dim is not None and dim != problem.dim:
        raise ConfigError(f"dim={dim!r} differs from the problem object's dimension {problem.dim}; "
                          "give one of them")
    return problem, problem, problem.name


def _short(value) -> str:
    """repr(value), cut so a 400-digit number from a file does not flood the message."""
    text = repr(value)
    return text if len(text) <= 40 else text[:30] + f"... ({len(text)} characters)"


@dataclass(frozen=True)
class Budget:
    """When a run stops: the first limit reached, checked at iteration boundaries."""

    max_evals: int | None = None
    max_iters: int | None = None
    max_seconds: float | None = None

    @staticmethod
    def build(max_evals=None, max_iters=None, max_seconds=None) -> "Budget":
        def positive(name, value, kind):
            if value is None:
                return None
            try:
                if isinstance(value, bool):
                    raise ValueError
                number = float(value)
            except (TypeError, ValueError, OverflowError):
                raise ConfigError(f"{name} must be a number, got {_short(value)}") from None
            if math.isnan(number) or number == math.inf:  # '1e999' reads as inf: say that, not "> 0"
                why = "not a number" if math.isnan(number) else "too large (above 1.8e308, the largest float)"
                raise ConfigError(f"{name} must be a finite number > 0, got {_short(value)}: {why}")
            if number <= 0:
                raise ConfigError(f"{name} must be > 0, got {value!r}")
            if kind is int:
                if number != int(number):
                    raise ConfigError(f"{name} must be an integer, got {value!r}")
                return int(number)
            return number

        budget = Budget(positive("max_evals", max_evals, int), positive("max_iters", max_iters, int),
                        positive("max_seconds", max_seconds, float))
        if budget.max_evals is None and budget.max_iters is None and budget.max_seconds is None:
            budget = Budget(max_iters=DEFAULT_MAX_ITERS)
        return budget


@dataclass(frozen=True)
class RunConfig:
    """One run: algorithm and its parameters, problem and dimension, engine, precision, seed, budget."""

    algorithm: str
    problem: str
    dim: int
    params: Any
    engine: str = DEFAULT_ENGINE
    dtype: str = DEFAULT_DTYPE
    seed: int = DEFAULT_SEED
    budget: Budget = Budget(max_iters=DEFAULT_MAX_ITERS)
    fast_math: bool = False
    sample_size: int = DEFAULT_SAMPLE_SIZE
    snapshot_hz: float = DEFAULT_SNAPSHOT_HZ
    bounds: tuple[float, float] | None = None  # override of the function's box, same in every coordinate
    threads: int | None = None  # CPU threads on an engine that honours them (numba); None: its default
    f_min: float | None = None  # a typed function's known minimum (None: unknown), for errors/success
    # devices to split the run over (solvers/shards.py): None = one device (the default path),
    # "all", or a tuple of indices (a repeated index: two shards on one device)
    devices: tuple[int, ...] | str | None = None
    # the Problem object given to build (solvers.run, tune), which the run uses as it is; None:
    # found by the name `problem`. Found by name, an older callable ran the newest one of its name
    # and an expression lost its per-coordinate box, f_min and x_min.
    problem_object: Problem | None = field(default=None, repr=False)

    def make_problem(self):
        """The bound Problem this configuration runs on (with the bounds override, if any)."""
        problem = self.problem_object
        if problem is None:
            problem = get_problem(self.problem, self.dim)
        if self.bounds is not None:
            problem = problem.with_bounds(*self.bounds)
        if self.f_min is not None:  # after the box: with_bounds recomputes the built-in's minimum
            problem = dataclasses.replace(problem, f_min=self.f_min)
        return problem

    def dropped_minimum(self) -> str | None:
        """One line when the bounds override leaves the run without the problem's known minimum
        because nothing says where that minimum lies (f_min given without x_min), so that a run
        does not silently lose the errors measured against it; None otherwise."""
        if self.bounds is None or self.f_min is not None:
            return None
        own = self.problem_object if self.problem_object is not None else get_problem(self.problem, self.dim)
        if own.f_min is None or own.x_min is not None or self.make_problem().f_min is not None:
            return None  # nothing known, kept (its minimiser inside, or the same box), or dropped knowingly
        lo, hi = float(np.min(self.bounds[0])), float(np.max(self.bounds[1]))  # scalars or per coordinate
        return (f"the known minimum f_min = {own.f_min:g} is not used over the box [{lo:g}, {hi:g}]: "
                "without x_min nothing says the minimum lies inside it (give the problem its x_min, or "
                "build it over that box, to keep it)")

    @staticmethod
    def build(algorithm: str, problem: str | Problem, dim: int | None = None, *,
              params: Mapping | None = None,
              engine: str = DEFAULT_ENGINE, dtype: str = DEFAULT_DTYPE, seed: int | None = DEFAULT_SEED,
              max_evals=None, max_iters=None, max_seconds=None, fast_math: bool = False,
              sample_size: int = DEFAULT_SAMPLE_SIZE, snapshot_hz: float = DEFAULT_SNAPSHOT_HZ,
              bounds: tuple[float, float] | None = None, threads: int | None = None,
              f_min: float | None = None, devices=None) -> "RunConfig":
        """Validate everything; raise ConfigError with one clear line on the first bad value.
        `problem`: a function's name, or a Problem object, which the run then uses itself (its
        function, box, f_min and x_min; problem_object) and names by its name."""
        cls = get_algorithm(algorithm)
        source, bound, problem = bind_problem(problem, dim)
        check_bounds(bound.lower, bound.upper, problem)
        if bounds is not None:
            try:
                lo, hi = (float(v) for v in bounds)
            except (TypeError, ValueError):
                raise ConfigError(f"bounds must be two numbers LOWER,UPPER, got {bounds!r}") from None
            check_bounds(np.array([lo]), np.array([hi]), problem)
            bounds = (lo, hi)
        if not isinstance(engine, str):
            raise ConfigError(f"unknown engine '{engine}' (known: {', '.join(list_engines())})")
        get_engine(engine)  # ConfigError naming the known engines
        dtype = check_dtype(dtype)
        for lo, hi in ((float(np.min(bound.lower)), float(np.max(bound.upper))),) + (
                (bounds,) if bounds is not None else ()):
            check_bounds_fit(lo, hi, dtype)
        if params is not None and not isinstance(params, Mapping):
            raise ConfigError(f"params must be a mapping of name: value, got {type(params).__name__}")
        # the function's own defaults for this algorithm (Shekel: annealing's variant async), then
        # what was given; asked of the definition this run will use, not its name (is_builtin)
        values = {**param_defaults(bound, algorithm), **(params or {})}
        if not isinstance(fast_math, (bool, np.bool_)):
            raise ConfigError(f"fast_math must be True or False, got {fast_math!r}")
        if threads is not None and (isinstance(threads, bool) or not isinstance(threads, (int, np.integer))
                                    or not 1 <= threads <= MAX_THREADS):
            raise ConfigError(f"threads must be an integer from 1 to {MAX_THREADS}, got {_short(threads)}")
        if f_min is not None:
            if not is_expression(problem):
                raise ConfigError(f"a known minimum can only be given for a typed function "
                                  f"('expr: ...'); '{problem}' has its own")
            if isinstance(f_min, bool) or not isinstance(f_min, (int, float, np.integer, np.floating)) \
                    or not np.isfinite(f_min):
                raise ConfigError(f"the known minimum must be a finite number, got {_short(f_min)}")
            f_min = float(f_min)
        devices = parse_devices(devices)
        if devices is not None:
            run_engine = get_engine(engine)
            if run_engine.available:  # else the run says why the engine cannot run
                resolve_devices(run_engine, devices)
            reason = get_algorithm(algorithm).split_refusal(make_params(cls.Params, values))
            if reason:
                raise ConfigError(f"{algorithm} cannot be split over devices: {reason}")
        if seed is None:
            seed = int(np.random.SeedSequence().entropy % 2**32)
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < MAX_SEED:
            raise ConfigError(f"seed must be an integer in [0, 2^63), got {_short(seed)}")
        if (isinstance(sample_size, bool) or not isinstance(sample_size, (int, np.integer))
                or not 1 <= sample_size <= MAX_SAMPLE_SIZE):
            raise ConfigError(f"sample size must be an integer in [1, {MAX_SAMPLE_SIZE:,}], got {sample_size!r}")
        low, high = SNAPSHOT_HZ_RANGE
        if (isinstance(snapshot_hz, bool) or not isinstance(snapshot_hz, (int, float, np.floating))
                or not low <= snapshot_hz <= high):
            raise ConfigError(f"snapshot rate must be a number in [{low:g}, {high:g}] per second, "
                              f"got {snapshot_hz!r}")
        return RunConfig(algorithm=algorithm, problem=problem, dim=bound.dim,
                         params=make_params(cls.Params, values), engine=engine, dtype=dtype,
                         seed=int(seed), budget=Budget.build(max_evals, max_iters, max_seconds),
                         fast_math=bool(fast_math), sample_size=int(sample_size),
                         snapshot_hz=float(snapshot_hz), bounds=bounds,
                         threads=None if threads is None else int(threads), f_min=f_min,
                         devices=devices, problem_object=source)

    def replace(self, **changes) -> "RunConfig":
        """This configuration with `changes`. One built from a Problem object keeps running that
        object: another function's name drops it (the name is then looked up), another dimension
        is refused (the object has one; make the Problem anew)."""
        if self.problem_object is not None and "problem_object" not in changes:
            if changes.get("problem", self.problem) != self.problem:
                changes["problem_object"] = None
            elif changes.get("dim", self.dim) != self.dim:
                raise ConfigError(f"dim={changes['dim']!r}: {self.problem} is a Problem object of dimension "
                                  f"{self.dim}; make it again in that dimension")
        return dataclasses.replace(self, **changes)

    def params_dict(self) -> dict:
        return dataclasses.asdict(self.params)
