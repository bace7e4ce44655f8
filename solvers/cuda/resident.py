"""Launch shapes for kernels whose group of blocks meets at a barrier inside one launch.

A particle swarm or a DE population larger than what one block should hold is spread over several
consecutive blocks that synchronise once per iteration through a counter barrier in global memory
(kernels/particle_swarm.cu, kernels/differential_evolution.cu). Such a barrier only works if every
block of the group is running at the same time, so a launch never has more blocks than the device
holds at once (the occupancy query below); groups beyond that go to the next launch (they are
independent), and a group too large for the whole device gives each thread several members.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

WARP = 32


@functools.lru_cache(maxsize=None)
def multiprocessors(device_id: int = 0) -> int:
    import cupy  # noqa: PLC0415

    return int(cupy.cuda.Device(device_id).attributes["MultiProcessorCount"])


def resident_blocks(kernel, block: int, shared_bytes: int) -> int:
    """Blocks of `kernel` (a CuPy RawKernel) that the whole device runs at once with this shape."""
    from cupy.cuda import driver  # noqa: PLC0415

    per_sm = driver.occupancyMaxActiveBlocksPerMultiprocessor(kernel.kernel.ptr, int(block), int(shared_bytes))
    return max(0, int(per_sm)) * multiprocessors()


@functools.lru_cache(maxsize=None)
def shared_optin(device_id: int = 0) -> int:
    """Shared memory a block may use on this device once its kernel opts in (static and dynamic
    together): 227 KB on an H100, 163 KB on an A100, 99 KB on most consumer cards."""
    import cupy  # noqa: PLC0415

    return int(cupy.cuda.Device(device_id).attributes.get("MaxSharedMemoryPerBlockOptin", DEFAULT_SHARED))


@functools.lru_cache(maxsize=None)
def shared_per_multiprocessor(device_id: int = 0) -> int:
    """Shared memory one multiprocessor holds for all its blocks, the most its carveout of the unified
    L1 / shared memory gives (L1 has the rest): 228 KB on an H100, 164 KB on an A100."""
    import cupy  # noqa: PLC0415

    return int(cupy.cuda.Device(device_id).attributes.get("MaxSharedMemoryPerMultiprocessor", DEFAULT_SHARED))


@functools.lru_cache(maxsize=None)
def reserved_shared(device_id: int = 0) -> int:
    """Shared memory the system reserves for each resident block (1 KB since the A100)."""
    import cupy  # noqa: PLC0415

    return int(cupy.cuda.Device(device_id).attributes.get("ReservedSharedMemoryPerBlock", 0))


# Shared memory a block may use without opting in: static and dynamic together (a kernel's default
# limit on dynamic shared memory is this less its static shared memory).
DEFAULT_SHARED = 48 * 1024


def allow_shared(kernel, shared_bytes: int) -> None:
    """Opt a kernel (a CuPy RawKernel) in to `shared_bytes` of dynamic shared memory per block where
    that and its static shared memory pass the default 48 KB (a launch past it fails otherwise: 48 KB
    of dynamic memory in a kernel with 480 bytes of static memory, say)."""
    static = int(getattr(kernel, "shared_size_bytes", 0))
    if shared_bytes + static > DEFAULT_SHARED and kernel.max_dynamic_shared_size_bytes < shared_bytes:
        kernel.max_dynamic_shared_size_bytes = int(shared_bytes)


@dataclass(frozen=True)
class GroupShape:
    """How `groups` groups of `threads` threads each are laid out: a group is `per_group`
    consecutive blocks of `block` threads; one launch covers `groups_per_launch` groups."""

    block: int
    per_group: int
    groups_per_launch: int

    def launches(self, groups: int):
        """(first group, count) of each launch."""
        for first in range(0, groups, self.groups_per_launch):
            yield first, min(self.groups_per_launch, groups - first)


def spread(threads: int, groups: int, block_cap: int, min_block: int = 64) -> tuple[int, int]:
    """(block, blocks per group) for groups of `threads` threads.

    One block per group when it fits; a group spread over several blocks otherwise, and also while
    halving the block still leaves at most half a block per multiprocessor: a lone large group
    (one swarm of 1,024) then runs on 16 multiprocessors instead of waiting on one, where its 32
    warps would take turns on one multiprocessor's four schedulers every iteration.
    """
    cap = max(WARP, block_cap // WARP * WARP)
    block = min(cap, -(-threads // WARP) * WARP)
    per_group = -(-threads // block)
    sms = multiprocessors()
    while block > min_block and groups * per_group * 2 <= sms:
        block = max(WARP, block // 2 // WARP * WARP)  # whole warps: the reductions need them
        per_group = -(-threads // block)
    return block, per_group


def group_shape(threads: int, groups: int, block: int, per_group: int, resident: int) -> GroupShape:
    """Cap a group's blocks at what is resident, and batch groups so every launch is resident."""
    if per_group == 1:
        return GroupShape(block, 1, groups)
    if resident < 1:
        raise RuntimeError("the kernel cannot run a single block of this shape on this device")
    per_group = min(per_group, resident)
    return GroupShape(block, per_group, max(1, resident // per_group))
