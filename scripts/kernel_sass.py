"""What ptxas makes of kernel instantiations as one of scripts/exchange_cost.py's variants patches
them, before any device call: registers and spill bytes per kernel, and with --loops its SASS loops
(instructions, and the convergence barriers BSSY/BSYNC in them). notes-gpu.md v27-v30 read these to
choose what to measure: a pass loop that grows, or spills that move into a loop, show here first.

    python3 scripts/kernel_sass.py VARIANT "KERNEL<F,T>;..." [--file particle_swarm.cu] [--loops 250-450] [--sass FILE]

VARIANT: "as committed" for the tree as it is. The loader's source and options (precise math; the
boxed cospi as the host compiles a bounded box), sm_90. Needs nvcc on PATH; --loops needs nvdisasm
(PATH or $NVDISASM; pip's nvidia-cuda-nvdisasm wheel carries one).
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

_ENTRY = re.compile(r"Compiling entry function '(\w+)'")
_SPILLS = re.compile(r"(\d+) bytes spill stores, (\d+) bytes spill loads")
_REGS = re.compile(r"Used (\d+) registers")
_FUNCTION = re.compile(r"^\s*\.text\.(\w+):")
_LABEL = re.compile(r"^\s*(\.L_x_\d+):")
_INSTRUCTION = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
_BRANCH = re.compile(r"BRA[^`]*`\((\.L_x_\d+)\)")


def ptxas_report(stderr: str) -> list[tuple[str, int, int, int]]:
    """(mangled kernel, registers, spill store bytes, spill load bytes) from `nvcc -Xptxas -v`."""
    rows, name, spills = [], None, (0, 0)
    for line in stderr.splitlines():
        if m := _ENTRY.search(line):
            name, spills = m.group(1), (0, 0)
        elif (m := _SPILLS.search(line)) and name:
            spills = (int(m.group(1)), int(m.group(2)))
        elif (m := _REGS.search(line)) and name:
            rows.append((name, int(m.group(1)), *spills))
            name = None
    return rows


def sass_loops(sass: str) -> dict[str, list[tuple[int, int, int]]]:
    """Per function of nvdisasm's text: its loops (a branch back to a label before it) as (first
    instruction's offset, instructions, BSSY and BSYNC among them)."""
    out: dict[str, list[tuple[int, int, int]]] = {}
    function, body, labels = None, [], {}

    def close():
        if function is None:
            return
        loops = []
        for k, (_, text) in enumerate(body):
            m = _BRANCH.search(text)
            if m and labels.get(m.group(1), k + 1) <= k:
                first = labels[m.group(1)]
                span = body[first:k + 1]
                loops.append((span[0][0], len(span), sum(("BSSY" in t or "BSYNC" in t) for _, t in span)))
        out[function] = sorted(loops)

    for line in sass.splitlines():
        if m := _FUNCTION.match(line):
            close()
            function, body, labels = m.group(1), [], {}
        elif m := _LABEL.match(line):
            labels[m.group(1)] = len(body)
        elif (m := _INSTRUCTION.match(line)) and function is not None:
            body.append((int(m.group(1), 16), m.group(2)))
    close()
    return out


def readable(names: list[str]) -> dict[str, str]:
    """Mangled kernel names as c++filt writes them (as they are where it is missing)."""
    tool = shutil.which("c++filt")
    if tool is None or not names:
        return {n: n for n in names}
    out = subprocess.run([tool, "-p"], input="\n".join(names), capture_output=True, text=True).stdout.splitlines()
    return dict(zip(names, out)) if len(out) == len(names) else {n: n for n in names}


def source(variant: str, kernel_file: str, expressions: list[str]) -> str:
    """The loader's source of `kernel_file` as `variant` patches it, each expression instantiated."""
    import exchange_cost  # noqa: PLC0415 - patches the loader's reads of the kernel files
    from kernels import loader  # noqa: PLC0415

    if variant != "as committed":
        exchange_cost.use(variant)
    table = ",\n    ".join(f"(void*)&{x}" for x in expressions)
    return loader.source(kernel_file) + f"\nvoid* mw_instantiations[] = {{\n    {table}\n}};\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variant", help='an exchange_cost.py variant, or "as committed"')
    parser.add_argument("kernels", help='";"-separated instantiations, e.g. "pso_spso_redraw_one<Rastrigin,float>"')
    parser.add_argument("--file", default="particle_swarm.cu", help="the kernel file (default particle_swarm.cu)")
    parser.add_argument("--loops", default=None, metavar="MIN-MAX", help="list the loops of MIN to MAX instructions")
    parser.add_argument("--sass", default=None, metavar="FILE", help="also write nvdisasm's whole text to FILE")
    args = parser.parse_args()
    from kernels import loader  # noqa: PLC0415

    nvcc = shutil.which("nvcc")
    if nvcc is None:
        print("kernel_sass.py: nvcc not on PATH", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        cu, cubin = Path(tmp) / "unit.cu", Path(tmp) / "unit.cubin"
        cu.write_text(source(args.variant, args.file, args.kernels.split(";")))
        done = subprocess.run([nvcc, "-arch=sm_90", "-cubin", "-lineinfo", "-Xptxas", "-v", "-o", str(cubin),
                               *loader.options(False, boxed=True), str(cu)], capture_output=True, text=True)
        if done.returncode != 0:
            print(done.stderr[-3000:], file=sys.stderr)
            return 1
        report = ptxas_report(done.stderr)
        shown = readable([r[0] for r in report])
        for name, regs, stores, loads in report:
            print(f"{shown[name]}: {regs} registers, spills {stores}/{loads} bytes (stores/loads)")
        if args.loops is None:
            return 0
        nvdisasm = os.environ.get("NVDISASM") or shutil.which("nvdisasm")
        if nvdisasm is None:
            print("kernel_sass.py: --loops needs nvdisasm (PATH or $NVDISASM)", file=sys.stderr)
            return 2
        low, high = (int(x) for x in args.loops.split("-"))
        sass = subprocess.run([nvdisasm, "-c", "-g", str(cubin)], capture_output=True, text=True, check=True).stdout
        if args.sass:
            Path(args.sass).write_text(sass)
        loops = sass_loops(sass)
        shown = readable(list(loops))
        for function, found in loops.items():
            for first, length, barriers in found:
                if low <= length <= high:
                    print(f"{shown[function]} loop at {first:#07x}: {length} instructions, {barriers} BSSY/BSYNC")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
