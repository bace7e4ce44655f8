#!/usr/bin/env bash
# The GPU check in one call: device and library versions, the GPU tests (pytest -m gpu) and the
# benchmark suite, everything written into one folder.
#
#   scripts/device_check.sh [OUTDIR] [all|tests|bench|quick|gui|gui+bench|gui+tune|tune|records|compare|cpu-scaling] [extra pytest arguments...]
#
# OUTDIR defaults to $OUT (the device tool's folder) or ./device_out. TESTS=... narrows the test
# files (default tests/test_gpu_*.py). "quick" runs the GPU tests
# without the slow ones and the quick bench suite. Files written (at most 8, flat, so the device
# tool brings them all back): env.txt, pytest.log, pytest-junit.xml, bench.log, bench.json, bench.md,
# and in "gui" mode suite-gpu1.log, suite-gpu2.log, suite-rest.log (its two parts one after the other) and gui-bench.md. "records" writes the CPU-side
# records of the GPU host (many cores): numba-baseline.json/.log (issue 13), robustness.md (issue 10,
# 10 seeds in one process per core) and tune-bench.json/.md (issue 12). "cpu-scaling" measures the
# numba engine's thread scaling in this tree and in $BASE (e.g. `git archive bf24954 | tar -x -C
# baseline`, the static split) on the same machine, rounds alternating between the trees:
# cpu-scaling-probe.json and cpu-scaling.log.
# Needs python3 with numpy, pytest and CuPy. The GPU machine has no Qt: "gui" mode (the whole suite,
# window tests included, then scripts/gui_benchmark.py with the GPU engines live) needs the Qt
# pack .device-qt (built by ../shared/tools/device-qt/build.sh, carried by the device tool) and
# sources scripts/device_qt_setup.sh to use it. QT_PACK=... names another folder.
set -u -o pipefail

