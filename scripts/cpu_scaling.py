"""Why numba's thread scaling stops where it does (issue 13): the CPU's topology and clock.

Prints the logical CPUs, the physical cores under them (Linux /sys topology) and, for pattern search
and SA async on rastrigin 30-D with 131,072 walkers (float64, the issue's scaling setting), the rate
at 1, 2, 4, ... threads up to every CPU, each with the mean clock of the CPUs while it ran (sampled
from /proc/cpuinfo). Speedups below the thread count with a falling clock point at turbo; a knee at
the physical core count points at hyperthreads sharing a core.

    python scripts/cpu_scaling.py [--out DIR]   (writes cpu-scaling.json)
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import threading
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scripts.numba_baseline import steady_rate  # noqa: E402
from solvers.algorithms import get_algorithm  # noqa: E402
from solvers.numba import cpu_model, numba_algorithm  # noqa: E402
from solvers.numba.base import default_threads  # noqa: E402
from solvers.problems import get_problem  # noqa: E402


def topology() -> dict:
    """Logical CPUs, physical cores (distinct (package, core) pairs) and threads per core."""
    cpus = sorted(int(p.name[3:]) for p in Path("/sys/devices/system/cpu").glob("cpu[0-9]*"))
    cores = set()
    for c in cpus:
        base = Path(f"/sys/devices/system/cpu/cpu{c}/topology")
        try:
            cores.add((base.joinpath("physical_package_id").read_text().strip(),
                       base.joinpath("core_id").read_text().strip()))
        except OSError:
            pass
    return {"logical_cpus": len(cpus), "usable": len(os.sched_getaffinity(0)), "physical_cores": len(cores),
            "threads_per_core": len(cpus) / len(cores) if cores else None}


def mean_mhz() -> float:
    """Mean 'cpu MHz' over every CPU right now (nan where /proc/cpuinfo has none)."""
    try:
        values = [float(line.split(":")[1]) for line in open("/proc/cpuinfo") if line.startswith("cpu MHz")]
    except OSError:
        values = []
    return float(np.mean(values)) if values else float("nan")


def clocked(run):
    """(run's result, mean clock sampled every 50 ms while it ran)."""
    samples, done = [], threading.Event()

    def sample():
        while not done.wait(0.05):
            samples.append(mean_mhz())

    t = threading.Thread(target=sample, daemon=True)
    t.start()
    try:
        result = run()
    finally:
        done.set()
        t.join()
    return result, float(np.nanmean(samples)) if samples else float("nan")


def _spin(cpu: int, seconds: float, out) -> None:
    """Count a busy loop's turns on one CPU for `seconds` (a probe process)."""
    import time  # noqa: PLC0415

    os.sched_setaffinity(0, {cpu})
    turns, end = 0, time.perf_counter() + seconds
    while time.perf_counter() < end:
        for _ in range(2000):
            turns += 1
    out.put((cpu, turns))


def sibling_probe(seconds: float = 0.5) -> dict:
    """CPU 0's busy-loop rate beside a busy loop on each other CPU, relative to CPU 0 alone."""
    import multiprocessing as mp  # noqa: PLC0415

    ctx = mp.get_context("fork")
    cpus = sorted(os.sched_getaffinity(0))

    def run(pinned):
        queue = ctx.Queue()
        procs = [ctx.Process(target=_spin, args=(c, seconds, queue)) for c in pinned]
        for p in procs:
            p.start()
        counts = dict(queue.get() for _ in procs)
        for p in procs:
            p.join()
        return counts[pinned[0]]

    alone = max(run([cpus[0]]) for _ in range(2))
    return {c: run([cpus[0], c]) / alone for c in cpus[1:]}


CASES = [("pattern_search", {"walkers": 131072}, 2),
         ("simulated_annealing", {"walkers": 131072, "variant": "async"}, 60)]


def rates(threads: int) -> list[tuple[str, float, float]]:
    """(algorithm, evaluations/s, mean clock) of each case on `threads` numba threads."""
    problem = get_problem("rastrigin", 30)
    out = []
    for name, params, iterations in CASES:
        algo = numba_algorithm(name)(problem, get_algorithm(name).Params(**params), dtype=np.float64,
                                     threads=threads)
        (rate, _), mhz = clocked(lambda: steady_rate(algo, iterations))
        out.append((name, rate, mhz))
    return out


def one_per_core(probe: dict, cpus: list[int]) -> list[int] | None:
    """One CPU of each physical core where the probe found exactly one sibling of CPU 0 and it is
    CPU 1 (pairs 2k, 2k + 1) or CPU n/2 (pairs k, k + n/2): the usual numberings; else None."""
    siblings = [c for c, r in probe.items() if r < 0.8]
    n = len(cpus)
    if siblings == [cpus[1]]:
        return cpus[0::2]
    if siblings == [cpus[n // 2]]:
        return cpus[: n // 2]
    return None


def pinned(cpus: list[int]) -> list[tuple[str, float, float]]:
    """rates() on len(cpus) threads in a child process pinned to `cpus` before numba starts its
    threads (they inherit the mask; a running pool would keep its own)."""
    import subprocess  # noqa: PLC0415

    env = dict(os.environ, NUMBA_NUM_THREADS=str(len(cpus)))
    proc = subprocess.run([sys.executable, __file__, "--child", str(len(cpus))], env=env, check=True,
                          capture_output=True, text=True, preexec_fn=lambda: os.sched_setaffinity(0, cpus))
    return [tuple(r) for r in json.loads(proc.stdout.strip().splitlines()[-1])]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)  # pinned(): print rates() as JSON
    args = parser.parse_args()
    if args.child:
        print(json.dumps(rates(args.child)))
        return 0
    every = default_threads()
    record = {"cpu": cpu_model(), "topology": topology(), "idle_mhz": mean_mhz(), "runs": []}
    print(f"# {record['cpu']}; {record['topology']}; idle clock {record['idle_mhz']:.0f} MHz", flush=True)
    probe = sibling_probe()
    record["beside_cpu0"] = probe
    print("# CPU 0's busy loop beside one on CPU k, relative to alone: "
          + ", ".join(f"{k}: {v:.2f}" for k, v in probe.items()), flush=True)
    one = {}
    for threads in sorted({1, every} | {2**k for k in range(1, 8) if 2**k < every}):
        for name, rate, mhz in rates(threads):
            one.setdefault(name, rate)
            record["runs"].append({"algorithm": name, "threads": threads, "rate": rate, "mhz": mhz})
            print(f"{name:20} {threads:3} threads: {rate / 1e6:9.2f} M/s  {rate / one[name]:5.2f}x  "
                  f"clock {mhz:6.0f} MHz", flush=True)
    cores = one_per_core(probe, sorted(os.sched_getaffinity(0)))
    if cores:
        for name, rate, mhz in pinned(cores):
            record["runs"].append({"algorithm": name, "threads": len(cores), "cpus": cores, "rate": rate, "mhz": mhz})
            print(f"{name:20} {len(cores):3} threads, one per physical core {cores}: {rate / 1e6:9.2f} M/s  "
                  f"{rate / one[name]:5.2f}x", flush=True)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "cpu-scaling.json").write_text(json.dumps(record, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
