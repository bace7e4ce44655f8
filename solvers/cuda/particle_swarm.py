"""Particle swarm on the cuda engine (kernels/particle_swarm.cu): classic global-best and SPSO-2011.

Same Params, moves, confinement, informants, link redraws and evaluation counting as
solvers/algorithms/particle_swarm.py (the reference; this class inherits its Params, counting and
snapshot); only the random numbers differ (in-kernel Philox). A launch runs a whole chunk of
iterations: a thread per particle, a swarm on one block or spread over several that meet at a
barrier each iteration (solvers/cuda/resident.py says how launches are shaped); many small classic
swarms (a tuning grid's 2,048 runs of 40) are packed several to a block instead, so that no lane
idles (pso_classic_packed, pso_classic_grid_packed; choose_swarms_per_block; the same numbers,
MULTIWALK_PSO_SWARMS_PER_BLOCK=1 restores a block per swarm for comparisons). Where particles are
few for the GPU (one swarm of 16,384 or 1,024) each particle gets 2, 4 or 8 lanes instead, each
making a share of its move and objective (pso_classic_lanes, and for SPSO-2011 pso_spso_rows_lanes
where its rows stay in L2; choose_lanes; the same numbers, MULTIWALK_PSO_LANES=1 restores a thread
per particle). Links are never
stored: a particle's K targets are drawn again from (particle, the iteration of its swarm's last
redraw) wherever they are needed, the snapshot's link overlay included. In a shard of a run split
over devices (whole swarms, solvers/shards.py) the kernels key every draw by the particle's global
index walker0 + i; all indices they store are the shard's own.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ..algorithms.particle_swarm import ParticleSwarm
from ..errors import ConfigError
from .base import REDUCE_BLOCKS, CudaAlgorithm, CudaState, allocation_guard, l2_cache_bytes
from .resident import (WARP, allow_shared, group_shape, multiprocessors, reserved_shared, resident_blocks, shared_optin,
                       shared_per_multiprocessor, spread)

SHARED_MAX = 48 * 1024  # dynamic shared memory per block for particles' own state (no opt-in needed)
MAX_BLOCK = 256  # __launch_bounds__ of the step kernels (but pso_classic's and the lanes')
# __launch_bounds__ of pso_classic (PSO_CLASSIC_MAX_BLOCK): a swarm of more than 1,024 particles takes
# blocks of up to 1,024 threads (one swarm of 131,072: 128 blocks, not 512; a quarter of the barrier's arrivals
# and of the partials read each iteration), each with the shared memory 256-thread blocks get per
# thread (SHARED_MAX per 256), so fewer where the device's opt-in shared memory is smaller
CLASSIC_MAX_BLOCK = 1024
PACKED_MAX_BLOCK = 160  # __launch_bounds__ of the packed classic kernels (PSO_PACKED_MAX_BLOCK)
# __launch_bounds__ of pso_classic_lanes (PSO_LANES_MAX_BLOCK): blocks of up to 512 threads, one a
# multiprocessor, so a thread may hold 128 registers (the move no longer spills; kernels/particle_swarm.cu)
LANES_MAX_BLOCK = 512
# swarms per block of classic PSO: unset or "auto", the launch shape's choice (choose_swarms_per_block);
# "1", the unpacked mapping (a swarm per block or more); k > 1, k swarms per block where they fit
SWARMS_PER_BLOCK_ENV = "MULTIWALK_PSO_SWARMS_PER_BLOCK"
PACKED_SCRATCH = 16  # bytes per swarm of a packed block's shared best (MwBest<T>: value, index)
# lanes per particle: unset or "auto", choose_lanes; 1, a thread per particle (pso_classic, pso_spso*);
# 2, 4 or 8 forced (pso_classic_lanes, ordinary classic launches: no grid, no packed block;
# pso_spso_rows_lanes where _spso_lanes allows it)
LANES_ENV = "MULTIWALK_PSO_LANES"
LANE_COUNTS = (1, 2, 4, 8)
# Threads per multiprocessor the lanes may fill: pso_classic_lanes' registers (up to 128 a thread, its
# __launch_bounds__) hold 512 at once, and a swarm spread over blocks needs all of them resident
# (the exchange barrier).
LANES_THREADS_PER_SM = 512


def choose_swarms_per_block(m: int, swarms: int, sms: int, cap: int = PACKED_MAX_BLOCK) -> int:
    """How many classic swarms of m particles to pack into one block (1: a block per swarm).

    A block has whole warps, so one swarm of 40 leaves 24 of its 64 lanes idle; k swarms share
    ceil(k m / 32) warps. The choice minimises the busiest multiprocessor's warps, ceil(blocks /
    sms) x warps per block (every warp issues each instruction whatever its idle lanes), on ties
    the fewer swarms per block (more, smaller blocks to spread). 2,048 swarms of 40 on 132
    multiprocessors: 4 per block (5 warps, no idle lane; 20 warps on the busiest multiprocessor
    against 32 with a block per swarm); 50 swarms: 1 (packing would only idle multiprocessors).
    """
    best, best_cost = 1, None
    for k in range(1, max(1, cap // max(1, m)) + 1):
        warps = -(-k * m // WARP)
        cost = -(-(-(-swarms // k)) // max(1, sms)) * warps
        if best_cost is None or cost < best_cost:
            best, best_cost = k, cost
    return best


# Lanes per classic particle by particles per multiprocessor, measured on the H100 (one swarm,
# rastrigin 30-D float32, `python3 scripts/pso_lanes.py`, G evals/s with 1/2/4/8 lanes, 2026-11-26):
#   1,024:  0.126 / 0.107 / 0.167 / 0.194     16,384: 1.782 / 1.419 / 1.973 / 1.733
#   65,536: 4.278 / 3.206 / 3.284 / 2.601     131,072: 4.502 / 1.877 / 1.840 / 1.570
# so 8 lanes up to 16 particles per multiprocessor, 4 up to 128, then a thread per particle.
LANES_BY_PARTICLES_PER_SM = ((16, 8), (128, 4))


def choose_lanes(particles: int, sms: int, blocks_per_move: int, cap: int = LANES_THREADS_PER_SM) -> int:
    """Lanes per particle (1: a thread per particle, pso_classic or pso_spso*); SPSO-2011 takes the
    same table (H100, one swarm: 16,384 with 4 lanes 1.16 -> 1.33 G/s, 1,024 with 8 lanes 71 -> 139
    M/s; notes-gpu.md v13).

    A thread per particle leaves few threads per multiprocessor where particles are few (one swarm
    of 16,384 on 132 multiprocessors: 124, a warp per scheduler), and each particle's move is a
    long dependent chain (Philox blocks, loads, the velocity update, the objective's terms). L lanes
    per particle each make 1/L of its Philox blocks, so the chain is L times shorter and L times as
    many warps hide each other's latency; but the lanes then gather the terms in order and the
    swarm's blocks grow. LANES_BY_PARTICLES_PER_SM (measured) picks L; it is lowered while a lane
    would get no Philox block of the move (blocks_per_move: ceil(d / coordinates per block)) or
    particles x lanes would pass `cap` threads per multiprocessor (all resident).
    """
    per_sm = particles / max(1, sms)
    lanes = next((most_lanes for most, most_lanes in LANES_BY_PARTICLES_PER_SM if per_sm <= most), 1)
    while lanes > 1 and (lanes > blocks_per_move or particles * lanes > cap * sms):
        lanes //= 2
    return lanes


def _requested(value, env: str, valid, allowed: str) -> int | None:
    """A class attribute's or the environment's whole-number knob: None for "auto" (or unset);
    ConfigError naming `env` and `allowed` for anything `valid` refuses."""
    if value is None:
        return None
    text = str(value).strip().lower()
    if text in ("", "auto"):
        return None
    try:
        k = int(text)
    except ValueError:
        k = 0
    if not valid(k):
        raise ConfigError(f"{env} must be 'auto' or {allowed}, got {value!r}")
    return k


def requested_lanes(value) -> int | None:
    """The class attribute's or the environment's lanes per particle: None for the automatic
    choice; ConfigError for anything but "auto", 1, 2, 4 or 8."""
    return _requested(value, LANES_ENV, lambda k: k in LANE_COUNTS, "1, 2, 4 or 8")


def requested_swarms_per_block(value) -> int | None:
    """The class attribute's or the environment's swarms per block: None for the automatic
    choice; ConfigError for anything but "auto" or a whole number >= 1."""
    return _requested(value, SWARMS_PER_BLOCK_ENV, lambda k: k >= 1, "a whole number >= 1")


@dataclass
class ParticleSwarmCudaState(CudaState):
    VT: Any = None  # (d, n) velocities; V is its (n, d) view
    V: Any = None
    PT: Any = None  # (d, n) personal bests; P is its (n, d) view
    P: Any = None
    Pf: Any = None
    swarm_best_f: Any = None  # (swarms,)
    swarm_best_i: Any = None  # (swarms,) global index of each swarm's best particle
    epochs: Any = None  # spso: (swarms,) iteration after which the links were last drawn (-1: init)
    redrawn: Any = None  # spso: (swarms,) uint8, links redrawn after the last iteration
    keys: Any = None  # spso: informant keys in global memory (all ~0 between iterations)
    pending: Any = None  # spso: (n,) uint8, personal best to write after the iteration's barrier
    ZT: Any = None  # spso: (d, n) the iteration's normals, from the move's first pass to its second,
    # then (_tc_rows) d rows of G - x
    PR: Any = None  # spso: (pr_particles(n), pr_row(d)) the personal bests by particle, the kernel's
    # copy of P for gathering informants (each launch rebuilds it from P)
    links: Any = None  # spso: _Links, for the reference's snapshot


class _Links:
    """``state.links[ids]`` for the reference's snapshot: the targets of those particles, drawn on the GPU."""

    def __init__(self, algo: "ParticleSwarmCuda", state: ParticleSwarmCudaState):
        self.algo, self.state = algo, state

    def __getitem__(self, ids):
        return self.algo.links_of(self.state, ids)


@dataclass(frozen=True)
class _Launch:
    shape: Any  # resident.GroupShape
    flags: int  # which of a thread's x, v, p (and the lanes' next draws, DRAWS_SHARED) live in shared memory (kernel's PSO_*_SHARED)
    keys_shared: bool
    shared_bytes: int
    kernel: str = ""  # the step kernel's name
    spb: int = 1  # swarms per block (> 1: the packed classic kernels)
    lanes: int = 1  # lanes per particle (> 1: pso_classic_lanes); the shape's threads are m * lanes

    def blocks(self, swarms: int) -> int:
        """Blocks of a launch of `swarms` swarms."""
        if self.spb > 1:
            return -(-swarms // self.spb)
        return swarms * self.shape.per_group


X_SHARED, V_SHARED, P_SHARED = 1, 2, 4
# pso_classic_lanes: the move's Philox blocks drawn by warps 1.. during the exchange, into shared
# memory (kernel: PSO_DRAWS_SHARED, PsoDrawsAhead), 16 bytes per (block, particle); the same words
DRAWS_SHARED = 8
# Tried in this order, the most traffic saved first, as long as every block of a swarm stays
# resident: x is read and written by the move and read again by the objective, v read and written,
# p only read. At 131,072 particles only one of them fits (x; then the v of some warps: V_WARPS_SHIFT).
SHARED_CHOICES = (X_SHARED | V_SHARED | P_SHARED, X_SHARED | V_SHARED, X_SHARED, V_SHARED, 0)
# pso_classic: where x alone is shared, the v of the block's first warps beside it, as many as the
# opt-in shared memory holds while the swarm's blocks stay resident (kernel: PSO_V_WARPS_SHIFT, the
# count of warps in the bits from here up). Only for a swarm spread over blocks of at least
# V_WARPS_MIN_BLOCK threads. H100, rastrigin 30-D float32, against the kernel before
# (docs/benchmarks/notes-gpu.md v18): one swarm of 131,072 (blocks of 1,024, 28 of 32 warps' v)
# 6.62-6.63 -> 6.98-7.03 G/s, of 65,536 (blocks of 512: all of v) 5.38 -> 5.82-5.88. Smaller blocks
# gained nothing (32,768 in blocks of 256: 3.82-3.86 G/s with all of v shared or none) or lost (512
# swarms of 256, independent blocks: 7.21-7.23 -> 6.76-6.81; a reading, not profiled: with few
# particles a multiprocessor v's loads are not what an iteration waits for, and L1 gets less)
V_WARPS_SHIFT = 8
V_WARPS_MIN_BLOCK = 512
# pso_spso_redraw takes the same v warps, as many as leave L1 this much of what a multiprocessor's
# shared memory could have (the carveout of their unified memory): its first pass reads the PR rows
# through L1. H100 (228 KB shared at most, L1 what the carveout leaves of 256), rastrigin 30-D
# float32, one swarm of 131,072 in blocks of 1,024 (notes-gpu.md v25): v of 16 warps 2.80 -> 3.04
# G/s, 12 3.01; 20, 24 or 28 (the carveout's last step, L1 28 KB instead of 60) 2.80. 32 KB is that
# last step on an H100 (196 -> 228 KB) and an A100 (132 -> 164); elsewhere it keeps L1 at least that.
# Its blocks of 256 take them too (classic's gained nothing there): 98,304 in 384 blocks of 256,
# three a multiprocessor, all of v beside x (61.5 KB a block), 2.54 -> 2.67-2.68 G/s
REDRAW_L1_KEPT = 32 * 1024


# Classic PSO's coordinates per Philox block of the move, by item size (the kernel's PsoCoefficients:
# float r_p and r_g the 16-bit halves of one word, double two 53-bit uniforms a block). Only a
# harness running another tree's kernel with this host changes it (scripts/exchange_cost.py)
CLASSIC_PER_BLOCK = {4: 4, 8: 1}


def pr_row(d: int) -> int:
    """Elements of a row of SPSO's PR (kernels/particle_swarm.cu pso_row): d rounded up to 4."""
    return (d + 3) // 4 * 4


def pr_particles(n: int) -> int:
    """Rows of SPSO's PR: n rounded up to whole tiles of a warp's 32 particles (pso_spso_redraw's
    layout, kernels/particle_swarm.cu pso_pr)."""
    return -(-n // 32) * 32


def classic_block_cap(optin: int) -> int:
    """The largest block of pso_classic (CLASSIC_MAX_BLOCK, halved down to MAX_BLOCK) whose share of
    shared memory, SHARED_MAX per MAX_BLOCK threads, fits `optin` bytes (the device's opt-in limit,
    less a margin for the kernel's static shared memory): x stays in shared memory as it would in
    256-thread blocks."""
    cap = CLASSIC_MAX_BLOCK
    while cap > MAX_BLOCK and SHARED_MAX * cap // MAX_BLOCK + STATIC_MARGIN > optin:
        cap //= 2
    return cap


STATIC_MARGIN = 1024  # bytes of static shared memory a step kernel may have beside its dynamic share
# pso_spso_redraw_one (one grid barrier an iteration) where a swarm's rows (X, V, P, PR) take at most
# this many L2 caches. H100, against pso_spso_redraw (notes-gpu.md v32, 131,072 particles): faster at
# 0.92, 1.07 and 1.22 L2s (d = 30), +3% at 1.6 (d = 40: 2.43-2.46 against 2.35-2.38 G/s), 3% slower
# at 1.83 (d = 45: 1.79-1.80 against 1.84-1.85); between 1.6 and 1.83 not measured (v31, before
# the scatter moved after each thread's move: level at 1.6, so the rule stopped at 1.25)
ONE_BARRIER_L2 = 1.7


def _busiest(shape) -> int:
    """Threads on the busiest multiprocessor when a launch's blocks are spread evenly over them."""
    return -(-shape.groups_per_launch * shape.per_group // multiprocessors()) * shape.block


class ParticleSwarmCuda(CudaAlgorithm, ParticleSwarm):
    kernel_file = "particle_swarm.cu"
    # threads per block, at most; left at MAX_BLOCK, pso_classic takes up to classic_block_cap's
    block = MAX_BLOCK
    group_params = ParticleSwarm.group_params  # classic: a tuning grid's runs in one launch
    group_columns = ("omega", "phi_p", "phi_g", "lr")  # pso_classic's gvals row
    # pso_classic_lanes draws the next move during the exchange where it fits (DRAWS_SHARED). H100,
    # rastrigin 30-D float32, one swarm: 16,384 2.51-2.53 -> 2.57-2.59 G/s, 1,024 265 -> 279 M/s, 32,768
    # level; the same numbers (docs/benchmarks/notes-gpu.md v16)
    draws_ahead = True
    # classic swarms per block: None reads MULTIWALK_PSO_SWARMS_PER_BLOCK (unset: the automatic
    # choice, choose_swarms_per_block); 1 keeps a block per swarm (the unpacked kernels); k > 1 packs k
    # where they fit in PACKED_MAX_BLOCK threads. Packed or not, the same numbers.
    swarms_per_block: ClassVar[int | str | None] = None
    # lanes per particle: None reads MULTIWALK_PSO_LANES (unset: choose_lanes, falling back to fewer
    # lanes where a swarm's blocks would not all be resident); 1 a thread per particle; 2, 4 or 8
    # forced (ordinary launches only: a tuning grid or packed blocks keep 1; SPSO only where
    # _spso_lanes allows). The same numbers.
    lanes: ClassVar[int | str | None] = None
    # pso_classic: the v of at most this many warps of a block in shared memory beside x
    # (V_WARPS_SHIFT, pso_classic_vwarps; None: as many as fit, 0: none)
    v_warps: ClassVar[int | None] = None

    def set_groups(self, groups: int, values: dict, target: float | None = None) -> None:
        if self.params.variant != "classic":
            # every per-group parameter is classic's; SPSO's kernel keys one run per launch
            raise ValueError("the cuda engine runs grids of classic PSO only")
        super().set_groups(groups, values, target)

    def bytes_needed(self, n: int) -> int:
        d, item = self.problem.dim, self.dtype.itemsize
        per_particle = (3 * d + 2) * item  # X, V, P (d, n), f, Pf
        one = False  # the one-barrier kernel possible: PR twice
        if self.params.variant == "spso2011":
            # Z: the normals, and G - x where _tc_rows; none where the redraw kernel draws them again
            rows = 2 if self._tc_rows(n) else 0 if self._redraw_sure(n) else 1
            pr = pr_row(d) if self._pr_rows() else 0
            # wherever pso_spso_redraw_one may run (its shape is not known yet), PR's second buffer;
            # where pso_spso may run instead, Z too (one of them is never allocated). Not where the
            # redraw kernels are turned off (redraw False): pso_spso then runs, with one buffer
            one = bool(pr) and self.redraw is not False and not self._tc_rows(n) and self._one_barrier_fits(n)
            # informant keys (up to 32 bytes: two sets of double's two words, or the one-barrier
            # kernel's three of float's one), pending flag, Z, PR
            per_particle += 33 + (rows * d + (2 if one else 1) * pr) * item
        # exchange partials (2 x blocks x d: at most one block per 32 particles, or per 8 with lanes,
        # which only few particles get: never more blocks than are resident at once) and per-swarm arrays
        blocks = max(n // 32, min(n // 8, 8192)) + 1
        tiles = (pr_particles(n) - n) * pr_row(d) * item if self.params.variant == "spso2011" else 0  # PR's last tile
        tiles *= 2 if one else 1
        # per swarm: best, epoch, redraw flag, and the one-barrier kernel's three words
        return n * per_particle + tiles + blocks * 2 * (d + 2) * item + self.params.swarms * 56

    tc_rows: bool | None = None  # None: choose by size (_tc_rows); True / False force it (tests, benches)

    def _tc_rows(self, n: int | None = None) -> bool:
        """SPSO: whether the move's first pass stores G - x for its second (d more rows of Z: kernel
        pso_spso_rows) instead of the second gathering the informant's point again (pso_spso).
        Where X, V, P and Z with those rows
        take at most half the L2 cache: H100, rastrigin 30-D float32, one swarm: 16,384 and 1,024
        particles +15% (756 -> 868 M/s, 50.3 -> 57.8 M/s), 131,072 -6% (1.73 -> 1.63 G/s: 78 MB of
        rows, past the 50 MB L2, where the gathers hit L2 anyway). Same numbers either way."""
        if self.tc_rows is not None:
            return bool(self.tc_rows)
        n = self.total_walkers() if n is None else int(n)
        return 5 * self.problem.dim * n * self.dtype.itemsize <= l2_cache_bytes(self.xp) // 2

    redraw: bool | None = None  # None: choose by where p lives and the L2 (_redraw); True / False force it (tests, benches)

    def _redraw(self, flags: int) -> bool:
        """SPSO where pso_spso would run: whether pso_spso_redraw runs instead, whose first pass takes p
        from the particle's PR row and leaves w v + (G - x) in v's place, and whose second draws the
        normals again instead of reading Z (no Z, no second gather of the informant's point, no P
        read). Where p is not in shared memory (flags) and pso_spso's V, P, Z and PR rows pass 3/4 of
        the L2 cache, float. H100 (50 MiB L2), rastrigin 30-D float32, one swarm, x alone shared
        (notes-gpu.md v22): 131,072 1.94-1.96 -> 2.28-2.29 G/s, 98,304 (0.92 of the L2) 1.88-1.89
        -> 2.27; 65,536 (0.61) 2.05-2.13 -> 1.95-1.96, its rows in the L2 so that the normals made
        twice cost more than Z's traffic saved. Sizes in between and double not measured (double's
        kernels spill). The same numbers either way."""
        if not self._redraw_offsets_fit():
            return False
        if self.redraw is not None:
            return bool(self.redraw)
        d, item = self.problem.dim, self.dtype.itemsize
        rows = (3 * d + pr_row(d)) * self.total_walkers() * item
        return item == 4 and not flags & P_SHARED and rows > 3 * l2_cache_bytes(self.xp) // 4

    def _redraw_offsets_fit(self) -> bool:
        """Whether pso_spso_redraw's 32-bit offsets reach every element it addresses by them: v's
        (coordinate j at j times a stride of at most n) and PR's 16-byte chunks (pso_pr). From 2^32
        (a run's 2^24 particles at d = 253 or more) pso_spso runs, with the same numbers."""
        d = self.problem.dim
        return max(d, pr_row(d)) * pr_particles(self.total_walkers()) < 2**32

    def _redraw_sure(self, n: int) -> bool:
        """For bytes_needed, before the launch shape is known: whether pso_spso_redraw (no Z) runs.
        _redraw's rule with p not in shared memory, which is certain where one swarm's x, v and p
        would not fit the device's shared memory together (a swarm's blocks are all resident at
        once; several swarms may share a launch or take several: 131,072 float particles at d = 30
        in one swarm, 47 MB against an H100's 29 MB); elsewhere Z is counted, as pso_spso may run."""
        if not self._pr_rows() or self._tc_rows(n):
            return False  # the *_local or rows kernels: never the redraw kernel
        if not self._redraw_offsets_fit():
            return False
        if self.redraw is not None:
            return bool(self.redraw)
        state = 3 * self.problem.dim * int(self.params.walkers) * self.dtype.itemsize
        return state > multiprocessors() * shared_per_multiprocessor() and self._redraw(0)

    # --- launch shape ----------------------------------------------------------------------------
    pr_rows: bool | None = None  # None: choose by the swarm's blocks (_pr_rows); True / False force it (tests)

    def _pr_rows(self) -> bool:
        """SPSO: whether the move gathers informants from PR, the personal bests copied by particle
        (one load per Philox block of coordinates), or from P's columns (a load per coordinate, the
        *_local kernels). PR for swarms of more than a block's particles: H100, rastrigin 30-D
        float32, one swarm: 131,072 +13%, 16,384 +34%, 1,024 +24% (1.72 -> 1.94 G/s, 865 M -> 1.16
        G/s, 57 -> 71 M/s); in a swarm of at most 256 a warp's informants are among few particles,
        whose column loads share sectors, and PR lost (512 swarms of 256: 2.93 -> 2.50 G/s; sizes
        in between not measured). Same numbers either way."""
        if self.pr_rows is not None:
            return bool(self.pr_rows)
        return int(self.params.walkers) > MAX_BLOCK

    def _kernel_name(self, packed: bool = False, lanes: int = 1) -> str:
        if self.params.variant != "classic":
            if lanes > 1:
                return "pso_spso_rows_lanes"  # only where _spso_lanes allows it
            name = "pso_spso_rows" if self._tc_rows() else "pso_spso"
            return name if self._pr_rows() else name + "_local"
        if lanes > 1:
            return "pso_classic_lanes"
        name = "pso_classic" if self._group_values is None else "pso_classic_grid"  # a tuning grid
        return name + ("_packed" if packed else "")

    def _tagged_slots(self) -> bool:
        """Whether the launch's exchange goes through tagged slots behind a relaxed count (classic
        PSO, SPSO's lanes kernel) rather than SPSO's partials behind a barrier."""
        return self.params.variant == "classic" or self._launch.kernel == "pso_spso_rows_lanes"

    one_barrier: bool | None = None  # None: by the L2 (_one_barrier_fits); True / False force it (tests, benches)

    def _one_barrier_fits(self, n: int | None = None) -> bool:
        """Where pso_spso_redraw would run (float): whether pso_spso_redraw_one runs instead, which
        meets the swarm's blocks once an iteration instead of twice (kernels/particle_swarm.cu,
        pso_spso_run's ONE) at the cost of a second key set by iteration parity, a third for a
        mispredicted redraw decision, and PR rows moved through a second buffer: where X, V, P and PR
        take at most ONE_BARRIER_L2 L2 caches. H100 (50 MiB L2), rastrigin 30-D float32, one swarm
        (notes-gpu.md v31), against pso_spso_redraw in the same process: 98,304 particles (0.92 of
        the L2) 3.27-3.28 -> 3.68-3.69 G/s, 114,688 (1.07) 3.52-3.54 -> 3.60, 131,072 (1.22)
        3.86-3.87 -> 3.87-3.88; 131,072 at d = 40 (1.6) level, at d = 45 (1.83) 1.85-1.86 -> 1.79.
        With each thread's scatter right after its move (v32) 131,072 made 3.99-4.01 against the
        v31 kernel's 3.86 (seed 1) and 114,688 3.73-3.77 against 3.59 (the bench at 131,072, seeds
        0 / 1 / 2: 4.10 / 4.03 / 4.06 G/s). The same numbers either way."""
        if self.dtype.itemsize != 4:
            return False
        if self.one_barrier is not None:
            return bool(self.one_barrier)
        d = self.problem.dim
        n = self.total_walkers() if n is None else int(n)
        return (3 * d + pr_row(d)) * n * self.dtype.itemsize <= ONE_BARRIER_L2 * l2_cache_bytes(self.xp)

    def _one_barrier(self) -> bool:
        """Whether the launch's SPSO kernel meets its blocks once an iteration (pso_spso_redraw_one:
        pso_spso_run's ONE), reading its keys from three global sets (by iteration parity, and
        one for the links scattered again where the redraw decision was not the predicted one), its
        swarm's best from three words a swarm after them, and its informants' rows from two buffers
        of PR."""
        return self._launch.kernel == "pso_spso_redraw_one"

    def _spso_lanes(self) -> bool:
        """SPSO: whether lanes are possible. The laned kernel (pso_spso_rows_lanes) keeps G - x and
        gathers informants from PR, so only where pso_spso_rows would run: swarms of more than a
        block (_pr_rows) whose rows stay in L2 (_tc_rows), which is where particles are few anyway."""
        return self._tc_rows() and self._pr_rows()

    def _lane_choices(self, spb: int) -> list[int]:
        """Lanes per particle to try, most first (the launch shape takes the first whose swarm is
        resident, 1 always): [1] for a tuning grid, packed blocks or SPSO where _spso_lanes refuses;
        else as asked (lanes, the environment) or choose_lanes' choice and the fewer ones below it
        (SPSO in double: 1 unless asked)."""
        spso = self.params.variant != "classic"
        if self._group_values is not None or spb > 1 or (spso and not self._spso_lanes()):
            return [1]
        asked = requested_lanes(self.lanes if self.lanes is not None else os.environ.get(LANES_ENV))
        if asked is not None:
            return [asked]
        if spso and self.dtype.itemsize != 4:
            # measured in float only; in double pso_spso_rows_lanes spills (ptxas: 60/176 bytes at
            # 128 registers, rastrigin): the same run, forced lanes only
            return [1]
        p, d = self.params, self.problem.dim
        # coordinates per Philox block of the move: classic r_p and r_g pairs, SPSO normals
        item = self.dtype.itemsize
        per_block = ((4 if item == 4 else 2) if spso else CLASSIC_PER_BLOCK[item])
        most = choose_lanes(int(p.walkers) * int(p.swarms), multiprocessors(), -(-d // per_block))
        return [k for k in LANE_COUNTS if k <= most][::-1]

    def _swarms_per_block(self, m: int, swarms: int, per_group: int) -> int:
        """Classic swarms per block: 1 unless each swarm takes one block (per_group 1) and two or
        more fit in PACKED_MAX_BLOCK threads; then as asked (swarms_per_block, the environment)
        within that, or choose_swarms_per_block's."""
        most = PACKED_MAX_BLOCK // m
        if self.params.variant != "classic" or per_group != 1 or most < 2:
            return 1
        asked = requested_swarms_per_block(
            self.swarms_per_block if self.swarms_per_block is not None else os.environ.get(SWARMS_PER_BLOCK_ENV))
        if asked is not None:
            return max(1, min(asked, most, swarms))
        return choose_swarms_per_block(m, swarms, multiprocessors())

    def _launch_shape(self) -> _Launch:
        """Block shape, lanes per particle, and which own-particle arrays stay in shared memory for
        a whole launch."""
        m, swarms = int(self.params.walkers), int(self.params.swarms)
        block, per_group = spread(m, swarms, min(int(self.block), MAX_BLOCK))
        spb = self._swarms_per_block(m, swarms, per_group)
        choices = self._lane_choices(spb)
        for lanes in choices:
            launch = self._shape_with(lanes, spb)
            shape = launch.shape
            if lanes == choices[-1] or shape.per_group == 1 or shape.per_group * shape.block >= m * lanes:
                return launch  # a swarm's blocks all resident: each particle its own lanes
        raise AssertionError("unreachable: the last choice is returned")

    def _shape_with(self, lanes: int, spb: int, wide_redraw: bool = False) -> _Launch | None:
        """The launch shape with `lanes` lanes per particle (threads m * lanes per swarm).
        wide_redraw: pso_spso_redraw's in blocks of up to classic_block_cap, or None where that
        shape would not run it."""
        p, d, item = self.params, self.problem.dim, self.dtype.itemsize
        m, swarms = int(p.walkers), int(p.swarms)
        name = "pso_spso_redraw" if wide_redraw else self._kernel_name(spb > 1, lanes)
        shared_max = SHARED_MAX
        if lanes > 1:
            cap = LANES_MAX_BLOCK
        elif wide_redraw or (name == "pso_classic" and int(self.block) >= MAX_BLOCK
                             and m > classic_block_cap(shared_optin())):
            # a swarm that needs several blocks even of the larger size: the same threads in fewer
            # blocks. One that would fit a single larger block keeps several of 256, which spread
            # over more multiprocessors where swarms are many (100 of 1,000: 400 blocks, not 100)
            cap = classic_block_cap(shared_optin())
            shared_max = SHARED_MAX * cap // MAX_BLOCK  # capped below where blocks come out smaller
        else:
            cap = min(int(self.block), MAX_BLOCK)
        block, per_group = spread(m * lanes, swarms, cap)
        if spb > 1:  # spb swarms on consecutive threads of one block, whole warps
            block = -(-spb * m // WARP) * WARP
        shared_max = min(shared_max, SHARED_MAX * max(block, MAX_BLOCK) // MAX_BLOCK)
        kernel = self.kernels.get(name)
        rows = block // lanes  # particles per block: the width of the shared x, v, p rows
        keys_shared = p.variant == "spso2011" and per_group == 1
        blocks = -(-swarms // spb)  # with a block per swarm or packed (per_group 1)

        # lanes: the next move's Philox blocks (r_p, r_g of C coordinates each), drawn during the
        # exchange by warps 1.. (+ 15 bytes to align them)
        per_block = CLASSIC_PER_BLOCK[item]
        draws = rows * -(-d // per_block) * 16 + 15 if (
            name == "pso_classic_lanes" and block > WARP and self.draws_ahead) else 0

        def shared(flags: int) -> int:
            keys = m * 8 * (2 if item == 8 else 1) if keys_shared else 0
            # packed: the segmented argmin's scratch (an index and a value per thread, a best per
            # swarm) and a best point per swarm (pso_classic_run's layout)
            scratch = block * (8 + item) + spb * PACKED_SCRATCH if spb > 1 else 0
            return (keys + scratch + spb * d * item + bin(flags & 7).count("1") * rows * d * item
                    + (draws if flags & DRAWS_SHARED else 0))

        flags, resident, fewest = 0, 0, None
        # each place of the state with the draws first, then without: the state's place is the
        # choice, the draws come on top of shared_max where the block may have them (the residency
        # is checked below either way)
        choices = [c for base in SHARED_CHOICES for c in ((base | DRAWS_SHARED, base) if draws else (base,))]
        # what a block may have beside the kernel's static shared memory (shared_optin counts both;
        # pso_classic_lanes has ~850 bytes of its own): the draws may come within a few hundred
        # bytes of the opt-in (16,384 float particles at d = 226), where the launch would fail
        optin = shared_optin() - max(STATIC_MARGIN, int(getattr(kernel, "shared_size_bytes", 0)))
        for choice in choices:
            if choice and (shared(choice) - (draws if choice & DRAWS_SHARED else 0) > shared_max
                           or shared(choice) > optin):
                continue
            allow_shared(kernel, shared(choice))
            if per_group == 1:
                # a block per swarm, blocks independent: the most shared memory that still runs the
                # fewest waves of blocks (a later wave waits for a whole launch of iterations; many
                # swarms, a tuning grid's 2,048, do not all fit with x, v and p shared)
                waves = -(-blocks // max(1, resident_blocks(kernel, block, shared(choice))))
                if fewest is None or waves < fewest:
                    flags, fewest = choice, waves
                if waves == 1:
                    break
                continue
            resident = resident_blocks(kernel, block, shared(choice))
            if per_group <= resident or not choice:
                flags = choice
                break
        shape = group_shape(m * lanes, swarms, block, per_group, resident)
        if shape.per_group * shape.block < m * lanes:  # threads own several particles: state stays global
            flags = 0
        nbytes = shared(flags)
        if wide_redraw and not self._redraw(flags):
            return None
        if name == "pso_spso" and self._redraw(flags):
            # the same parameters and shared memory, so the same blocks stay resident; and as
            # pso_classic, a swarm of several blocks even of the larger size in blocks of up to
            # classic_block_cap (its launch bounds), 4x fewer arrivals at each barrier, where that
            # leaves no multiprocessor more threads than these blocks do (98,304: 96 blocks of
            # 1,024 against 384 of 256, three a multiprocessor). H100, rastrigin 30-D float32,
            # 131,072 (notes-gpu.md v24): 2.41-2.43 -> 2.66-2.68 G/s, the same numbers
            if int(self.block) >= MAX_BLOCK and m > classic_block_cap(shared_optin()):
                wide = self._shape_with(lanes, spb, wide_redraw=True)
                if wide is not None and _busiest(wide.shape) <= _busiest(shape):
                    return wide
            name = "pso_spso_redraw"
        if name == "pso_spso_redraw" and not flags & X_SHARED:
            # its x through shared addresses is a template parameter (pso_spso_run's XSH): where x is
            # not in shared memory, the kernel with generic pointers
            name = "pso_spso_redraw_global"
        if name == "pso_spso_redraw" and self._one_barrier_fits():
            name = "pso_spso_redraw_one"
        warps, name = self._v_warps(name, flags, shape, nbytes, optin)
        # every thread's v: its own flag; some warps': their count in the bits above
        flags |= V_SHARED if warps * WARP == block else warps << V_WARPS_SHIFT
        nbytes += warps * WARP * d * item
        allow_shared(self.kernels.get(name), nbytes)
        return _Launch(shape, flags, keys_shared, nbytes, name, spb, lanes)

    def _v_warps(self, name: str, flags: int, shape, nbytes: int, optin: int) -> tuple[int, str]:
        """How many of a pso_classic or pso_spso_redraw block's warps keep their v in shared memory
        beside x, and the kernel that runs them: the most that fit `optin` while the swarm's blocks
        all stay resident (and for pso_spso_redraw leave L1 REDRAW_L1_KEPT), for a swarm spread over
        blocks of at least V_WARPS_MIN_BLOCK threads; some warps run pso_classic_vwarps (classic) or
        pso_spso_redraw with their count in flags, all of them the kernel with V_SHARED, none leave
        `name` as it is."""
        redraw = name in ("pso_spso_redraw", "pso_spso_redraw_one")
        if ((name != "pso_classic" and not redraw) or flags != X_SHARED or self.v_warps == 0
                or shape.per_group == 1 or shape.block < (MAX_BLOCK if redraw else V_WARPS_MIN_BLOCK)):
            return 0, name
        row = WARP * self.problem.dim * self.dtype.itemsize  # a warp's v
        every = shape.block // WARP
        most = min(every, (optin - nbytes) // row)
        if redraw:  # L1 keeps REDRAW_L1_KEPT of the multiprocessor's shared memory for the rows
            per_sm = max(1, _busiest(shape) // shape.block)
            static = int(getattr(self.kernels.get(name), "shared_size_bytes", 0))
            room = (shared_per_multiprocessor() - REDRAW_L1_KEPT) // per_sm - reserved_shared() - static - nbytes
            most = min(most, max(0, room // row))
        if self.v_warps is not None:
            most = min(most, int(self.v_warps))
        for warps in range(most, 0, -1):
            runs = name if warps == every or redraw else "pso_classic_vwarps"
            kernel = self.kernels.get(runs)
            allow_shared(kernel, nbytes + warps * row)
            if resident_blocks(kernel, shape.block, nbytes + warps * row) >= shape.per_group:
                return warps, runs
        return 0, name

    # --- init and step ---------------------------------------------------------------------------
    def init(self, rng) -> ParticleSwarmCudaState:
        xp, p, d = self.xp, self.params, self.problem.dim
        n, swarms = self.total_walkers(), int(p.swarms)
        self.require_memory(self.bytes_needed(n))
        self._launch = self._launch_shape()
        shape = self._launch.shape
        grid = shape.groups_per_launch * shape.per_group
        with allocation_guard(xp):
            state = ParticleSwarmCudaState(
                X=None, f=xp.empty(n, dtype=self.dtype), best_x=None, best_f=None,
                XT=xp.empty((d, n), dtype=self.dtype), seed=self.seed_key(rng),
                VT=xp.empty((d, n), dtype=self.dtype), PT=xp.empty((d, n), dtype=self.dtype),
                Pf=xp.empty(n, dtype=self.dtype), swarm_best_f=xp.empty(swarms, dtype=self.dtype),
                swarm_best_i=xp.empty(swarms, dtype=np.int64))
            if p.variant == "spso2011":
                state.epochs = xp.full(swarms, -1, dtype=np.int64)
                state.redrawn = xp.ones(swarms, dtype=np.uint8)
                # float a packed key a particle, double a value and an index; the lanes kernel two
                # sets, by iteration parity (its exchange has no fence: pso_spso_run), the one-barrier
                # kernel three, global even for a swarm of one block, and after them three words a
                # swarm (its best after iterations 0, 1, 2 mod 3)
                one = self._one_barrier()
                sets = 3 if one else 2 if self._tagged_slots() else 1
                words = sets * n * (2 if self.dtype.itemsize == 8 else 1) + (3 * swarms if one else 0)
                shared_keys = self._launch.keys_shared and not one
                state.keys = xp.full(1 if shared_keys else words, ~np.uint64(0), dtype=np.uint64)
                state.pending = xp.zeros(n, dtype=np.uint8)
                # the normals (and G - x where stored) between the passes; none where drawn again
                kernel = self._launch.kernel
                rows = 0 if kernel.startswith("pso_spso_redraw") else 2 if kernel.startswith("pso_spso_rows") else 1
                state.ZT = xp.empty((rows * d, n) if rows else 1, dtype=self.dtype)
                # zeros: the padding is loaded, never used; the *_local kernels take no PR. Whole
                # tiles of 32 particles (pso_spso_redraw's layout, kernels/particle_swarm.cu pso_pr);
                # the one-barrier kernel two buffers of them
                buffers = 2 if one else 1
                state.PR = xp.zeros((buffers * pr_particles(n), pr_row(d)) if self._pr_rows() else 1, dtype=self.dtype)
                state.links = _Links(self, state)
            self.tracker = self.new_best(parts=max(REDUCE_BLOCKS, grid))
            self._bars = xp.zeros(shape.groups_per_launch, dtype=np.uint64)  # barrier arrival counters
            parts = 2 * grid if shape.per_group > 1 else 1
            classic, tagged = p.variant == "classic", self._tagged_slots()
            # SPSO's partials (value, index) behind its barrier (pso_exchange_fenced); the tagged
            # slots of classic's and SPSO's lanes' exchanges (pso_exchange_tagged, _counted), 16
            # bytes a block and parity, and classic's points, one 8-byte word a coordinate (float:
            # the coordinate and its tag), both zeroed before each launch (tags count a launch's
            # exchanges from 1, so a word left by the last launch never passes)
            self._gpart_f = xp.empty(1 if tagged else parts, dtype=self.dtype)
            self._gpart_i = xp.empty(1 if tagged else parts, dtype=np.int64)
            self._gslots = xp.zeros(parts * 4 if tagged else 1, dtype=np.uint32)
            self._gpart_x = xp.zeros(parts * d if classic and shape.per_group > 1 else 1, dtype=np.uint64)
            self.bind_groups(rng)
        state.X, state.V, state.P = state.XT.T, state.VT.T, state.PT.T
        self.link_best(state, self.tracker)
        self.launch("pso_init", n, state.XT, state.VT, state.PT, state.f, state.Pf, self.lower, self.upper,
                    np.int64(n), np.int32(d), np.uint64(state.seed), np.int64(self.walker0),
                    np.int32(p.variant == "classic"),
                    *self.group_args(values=False))
        counted = self.cap_values(state, state.f)
        if counted < n:  # max_evals below the swarm: the uncounted particles have no best yet
            state.Pf[...] = state.f  # the kernel wrote Pf = f; cap_values set those to +inf in f
        state.evals += counted
        self.reduce_best(self.tracker, state.Pf, state.PT)
        grouped = state.Pf.reshape(swarms, -1)
        local = xp.argmin(grouped, axis=1)
        state.swarm_best_i[...] = xp.arange(swarms, dtype=np.int64) * int(p.walkers) + local
        state.swarm_best_f[...] = state.Pf[state.swarm_best_i]
        self.fold_group_best(state, state.swarm_best_f)
        return state

    def step(self, state: ParticleSwarmCudaState, iterations: int) -> None:
        per_run = self.group_walkers()
        full, last = self.capped_iterations(state, int(iterations), per_run)
        if full:
            self._launch_iterations(state, full, per_run)
        if last is not None:  # max_evals: the last iteration made by the first `last` particles (of each run) only
            self._launch_iterations(state, 1, last)
        self.fold_group_best(state, state.swarm_best_f)

    def _launch_iterations(self, state: ParticleSwarmCudaState, iterations: int, last_active: int) -> None:
        p, d, n = self.params, self.problem.dim, self.total_walkers()
        launch = self._launch
        shape = launch.shape
        kernel = self.kernels.get(launch.kernel)
        common = (np.int64(n), np.int32(p.walkers), np.int32(d))
        classic = p.variant == "classic"
        for first, count in shape.launches(int(p.swarms)):
            where = (np.uint64(state.seed), np.int64(self.walker0), np.int64(state.iteration),
                     np.int32(iterations), np.int64(last_active))
            if classic:
                args = (state.XT, state.VT, state.PT, state.f, state.Pf, state.swarm_best_f,
                        state.swarm_best_i, self.lower, self.upper, *common, np.int64(first),
                        np.int32(shape.per_group), np.int32(launch.spb), np.int32(launch.lanes), *where,
                        self.scalar(p.omega), self.scalar(p.phi_p), self.scalar(p.phi_g),
                        self.scalar(p.lr), np.int32(launch.flags), self._gslots, self._gpart_x, self._bars,
                        *self.tracker.args(), *self.group_args())
            else:
                args = (state.XT, state.VT, state.PT, state.f, state.Pf, state.swarm_best_f,
                        state.swarm_best_i, state.epochs, state.redrawn, state.keys, state.pending, state.ZT,
                        state.PR, self.lower,
                        self.upper, *common, np.int64(first), np.int32(shape.per_group), np.int32(launch.lanes),
                        *where,
                        np.int32(p.informants), np.int32(launch.flags),
                        np.int32(launch.keys_shared), self._gpart_f, self._gpart_i, self._gslots, self._bars,
                        *self.tracker.args())
            if shape.per_group > 1:
                # the barrier counters only grow within a launch; the slots' tags restart at 1
                self._bars.fill(0)
                if self._tagged_slots():
                    self._gslots.fill(0)
                if classic:
                    self._gpart_x.fill(0)
            kernel((launch.blocks(count),), (shape.block,), args, shared_mem=launch.shared_bytes)
        state.evals += n * (iterations - 1) + last_active * self.groups  # last_active: per run
        state.iteration += iterations

    # --- snapshots -------------------------------------------------------------------------------
    def links_of(self, state: ParticleSwarmCudaState, ids):
        """(k, K) indices (this object's, as `ids`): the particles each of `ids` informs, as the
        kernel draws them (keyed by walker0 + id in a shard of a split run)."""
        xp, p = self.xp, self.params
        idx = xp.asarray(np.asarray(ids.get() if hasattr(ids, "get") else ids, dtype=np.int64).reshape(-1))
        k = int(idx.shape[0])
        out = xp.empty((k, int(p.informants)), dtype=np.int64)
        if k:
            self.launch("pso_links", k, idx, np.int32(k), np.int32(p.informants), np.int32(p.walkers),
                        np.uint64(state.seed), np.int64(self.walker0), state.epochs, out)
        return out
