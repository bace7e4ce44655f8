#!/usr/bin/env bash
# session 22, call 6: the refactored cospi tests; where the lanes kernel's time goes now
export PYTHONUNBUFFERED=1 CUPY_CACHE_DIR=/tmp/cc
timeout 120 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_cospi.py 2>&1 | tail -3 | tee $OUT/cospi.log
timeout 300 bash scripts/stall_profile.sh $OUT spso16k 2>&1 | tail -30
ls $OUT
