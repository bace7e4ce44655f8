#!/usr/bin/env python3
"""The tuning targets of issue 12, measured in one process (run on the GPU machine).

For each algorithm, the grid (16 x 16 settings x 8 seeds = 2,048 runs by default, rastrigin 30-D,
float32, 2,000 iterations per run; PSO classic, DE and pattern search with 40 walkers per run,
simulated annealing sync with 40 chains per run, alpha x chain length, fixed schedule), all in the
same process:

* ``one launch``: the whole grid as ONE batch of the engine's fused kernels, init and then all the
  iterations in a single step call (cuda: per-group values and Philox keys as device arrays);
  device-synchronised wall time, the kernels compiled beforehand;
* ``solvers.tune``: the same grid as the tuner runs it (batched, in chunks of about 0.2 s so that
  progress and Stop work: one launch of every group per chunk), wall time of ``Tuning.run``;
* ``one after another``: runs of the grid through ``solvers.run`` on cuda, one after another.
  Running all 2,048 would take most of a device call, so by default ``--serial-sample`` of them,
  spread evenly over the grid, are timed and the time is scaled to the whole grid; the output says
  so in each row. ``--serial-sample 0`` times all of them.

Rates are evaluations per second; speedups are ratios of times measured in this run. Writes
``tune-bench.json`` and ``tune-bench.md`` into ``--out`` (a folder).

``--pso-swarms-per-block 1,auto`` (cuda): PSO's one launch again with each of these swarms per
block (1: a block per swarm, the unpacked kernel; auto: the launch shape's choice; k: k swarms of
40 per block), best of two launches each, in the same process: an A/B of the packed classic
kernels (solvers/cuda/particle_swarm.py). Each row says its block shape, and whether its runs'
best values are bit for bit those of the first setting.

    python3 scripts/tune_bench.py --out OUTDIR [--algorithms particle_swarm,...] [--points 16]
        [--seeds 8] [--iterations 2000] [--engine cuda] [--serial-sample 32]
        [--pso-swarms-per-block 1,auto]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import shlex
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import solvers  # noqa: E402
from solvers.bench import environment  # noqa: E402
from solvers.engines import get_engine  # noqa: E402
from solvers.rng import GroupedRNG  # noqa: E402
from solvers.tune import prepare  # noqa: E402

# algorithm -> (axes with {n} for the points per axis, fixed parameters)
GRIDS = {
    "particle_swarm": (["omega=0.2:1.0:{n}", "phi_g=0.5:2.5:{n}"], {"variant": "classic", "walkers": 40}),
    "differential_evolution": (["F=0.2:1.0:{n}", "Cr=0.1:1.0:{n}"], {"walkers": 40}),
    "pattern_search": (["delta0=0.01:0.3:{n}:log", "tol_halvings=4:24:{n}"], {"walkers": 40}),
    # sync annealing under the fixed schedule (a grid over alpha and the chain length runs it; the
    # runs one after another are given it too), 40 chains per run: each run's levels end at its own
    # iterations, so the batch's launches end at every level end of any run
    "simulated_annealing": (["alpha=0.8:0.99:{n}", "chain_length=10:200:{n}"],
                            {"variant": "sync", "schedule": "fixed", "walkers": 40}),
}
DEFAULT = "particle_swarm,differential_evolution,pattern_search,simulated_annealing"


def synchronize(engine) -> None:
    engine.synchronize()


def one_launch(tuning, iterations: int) -> dict | None:
    """The batched plan's algorithm run directly: init, then every iteration in one step call."""
    plan = tuning.plan
    if not hasattr(plan, "algo"):
        return None
    algo, engine = plan.algo, plan.engine
    seeds = [seed for _, _, seed in plan.pairs]
    synchronize(engine)
    t0 = time.perf_counter()
    state = algo.init(GroupedRNG(engine.xp, seeds))
    algo.step(state, iterations)
    synchronize(engine)
    seconds = time.perf_counter() - t0
    out = {"seconds": seconds, "evals": int(state.evals), "rate": state.evals / seconds}
    launch = getattr(algo, "_launch", None)
    if launch is not None and hasattr(launch, "spb"):  # PSO on cuda: how its blocks were shaped
        out["launch"] = {"kernel": launch.kernel, "swarms_per_block": launch.spb, "block": launch.shape.block}
    best = getattr(state, "group_best_f", None)
    if best is not None:  # every run's best value, as a digest: equal digests, the same numbers
        host = engine.xp.asnumpy(best) if hasattr(engine.xp, "asnumpy") else best
        out["group_best_digest"] = hashlib.sha1(host.tobytes()).hexdigest()[:16]
    return out


