#!/usr/bin/env bash
# Issue 15's study target on a machine with 2 GPUs: the pattern-search Table 5 grid (240 cuda runs)
# on the embedded Dask cluster with one GPU worker, then with two; prints both wall times and the
# ratio against solvers/bench_targets.toml's study target. Tables go to $OUT (or /tmp). Usage: scripts/study_gpus.sh [STUDY.json]
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
STUDY=${1:-docs/studies/pattern_search_table5.json}
DEST=${OUT:-/tmp}
# compile every kernel of the study once (CuPy's disk cache), outside the timings: the same grid,
# one seed, one iteration per run
"$PY" - "$STUDY" "$DEST/study_warm.json" <<'PYEOF'
import json, sys
spec = json.load(open(sys.argv[1]))
spec.update(seeds=1, budget={"max_iters": 1}, output="study_warm.csv")
json.dump(spec, open(sys.argv[2], "w"))
PYEOF
rm -f "$DEST/study_warm.csv" "$DEST/study_1gpu.csv" "$DEST/study_2gpu.csv"
"$PY" main.py study "$DEST/study_warm.json" --workers 1 --quiet
t0=$(date +%s.%N)
"$PY" main.py study "$STUDY" --workers 1 --out "$DEST/study_1gpu.csv"
t1=$(date +%s.%N)
"$PY" main.py study "$STUDY" --workers 2 --out "$DEST/study_2gpu.csv"
t2=$(date +%s.%N)
"$PY" - "$t0" "$t1" "$t2" <<'PYEOF'
import sys
sys.path.insert(0, ".")
from solvers.bench import TARGETS
t0, t1, t2 = map(float, sys.argv[1:])
one, two = t1 - t0, t2 - t1
want = TARGETS["study_over_2_devices"]["wall_time_ratio"]
print(f"study wall time: 1 GPU {one:.1f} s, 2 GPUs {two:.1f} s, ratio {one / two:.2f}x "
      f"({'MET' if one / two >= want else 'NOT MET'}: target >= {want}x)")
PYEOF
