"""Read scripts/stall_profile.sh's tarball: where one kernel's warps stall, by source line (issue 14).

Nsight Compute's source page gives warp-state samples per SASS instruction (address order); the
module's cubin (CuPy's cache, compiled with -lineinfo) maps each instruction to a line of the
translation unit that stall_profile.sh also saved (src/). Prints the stall reasons over the whole
kernel, then the source lines with the most samples, each with its main reasons.

    python3 scripts/stall_summary.py DIR CASE [lines] [--in FUNCTION]   (DIR: the unpacked stall.tgz; CASE e.g. de131k)

--in FUNCTION (e.g. pso_spso_run) attributes each instruction to the line of FUNCTION it was inlined
from (its innermost frame inside that function's body) instead of its innermost line: the samples
and instructions of a whole call (pso_normals, fold.add, an exchange) on one row, its place in the
kernel's own code. With a single innermost line, a barrier's samples land on whichever helper's line
ptxas gave the BAR instruction (pso_radii's, for the scatter's barrier in pso_spso_redraw).

Needs nvdisasm (the CUDA toolkit, or PyPI's nvidia-cuda-nvdisasm wheel unpacked: nvidia/cu13/bin) on
this machine's PATH, not a GPU.
"""
from __future__ import annotations

import csv
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

# the kernel each case of scripts/stall_profile.sh launches (the host's choice at that size)
KERNELS = {"pso16k": "pso_classic_lanes", "pso131k": "pso_classic_vwarps", "de131k": "de_generations_wide",
           "spso16k": "pso_spso_rows_lanes", "spso131k": "pso_spso_redraw", "de512": "de_generations_wide",
           "spso65k": "pso_spso", "spso131k-late": "pso_spso_redraw"}
# since notes-gpu.md v31 the host runs pso_spso_redraw_one at 131,072 (stall_profile.sh's cases)
KERNELS.update({"spso131k": "pso_spso_redraw_one", "spso131k-late": "pso_spso_redraw_one",
                "spso131k-late-s0": "pso_spso_redraw_one", "spso131k-two-late": "pso_spso_redraw",
                "spso131k-two-late-s0": "pso_spso_redraw"})
_FILE_LINE = re.compile(r'//## File "([^"]+)", line (\d+)')
_INSTRUCTION = re.compile(r"/\*([0-9a-f]{4,})\*/")
_LINE = re.compile(r"line (\d+)")


def cubin_with(cache: Path, mangled_prefix: bytes) -> tuple[bytes, str]:
    """The ELF image in CuPy's cache that defines the kernel, and the kernel's mangled name."""
    for path in sorted(cache.glob("*.cubin")):
        data = path.read_bytes()
        start = data.find(b"\x7fELF")
        found = re.search(rb"\.text\.(_Z\d+" + mangled_prefix + rb"I[0-9A-Za-z_]+)", data[max(start, 0):])
        if found and start >= 0:
            # CuPy's cache file: a header naming the kernels, then the ELF, stored one byte short
            return data[start:] + b"\x00", found.group(1).decode()
    sys.exit(f"no cubin in {cache} defines {mangled_prefix.decode()}")


def line_table(image: bytes, mangled: str, within: range | None = None) -> list[tuple[int, int]]:
    """(offset, source line) of every instruction of the kernel, from nvdisasm's line information:
    the innermost line, or with `within` (a range of lines) the innermost frame of the instruction's
    inlining chain that lies in it (0 where none does)."""
    with tempfile.NamedTemporaryFile(suffix=".cubin") as tmp:
        tmp.write(image)
        tmp.flush()
        # -gi: each instruction's inlining chain, innermost first, as consecutive "//## File" rows
        text = subprocess.run(["nvdisasm", "--print-line-info-inline", tmp.name], capture_output=True,
                              text=True, check=True).stdout
    return lines_of(text, mangled, within)


