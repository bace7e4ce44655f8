"""Parameter tuning: a grid of settings x seeds, every (setting, seed) an independent run.

``solvers.tune("particle_swarm", "rastrigin", ["omega=0.2:1.0:16", "phi_g=0.5:2.5:16"], seeds=8,
dim=10, max_evals=2e5)`` returns a TuneTable (rows: parameters, seed, final best, evaluations,
seconds; ``cells()``: median, quartiles, best, worst, success rate, evaluations to the tolerance).

Where the engine's class of the algorithm takes per-group values of every varied parameter (the
numpy and cupy array code of PSO classic, DE, pattern search and simulated annealing async/sync
under the fixed schedule, each group of chains with its own schedule; the cuda engine's fused
kernels of the same four, which read each group's values (annealing: its temperature) and Philox
key from device arrays once per thread),
the whole grid is ONE batched run: group g of the walkers is (setting, seed) g, with its own
parameter values, its own random stream seeded as a run of its own, and its own evaluation budget,
so each group gives exactly the result of that setting and seed run alone. Elsewhere (the numba
kernels, the annealing hybrid, multi-directional search, SPSO-2011) the grid runs one run per (setting, seed), and the table says why.
"""
from __future__ import annotations

from typing import Callable, Mapping, Sequence

from ..algorithms import get_algorithm
from ..config import RunConfig
from ..engines import get_engine
from ..errors import ConfigError
from ..params import make_params, refuse_unused, specs
from ..problems import Problem, param_defaults
from .execute import BatchedPlan, Clock, OneByOnePlan, Progress
from .remote import tune_job
from .setup import DEFAULT_TOLERANCE, TuneSetup, load_setup, save_setup, setting_config, tune_arguments
from .spec import MAX_GROUPS, Axis, Grid, build_grid, tunable
from .table import Cell, CellStats, TuneRow, TuneTable, cell_stats, reduce_cells, run_arrays

__all__ = ["tune", "prepare", "Tuning", "TuneTable", "TuneRow", "Cell", "Grid", "Axis", "Progress",
           "build_grid", "tunable", "reduce_cells", "cell_stats", "run_arrays", "CellStats", "MAX_GROUPS",
           "DEFAULT_TOLERANCE", "TuneSetup", "load_setup", "save_setup", "setting_config",
           "tune_arguments", "tune_job"]

FULL_CHECK_SETTINGS = 4096  # larger grids check the cross-field rules at the corners only


class Tuning:
    """A checked grid, ready to run: everything that can be refused was refused in ``prepare``."""

    def __init__(self, table: TuneTable, plan):
        self.table, self.plan = table, plan
        self._compiled = False

    @property
    def compiles(self) -> bool:
        """Its engine compiles kernels when a run first iterates (``compile`` does it, untimed)."""
        return get_engine(self.table.engine).compiles_when_run and not self._compiled

    def compile(self, stop: Callable[[], bool] | None = None) -> None:
        """Compile the kernels the grid's runs will use, before any clock starts (README:
        compilation never counts in a timing); ``run`` does it first where it was not done. A
        compile cannot be interrupted: `stop()` is asked between compiles, and the grid then ends
        as it starts (``run`` with the same `stop`)."""
        if not self._compiled:
            self._compiled = self.plan.compile(stop or (lambda: False))

    def run(self, stop: Callable[[], bool] | None = None,
            on_progress: Callable[[Progress], None] | None = None, share_gil: bool = False,
            hold: Callable[[], None] | None = None) -> TuneTable:
        """Run the grid (blocking); `stop()` True ends it early (the rows so far are kept).
        `share_gil`: run beside a window (yield the GIL after every short chunk, as the Runner).
        `hold()`: called between chunks or runs; a paused window blocks in it (time not counted)."""
        stop = stop or (lambda: False)
        self.compile(stop)
        clock = Clock(hold)  # the plan holds through it, so the time held is left out here too
        rows, stopped = self.plan.run(stop, on_progress, share_gil, clock)
        self.table.rows = rows
        self.table.seconds = clock.seconds()
        self.table.stop_reason = "stopped" if stopped else "finished"
        return self.table


