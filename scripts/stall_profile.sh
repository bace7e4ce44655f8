#!/usr/bin/env bash
# Experiment (GPU, Nsight Compute): where the slowest fused kernels stall, instruction by instruction
# (issue 14). For each case, one run's main launch (scripts/profile_launch.py, compiled with
# -lineinfo) profiled with the source counters (warp-state sampling per SASS instruction), then the
# source page as CSV (SASS with its source line) and the details page. Everything goes into
# OUTDIR/stall.tgz (the device tool fetches at most 8 files); scripts/stall_summary.py reads it.
#   bash scripts/stall_profile.sh OUTDIR [case ...]   (cases: pso16k pso131k de131k de512 spso16k spso131k spso65k spso131k-late
#                                                      spso131k-late-s0 spso131k-two-late spso131k-two-late-s0)
# SPSO-2011 at 131,072 runs pso_spso_redraw_one (one grid barrier an iteration) since notes-gpu.md v31;
# the -two cases force pso_spso_redraw, the -s0 cases take the bench's seed (0) instead of 1
set -u
OUTDIR=${1:?usage: stall_profile.sh OUTDIR [case ...]}
shift
WORK=$(mktemp -d)
# the modules' cubins (with their line tables) land in the tarball too: nvdisasm --print-line-info
# maps the CSV's addresses to source lines where ncu cannot show the source itself
export MW_LINEINFO="$WORK/src" PYTHONUNBUFFERED=1 CUPY_CACHE_DIR="$WORK/cache"
command -v ncu >/dev/null || { echo "no ncu on this machine"; exit 1; }
ncu --version | tail -1 > "$WORK/ncu-version.txt"
declare -A KERNEL=([pso16k]=pso_classic_lanes [pso131k]=pso_classic_vwarps [de131k]=de_generations_wide [de512]=de_generations_wide
                   [spso16k]=pso_spso_rows_lanes [spso131k]=pso_spso_redraw_one [spso65k]=pso_spso
                   [spso131k-late]=pso_spso_redraw_one [spso131k-late-s0]=pso_spso_redraw_one
                   [spso131k-two-late]=pso_spso_redraw [spso131k-two-late-s0]=pso_spso_redraw)
declare -A ARGS=([pso16k]="particle_swarm 16384 400 variant=classic swarms=1" [pso131k]="particle_swarm 131072 60 variant=classic swarms=1"
                 [de131k]="differential_evolution 131072 60 populations=1" [de512]="differential_evolution 256 60 populations=512"
                 [spso16k]="particle_swarm 16384 400 variant=spso2011 swarms=1"
                 [spso131k]="particle_swarm 131072 60 variant=spso2011 swarms=1"
                 [spso65k]="particle_swarm 65536 60 variant=spso2011 swarms=1"
                 [spso131k-late]="particle_swarm 131072 100 variant=spso2011 swarms=1 warm=1000"
                 [spso131k-late-s0]="particle_swarm 131072 100 variant=spso2011 swarms=1 warm=1000 seed=0"
                 [spso131k-two-late]="particle_swarm 131072 100 variant=spso2011 swarms=1 warm=1000 one_barrier=0"
                 [spso131k-two-late-s0]="particle_swarm 131072 100 variant=spso2011 swarms=1 warm=1000 one_barrier=0 seed=0")
CASES=("$@")
[[ ${#CASES[@]} -eq 0 ]] && CASES=(pso16k pso131k de131k spso16k spso131k)
for c in "${CASES[@]}"; do
  echo "== $c: ${KERNEL[$c]} (${ARGS[$c]})"
  # the kernel name exactly (pso_spso must not match pso_spso_rows_lanes): mangled names end in "I"
  # before their template arguments
  timeout 300 ncu --profile-from-start off --kernel-name-base mangled --kernel-name "regex:_Z[0-9]+${KERNEL[$c]}I" \
      --launch-count 1 --section SourceCounters --section WarpStateStats --section SchedulerStats \
      --section Occupancy --section LaunchStats --section SpeedOfLight --section MemoryWorkloadAnalysis \
      --import-source no -f -o "$WORK/$c" python3 scripts/profile_launch.py ${ARGS[$c]} > "$WORK/$c.log" 2>&1
  tail -3 "$WORK/$c.log"
  ncu -i "$WORK/$c.ncu-rep" --page source --csv --print-source sass > "$WORK/$c.sass.csv" 2>> "$WORK/$c.log"
  ncu -i "$WORK/$c.ncu-rep" --page details > "$WORK/$c.details.txt" 2>> "$WORK/$c.log"
  grep -E "Duration|Registers Per|Achieved Occupancy|Issued Warp|No Eligible|Warp Cycles Per Issued|L2 Hit|Stall" "$WORK/$c.details.txt" | head -20
  wc -c "$WORK/$c.sass.csv"; head -c 600 "$WORK/$c.sass.csv"; echo
  rm -f "$WORK/$c.ncu-rep"  # large; the CSV and details hold what is read
done
tar -czf "$OUTDIR/stall.tgz" -C "$WORK" .
ls -la "$OUTDIR"
