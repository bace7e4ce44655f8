"""Why numba's thread scaling stops where it does (issue 13): the CPU's topology and clock.

Prints the logical CPUs, the physical cores under them (Linux /sys topology) and, for pattern search
and SA async on rastrigin 30-D with 131,072 walkers (float64, the issue's scaling setting), the rate
at 1, 2, 4, ... threads up to every CPU, each with the mean clock of the CPUs while it ran (sampled
from /proc/cpuinfo). Speedups below the thread count with a falling clock point at turbo; a knee at
the physical core count points at hyperthreads sharing a core. What a lent machine's guest cannot
see (the host's hyperthreads, turbo, neighbours) the probes measure: CPU 0's busy loop beside one
on each other CPU (a Python loop and compiled floating-point chains), and each CPU's rate with half
or all of them busy at once, whose sum is the most any compute-bound loop can scale there.

    python scripts/cpu_scaling.py [--out DIR] [--rounds R] [--threads 1,8,16] [--probe-only]   (writes cpu-scaling.json)
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


_FP_CHAINS = None


def fp_chains():
    """A compiled loop of eight independent multiply-add chains: it keeps a core's floating-point
    pipes busy, as the engine's objectives do, so two of them on the two hardware threads of one
    core slow each other down clearly (a Python loop mostly waits on the interpreter and shares a
    core with little loss: it can miss hyperthreads)."""
    global _FP_CHAINS
    if _FP_CHAINS is None:
        from numba import njit  # noqa: PLC0415

        @njit(nogil=True)
        def chains(n):
            a0, a1, a2, a3, a4, a5, a6, a7 = 1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7
            for _ in range(n):
                a0 = a0 * 0.9999999 + 1e-7
                a1 = a1 * 0.9999999 + 1e-7
                a2 = a2 * 0.9999999 + 1e-7
                a3 = a3 * 0.9999999 + 1e-7
                a4 = a4 * 0.9999999 + 1e-7
                a5 = a5 * 0.9999999 + 1e-7
                a6 = a6 * 0.9999999 + 1e-7
                a7 = a7 * 0.9999999 + 1e-7
            return a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7

        chains(10)
        _FP_CHAINS = chains
    return _FP_CHAINS


def _spin(cpu: int, seconds: float, out, kind: str = "python") -> None:
    """Count a busy loop's turns on one CPU for `seconds` (a probe process): a Python loop, or
    (kind "fp") calls of fp_chains."""
    import time  # noqa: PLC0415

    os.sched_setaffinity(0, {cpu})
    turns, end = 0, time.perf_counter() + seconds
    chains = fp_chains() if kind == "fp" else None
    while time.perf_counter() < end:
        if chains is not None:
            chains(100000)
            turns += 1
            continue
        for _ in range(2000):
            turns += 1
    out.put((cpu, turns))


def sibling_probe(seconds: float = 0.5, kind: str = "python") -> dict:
    """CPU 0's busy-loop rate beside a busy loop on each other CPU, relative to CPU 0 alone (kind:
    _spin's)."""
    import multiprocessing as mp  # noqa: PLC0415

    ctx = mp.get_context("fork")
    cpus = sorted(os.sched_getaffinity(0))
    if kind == "fp":
        fp_chains()  # compiled once, before the fork

    alone = max(_spin_together(ctx, [cpus[0]], seconds, kind)[cpus[0]] for _ in range(2))
    return {c: _spin_together(ctx, [cpus[0], c], seconds, kind)[cpus[0]] / alone for c in cpus[1:]}


def _spin_together(ctx, pinned: list[int], seconds: float, kind: str) -> dict:
    """Turns of _spin on each of `pinned` CPUs, all spinning at once (one process each)."""
    queue = ctx.Queue()
    procs = [ctx.Process(target=_spin, args=(c, seconds, queue, kind)) for c in pinned]
    for p in procs:
        p.start()
    counts = dict(queue.get() for _ in procs)
    for p in procs:
        p.join()
    return counts


