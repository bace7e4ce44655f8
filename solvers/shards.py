"""One run split into shards over devices (RunConfig ``devices``): every GPU of a host in one run.

A run's independent units (pattern-search walkers, annealing chains, DE populations, PSO swarms)
are cut into contiguous shards, one per entry of ``devices`` (a device may appear twice: two shards
on one device). Each shard is the same algorithm on the same engine, built for its share of the
units, run by its own host thread inside its device's context and CUDA stream. After every chunk
the shards' results are merged into one state: the best point (the lowest value; on an exact tie,
the lower shard), the evaluations summed, the iteration count, and a snapshot whose sample is the
unsplit run's sample (every shard contributes the sampled walkers it holds).

Same seed, same numbers whatever the split:
- engines whose random streams are keyed by the walker (cuda, numba: Philox over (seed, walker,
  stream, draw)) get the shard's global index of its walker 0 (``walker0``), so a shard draws exactly
  what its walkers draw in the unsplit run;
- engines with one sequential generator (numpy, cupy) get a ShardRNG: each draw is made for every
  walker of the run and the shard keeps its rows. Exact, but every shard pays for all the draws:
  on these engines a split is a simulation (tests, CI), not a speed-up.
- max_evals stays a hard cap: each shard gets the evaluations its walkers make in the unsplit run
  (evaluations come in rounds of one per walker, walkers in index order: ``walker_major_share``).

Couplings between walkers, per algorithm (declared on the reference class, ``split_field`` etc.):
- pattern search: walkers independent; exact.
- differential evolution and particle swarm (classic and SPSO-2011): populations and swarms are
  independent; a shard holds whole ones (``split_unit_walkers``: a population's individuals, a
  swarm's particles) and the cuda and numba kernels key every draw by the global index
  ``walker0 + i``; exact. SPSO's link targets are the shard's own indices (its swarm's first
  particle + a draw), so a shard's links are the unsplit run's shifted by walker0; the snapshot's
  link overlay is drawn for the swarm the unsplit run picks from the whole sample
  (``split_before_snapshot``), by the shard that holds it.
- simulated annealing async: chains independent; the "auto" schedule is fitted once to the initial
  values of every chain of every shard (``split_after_init``); exact.
- simulated annealing sync: every level ends with the best point of all chains broadcast to every
  chain; the shards meet there (a barrier), take the best of all shards through the host and
  broadcast it on their device (``exchange_best``); exact.
- simulated annealing hybrid (Nelder-Mead polishing of the best chains of the whole run) and
  multi-directional search: refused with a message (see docs/multi-gpu.md).
Exact ties between shards' best values: on numba and cuda, whose runs keep the smallest (value,
walker) pair, the merge (the lower shard on equal values) gives the unsplit run's point; on numpy
and cupy, whose runs keep the first point found in time, it may pick another point of that value.
"""
from __future__ import annotations

import dataclasses
import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .algorithms.base import SnapshotData, State, iterations_before_budget
from .arrays import to_numpy
from .engines import reference_class
from .errors import ConfigError
from .rng import ArrayRNG


def parse_devices(value) -> tuple[int, ...] | str | None:
    """The devices of a run as given: None (one device, the default), "all", or a tuple of indices
    (repeats allowed: shards sharing a device). ConfigError naming the bad part."""
    if value is None:
        return None
    if isinstance(value, str):
        text = value.strip().lower()
        if text == "all":
            return "all"
        if not text:
            raise ConfigError("devices must be 'all' or device numbers like 0,1, got an empty value")
        parts = text.split(",")
    elif isinstance(value, (list, tuple)):
        parts = list(value)
    elif isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        parts = [value]
    else:
        raise ConfigError(f"devices must be 'all' or device numbers like 0,1, got {value!r}")
    out = []
    for part in parts:
        try:
            if isinstance(part, bool):
                raise ValueError
            index = int(part.strip()) if isinstance(part, str) else int(part)
            if isinstance(part, float) and part != index:
                raise ValueError
        except (TypeError, ValueError):
            raise ConfigError(f"devices must be 'all' or device numbers like 0,1, got {value!r}") from None
        if index < 0:
            raise ConfigError(f"device numbers start at 0, got {index}")
        out.append(index)
    if not out:
        raise ConfigError("devices must name at least one device")
    return tuple(out)