def pso_packing(cls, tuning, iterations: int, settings: list[str]) -> list[dict]:
    """PSO's one launch with each swarms-per-block setting of the engine's class `cls` (best of two
    launches each)."""
    rows = []
    try:
        for setting in settings:
            cls.swarms_per_block = setting
            runs = [one_launch(tuning, iterations) for _ in range(2)]
            best = min(runs, key=lambda r: r["seconds"])
            rows.append({"setting": setting, **best})
    finally:
        cls.swarms_per_block = None
    for row in rows:
        row["same_numbers_as_first"] = row.get("group_best_digest") == rows[0].get("group_best_digest")
    return rows


def serial(name, axes, fixed, args, pairs) -> dict:
    """Runs through solvers.run one after another (a sample spread over the grid, or all)."""
    step = 1 if args.serial_sample <= 0 else max(1, len(pairs) // args.serial_sample)
    sample = pairs[::step]
    if args.serial_sample > 0:
        sample = sample[:args.serial_sample]
    evals, t0 = 0, time.perf_counter()
    for _, setting, seed in sample:
        result = solvers.run(name, args.function, args.engine, dim=args.dim, seed=seed,
                             max_iters=args.iterations, params={**fixed, **setting}, dtype=args.dtype)
        evals += result.evals
    seconds = time.perf_counter() - t0
    scale = len(pairs) / len(sample)
    return {"runs_timed": len(sample), "runs": len(pairs), "seconds_timed": seconds,
            "seconds_whole_grid": seconds * scale, "scaled": scale != 1, "evals": evals * scale,
            "rate": evals / seconds}


def bench_algorithm(name: str, args) -> dict:
    axes_t, fixed = GRIDS[name]
    axes = [a.format(n=args.points) for a in axes_t]
    engine = get_engine(args.engine)
    # compile and warm up outside every clock: a tiny grid through both paths
    small = [a.format(n=2) for a in axes_t]
    prepare(name, args.function, small, seeds=1, dim=args.dim, engine=args.engine, max_iters=3,
            params=fixed, dtype=args.dtype).run()
    solvers.run(name, args.function, args.engine, dim=args.dim, seed=0, max_iters=3, params=fixed,
                dtype=args.dtype)
    record = {"algorithm": name, "axes": axes, "fixed": fixed, "seeds": args.seeds,
              "iterations": args.iterations, "function": args.function, "dim": args.dim,
              "dtype": args.dtype, "engine": args.engine}
    tuning = prepare(name, args.function, axes, seeds=args.seeds, dim=args.dim, engine=args.engine,
                     max_iters=args.iterations, params=fixed, dtype=args.dtype)
    record["batched"] = tuning.table.batched
    record["path"] = tuning.table.path
    pairs = tuning.table.grid.pairs()
    record["runs"] = len(pairs)
    record["one_launch"] = one_launch(tuning, args.iterations) if tuning.table.batched else None
    cls = engine.algorithm_class(name)
    # an engine whose PSO packs swarms into blocks (cuda) says so by the setting
    if args.pso_swarms_per_block and hasattr(cls, "swarms_per_block") and tuning.table.batched:
        settings = [v.strip() for v in args.pso_swarms_per_block.split(",") if v.strip()]
        record["one_launch_by_swarms_per_block"] = pso_packing(cls, tuning, args.iterations, settings)
    if tuning.table.batched:
        t0 = time.perf_counter()
        table = tuning.run()
        seconds = time.perf_counter() - t0
        evals = sum(r.evals for r in table.rows)
        record["tune"] = {"seconds": seconds, "evals": evals, "rate": evals / seconds,
                          "median_best": float(sorted(r.best_f for r in table.rows)[len(table.rows) // 2])}
    else:
        record["tune"] = None  # one run per (setting, seed): the same work as the serial rows
    record["serial"] = serial(name, axes, fixed, args, pairs)
    whole = record["serial"]["seconds_whole_grid"]
    for key in ("one_launch", "tune"):
        if record[key]:
            record[key]["speedup_vs_one_after_another"] = whole / record[key]["seconds"]
    return record


def markdown(records: list[dict], env: dict, command: str, args) -> str:
    lines = [f"# Tuning grids on {env.get('gpu')}: {args.points} x {args.points} settings x {args.seeds} "
             f"seeds, {args.function} {args.dim}-D, {args.dtype}, {args.iterations} iterations per run",
             "", f"Command: `{command}`", "",
             "Versions: " + ", ".join(f"{k} {v}" for k, v in env.items() if k != "gpu"), "",
             "| algorithm | how | runs | seconds | evaluations/s | speedup vs one after another |",
             "|---|---|---|---|---|---|"]
    for r in records:
        s = r["serial"]
        if r["one_launch"]:
            o = r["one_launch"]
            lines.append(f"| {r['algorithm']} | one launch of all groups (init + step({r['iterations']})) | "
                         f"{r['runs']} | {o['seconds']:.3f} | {o['rate']:.4g} | "
                         f"{o['speedup_vs_one_after_another']:.1f}x |")
        for v in r.get("one_launch_by_swarms_per_block") or ():
            shape = v.get("launch", {})
            same = "same numbers" if v["same_numbers_as_first"] else "DIFFERENT numbers"
            lines.append(f"| {r['algorithm']} | one launch, swarms per block {v['setting']} "
                         f"({shape.get('kernel')}, {shape.get('swarms_per_block')} x {r['fixed'].get('walkers')} "
                         f"in {shape.get('block')} threads; {same}) | {r['runs']} | {v['seconds']:.3f} | "
                         f"{v['rate']:.4g} | {r['serial']['seconds_whole_grid'] / v['seconds']:.1f}x |")
        if r["tune"]:
            t = r["tune"]
            lines.append(f"| {r['algorithm']} | solvers.tune, batched (chunks of ~0.2 s) | {r['runs']} | "
                         f"{t['seconds']:.3f} | {t['rate']:.4g} | {t['speedup_vs_one_after_another']:.1f}x |")
        how = (f"solvers.run one after another: {s['runs_timed']} of {s['runs']} runs timed "
               f"({s['seconds_timed']:.2f} s), time scaled to the grid" if s["scaled"]
               else "solvers.run one after another, all runs")
        lines.append(f"| {r['algorithm']} | {how} | {r['runs']} | {s['seconds_whole_grid']:.2f}"
                     f"{' (scaled)' if s['scaled'] else ''} | {s['rate']:.4g} | 1 |")
    lines += ["", "Paths: " + "; ".join(f"{r['algorithm']}: {r['path']}" for r in records), ""]
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--algorithms", default=DEFAULT, help=f"comma-separated, of {', '.join(GRIDS)}")
    ap.add_argument("--engine", default="cuda")
    ap.add_argument("--function", default="rastrigin")
    ap.add_argument("--dim", type=int, default=30)
    ap.add_argument("--points", type=int, default=16)
    ap.add_argument("--seeds", type=int, default=8)
    ap.add_argument("--iterations", type=int, default=2000)
    ap.add_argument("--dtype", default="float32")
    ap.add_argument("--serial-sample", type=int, default=32,
                    help="runs timed one after another and scaled to the grid (0: all of them)")
    ap.add_argument("--out", default=None, help="folder for tune-bench.json and tune-bench.md")
    ap.add_argument("--pso-swarms-per-block", default=None, metavar="LIST",
                    help="cuda: PSO's one launch again with each of these swarms per block, e.g. "
                         "'1,auto' (1: a block per swarm; auto: the launch shape's choice)")
    args = ap.parse_args()
    names = [n for n in args.algorithms.split(",") if n]
    unknown = [n for n in names if n not in GRIDS]
    if unknown:
        print(f"unknown algorithm(s) {', '.join(unknown)}; choose from {', '.join(GRIDS)}", file=sys.stderr)
        return 2
    for item in (args.pso_swarms_per_block or "").split(","):
        # checked before anything runs (a bad value used to fail after PSO's first timed launch)
        text = item.strip().lower()
        if text and text != "auto" and not (text.isdigit() and int(text) >= 1):
            print(f"--pso-swarms-per-block takes 'auto' or whole numbers >= 1, got {item.strip()!r}",
                  file=sys.stderr)
            return 2
    command = "python scripts/tune_bench.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    env = environment()
    records = []
    for name in names:
        records.append(bench_algorithm(name, args))
        print(json.dumps(records[-1]), flush=True)
    text = markdown(records, env, command, args)
    print(text)
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "tune-bench.md").write_text(text)
        (out / "tune-bench.json").write_text(json.dumps({"command": command, "environment": env,
                                                         "records": records}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