def crowd_probe(seconds: float = 0.5) -> dict:
    """What k busy CPUs get: each CPU's fp_chains rate alone, then with the first k CPUs spinning at
    once (k = half, all), each relative to its rate alone. The sum over the k CPUs is the most a
    compute-bound loop on k threads can gain over one thread on this machine (turbo, hyperthreads
    of the host, neighbours on shared cores: whatever the guest cannot see)."""
    import multiprocessing as mp  # noqa: PLC0415

    ctx = mp.get_context("fork")
    cpus = sorted(os.sched_getaffinity(0))
    fp_chains()
    alone = {c: _spin_together(ctx, [c], seconds, "fp")[c] for c in cpus}
    out = {"alone_turns": alone}
    for k in sorted({max(1, len(cpus) // 2), len(cpus)}):
        together = _spin_together(ctx, cpus[:k], seconds, "fp")
        ratios = {c: together[c] / alone[c] for c in cpus[:k]}
        out[str(k)] = {"ratios": ratios, "ceiling": float(sum(ratios.values()))}
    return out


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


def summary(runs: list[dict]) -> list[dict]:
    """Per algorithm and thread count (unpinned runs): the best and the median rate over the rounds,
    each as a speedup over the same statistic at one thread."""
    rows, groups = [], {}
    for r in runs:
        if "cpus" not in r:
            groups.setdefault((r["algorithm"], r["threads"]), []).append(r["rate"])
    for (name, threads), rates_ in sorted(groups.items()):
        one = groups.get((name, 1), rates_)
        rows.append({"algorithm": name, "threads": threads, "samples": len(rates_), "best": max(rates_),
                     "median": float(np.median(rates_)), "best_speedup": max(rates_) / max(one),
                     "median_speedup": float(np.median(rates_) / np.median(one))})
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)  # pinned(): print rates() as JSON
    parser.add_argument("--rounds", type=int, default=1,
                        help="measure every thread count this many times, rounds interleaved (a lent machine's "
                             "neighbours slow single samples; the summary gives the best and the median)")
    parser.add_argument("--threads", default="", help="comma-separated thread counts (default 1, 2, 4, ... all)")
    parser.add_argument("--probe-only", action="store_true", help="the topology and the sibling probes, no rates")
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
    fp = sibling_probe(kind="fp")
    record["beside_cpu0_fp"] = fp
    print("# the same with compiled floating-point chains (fp_chains): "
          + ", ".join(f"{k}: {v:.2f}" for k, v in fp.items()), flush=True)
    crowd = crowd_probe()
    record["crowd"] = crowd
    for k, row in crowd.items():
        if k != "alone_turns":
            print(f"# {k} CPUs busy at once: each at {min(row['ratios'].values()):.2f}-"
                  f"{max(row['ratios'].values()):.2f} of its rate alone; ceiling {row['ceiling']:.2f}x one thread",
                  flush=True)
    if args.probe_only:
        write(record, args.out)
        return 0
    one = {}
    counts = ([int(t) for t in args.threads.split(",") if t] if args.threads
              else sorted({1, every} | {2**k for k in range(1, 8) if 2**k < every}))
    for rnd in range(args.rounds):
        for threads in counts:
            for name, rate, mhz in rates(threads):
                one.setdefault(name, rate)
                record["runs"].append({"algorithm": name, "threads": threads, "rate": rate, "mhz": mhz, "round": rnd})
                print(f"{name:20} {threads:3} threads: {rate / 1e6:9.2f} M/s  {rate / one[name]:5.2f}x  "
                      f"clock {mhz:6.0f} MHz  (round {rnd})", flush=True)
    record["summary"] = summary(record["runs"])
    for row in record["summary"]:
        print(f"{row['algorithm']:20} {row['threads']:3} threads: best {row['best'] / 1e6:9.2f} M/s "
              f"({row['best_speedup']:5.2f}x), median {row['median'] / 1e6:9.2f} M/s ({row['median_speedup']:5.2f}x) "
              f"of {row['samples']}", flush=True)
    cores = one_per_core(fp, sorted(os.sched_getaffinity(0)))
    if cores:
        for name, rate, mhz in pinned(cores):
            record["runs"].append({"algorithm": name, "threads": len(cores), "cpus": cores, "rate": rate, "mhz": mhz})
            print(f"{name:20} {len(cores):3} threads, one per physical core {cores}: {rate / 1e6:9.2f} M/s  "
                  f"{rate / one[name]:5.2f}x", flush=True)
    write(record, args.out)
    return 0


def write(record: dict, out: str) -> None:
    path = Path(out)
    path.mkdir(parents=True, exist_ok=True)
    (path / "cpu-scaling.json").write_text(json.dumps(record, indent=1))


if __name__ == "__main__":
    sys.exit(main())
