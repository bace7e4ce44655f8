#!/usr/bin/env bash
# Issue 15's one-run target on a machine with 2 GPUs: pattern search and SA async (rastrigin 30-D,
# float32, 2^22 walkers) on the cuda engine, each measured on one GPU and split over every GPU in
# the same benchmark run (main.py bench --devices all); the ratio lines say whether 2 GPUs reach
# >= 1.9x the rate of one. A 2-shard run on GPU 0 alone (--devices 0,0) is measured too: it shows
# the cost of the split itself (threads, merging) without a second device.
# Differential evolution, split by whole populations, is measured with 2 x 64 populations of 4,096
# (of 1,024 at 20 iterations a timed step lasts 0.8 ms and the split ran slower: 0.64x).
# Files go to $OUT (or /tmp): devices-env.txt, devices-bench.json/.md, devices-bench-{sa,de,pso}.json/.md,
# devices-bench-0-0.json/.md.
# Particle swarm, split by whole swarms, likewise with 2 x 64 swarms of 4,096 (classic and SPSO-2011).
# SA async is timed over SA_ITERATIONS (default 1,000) iterations: at 200 a timed step of 2^22 chains
# lasts ~70 ms and the split reached 1.88x on 2 x H200 (1.57x at 20).
# Usage: scripts/devices_scaling.sh [WALKERS]
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
DEST=${OUT:-/tmp}
WALKERS=${1:-4194304}
export CUPY_CACHE_DIR="${CUPY_CACHE_DIR:-/tmp/multiwalk-cupy-cache}"
{ date -u; nvidia-smi -L 2>&1; nvidia-smi topo -m 2>&1 || true; } > "$DEST/devices-env.txt"
cat "$DEST/devices-env.txt"
# 200 iterations: a timed step of SA async at 2^22 chains and 20 iterations lasts 7 ms, too short for
# the split's per-chunk cost (1.57x at 20 iterations, 1.88x at 200 on 2 x H200)
common=(bench -f rastrigin -d 30 -n "$WALKERS" -i "${ITERATIONS:-200}" --precision float32 --engines cuda --repeats 5)
gpus=$("$PY" -c "from solvers.engines import get_engine; print(get_engine('cuda').device_count())")
if [[ "$gpus" -lt 2 ]]; then
  echo "devices_scaling: $gpus GPU(s) here; the 2-GPU ratio needs a machine with two (only the 0,0 split runs)"
else
  "$PY" main.py "${common[@]}" -a pattern_search --devices all \
    --json "$DEST/devices-bench.json" --md "$DEST/devices-bench.md"
  "$PY" main.py bench -f rastrigin -d 30 -n "$WALKERS" -i "${SA_ITERATIONS:-1000}" --precision float32 --engines cuda \
    --repeats 5 -a simulated_annealing --variant async --devices all \
    --json "$DEST/devices-bench-sa.json" --md "$DEST/devices-bench-sa.md"
  # PSO split by whole swarms: 2 x 64 swarms of PSO_WALKERS particles, both variants
  "$PY" main.py bench -f rastrigin -d 30 -n "${PSO_WALKERS:-4096}" -i "${ITERATIONS:-200}" --precision float32 --engines cuda \
    --repeats 5 -a particle_swarm --variant classic,spso2011 -p swarms=128 --devices all \
    --json "$DEST/devices-bench-pso.json" --md "$DEST/devices-bench-pso.md"
  # DE split by whole populations: 2 x 64 populations of DE_WALKERS individuals each
  "$PY" main.py bench -f rastrigin -d 30 -n "${DE_WALKERS:-4096}" -i "${ITERATIONS:-200}" --precision float32 --engines cuda \
    --repeats 5 -a differential_evolution -p populations=128 --devices all \
    --json "$DEST/devices-bench-de.json" --md "$DEST/devices-bench-de.md"
fi
"$PY" main.py "${common[@]}" -a pattern_search,simulated_annealing --variant async --devices 0,0 \
  --json "$DEST/devices-bench-0-0.json" --md "$DEST/devices-bench-0-0.md"
