"""Every kernel instantiation compiles with the machine's nvcc (CI has nvcc, no GPU).

For each kernel file, dtype and fast-math setting, the loader's exact source (headers + file) is
compiled with ``nvcc -arch=sm_90 --ptx``, every name expression over every functor instantiated by
taking its address at namespace scope; units compile in parallel subprocesses. Fast math changes
only the float overloads of common.cuh (checked below), so double code is the same text with either
setting and is compiled once. The sweep runs the front end and NVVM at -O0 (errors in templates,
types and code generation show there; optimising ~2000 instantiations would take minutes); one
functor per file is also compiled fully optimised down to machine code (ptxas), as the driver
would. Also checks Philox4x32-10 against the Random123 known-answer vectors.

The units (~70 s of nvcc on one core) start compiling in a background thread, one at a time, as soon
as the session has collected these tests (conftest.py calls ``start_in_background``), beside the test
files before this one (CI's second core); the fixture compiles what is left, two at a time, and
waits for the rest. Not niced: a niced unit still in flight would be starved by the fixture's own
compiles and end last.

The units run in threads beside tests that change the environment (monkeypatch.setenv, the numba
engine's cache folder). CPython starts children with vfork, so a child that inherits the live
environment can exec while another thread is rewriting it: CI saw nvcc fail with "Bad address" and
with "gcc: No such file or directory". Each unit is therefore given a copy taken at import.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

import pytest

from kernels import loader
from solvers.problems.base import problem_definitions

# Taken on the main thread before any unit starts (see the module docstring).
_ENV = dict(os.environ)

NVCC = shutil.which("nvcc") or ("/usr/local/bin/nvcc" if os.path.exists("/usr/local/bin/nvcc") else None)
needs_nvcc = pytest.mark.skipif(NVCC is None, reason="nvcc not found on PATH (CUDA toolkit absent)")
FILES = loader.kernel_files()
CASES = [(name, ctype, fast) for name in FILES for ctype in ("float", "double")
         for fast in ((False, True) if ctype == "float" else (False,))]
OPTIMISED = [(name, "both", False) for name in FILES]  # Rastrigin only, -O3 and ptxas
OPTIMISED_FUNCTOR = "Rastrigin"


def unit_expressions(kernel_file: str, ctype: str) -> list[str]:
    """The file's instantiations for one C type (kernels templated on T only included)."""
    if ctype == "both":
        return [e for e in loader.all_name_expressions(kernel_file)
                if f"<{OPTIMISED_FUNCTOR}," in e or "," not in e]
    other = "double" if ctype == "float" else "float"
    return [e for e in loader.all_name_expressions(kernel_file)
            if f"{ctype}>" in e and f"{other}>" not in e]


def instantiation_unit(kernel_file: str, ctype: str) -> str:
    """The loader's source plus a namespace-scope table forcing every instantiation."""
    table = ",\n    ".join(f"(void*)&{e}" for e in unit_expressions(kernel_file, ctype))
    return loader.source(kernel_file) + f"\nvoid* mw_instantiations[] = {{\n    {table}\n}};\n"


def _compile(case):
    kernel_file, ctype, fast = case
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / kernel_file
        src.write_text(instantiation_unit(kernel_file, ctype), encoding="utf-8")
        out = src.with_suffix(".ptx")
        if ctype == "both":  # optimised, through ptxas: count the entries in the PTX kept beside
            # (with the options of a built-in's box, as the engine compiles them; the -O0 cases
            # above keep the general cospi)
            cmd = [NVCC, "-arch=sm_90", "-cubin", "--keep", "--keep-dir", tmp, *loader.options(fast, boxed=True),
                   "-o", str(src.with_suffix(".cubin")), str(src)]
        else:
            cmd = [NVCC, "-arch=sm_90", "--ptx", "-Xcicc", "-O0", *loader.options(fast), "-o", str(out),
                   str(src)]
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp, env=_ENV)
        ptx = ""
        if proc.returncode == 0:
            ptx = "".join(p.read_text() for p in Path(tmp).glob("*.ptx"))
    return proc, ptx


