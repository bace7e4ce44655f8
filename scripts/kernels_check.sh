#!/usr/bin/env bash
# Issue 14's GPU check in one call: the GPU tests, then the cuda engine's benchmark suite for this
# tree and, if given, for an earlier tree (before/after rows of one run on one machine), then one
# Nsight Compute look at the slowest kernels where ncu exists.
#
#   scripts/kernels_check.sh OUTDIR [BEFORE_TREE]
#
# Files written (flat, at most 8, so the device tool brings them all back): env.txt, pytest.log,
# after.json, after.md, before.json, before.md, ncu.txt, bench.log.
# TESTS=... narrows the test files (default tests/test_gpu_*.py); SKIP_TESTS=1 skips them; NO_NCU=1
# skips the profile.
set -u -o pipefail

OUTDIR="$(mkdir -p "${1:?usage: kernels_check.sh OUTDIR [BEFORE_TREE]}" && cd "$1" && pwd)"
BEFORE="${2:-}"
[[ -n "$BEFORE" ]] && BEFORE="$(cd "$BEFORE" && pwd)"
PY="${PYTHON:-python3}"
export PYTHONUNBUFFERED=1
export CUPY_CACHE_DIR="${CUPY_CACHE_DIR:-/tmp/multiwalk-cupy-cache}"
cd "$(dirname "$0")/.."
status=0

{
  date -u
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
      --format=csv 2>&1
  "$PY" -c "import numpy, cupy; rt = cupy.cuda.runtime; print('numpy', numpy.__version__, 'cupy', \
cupy.__version__, 'runtime', rt.runtimeGetVersion(), 'driver', rt.driverGetVersion())" 2>&1
  command -v ncu >/dev/null && ncu --version | tail -1
} > "$OUTDIR/env.txt"
cat "$OUTDIR/env.txt"

if [[ -z "${SKIP_TESTS:-}" ]]; then
  echo "== pytest -m gpu"
  timeout "${PYTEST_SECONDS:-260}" "$PY" -m pytest -m gpu ${TESTS:-tests/test_gpu_*.py} -q -rfEs \
      -p no:cacheprovider > "$OUTDIR/pytest.log" 2>&1
  rc=$?
  tail -n 25 "$OUTDIR/pytest.log"
  echo "pytest exit code $rc"
  [[ $rc -ne 0 ]] && status=1
fi

bench_tree() {  # tree tag: the h100 suite on the cuda engine only (numpy/cupy rows are unchanged)
  echo "== bench --suite h100 --engines cuda: $2 ($1)"
  (cd "$1" && timeout "${BENCH_SECONDS:-150}" "$PY" main.py bench --suite h100 --engines cuda \
      --json "$OUTDIR/$2.json" --md "$OUTDIR/$2.md") >> "$OUTDIR/bench.log" 2>&1 || status=1
  grep -E "^- |MET" "$OUTDIR/$2.md" 2>/dev/null | head -n 40
}
[[ -n "$BEFORE" ]] && bench_tree "$BEFORE" before
bench_tree . after

if [[ -z "${NO_NCU:-}" ]] && command -v ncu >/dev/null; then
  echo "== ncu (one launch each, after)"
  sections=(--section SpeedOfLight --section Occupancy --section WarpStateStats
            --section ComputeWorkloadAnalysis --section InstructionStats --section MemoryWorkloadAnalysis)
  for spec in "evaluation_only eo_rounds" "particle_swarm pso_classic" "differential_evolution de_generations"; do
    set -- $spec
    timeout 70 ncu --clock-control none --kernel-name "regex:$2" --launch-skip 1 --launch-count 1 \
        "${sections[@]}" "$PY" main.py bench -a "$1" -f rastrigin -d 30 -n 131072 -i 20 \
        --engines cuda --repeats 1 >> "$OUTDIR/ncu.txt" 2>&1 || echo "ncu on $2 failed" >> "$OUTDIR/ncu.txt"
  done
  grep -E "==PROF==|Duration|Compute \(SM\) Throughput|Memory Throughput|Achieved Occupancy|Issue Slots Busy|Registers Per|Stall|Executed Ipc" \
      "$OUTDIR/ncu.txt" | head -n 60
fi
exit $status
