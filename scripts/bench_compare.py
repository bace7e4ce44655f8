"""Compare two benchmark records (main.py bench --json): the rows measured in both, side by side.

    python scripts/bench_compare.py OLD.json NEW.json [--min-ratio 0] > table.md

A row is the same measurement when algorithm, variant, problem, dimension, walkers, engine, mode,
math, label and options agree; the first of repeated rows is kept. The ratio is new over old
evaluations per second (for end-to-end rows, old seconds over new seconds): above 1 is faster.
Records taken on different machines do not compare; the script prints both records' devices.
"""
from __future__ import annotations

import argparse
import json
import sys


def row_key(r: dict) -> tuple:
    return (r.get("algorithm"), r.get("variant") or "", r.get("problem"), r.get("dim"), r.get("walkers"),
            r.get("engine"), r.get("mode"), bool(r.get("fast_math")), r.get("label") or "",
            json.dumps(r.get("options") or {}, sort_keys=True))


def measured(records: list[dict]) -> dict:
    out = {}
    for r in records:
        if "error" not in r and r.get("evals_per_second"):
            out.setdefault(row_key(r), r)
    return out


def speed(r: dict) -> float:
    return 1.0 / r["seconds"] if r.get("mode") == "end_to_end" else r["evals_per_second"]


def rate_text(r: dict) -> str:
    if r.get("mode") == "end_to_end":
        return f"{r['seconds'] * 1e3:.3g} ms"
    v = r["evals_per_second"]
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if v >= scale:
            return f"{v / scale:.3g} {unit}/s"
    return f"{v:.3g}/s"


def compare(old: dict, new: dict) -> str:
    a, b = measured(old["records"]), measured(new["records"])
    lines = [f"- old: {old.get('environment', {}).get('gpu', '?')}; `{old.get('command', '?')}`",
             f"- new: {new.get('environment', {}).get('gpu', '?')}; `{new.get('command', '?')}`", "",
             "| algorithm | variant | problem | d | walkers | engine | mode | math | old | new | new/old |",
             "| --- | --- | --- | ---: | ---: | --- | --- | --- | ---: | ---: | ---: |"]
    for key, r in b.items():
        if key not in a:
            continue
        o = a[key]
        variant = r.get("variant") or "-"
        if r.get("options"):
            variant += " " + json.dumps(r["options"], sort_keys=True)
        lines.append(f"| {r['algorithm']} | {variant} | {r['problem']} | {r['dim']} | {r['walkers']:,} | "
                     f"{r['engine']} | {r['mode']} | {'fast' if r.get('fast_math') else 'precise'} | "
                     f"{rate_text(o)} | {rate_text(r)} | {speed(r) / speed(o):.2f} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old")
    parser.add_argument("new")
    args = parser.parse_args(argv)
    try:
        with open(args.old) as fa, open(args.new) as fb:
            old, new = json.load(fa), json.load(fb)
    except (OSError, ValueError) as exc:
        print(f"bench_compare: {exc}", file=sys.stderr)
        return 2
    sys.stdout.write(compare(old, new))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
