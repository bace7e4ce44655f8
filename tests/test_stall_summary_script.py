"""scripts/stall_summary.py's attribution of instructions to source lines (issue 14's profiles): the
innermost line, or with --in FUNCTION the line of that function an instruction was inlined from.
Synthetic nvdisasm -gi text: no GPU, no CUDA toolkit."""
from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("stall_summary", ROOT / "scripts" / "stall_summary.py")
stall_summary = importlib.util.module_from_spec(spec)
spec.loader.exec_module(stall_summary)

F = '"/tmp/x/module.cubin.cu"'
DISASSEMBLY = f"""
.text._Z4kernIfEvv:
\t//## File {F}, line 12 inlined at {F}, line 31
\t//## File {F}, line 31 inlined at {F}, line 52
\t//## File {F}, line 52
        /*0000*/                   IMAD.WIDE.U32 R2, R3, R4, RZ ;
        /*0010*/                   LOP3.LUT R5, R2, R6, R7, 0x96, !PT ;
\t//## File {F}, line 55
        /*0020*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
\t//## File {F}, line 40 inlined at {F}, line 56
\t//## File {F}, line 56
        /*0030*/                   MUFU.RSQ R8, R9 ;
//--------------------- .text._Z5otherv --------------------------
        /*0000*/                   EXIT ;
"""


def test_innermost_line_by_default():
    assert stall_summary.lines_of(DISASSEMBLY, "_Z4kernIfEvv") == [(0x0, 12), (0x10, 12), (0x20, 55), (0x30, 40)]


def test_within_a_function_the_line_it_was_inlined_from():
    # the kernel's own body is lines 50-60: a helper's instructions (lines 12, 31, 40) count at the
    # body's line that called it; the next section's instructions are not the kernel's
    rows = stall_summary.lines_of(DISASSEMBLY, "_Z4kernIfEvv", range(50, 61))
    assert rows == [(0x0, 52), (0x10, 52), (0x20, 55), (0x30, 56)]
    # a range no frame lies in: line 0 (the summary's "?")
    assert {line for _, line in stall_summary.lines_of(DISASSEMBLY, "_Z4kernIfEvv", range(100, 101))} == {0}


def test_body_lines_finds_the_definition_not_the_calls():
    source = [
        "template <typename T>",                                   # 1
        "__device__ __forceinline__ void run(int a) {",           # 2
        "    work(a);",                                            # 3
        "}",                                                       # 4
        "template <typename T>",                                   # 5
        "__global__ void kern() {",                                # 6
        "    run<T>(1);",                                          # 7
        "}",                                                       # 8
    ]
    assert stall_summary.body_lines(source, "run") == range(2, 5)  # the definition line to its closing brace
