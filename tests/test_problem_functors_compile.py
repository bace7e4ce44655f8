"""The CUDA objective functors (kernels/problems.cuh): they compile, and they match the registry.

The compile test builds one translation unit, common.cuh + problems.cuh + a small evaluation kernel,
instantiates the kernel for every functor x {float, double} x each point accessor (strided, patched,
dense), and compiles it to PTX for sm_90 with the machine's nvcc, once per fast-math setting (both in
parallel). It is skipped, saying so, where nvcc is not on PATH. The other tests need no compiler: the
functor list, the registry's cuda_functor names and the constant tables of the header against the
NumPy tables.
"""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from kernels import loader
from solvers.problems import annealing_suite, problem_definitions

KERNELS = Path(loader.KERNEL_DIR)
HEADER = (KERNELS / "problems.cuh").read_text(encoding="utf-8")

EVAL_KERNEL = r"""
// ---- the compile test's evaluation kernel ----
template <typename F, typename T>
__global__ void mw_eval_kernel(const T* X, long long n, int d, int accessor, T* out) {
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= n) return;
    T f;
    if (accessor == 0) {
        StridedPoint<T> p{X + i, n};
        f = F::template eval<T>(p, d);
    } else if (accessor == 1) {
        PatchedPoint<T> p{X + i, n, 0, T(0.5)};
        f = F::template eval<T>(p, d);
    } else {
        DensePoint<T> p{X + i * d};
        f = F::template eval<T>(p, d);
    }
    out[i] = mw_sanitize(f);
}
// the list macro must expand to exactly the functors instantiated below
#define MW_COUNT_ONE(F) +1
static_assert(0 MW_FOR_EACH_FUNCTOR(MW_COUNT_ONE) == MW_EXPECTED_FUNCTORS, "functor list");
"""


def functor_structs() -> list[str]:
    """Names of the structs in problems.cuh that define a templated eval, or derive it as folds."""
    code = re.sub(r"//[^\n]*", "", HEADER)  # the header's comments show the shape too
    plain = re.findall(r"struct\s+(\w+)\s*\{\s*template\s*<typename T, typename X>\s*__device__ static T eval",
                       code)
    folds = re.findall(r"struct\s+(\w+)\s*:\s*Mw\w*Fold<\1>", code)  # eval from MwFold
    return plain + folds


def translation_unit(functors: list[str]) -> str:
    insts = ",\n".join(f"    (void*)&mw_eval_kernel<{f}, {t}>" for f in functors for t in ("float", "double"))
    return ((KERNELS / "common.cuh").read_text(encoding="utf-8") + "\n" + HEADER + "\n"
            + EVAL_KERNEL.replace("MW_EXPECTED_FUNCTORS", str(len(functors)))
            + f"void* mw_inst[] = {{\n{insts}\n}};\n")


def test_functor_list_matches_structs():
    listed = loader.functor_names()
    assert listed, "MW_FOR_EACH_FUNCTOR(X) lists no functor"
    assert len(listed) == len(set(listed)), f"duplicates in MW_FOR_EACH_FUNCTOR: {listed}"
    assert sorted(listed) == sorted(functor_structs())


def test_every_registry_functor_exists():
    listed = set(loader.functor_names())
    missing = {d.name: d.cuda_functor for d in problem_definitions()
               if d.cuda_functor is not None and d.cuda_functor not in listed}
    assert not missing, f"cuda_functor names not in MW_FOR_EACH_FUNCTOR: {missing}"
    # and no functor without a problem: each one mirrors a registered formula
    used = {d.cuda_functor for d in problem_definitions()}
    assert listed <= used, f"functors no problem uses: {sorted(listed - used)}"


def _header_table(name: str) -> np.ndarray:
    match = re.search(rf"__device__ const double {name}\[[^=]*=\s*\{{(.*?)\}};", HEADER, re.DOTALL)
    assert match, f"table {name} not found in problems.cuh"
    return np.array([float(v) for v in re.findall(r"-?\d+\.\d+(?:[eE][-+]?\d+)?", match.group(1))])


@pytest.mark.parametrize("cuda_name, table", [
    ("mwp_foxholes_a", annealing_suite.FOXHOLES_A), ("mwp_foxholes_c", annealing_suite.FOXHOLES_C),
    ("mwp_shekel_a", annealing_suite.SHEKEL_A), ("mwp_shekel_c", annealing_suite.SHEKEL_C),
])
def test_header_tables_equal_numpy_tables(cuda_name, table):
    # The Langerman functor reads the first 5 rows of the foxholes table; NumPy's LANGERMAN_A is
    # the same slice, checked here too.
    assert np.array_equal(_header_table(cuda_name), np.asarray(table, dtype=np.float64).ravel())
    assert np.array_equal(annealing_suite.LANGERMAN_A, annealing_suite.FOXHOLES_A[:5])
    assert np.array_equal(annealing_suite.LANGERMAN_C, annealing_suite.FOXHOLES_C[:5])


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not on PATH (no CUDA toolkit here)")
def test_every_functor_compiles_with_nvcc(tmp_path):
    functors = loader.functor_names()
    source = tmp_path / "functors.cu"
    source.write_text(translation_unit(functors), encoding="utf-8")
    procs = {}
    for fast in (0, 1):  # both settings at once: the test stays well under a minute
        cmd = ["nvcc", "-arch=sm_90", "--ptx", *loader.options(bool(fast)),
               "-o", str(tmp_path / f"functors_fm{fast}.ptx"), str(source)]
        procs[fast] = (cmd, subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                             text=True))
    failures = []
    for fast, (cmd, proc) in procs.items():
        try:
            _, err = proc.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
            failures.append(f"MW_FAST_MATH={fast}: nvcc timed out\n{err}")
            continue
        if proc.returncode != 0:
            failures.append(f"MW_FAST_MATH={fast}: {' '.join(cmd)}\n{err}")
    assert not failures, "\n\n".join(failures)
    ptx = (tmp_path / "functors_fm0.ptx").read_text()
    for f in functors:  # every instantiation is in the PTX (mangled names contain the struct name)
        assert re.search(rf"mw_eval_kernel\w*{len(f)}{f}", ptx), f"no kernel for {f} in the PTX"


def test_fold_functors_are_registered_and_found_by_the_loader():
    """The loader's list of fold functors (evaluation_only.cu folds their coordinates as drawn; its
    host stages no points for them) is exactly the fold structs of problems.cuh, all registered."""
    code = re.sub(r"//[^\n]*", "", HEADER)
    structs = set(re.findall(r"struct\s+(\w+)\s*:\s*Mw\w*Fold<\1>", code))
    assert {"Rastrigin", "Ackley", "Sphere"} <= structs
    assert loader.fold_functors() == structs
    assert structs <= set(loader.functor_names())