OUTDIR="${1:-${OUT:-./device_out}}"
MODE="${2:-all}"
shift $(( $# > 2 ? 2 : $# ))
PY="${PYTHON:-python3}"
export PYTHONUNBUFFERED=1
export CUPY_CACHE_DIR="${CUPY_CACHE_DIR:-/tmp/multiwalk-cupy-cache}"
cd "$(dirname "$0")/.."
mkdir -p "$OUTDIR"
OUTDIR="$(cd "$OUTDIR" && pwd)"  # absolute: "compare" runs commands in another tree
status=0

# The device image has no Dask and no pytest-timeout and reaches no package index: wheels carried
# in .whl (py3.12; see README "GPU check") are installed beside it, without their dependencies.
if compgen -G ".whl/*.whl" >/dev/null; then
  "$PY" -m pip install --quiet --no-index --no-deps --target /tmp/multiwalk-site .whl/*.whl >/dev/null 2>&1 \
      || echo "warning: installing the carried wheels failed"
  export PYTHONPATH="/tmp/multiwalk-site${PYTHONPATH:+:$PYTHONPATH}"
fi

{
  echo "== date"; date -u
  echo "== nvidia-smi"; nvidia-smi 2>&1 || echo "nvidia-smi not available"
  echo "== nvcc"; nvcc --version 2>&1 | tail -2 || echo "nvcc not available"
  echo "== python"; "$PY" - <<'EOF'
import platform, sys
print("python", platform.python_version(), sys.executable)
import numpy; print("numpy", numpy.__version__)
try:
    import pytest; print("pytest", pytest.__version__)
except Exception as e: print("pytest missing:", e)
try:
    import cupy
    rt = cupy.cuda.runtime
    v = lambda x: f"{x // 1000}.{x % 1000 // 10}"
    print("cupy", cupy.__version__, "runtime", v(rt.runtimeGetVersion()), "driver", v(rt.driverGetVersion()))
    props = rt.getDeviceProperties(0)
    print("device", props["name"].decode(), "SMs", props["multiProcessorCount"],
          "L2", props["l2CacheSize"] // 2**20, "MiB", "memory", props["totalGlobalMem"] // 2**30, "GiB")
except Exception as e: print("cupy unavailable:", type(e).__name__, e)
sys.path.insert(0, ".")
from solvers.engines import engine_status, list_engines
for e in list_engines(): print("engine", e, engine_status(e))
EOF
} > "$OUTDIR/env.txt" 2>&1
cat "$OUTDIR/env.txt"

if [[ "$MODE" == all || "$MODE" == tests || "$MODE" == quick ]]; then
  marker="gpu"
  [[ "$MODE" == quick ]] && marker="gpu and not slow"
  echo "== pytest -m '$marker' (log: $OUTDIR/pytest.log)"
  per_test=()
  "$PY" -c "import pytest_timeout" 2>/dev/null && per_test=(--timeout=150)  # a hung kernel fails one test
  timeout "${PYTEST_SECONDS:-330}" "$PY" -m pytest -m "$marker" ${TESTS:-tests/test_gpu_*.py} -v -rfEs -p no:cacheprovider \
      --junitxml="$OUTDIR/pytest-junit.xml" "${per_test[@]}" "$@" 2>&1 | tee "$OUTDIR/pytest.log" | grep -E "PASSED|FAILED|ERROR|SKIPPED|passed|failed" | tail -n 80
  rc=${PIPESTATUS[0]}
  echo "pytest exit code $rc"
  [[ $rc -ne 0 ]] && status=1
fi

if [[ "$MODE" == *gui* ]]; then
  pack="${QT_PACK:-.device-qt}"
  if [[ -f "$pack/qt.tar.xz" ]]; then
    # shellcheck source=scripts/device_qt_setup.sh
    PYTHON="$PY" source scripts/device_qt_setup.sh "$pack"
  fi
  if ! "$PY" -c "import PyQt6.QtWidgets, pyqtgraph, pytestqt" 2>/dev/null; then
    echo "no Qt here and no Qt pack in $pack: build it with ../shared/tools/device-qt/build.sh and carry it"
    exit 2
  fi
  export QT_QPA_PLATFORM=offscreen
  # The whole suite as parts run side by side, so that it fits one device call (600 s): the GPU
  # tests in two processes (gpu1: the files below, gpu2: the other GPU tests; one process took 579 s
  # of 585 on an H100 in November 2026, most of it compiling kernels, which is serial in a process),
  # and everything else in two (rest1: tests/test_gui_*.py, most of the window tests; rest2: the
  # others; as one process, "rest", it passed 540 s beside the GPU parts in November 2026).
  # HALVES=gpu runs all GPU tests in one process, HALVES=rest all the others. Each part
  # logs its failures and slowest tests. RUN_SUITE=0 / RUN_GUI_BENCH=0 leave out one part. Verbose
  # (a line a test): a part cut by the device's time still names the tests that failed before the cut.
  # gpu1's files: ~300 of those 579 s (the slowest test durations of that run).
  gpu1_files=(tests/test_budget_defaults.py tests/test_gpu_numba_cap.py tests/test_gpu_pso_lanes.py
              tests/test_gui_tune.py tests/test_study.py tests/test_gpu_functors.py)
  if [[ "${RUN_SUITE:-1}" != 0 ]]; then
  parts="${HALVES:-gpu1 gpu2 rest1 rest2}"
  echo "== the whole suite, window and GPU tests included (logs: suite-{${parts// /,}}.log in $OUTDIR)"
  per_test=()
  "$PY" -c "import pytest_timeout" 2>/dev/null && per_test=(--timeout=150)
  for half in $parts; do
    marker="gpu"; [[ $half == rest* ]] && marker="not gpu"
    files=()
    [[ $half == gpu1 ]] && files=("${gpu1_files[@]}")
    [[ $half == gpu2 ]] && for f in "${gpu1_files[@]}"; do files+=("--ignore=$f"); done
    [[ $half == rest1 ]] && files=(tests/test_gui_*.py)  # most of the window tests
    [[ $half == rest2 ]] && for f in tests/test_gui_*.py; do files+=("--ignore=$f"); done
    timeout "${SUITE_SECONDS:-420}" "$PY" -m pytest -v -rfEs -m "$marker" --durations=25 -p no:cacheprovider \
        "${per_test[@]}" "${files[@]}" "$@" > "$OUTDIR/suite-$half.log" 2>&1 &
  done
  for job in $(jobs -p); do
    wait "$job" || status=1
  done
  for half in $parts; do
    echo "-- $half"; grep -E "^(FAILED|ERROR)|passed|failed|error" "$OUTDIR/suite-$half.log" | tail -n 15
  done
  # one file for the non-GPU parts: the device tool brings back at most 8 ("gui+bench" writes env,
  # gpu1, gpu2, rest, gui-bench and the three bench files)
  if [[ -f "$OUTDIR/suite-rest1.log" && -f "$OUTDIR/suite-rest2.log" ]]; then
    cat "$OUTDIR/suite-rest1.log" "$OUTDIR/suite-rest2.log" > "$OUTDIR/suite-rest.log" \
        && rm "$OUTDIR/suite-rest1.log" "$OUTDIR/suite-rest2.log" \
        && echo "(rest1 and rest2: suite-rest.log)"
  fi
  [[ $status -ne 0 ]] && echo "pytest: a part failed or was cut by SUITE_SECONDS (its log says which)"
  fi
  if [[ "${RUN_GUI_BENCH:-1}" != 0 ]]; then
  echo "== window benchmark with the GPU engines live (file: $OUTDIR/gui-bench.md)"
  timeout "${GUI_BENCH_SECONDS:-300}" "$PY" scripts/gui_benchmark.py --repeat 2 --seconds 6 --out "$OUTDIR/gui-bench.md" 2>&1 | tail -n 40
  [[ ${PIPESTATUS[0]} -ne 0 ]] && status=1
  fi
fi

if [[ "$MODE" == all || "$MODE" == *bench* || "$MODE" == quick ]]; then
  suite="h100"
  [[ "$MODE" == quick ]] && suite="quick"
  echo "== bench --suite $suite (log: $OUTDIR/bench.log)"
  timeout "${BENCH_SECONDS:-200}" "$PY" main.py bench --suite "$suite" --json "$OUTDIR/bench.json" --md "$OUTDIR/bench.md" \
      2>&1 | tee "$OUTDIR/bench.log"
  [[ ${PIPESTATUS[0]} -ne 0 ]] && status=1
  if [[ "$suite" == h100 ]]; then
    # fast math (intrinsics) beside the precise rows: evaluation only and pattern search, cuda only
    echo "== bench, fast math"
    fast=(--engines cuda --fast-math on -n 131072)
    timeout 40 "$PY" main.py bench -a evaluation_only -f rastrigin -d 30 -i 2000 "${fast[@]}" \
        --json /tmp/bench-fast1.json 2>&1 | tee -a "$OUTDIR/bench.log"
    timeout 40 "$PY" main.py bench -a pattern_search -f rastrigin -d 30 -i 40 "${fast[@]}" \
        --json /tmp/bench-fast2.json 2>&1 | tee -a "$OUTDIR/bench.log"
    timeout 40 "$PY" main.py bench -a evaluation_only -f ackley -d 20 -i 2000 "${fast[@]}" \
        --json /tmp/bench-fast3.json 2>&1 | tee -a "$OUTDIR/bench.log"
    # issue 11: rastrigin 30-D and ackley 20-D typed as expressions beside the built-ins (same run;
    # RUN_EXPR=0 leaves them out to fit one call)
    if [[ "${RUN_EXPR:-1}" != 0 ]]; then
    echo "== bench --suite expressions"
    timeout "${EXPR_BENCH_SECONDS:-180}" "$PY" main.py bench --suite expressions --engines numpy,cuda \
        --json /tmp/bench-expr.json 2>&1 | tee -a "$OUTDIR/bench.log"
    fi
    "$PY" - "$OUTDIR" <<'EOF' 2>&1 | tee -a "$OUTDIR/bench.log"
import json, os, sys
sys.path.insert(0, ".")
from solvers.bench import add_ratios, expression_targets, table, targets
out = sys.argv[1]
main = json.load(open(os.path.join(out, "bench.json")))
# ratios within the suite and its fast-math rows (cuda only), and within the expressions suite: that
# one measures built-in rows of the same cases again, and pooled with the suite a cuda row was paired
# with the other command's numpy row
for extra in ("/tmp/bench-fast1.json", "/tmp/bench-fast2.json", "/tmp/bench-fast3.json"):
    if os.path.exists(extra):
        main["records"] += json.load(open(extra))["records"]
add_ratios([r for r in main["records"] if "error" not in r])
if os.path.exists("/tmp/bench-expr.json"):
    records = json.load(open("/tmp/bench-expr.json"))["records"]
    add_ratios([r for r in records if "error" not in r])
    main["records"] += records
main["targets"] = targets(main["records"]) + expression_targets(main["records"])
json.dump(main, open(os.path.join(out, "bench.json"), "w"), indent=1, default=str)
text = table(main["records"]) + "\n\n" + "\n".join(f"- {t}" for t in main["targets"]) + "\n"
open(os.path.join(out, "bench.md"), "w").write(text)
print(text)
EOF
  fi
fi
if [[ "$MODE" == *tune* ]]; then
  # issue 12's grids (PSO, DE, pattern search, SA sync), PSO with the old and the packed mapping
  echo "== tune bench (files: $OUTDIR/tune-bench.json/.md)"
  timeout "${TUNE_SECONDS:-200}" "$PY" scripts/tune_bench.py --serial-sample "${TUNE_SERIAL:-16}" \
      --pso-swarms-per-block 1,auto --out "$OUTDIR" 2>&1 | tail -n 30
  [[ ${PIPESTATUS[0]} -ne 0 ]] && status=1
fi
if [[ "$MODE" == *compare* ]]; then
  # A kernel change against the tree in $BASE (e.g. `git archive <commit> | tar -x -C baseline`):
  # digests of every cuda algorithm's numbers in both trees (must be identical: issue 14's rule),
  # then the benchmark rows of both, one tree after the other on the same GPU. DIGEST_ALGOS narrows
  # the algorithms, DIGEST_JOBS gives each of them that many processes (kernel_digests.py --jobs: the
  # compiles are what take the time), COMPARE_BENCH=0 leaves the benchmark rows out.
  base="${BASE:-baseline}"
  echo "== kernel digests, $base vs this tree (files: $OUTDIR/digests-*.txt)"
  cp scripts/kernel_digests.py "$base/scripts/"  # the same cases in both trees
  algos="${DIGEST_ALGOS:-evaluation_only pattern_search simulated_annealing multidirectional_search particle_swarm differential_evolution}"
  for tree in "$base" .; do
    tag=$([[ $tree == . ]] && echo after || echo before)
    for a in $algos; do
      (cd "$tree" && timeout "${DIGEST_SECONDS:-300}" "$PY" scripts/kernel_digests.py --algorithms "$a" --jobs "${DIGEST_JOBS:-1}" > "/tmp/digest-$tag-$a.txt" 2>&1) &
    done
  done
  wait
  for tag in before after; do
    for a in $algos; do cat "/tmp/digest-$tag-$a.txt"; done > "$OUTDIR/digests-$tag.txt"
  done
  if diff "$OUTDIR/digests-before.txt" "$OUTDIR/digests-after.txt" > /tmp/digest.diff; then
    echo "digests identical: $(wc -l < "$OUTDIR/digests-after.txt") cases"
  else
    echo "DIGESTS DIFFER:"; cat /tmp/digest.diff | head -n 60; status=1
  fi
  grep -c ERROR "$OUTDIR/digests-after.txt" | sed 's/^/cases with an error (after): /'
  if [[ "${COMPARE_BENCH:-1}" != 0 ]]; then
  echo "== bench --suite h100 --engines cuda, both trees (files: $OUTDIR/compare-before/after.json, compare.log)"
  for tree in "$base" .; do
    tag=$([[ $tree == . ]] && echo after || echo before)
    (cd "$tree" && timeout "${COMPARE_SECONDS:-240}" "$PY" main.py bench --suite h100 --engines cuda \
        --json "$OUTDIR/compare-$tag.json") > "/tmp/compare-$tag.log" 2>&1
    [[ $? -ne 0 ]] && status=1
    cat "/tmp/compare-$tag.log" >> "$OUTDIR/compare.log"
    tail -n 45 "/tmp/compare-$tag.log"
  done
  fi
fi
if [[ "$MODE" == cpu-scaling ]]; then
  base="${BASE:-baseline}"
  cp scripts/cpu_scaling.py "$base/scripts/"  # the same measurement in both trees
  echo "== numba thread scaling, this tree and $base alternating (log: $OUTDIR/cpu-scaling.log)"
  "$PY" scripts/cpu_scaling.py --probe-only --out /tmp/cpu-probe > /dev/null 2>&1 \
      && cp /tmp/cpu-probe/cpu-scaling.json "$OUTDIR/cpu-scaling-probe.json"
  for rnd in $(seq "${CPU_ROUNDS:-3}"); do
    for tree in . "$base"; do
      tag=$([[ $tree == . ]] && echo this || echo base)
      (cd "$tree" && timeout "${CPU_SECONDS:-300}" "$PY" scripts/cpu_scaling.py --threads "${CPU_THREADS:-1,8,16}" \
          --out "/tmp/cpu-$tag-$rnd") 2>&1 | grep -E "threads:" | sed "s/^/$tag round $rnd: /" | tee -a "$OUTDIR/cpu-scaling.log"
    done
  done
fi
if [[ "$MODE" == records ]]; then
  echo "== numba baseline (log: $OUTDIR/numba-baseline.log)"
  timeout "${NUMBA_SECONDS:-200}" "$PY" scripts/numba_baseline.py --out "$OUTDIR" > "$OUTDIR/numba-baseline.log" 2>&1
  [[ $? -ne 0 ]] && status=1
  tail -n 30 "$OUTDIR/numba-baseline.log"
  echo "== tune bench"
  timeout "${TUNE_SECONDS:-150}" "$PY" scripts/tune_bench.py --serial-sample "${TUNE_SERIAL:-16}" --out "$OUTDIR" 2>&1 | tail -n 20
  [[ ${PIPESTATUS[0]} -ne 0 ]] && status=1
  echo "== robustness, 10 seeds (file: $OUTDIR/robustness.md)"
  timeout "${ROBUST_SECONDS:-300}" "$PY" scripts/robustness.py --seeds 10 --jobs "$(nproc)" \
      --out "$OUTDIR/robustness.md" 2>&1 | tail -n 14
  [[ ${PIPESTATUS[0]} -ne 0 ]] && status=1
fi
exit $status