def _base_params(cls, grid: Grid, params: Mapping, defaults: Mapping | None = None) -> tuple[dict, list[str]]:
    """The shared parameters, with the variant chosen so that every axis has an effect.
    `defaults`: the function's own defaults for the algorithm (problems.param_defaults), taken
    where `params` does not give the field and no axis is over it."""
    names = {a.name for a in grid.axes}
    taken = {k: v for k, v in (defaults or {}).items() if k not in names and k not in params}
    base = {**taken, **params}
    notes = []
    by_name = {s.name: s for s in specs(cls.Params)}
    for axis in grid.axes:
        if axis.name in base:
            raise ConfigError(f"'{axis.name}' is both a grid axis and a fixed parameter; give one of them")
        spec = by_name[axis.name]
        fitted = getattr(cls, "fitted_params", {}).get(axis.name)
        if fitted is not None:
            field, fitted_value, given_value = fitted
            if base.get(field, by_name[field].default) == fitted_value:
                if field in params:
                    raise ConfigError(f"'{axis.name}' is fitted under {field}={fitted_value}, so a grid "
                                      f"over it changes nothing; use {field}={given_value}")
                base[field] = given_value
                notes.append(f"{field} {given_value}: under {fitted_value} '{axis.name}' is fitted, not used")
        if spec.variants is None:
            continue
        variant = base.get("variant", by_name["variant"].default if "variant" in by_name else None)
        if spec.applies_to(variant):
            continue
        if "variant" in params:
            raise ConfigError(f"'{axis.name}' has no effect under variant {variant}; it applies to "
                              f"{', '.join(spec.variants)}")
        base["variant"] = spec.variants[0]
        notes.append(f"variant set to {spec.variants[0]}, the one '{axis.name}' applies to")
    # a default the grid's variant leaves unused (Shekel's hybrid_base under sync) goes unsaid
    variant = base.get("variant", by_name["variant"].default if "variant" in by_name else None)
    kept = [f"{k} {v}: the function's default" for k, v in taken.items()
            if base.get(k) == v and by_name[k].applies_to(variant)]
    return base, kept + notes


def _check_settings(cls, base: dict, grid: Grid) -> None:
    settings = grid.settings
    if len(settings) > FULL_CHECK_SETTINGS:  # the rules are bounds between fields: corners decide
        settings = [dict(zip([a.name for a in grid.axes], corner)) for corner in
                    __import__("itertools").product(*((a.values[0], a.values[-1]) for a in grid.axes))]
    for setting in settings:
        try:
            make_params(cls.Params, {**base, **setting})
        except ConfigError as exc:
            shown = ", ".join(f"{k}={v:g}" for k, v in setting.items())
            raise ConfigError(f"grid setting {shown}: {exc}") from None


