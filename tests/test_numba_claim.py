"""The numba engine's parallel loops claim blocks of walkers (solvers/numba/base.py: claim): every
block is taken by exactly one worker, whatever the number of threads and blocks, so no walker is
skipped or moved twice; which worker takes which block is free (the results do not depend on it:
test_numba_engine.py's thread-count tests)."""
from __future__ import annotations

import numba
import numpy as np
import pytest
from numba import njit, prange

from solvers.numba.base import WORKERS, claim, claim_counter


def test_claim_counts_up_from_zero():
    counter = claim_counter()
    assert [claim(counter) for _ in range(4)] == [0, 1, 2, 3]
    assert [claim(claim_counter()) for _ in range(2)] == [0, 0]  # a fresh counter per loop


@njit(parallel=True)
def _cover(blocks, hits, worker_of):
    counter = claim_counter()
    for worker in prange(min(WORKERS, blocks)):
        block = claim(counter)
        while block < blocks:
            hits[block] += 1
            worker_of[block] = worker
            block = claim(counter)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("blocks", [1, 7, 256, 1024, 5000])
def test_every_block_is_claimed_once(threads, blocks):
    before = numba.get_num_threads()
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    try:
        for _ in range(3):
            hits = np.zeros(blocks, dtype=np.int64)
            worker_of = np.full(blocks, -1, dtype=np.int64)
            _cover(blocks, hits, worker_of)
            assert np.all(hits == 1)
            assert worker_of.min() >= 0 and worker_of.max() < min(WORKERS, blocks)
    finally:
        numba.set_num_threads(before)
