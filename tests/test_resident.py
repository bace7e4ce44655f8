"""The cuda engine's launch shaping on the host (solvers/cuda/resident.py), no GPU needed."""
from __future__ import annotations

from solvers.cuda.resident import DEFAULT_SHARED, allow_shared


class FakeKernel:
    """What allow_shared reads and sets of a CuPy RawKernel."""

    def __init__(self, static: int, limit: int):
        self.shared_size_bytes = static
        self.max_dynamic_shared_size_bytes = limit


def test_opts_in_where_static_and_dynamic_memory_pass_the_default():
    # 48 KB of dynamic memory with 480 bytes of static memory pass the default: opted in
    kernel = FakeKernel(static=480, limit=DEFAULT_SHARED - 480)
    allow_shared(kernel, DEFAULT_SHARED)
    assert kernel.max_dynamic_shared_size_bytes == DEFAULT_SHARED
    # within the default: left alone
    small = FakeKernel(static=480, limit=DEFAULT_SHARED - 480)
    allow_shared(small, DEFAULT_SHARED - 480)
    assert small.max_dynamic_shared_size_bytes == DEFAULT_SHARED - 480
    # already opted in to more: never lowered
    big = FakeKernel(static=0, limit=100 * 1024)
    allow_shared(big, 60 * 1024)
    assert big.max_dynamic_shared_size_bytes == 100 * 1024