def prepare(algorithm: str, problem: str | Problem, grid: Sequence[str] | str, *, seeds: int = 4,
            first_seed: int = 0, dim: int | None = None, engine: str = "numpy",
            max_evals=None, max_iters=None, params: Mapping | None = None, dtype: str = "float64",
            tolerance: float = DEFAULT_TOLERANCE, fast_math: bool = False,
            bounds: tuple[float, float] | None = None, threads: int | None = None,
            f_min: float | None = None) -> Tuning:
    """Check everything (axes, seeds, budget, engine, memory) and build the plan; nothing runs.
    `problem`: a function's name or a Problem object, whose every run runs the object itself
    (RunConfig.build). `f_min`: the known minimum of a typed function (a built-in knows its own)."""
    cls = get_algorithm(algorithm)
    checked = build_grid(grid, cls, seeds, first_seed)
    if max_evals is None and max_iters is None:
        raise ConfigError("a grid needs a budget per run: give max_evals (--max-evals) or max_iters")
    try:
        tolerance = float(tolerance)
    except (TypeError, ValueError):
        raise ConfigError(f"tolerance must be a number, got {tolerance!r}") from None
    if not tolerance >= 0 or tolerance == float("inf"):
        raise ConfigError(f"tolerance must be a finite number >= 0, got {tolerance!r}")
    if params is not None and not isinstance(params, Mapping):
        raise ConfigError(f"params must be a mapping of name: value, got {type(params).__name__}")
    base, notes = _base_params(cls, checked, params or {}, param_defaults(problem, algorithm))
    _check_settings(cls, base, checked)
    config = RunConfig.build(algorithm, problem, dim, params=base, engine=engine, dtype=dtype,
                             seed=checked.seeds[0], max_evals=max_evals, max_iters=max_iters,
                             fast_math=fast_math, sample_size=1, bounds=bounds, threads=threads,
                             f_min=f_min)
    eng = get_engine(engine)
    eng.require()
    problem_obj = config.make_problem()
    # one run as it would run alone: "auto" sized for its budget, memory checked
    probe = eng.build(algorithm, problem_obj, config.params, dtype, fast_math, budget=config.budget,
                      threads=threads)
    target = None if problem_obj.f_min is None else problem_obj.f_min + tolerance
    pairs = checked.pairs()
    names = {a.name for a in checked.axes}
    refusal = probe.group_refusal() if names <= set(probe.group_params) else None
    if names <= set(probe.group_params) and refusal is None:
        plan = BatchedPlan(eng, config, probe, pairs, target)
        code = "fused kernels, per-group values as device arrays" if eng.compiles else "array code"
        path = (f"batched: all {len(pairs):,} runs as independent groups of one run of the "
                f"{eng.name} {code} (per-group {', '.join(sorted(names))})")
    else:
        plan = OneByOnePlan(config, cls, base, pairs, target)
        why = (refusal if refusal is not None else
               f"the {eng.name} engine's {algorithm} takes one parameter set per run"
               if not probe.group_params else
               f"{', '.join(sorted(names - set(probe.group_params)))} cannot differ between groups")
        path = f"one run per (setting, seed), {len(pairs):,} runs one after another: {why}"
    effective = {k: v for k, v in vars(probe.params).items() if k not in names}
    table = TuneTable(algorithm=algorithm, problem=config.problem, dim=config.dim, engine=eng.name,
                      dtype=dtype, grid=checked, base_params=effective, f_min=problem_obj.f_min,
                      tolerance=tolerance, batched=isinstance(plan, BatchedPlan), path=path,
                      notes=tuple(notes) + tuple(probe.warnings) + tuple(
                          note for note in (config.dropped_minimum(),) if note is not None),
                      switched={k: v for k, v in base.items() if k not in (params or {})})
    return Tuning(table, plan)


def refuse_unused_params(tuning: Tuning, params: Mapping | None) -> None:
    """ConfigError for a fixed parameter the grid's runs would not use (params.refuse_unused): for
    what a user typed (tune(), the CLI), not in prepare, since a saved set-up carries every field
    of the window's form, the greyed-out ones included."""
    table = tuning.table
    base = {**table.switched, **(params or {})}  # what prepare built the runs from
    refuse_unused(make_params(get_algorithm(table.algorithm).Params, base), params,
                  defaults=param_defaults(table.problem, table.algorithm))


def tune(algorithm: str, problem: str | Problem, grid: Sequence[str] | str, *, seeds: int = 4,
         first_seed: int = 0, dim: int | None = None, engine: str = "numpy", max_evals=None,
         max_iters=None, params: Mapping | None = None, dtype: str = "float64",
         tolerance: float = DEFAULT_TOLERANCE, fast_math: bool = False,
         bounds: tuple[float, float] | None = None, threads: int | None = None,
         f_min: float | None = None, stop: Callable[[], bool] | None = None,
         on_progress: Callable[[Progress], None] | None = None) -> TuneTable:
    """Run every (setting, seed) of a grid of 1-2 parameter axes (``"name=lo:hi:n[:log]"``) and
    return the table. Seeds are first_seed, first_seed + 1, ...; each run has the budget
    max_evals (or max_iters). ConfigError before anything runs on any bad input."""
    tuning = prepare(algorithm, problem, grid, seeds=seeds, first_seed=first_seed, dim=dim,
                     engine=engine, max_evals=max_evals, max_iters=max_iters, params=params,
                     dtype=dtype, tolerance=tolerance, fast_math=fast_math, bounds=bounds,
                     threads=threads, f_min=f_min)
    refuse_unused_params(tuning, params)
    return tuning.run(stop=stop, on_progress=on_progress)
