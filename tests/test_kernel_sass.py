"""scripts/kernel_sass.py's readers of ptxas's report and nvdisasm's text (no compiler needed)."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

import kernel_sass  # noqa: E402

PTXAS = """\
ptxas info    : Compiling entry function '_Z3oneI1AfEvv' for 'sm_90'
ptxas info    : Function properties for _Z3oneI1AfEvv
    96 bytes stack frame, 96 bytes spill stores, 208 bytes spill loads
ptxas info    : Used 64 registers, used 1 barriers, 96 bytes cumulative stack size
ptxas info    : Compiling entry function '_Z3twoI1AfEvv' for 'sm_90'
ptxas info    : Function properties for _Z3twoI1AfEvv
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 40 registers
"""

SASS = """\
\t.text._Z3oneI1AfEvv:
        /*0000*/                   MOV R1, c[0x0][0x28] ;
.L_x_1:
        /*0010*/                   BSSY B1, `(.L_x_2) ;
        /*0020*/                   FADD R2, R2, R3 ;
        /*0030*/                   BSYNC B1 ;
.L_x_2:
        /*0040*/              @P0 BRA `(.L_x_1) ;
        /*0050*/                   BRA `(.L_x_3) ;
.L_x_3:
        /*0060*/                   EXIT ;
\t.text._Z3twoI1AfEvv:
        /*0000*/                   MOV R1, c[0x0][0x28] ;
.L_x_4:
        /*0010*/                   IADD3 R2, R2, 0x1, RZ ;
        /*0020*/              @P1 BRA `(.L_x_4) ;
        /*0030*/                   EXIT ;
"""


def test_the_report_gives_each_kernel_its_registers_and_spills():
    assert kernel_sass.ptxas_report(PTXAS) == [("_Z3oneI1AfEvv", 64, 96, 208), ("_Z3twoI1AfEvv", 40, 0, 0)]


def test_loops_are_branches_back_counted_per_function_with_their_convergence_barriers():
    loops = kernel_sass.sass_loops(SASS)
    # one: the loop from .L_x_1 (offset 0x10) to its branch back, 4 instructions, BSSY and BSYNC;
    # the forward branch to .L_x_3 is no loop. two: a loop of 2 instructions from offset 0x10
    assert loops == {"_Z3oneI1AfEvv": [(0x10, 4, 2)], "_Z3twoI1AfEvv": [(0x10, 2, 0)]}