class CompileUnits:
    """Each unit compiled once, by whichever thread claims it first: the background thread of
    ``start`` and the threads of ``results``."""

    def __init__(self, cases):
        self.cases = list(cases)
        self._todo = list(cases)
        self._done: dict = {}
        self._cond = threading.Condition()

    def _work(self) -> None:
        while True:
            with self._cond:
                if not self._todo:
                    return
                case = self._todo.pop(0)
            try:
                result = _compile(case)
            except Exception as exc:  # noqa: BLE001 - reported by the test of this unit
                result = (subprocess.CompletedProcess([NVCC], 1, "", f"{type(exc).__name__}: {exc}"), "")
            with self._cond:
                self._done[case] = result
                self._cond.notify_all()

    def start(self) -> None:
        """Compile in one background thread, one unit at a time (a daemon: if the session ends
        first, nothing waits for it)."""
        threading.Thread(target=self._work, daemon=True, name="nvcc units").start()

    def results(self, workers: int) -> dict:
        """Every unit's (process, ptx): compiles the unclaimed ones on `workers` threads, then
        waits for those in flight in the background."""
        threads = [threading.Thread(target=self._work) for _ in range(workers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        with self._cond:
            self._cond.wait_for(lambda: len(self._done) == len(self.cases))
            return dict(self._done)


UNITS = CompileUnits(CASES + OPTIMISED)


def start_in_background(items) -> None:
    """Called by conftest.py with this module's selected tests, once the session has collected."""
    if NVCC is not None and any("compiled" in item.fixturenames for item in items):
        UNITS.start()


@pytest.fixture(scope="module")
def compiled():
    """All (file, fast-math) units compiled once (see the module docstring)."""
    if NVCC is None:
        pytest.skip("nvcc not found on PATH (CUDA toolkit absent)")
    return UNITS.results(workers=max(2, os.cpu_count() or 2))


def test_every_registered_cuda_functor_is_listed_in_problems_cuh():
    listed = set(loader.functor_names())
    wanted = {d.cuda_functor for d in problem_definitions() if d.cuda_functor}
    assert wanted, "no problem names a cuda_functor"
    assert wanted <= listed, f"functors missing from MW_FOR_EACH_FUNCTOR: {sorted(wanted - listed)}"


def test_fast_math_switch_touches_float_code_only():
    """The compile units skip double with fast math on: only common.cuh may read MW_FAST_MATH."""
    for path in loader.KERNEL_DIR.iterdir():
        if path.suffix in (".cu", ".cuh") and path.name != "common.cuh":
            assert "MW_FAST_MATH" not in path.read_text(encoding="utf-8"), path.name
    common = (loader.KERNEL_DIR / "common.cuh").read_text(encoding="utf-8")
    for line in common.splitlines():
        if "MW_FAST_MATH ?" in line:
            assert line.lstrip().startswith("__device__ __forceinline__ float "), line


def test_file_headers_enter_the_source_once():
    """A kernel file's ``// MW_HEADERS:`` headers are in its source (so in CuPy's cache key), once,
    after the shared headers and before the file; the grid-barrier kernels share group_sync.cuh."""
    for name in FILES:
        text = loader.source(name)
        for header in loader.declared_headers(name):
            assert header not in loader.HEADERS, (name, header)
            marker = f"// ---- {header} ----"
            assert text.count(marker) == 1, (name, header)
            assert text.index("// ---- problems.cuh ----") < text.index(marker) < text.index(f"// ---- {name} ----")
    for name in ("particle_swarm.cu", "differential_evolution.cu"):
        assert "group_sync.cuh" in loader.declared_headers(name), name


def test_group_barrier_and_l2_loads_are_written_once():
    """The inline assembly of the L2 loads and the barrier lives in group_sync.cuh only."""
    for path in loader.KERNEL_DIR.iterdir():
        if path.suffix in (".cu", ".cuh") and path.name != "group_sync.cuh":
            code = "\n".join(line.split("//")[0] for line in path.read_text(encoding="utf-8").splitlines())
            for asm in ("ld.global.cg", "ld.acquire", "atomicAdd(s.bar"):
                assert asm not in code, (path.name, asm)


def test_units_cover_every_instantiation():
    for name in FILES:
        covered = set(unit_expressions(name, "float")) | set(unit_expressions(name, "double"))
        assert covered == set(loader.all_name_expressions(name))


def test_every_kernel_file_declares_kernels():
    assert {"pattern_search.cu", "evaluation_only.cu"} <= set(FILES)
    for name in FILES:
        exprs = loader.all_name_expressions(name)
        functors = loader.functor_names()
        # at least one functor-templated kernel per functor and dtype
        for functor in functors:
            assert any(f"<{functor}, float>" in e for e in exprs), (name, functor)
            assert any(f"<{functor}, double>" in e for e in exprs), (name, functor)


@needs_nvcc
@pytest.mark.slow
@pytest.mark.parametrize("kernel_file,ctype,fast", CASES + OPTIMISED,
                         ids=[f"{n}-{t}-fast{int(f)}" if t != "both" else f"{n}-optimised"
                              for n, t, f in CASES + OPTIMISED])
def test_kernel_file_compiles_for_every_functor_and_dtype(compiled, kernel_file, ctype, fast):
    proc, ptx = compiled[(kernel_file, ctype, fast)]
    assert proc.returncode == 0, (f"nvcc failed for {kernel_file} ({ctype}, fast math {fast}):\n"
                                  f"{proc.stderr[-6000:]}")
    # every instantiation was emitted (the address table forced it): one .entry per expression
    assert ptx.count(".entry") >= len(unit_expressions(kernel_file, ctype))


PHILOX_KAT = """
#include <cstdio>
#include "common.cuh"
#include "random.cuh"
int main() {
    const unsigned int c[3][6] = {
        {0u, 0u, 0u, 0u, 0u, 0u},
        {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu},
        {0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u, 0xa4093822u, 0x299f31d0u}};
    for (int t = 0; t < 3; ++t) {
        MwWords w = {c[t][0], c[t][1], c[t][2], c[t][3]};
        MwWords r = mw_philox4x32_10(w, c[t][4], c[t][5]);
        printf("%08x %08x %08x %08x\\n", r.x, r.y, r.z, r.w);
    }
    return 0;
}
"""


def run_on_host(program: str) -> str:
    """Build a host program that includes the kernel headers with nvcc and run it: its stdout
    (skips where nvcc cannot build host executables)."""
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "host.cu"
        src.write_text(program, encoding="utf-8")
        exe = Path(tmp) / "host"
        proc = subprocess.run([NVCC, "-I", str(loader.KERNEL_DIR), "-o", str(exe), str(src)],
                              capture_output=True, text=True)
        if proc.returncode != 0 and "cannot find" in proc.stderr.lower():
            pytest.skip(f"nvcc cannot build host executables here: {proc.stderr.strip()[:200]}")
        assert proc.returncode == 0, proc.stderr
        return subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout


@needs_nvcc
def test_philox_matches_random123_known_answers():
    """Random123's kat_vectors for philox4x32 with 10 rounds, run on the host through nvcc."""
    out = run_on_host(PHILOX_KAT).split("\n")
    assert out[0] == "6627e8d5 e169c58d bc57ac4c 9b00dbd8"
    assert out[1] == "408f276d 41c83b0e a20bc7c6 6d5451fd"
    assert out[2] == "d16cfe09 94fdcceb 5001e420 24126ea1"


RNG_HIGH = """
#include <cstdio>
#include "common.cuh"
#include "random.cuh"
// splitmix64: test inputs only
static unsigned long long mix(unsigned long long& s) {
    unsigned long long z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
int main() {
    unsigned long long s = 12345, blocks = 0, words_differ = 0, units_differ = 0;
    const unsigned int highs[4] = {0u, 1u, 0x7FFFFFFFu, 0xFFFFFFFFu};
    for (int c = 0; c < 4000; ++c) {
        const unsigned long long seed = mix(s), walker = mix(s) >> (c % 9 * 4);
        const unsigned int stream = 1 + (unsigned int)(mix(s) % 255);
        const unsigned int high = c < 16 ? highs[c % 4] : (unsigned int)(mix(s) >> (c % 33));
        const MwRng g(seed, walker, stream);
        const MwRngHigh h(g, high);
        for (int k = 0; k < 16; ++k) {
            const unsigned int low = k < 2 ? (k ? 0xFFFFFFFFu : 0u) : (unsigned int)mix(s);
            const MwWords a = g(((unsigned long long)high << 32) | low), b = h(low);
            blocks += 1;
            words_differ += (a.x != b.x) + (a.y != b.y) + (a.z != b.z) + (a.w != b.w);
            for (int q = 0; q < 4; ++q) units_differ += mw_uniform_units<float>(a, q) * MwUnit<float>::value != mw_uniform<float>(a, q);
            for (int q = 0; q < 2; ++q) units_differ += mw_uniform_units<double>(a, q) * MwUnit<double>::value != mw_uniform<double>(a, q);
        }
    }
    printf("%llu %llu %llu\\n", blocks, words_differ, units_differ);
    return 0;
}
"""


@needs_nvcc
def test_high_word_generator_and_integer_uniforms_match_the_general_ones():
    """MwRngHigh (Philox with its first rounds' constant parts made once) gives MwRng's words for
    every draw of its high word, and the integer uniforms times MwUnit are mw_uniform exactly
    (64,000 blocks: random walkers, streams and seeds, high words 0, 1, 2^31 - 1, 2^32 - 1 and
    random ones, low words 0, 2^32 - 1 and random ones)."""
    assert run_on_host(RNG_HIGH).split() == ["64000", "0", "0"]


def test_file_defines_come_before_the_headers(monkeypatch):
    """A kernel file's ``// MW_DEFINES:`` macros open its source (the shared headers read them, e.g.
    common.cuh's MW_COSPI_LIBRARY); a malformed item is refused with the file named. No kernel file
    sets one now (particle_swarm.cu dropped the library's cospif in v21), so a line is added here."""
    assert "MW_COSPI_LIBRARY" not in loader.source("particle_swarm.cu").split("// ---- common.cuh ----")[0]
    original = loader.read_text
    monkeypatch.setattr(loader, "read_text",
                        lambda name: ("// MW_DEFINES: MW_COSPI_LIBRARY=1\n" if name == "particle_swarm.cu" else "")
                        + original(name))
    text = loader.source("particle_swarm.cu")
    assert text.startswith("#define MW_COSPI_LIBRARY 1\n")
    assert text.index("#define MW_COSPI_LIBRARY 1") < text.index("// ---- common.cuh ----")
    assert "MW_COSPI_LIBRARY" not in loader.source("evaluation_only.cu").split("// ---- common.cuh ----")[0]
    monkeypatch.setattr(loader, "read_text", lambda name: "// MW_DEFINES: lower=1\n" + original(name))
    with pytest.raises(Exception, match="particle_swarm.cu: MW_DEFINES item 'lower=1'"):
        loader.source("particle_swarm.cu")


def test_boxed_option_follows_the_box():
    """A box within +-2^19 compiles cospi without its large-argument path (common.cuh:
    MW_COSPI_BOXED); every built-in's box qualifies, a wider, infinite or empty one does not."""
    import numpy as np

    assert loader.options(False, boxed=True)[-1] == "-DMW_COSPI_BOXED=1"
    assert loader.options(True)[-1] == "-DMW_COSPI_BOXED=0"
    for definition in problem_definitions():
        lower, upper = definition.bounds(definition.default_dim)
        assert loader.is_boxed(lower, upper), definition.name
    assert loader.is_boxed([-2.0**19], [2.0**19])
    assert not loader.is_boxed([-2.0**19 - 1], [0.0])
    assert not loader.is_boxed([-np.inf], [1.0]) and not loader.is_boxed([np.nan], [1.0])
    assert not loader.is_boxed([], [])


def test_only_the_folds_take_the_boxed_cospi():
    """MW_COSPI_BOXED's promise (|x| <= 2^21) holds for 2 v of an evaluated coordinate, so only
    problems.cuh's folds may call mw_cospi_coordinate or mw_cos2pi_coordinate (cos(2 pi v) reduced
    from v, under the same promise); a user's expression (any argument: cos(pi x^10)) goes through
    mw_cospi, the library's cospif."""
    from solvers.problems.expression.emit_cuda import cuda_functor
    from solvers.problems.expression.parse import parse

    # (the folds take cos(2 pi v) from v now; nothing else calls either, nor the boxed form itself)
    expected = {"mw_cos2pi_coordinate(": ["problems.cuh"], "mw_cospi_coordinate(": [], "mw_cos2pi_boxed(": []}
    for name, want in expected.items():
        callers = [path.name for path in loader.KERNEL_DIR.iterdir()
                   if path.suffix in (".cu", ".cuh") and path.name != "common.cuh"
                   and name in path.read_text(encoding="utf-8")]
        assert callers == want, (name, callers)
    source = cuda_functor(parse("cos(pi*x1**10) + x2").tree).source
    assert "mw_cospi(" in source and "_coordinate" not in source and "mw_cos2pi" not in source
    common = (loader.KERNEL_DIR / "common.cuh").read_text(encoding="utf-8")
    assert ": cospif(x); }" in next(line for line in common.splitlines()
                                     if line.startswith("__device__ __forceinline__ float mw_cospi(float x)"))