def lines_of(text: str, mangled: str, within: range | None = None) -> list[tuple[int, int]]:
    """line_table's work on nvdisasm -gi's text."""
    section = text.index(f".text.{mangled}:")
    end = text.find("//--------------------- .", section)
    chain: list[int] = []
    fresh, out = True, []
    for row in text[section:end if end > 0 else None].splitlines():
        if _FILE_LINE.search(row):
            if fresh:
                chain, fresh = [], False
            chain += [int(n) for n in _LINE.findall(row)]
            continue
        m = _INSTRUCTION.search(row)
        if m:
            fresh = True
            if within is None:
                line = chain[0] if chain else 0
            else:
                line = next((n for n in chain if n in within), 0)
            out.append((int(m.group(1), 16), line))
    return out


def body_lines(source: list[str], function: str) -> range:
    """The lines (1-based) of `function`'s body in the translation unit: from its definition's line
    to the first line after it that closes a top-level brace."""
    first = next((k for k, text in enumerate(source) if re.search(rf"\b{re.escape(function)}\s*\(", text)
                  and not text.rstrip().endswith(";") and "__device__" in "".join(source[max(0, k - 2):k + 1])),
                 None)
    if first is None:
        sys.exit(f"no definition of {function} in the saved source")
    last = next(k for k in range(first + 1, len(source)) if source[k].startswith("}"))
    return range(first + 1, last + 2)


def main() -> None:
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    args = sys.argv[1:]
    within_function = None
    if "--in" in args:
        k = args.index("--in")
        within_function = args[k + 1] if k + 1 < len(args) else sys.exit("--in needs a function name")
        del args[k:k + 2]
    root, case = Path(args[0]), args[1]
    top = int(args[2]) if len(args) > 2 else 30
    kernel = KERNELS.get(case, case)
    image, mangled = cubin_with(root / "cache", kernel.encode())
    src_file = "differential_evolution.cu" if kernel.startswith("de_") else "particle_swarm.cu"
    source = (root / "src" / src_file).read_text(encoding="utf-8").splitlines()
    within = body_lines(source, within_function) if within_function else None
    lines = dict(line_table(image, mangled, within))
    with open(root / f"{case}.sass.csv", newline="") as fh:
        rows = list(csv.reader(fh))
    head = rows[1]
    col = {name: i for i, name in enumerate(head)}
    reasons = [n for n in head if n.startswith("stall_") and "(Not Issued)" not in n]
    data = rows[2:]
    base = int(data[0][col["Address"]], 16)
    total = defaultdict(int)
    by_line: dict[int, dict] = defaultdict(lambda: defaultdict(int))
    samples_all = 0
    for r in data:
        off = int(r[col["Address"]], 16) - base
        n = int(r[col["Warp Stall Sampling (All Samples)"]] or 0)
        samples_all += n
        ln = lines.get(off, -1)
        by_line[ln]["samples"] += n
        by_line[ln]["executed"] += int(r[col["Instructions Executed"]] or 0)
        for reason in reasons:
            v = int(r[col[reason]] or 0)
            total[reason] += v
            by_line[ln][reason] += v
    print(f"{case}: {kernel}, {samples_all} samples, {len(data)} instructions")
    print("reasons: " + ", ".join(f"{k[6:]} {v / samples_all:.1%}" for k, v in
                                   sorted(total.items(), key=lambda kv: -kv[1]) if v / samples_all >= 0.01))
    print("| line | samples | instructions executed (warp) | main reasons | source |")
    print("| ---: | ---: | ---: | --- | --- |")
    for ln, d in sorted(by_line.items(), key=lambda kv: -kv[1]["samples"])[:top]:
        main_reasons = sorted(((d[r], r[6:]) for r in reasons if d[r]), reverse=True)[:3]
        text = source[ln - 1].strip()[:90] if 0 < ln <= len(source) else "?"
        n = d["samples"]
        why = ", ".join(f"{name} {v / n:.0%}" for v, name in main_reasons)
        print(f"| {ln} | {n / samples_all:.1%} | {d['executed']} | {why} | `{text}` |")


if __name__ == "__main__":
    main()
