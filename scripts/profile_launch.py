"""Experiment (GPU): one algorithm's iteration launch alone, for Nsight Compute (issue 14).

Builds the case on the cuda engine, runs it twice untimed (compilation, allocator, clocks), then
once more between cudaProfilerStart and cudaProfilerStop, so that

    ncu --profile-from-start off [sections] python3 scripts/profile_launch.py ALGORITHM N ITERATIONS [NAME=VALUE ...]

profiles the launches of that run only (the initial draw and one launch of ITERATIONS iterations),
not the benchmark's many one-iteration warm-up launches. rastrigin 30-D float32, precise math.
seed=S (a NAME=VALUE of its own; default 1, the bench's is 0) seeds the runs, and one_barrier=0 or 1
forces SPSO-2011's kernel with one or two grid barriers an iteration (ParticleSwarmCuda.one_barrier;
notes-gpu.md v31: the one-barrier kernel's gain at 131,072 depends on the seed).
warm=K (a NAME=VALUE of its own, not a parameter): the profiled run first takes K iterations
unprofiled, then ITERATIONS profiled, so that the profile shows a run's steady state rather than its
first iterations (SPSO-2011 at 131,072: about half of the particles find a new personal best in each
of the first 10 iterations, about 1% after 500; the benchmark's 2,000 iterations are mostly the latter).
With MW_LINEINFO=DIR the modules are compiled with -lineinfo (SASS mapped to source lines by
Nsight Compute's source page) and each kernel file's whole translation unit is written to DIR, so
that the line numbers can be read.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import os  # noqa: E402

import cupy  # noqa: E402

from kernels import loader  # noqa: E402

from solvers import shards  # noqa: E402
from solvers.bench import solver_class  # noqa: E402
from solvers.engines import get_engine  # noqa: E402
from solvers.params import make_params  # noqa: E402
from solvers.problems import get_problem  # noqa: E402
from solvers.rng import ArrayRNG  # noqa: E402


def main() -> None:
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    algorithm, n, iterations = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    extra = {k: int(v) if v.lstrip("-").isdigit() else v for k, v in (a.split("=", 1) for a in sys.argv[4:])}
    warm = int(extra.pop("warm", 0))
    seed = int(extra.pop("seed", 1))
    if "one_barrier" in extra:
        from solvers.cuda.particle_swarm import ParticleSwarmCuda  # noqa: PLC0415

        ParticleSwarmCuda.one_barrier = bool(int(extra.pop("one_barrier")))
    lineinfo = os.environ.get("MW_LINEINFO")
    if lineinfo:
        loader.BASE_OPTIONS += ("-lineinfo",)
        Path(lineinfo).mkdir(parents=True, exist_ok=True)
        for name in ("particle_swarm.cu", "differential_evolution.cu"):
            (Path(lineinfo) / name).write_text(loader.source(name), encoding="utf-8")
    eng = get_engine("cuda")
    problem = get_problem("rastrigin", 30)
    params = make_params(solver_class(algorithm, "cuda").Params, {"walkers": n, **extra})
    for profiled in (False, False, True):
        algo = shards.build(eng, algorithm, problem, params, "float32", False)
        cupy.cuda.Device().synchronize()
        if profiled and warm:
            state = algo.init_and_step(ArrayRNG(cupy, seed), warm)
            cupy.cuda.Device().synchronize()
            cupy.cuda.profiler.start()
            algo.step(state, iterations)
        else:
            if profiled:
                cupy.cuda.profiler.start()
            algo.init_and_step(ArrayRNG(cupy, seed), iterations)
        cupy.cuda.Device().synchronize()
        if profiled:
            cupy.cuda.profiler.stop()
    after = f" after {warm} unprofiled" if warm else ""
    kernel = getattr(getattr(algo, "_launch", None), "kernel", "")  # PSO's launch shape names its kernel
    print(f"{algorithm} {extra} n={n} seed {seed}: profiled one run of {iterations} iterations{after}"
          + (f" ({kernel})" if kernel else ""))


if __name__ == "__main__":
    main()