def resolve_devices(engine, devices) -> tuple[int, ...] | None:
    """The device indices of a run on `engine` (None: the default single-device path); ConfigError
    for a device that does not exist there."""
    devices = parse_devices(devices)
    if devices is None:
        return None
    count = engine.device_count()
    if devices == "all":
        if count < 1:
            raise ConfigError(f"engine '{engine.name}' has no device here ({engine.status()[1]})")
        return tuple(range(count))
    missing = [i for i in devices if i >= count]
    if missing:
        have = "no device" if count == 0 else ("only device 0" if count == 1 else f"devices 0-{count - 1}")
        raise ConfigError(f"device {missing[0]} does not exist: engine '{engine.name}' has {have} here")
    return devices


def split_counts(total: int, shards: int) -> list[int]:
    """`total` units in `shards` contiguous, nearly equal parts (the first ones one larger)."""
    return [total // shards + (1 if i < total % shards else 0) for i in range(shards)]


def walker_major_share(max_evals: int | None, walkers: int, walker0: int, count: int) -> int | None:
    """Evaluations a shard of walkers [walker0, walker0 + count) makes in an unsplit run capped at
    max_evals, when evaluations come in rounds of one per walker in index order."""
    if max_evals is None:
        return None
    rounds, rest = divmod(int(max_evals), int(walkers))
    return rounds * count + min(count, max(0, rest - walker0))


class ShardRNG:
    """A shard's view of the run's sequential generator: every draw is made for the whole run (as
    the unsplit run makes it) and the shard's rows are kept: rows [walker0, walker0 + count) of a
    draw with a row per walker, or the shard's units (swarms, populations of `per_unit` walkers) of
    a draw with a row per unit."""

    def __init__(self, rng: ArrayRNG, walkers: int, walker0: int, count: int, per_unit: int = 1):
        self._rng, self.walkers, self.walker0, self.count = rng, walkers, walker0, count
        self.per_unit = per_unit
        self.xp, self.seed = rng.xp, rng.seed
        self._rows_of = {}  # leading size of the shard's draw -> (whole run's size, first row)

    def _whole(self, shape):
        shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
        if shape and shape[0] == self.count:
            whole, first = self.walkers, self.walker0
        elif shape and self.per_unit > 1 and shape[0] * self.per_unit == self.count:
            whole, first = self.walkers // self.per_unit, self.walker0 // self.per_unit
        else:
            raise ConfigError(f"a split run drew {shape} numbers, not one row per walker or group of "
                              "its shard; this algorithm cannot be split on this engine")
        self._first, self._size = first, shape[0]
        return (whole,) + shape[1:]

    def _rows(self, a):
        return a[self._first:self._first + self._size]

    def random(self, shape, dtype=np.float64):
        return self._rows(self._rng.random(self._whole(shape), dtype))

    def uniform(self, lower, upper, shape, dtype=np.float64):
        # ArrayRNG.uniform's arithmetic on the shard's rows: bounds may be the shard's own arrays
        # (SPSO's velocities lie between lower - x and upper - x of the shard's particles)
        u = self.random(shape, dtype)
        return lower + (upper - lower) * u

    def integers(self, low, high, shape):
        return self._rows(self._rng.integers(low, high, self._whole(shape)))

    def normal(self, shape, dtype=np.float64):
        return self._rows(self._rng.normal(self._whole(shape), dtype))

    def raw_seed(self) -> int:
        return self._rng.raw_seed()


@dataclass
class ShardedState(State):
    """The merged view of the shards' states (host values), refreshed after every chunk."""

    shards: list = field(default_factory=list)
    done: bool = False


class Shard:
    """One shard: its device slot (context, stream), algorithm, units and first global walker."""

    def __init__(self, slot, algorithm, walker0: int, walkers: int):
        self.slot, self.algorithm, self.walker0, self.walkers = slot, algorithm, walker0, walkers
        self.state = None


class ShardedAlgorithm:
    """The Algorithm interface over shards of one run (see the module docstring)."""

    def __init__(self, engine, name: str, problem, params, dtype, fast_math: bool, budget,
                 threads: int | None, devices: tuple[int, ...]):
        ref = reference_class(name)
        planner = ref(problem, params, xp=np, dtype=dtype)  # the run's "auto" values and warnings
        planner.plan(budget)
        self.name, self.problem, self.engine = name, problem, engine
        self.params, self.requested = planner.params, params
        self.warnings = tuple(planner.warnings)
        self.walker_word = ref.walker_word
        self.dtype = np.dtype(dtype)
        reason = ref.split_refusal(planner.params)
        if reason:
            raise ConfigError(f"{name} cannot be split over devices: {reason}")
        self.field = ref.split_field
        units = int(getattr(planner.params, self.field))
        if units < len(devices):
            raise ConfigError(f"{units} {self.field} cannot be split over {len(devices)} devices "
                              f"(at least one each)")
        per_unit = self.per_unit = ref.split_unit_walkers(planner.params)
        self.total = units * per_unit
        self.max_evals = planner.max_evals  # the whole run's
        self._after_init = ref.split_after_init
        # (shard algorithm, the run's whole sample, the shard's walker0) before a shard's snapshot:
        # what the overlay shows may depend on the whole sample (PSO draws one swarm's links)
        self._before_snapshot = getattr(ref, "split_before_snapshot", None)
        # shards sharing the host's cores (CPU engines) take turns; GPU shards run concurrently
        self._turn = None if engine.concurrent_shards else threading.Lock()
        self._barrier = threading.Barrier(len(devices))
        self._posted: list = [None] * len(devices)
        self.shards: list[Shard] = []
        walker0 = 0
        for index, (device, count) in enumerate(zip(devices, split_counts(units, len(devices)))):
            slot = engine.open_device(device)
            shard_params = dataclasses.replace(planner.params, **{self.field: count})
            with slot.active():
                algo = engine.build(name, problem, shard_params, dtype, fast_math, budget=budget,
                                    threads=threads)
            n = count * per_unit
            algo.max_evals = walker_major_share(planner.max_evals, self.total, walker0, n)
            algo.stops_at_budget = False  # the split run stops all shards alike (step)
            algo.walker0 = walker0
            algo.exchange_best = self._exchanger(index)
            self.shards.append(Shard(slot, algo, walker0, n))
            walker0 += n
        self.keyed = bool(getattr(self.shards[0].algorithm, "keyed_by_walker", False))
        self.counts_nonfinite = self.shards[0].algorithm.counts_nonfinite
        self.xp = np

    # --- running on every shard ---------------------------------------------------------------
    def _each(self, work) -> list:
        """work(shard) on every shard, each in its own thread and device context; results in order."""
        def run(shard):
            if self._turn is not None:
                self._turn.acquire()
            try:
                with shard.slot.active():
                    out = work(shard)
                shard.slot.synchronize()
                return out
            finally:
                if self._turn is not None:
                    self._turn.release()
        # a thread per shard and call (a chunk lasts ~1/30 s; starting threads costs ~0.1 ms): no
        # pool outlives the run, and each thread enters its shard's device and stream afresh
        results: list = [None] * len(self.shards)
        errors: list = []

        def target(k: int) -> None:
            try:
                results[k] = run(self.shards[k])
            except BaseException as exc:  # noqa: BLE001 - re-raised on the calling thread below
                errors.append(exc)
                self._barrier.abort()  # shards waiting at an exchange give up instead of hanging

        threads = [threading.Thread(target=target, args=(k,), name=f"shard-{k}", daemon=True)
                   for k in range(len(self.shards))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            self._barrier.reset()
            failure = next((e for e in errors if not isinstance(e, threading.BrokenBarrierError)), errors[0])
            raise failure
        return results

    def _exchanger(self, index: int):
        """The shard's exchange_best: wait for every shard, give each the best of all (host copy)."""
        def exchange(state) -> None:
            algo = self.shards[index].algorithm
            # the point travels with the value: the winner's next launch may change its own copy
            self._posted[index] = (float(to_numpy(state.best_f)), index, to_numpy(state.best_x).copy())
            if self._turn is not None:
                self._turn.release()
            try:
                self._barrier.wait()
                best_f, winner, best_x = min(self._posted, key=lambda post: post[:2])
                self._barrier.wait()  # everyone has read the posts before the next exchange
            finally:
                if self._turn is not None:
                    self._turn.acquire()
            if winner != index:
                algo.take_best(state, best_x, best_f)
        return exchange

    def init(self, rng) -> ShardedState:
        def start(shard):
            algo = shard.algorithm
            if self.keyed:
                shard_rng = ArrayRNG(algo.xp, rng.seed)
            else:
                shard_rng = ShardRNG(ArrayRNG(algo.xp, rng.seed), self.total, shard.walker0,
                                     shard.walkers, self.per_unit)
            pre = algo.params
            shard.state = algo.init(shard_rng)
            # host copies made on the shard's own thread, device and stream
            return pre, (to_numpy(shard.state.f) if self._after_init is not None else None)
        started = self._each(start)
        if self._after_init is not None:
            values = np.concatenate([f for _, f in started])

            def refit(shard):
                before = started[self.shards.index(shard)][0]
                self._after_init(shard.algorithm, shard.state, before, self.field, values)
            self._each(refit)
        self.params = dataclasses.replace(self.shards[0].algorithm.params,
                                          **{self.field: getattr(self.params, self.field)})
        state = ShardedState(X=None, f=None, best_x=None, best_f=None,
                             shards=[s.state for s in self.shards])
        self._merge(state)
        return state

    def warm_kernels(self, state: ShardedState) -> None:
        """Each shard's (Algorithm.warm_kernels), on its own device: its state's copies."""
        self._each(lambda shard: shard.algorithm.warm_kernels(shard.state))

    def step(self, state: ShardedState, iterations: int) -> None:
        # the run's budget decides for every shard (a shard's max_evals is only its share of the
        # cut): no iteration starts once the whole run has spent max_evals, as unsplit
        remaining = int(iterations)
        while remaining > 0 and not state.done:
            todo = remaining
            if self.max_evals is not None:
                todo = iterations_before_budget(self.max_evals - int(state.evals), remaining,
                                                self.evals_per_iteration())
                if todo == 0:
                    return

            def advance(shard, todo=todo):
                shard.algorithm.step(shard.state, todo)
                return self._summary(shard)
            self._merge(state, self._each(advance))
            remaining -= todo

    def init_and_step(self, rng, iterations: int) -> ShardedState:
        state = self.init(rng)
        if iterations > 0:
            self.step(state, iterations)
        return state

    def _summary(self, shard) -> tuple:
        """A shard's best, counts and flag as host values: run on the shard's own thread (its
        device and stream); a value and d coordinates per shard and chunk."""
        s = shard.state
        nonfinite = int(to_numpy(s.nonfinite)) if self.counts_nonfinite else 0
        return (float(to_numpy(s.best_f)), to_numpy(s.best_x).astype(self.dtype, copy=True),
                int(s.evals), int(s.iteration), nonfinite, bool(getattr(s, "done", False)))

    def _merge(self, state: ShardedState, parts: list | None = None) -> None:
        """The shards' summaries (made now unless given) into the run's state."""
        if parts is None:
            parts = self._each(self._summary)
        best = int(np.argmin([p[0] for p in parts]))  # the first of equal values: the lower shard
        state.best_f = np.asarray(parts[best][0], dtype=self.dtype)
        state.best_x = parts[best][1]
        state.evals = sum(p[2] for p in parts)
        state.iteration = max(p[3] for p in parts)
        state.nonfinite = sum(p[4] for p in parts)
        state.done = all(p[5] for p in parts)

    # --- what the runner asks -----------------------------------------------------------------
    def total_walkers(self) -> int:
        return self.total

    def evals_per_iteration(self) -> float:
        return float(sum(s.algorithm.evals_per_iteration() for s in self.shards))

    def iteration_work(self) -> float:
        return self.evals_per_iteration() * self.problem.dim

    def iteration_slices(self, state, work):
        return None  # a shard's iteration is not sliced (each shard holds a part of the walkers)

    def memory_estimate(self) -> int:
        return int(sum(s.algorithm.memory_estimate() for s in self.shards))

    def set_params(self, state: ShardedState, params) -> None:
        def apply(shard):
            count = getattr(shard.algorithm.params, self.field)
            shard.algorithm.set_params(shard.state, dataclasses.replace(params, **{self.field: count}))
        self._each(apply)
        self.requested = params
        self.params = dataclasses.replace(self.shards[0].algorithm.params,
                                          **{self.field: getattr(self.params, self.field)})

    def snapshot(self, state: ShardedState, sample: np.ndarray) -> SnapshotData:
        """The unsplit run's sample, gathered from the shards that hold its walkers."""
        sample = np.asarray(sample, dtype=np.int64)
        parts = []
        for shard in self.shards:
            mine = sample[(sample >= shard.walker0) & (sample < shard.walker0 + shard.walkers)]
            parts.append(mine - shard.walker0)
            if self._before_snapshot is not None:
                self._before_snapshot(shard.algorithm, sample, shard.walker0)
        datas = self._each(lambda shard: shard.algorithm.snapshot(
            shard.state, parts[self.shards.index(shard)]))
        weights = np.array([s.walkers for s in self.shards], dtype=np.float64)
        return merge_snapshots(datas, [len(p) for p in parts], weights)


def merge_snapshots(datas: list[SnapshotData], counts: list[int], weights) -> SnapshotData:
    """One SnapshotData from the shards' (sampled rows concatenated in shard order). Overlays with
    one row per sampled walker are concatenated, ``links`` (sample positions) offset; other arrays
    concatenated; extras equal on every shard kept, numeric ones otherwise averaged with `weights`
    (the shards' walkers), anything else taken from the first shard."""
    positions = np.concatenate([d.positions for d in datas], axis=0)
    fitness = np.concatenate([d.fitness for d in datas], axis=0)
    overlays: dict[str, Any] = {}
    offsets = np.cumsum([0] + counts[:-1])
    for key in datas[0].overlays:
        arrays = [np.asarray(d.overlays[key]) for d in datas if key in d.overlays]
        if key == "links":
            arrays = [np.asarray(d.overlays[key]) + off for d, off in zip(datas, offsets)
                      if key in d.overlays]
        overlays[key] = np.concatenate(arrays, axis=0) if arrays[0].ndim else arrays[0]
    extras: dict[str, Any] = {}
    for key, first in datas[0].extras.items():
        values = [d.extras.get(key, first) for d in datas]
        if all(v == first for v in values):
            extras[key] = first
        elif all(isinstance(v, (int, float, np.number)) and not isinstance(v, bool) for v in values):
            extras[key] = float(np.average(np.asarray(values, dtype=np.float64), weights=weights))
        else:
            extras[key] = first
    return SnapshotData(positions=positions, fitness=fitness, extras=extras, overlays=overlays)


def parts(algo) -> list:
    """The engine algorithm objects doing the work: a split run's shards, or `algo` itself."""
    return [s.algorithm for s in algo.shards] if isinstance(algo, ShardedAlgorithm) else [algo]


def build(engine, algorithm: str, problem, params, dtype, fast_math: bool = False, budget=None,
          threads: int | None = None, devices=None):
    """The run's algorithm object: the engine's own on the default path (devices None), a
    ShardedAlgorithm over the resolved devices otherwise."""
    resolved = resolve_devices(engine, devices)
    if resolved is None:
        return engine.build(algorithm, problem, params, dtype, fast_math, budget=budget, threads=threads)
    return ShardedAlgorithm(engine, algorithm, problem, params, dtype, fast_math, budget, threads, resolved)
