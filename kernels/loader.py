"""The one cached loader of Multiwalk's CUDA kernels.

A module is built from the *text* of the shared headers (common.cuh, random.cuh, reduce.cuh,
problems.cuh), the headers the algorithm file asks for in a line ``// MW_HEADERS: a.cuh b.cuh``
(helpers that only some kernels use, e.g. group_sync.cuh) and the algorithm file (``*.cu``),
compiled by CuPy's ``RawModule`` with the kernels' template instantiations as
``name_expressions``. Text is concatenated rather than ``#include``d because CuPy's disk cache
keys on the source text: an edited header then always recompiles. One module per (kernel file, functor, dtype, fast math), cached for the process.

Each ``.cu`` file declares its kernels in a line ``// MW_KERNELS: name<F,T> other<T> ...``:
``<F,T>`` kernels are instantiated per objective functor and dtype, ``<T>`` per dtype only. The
kernels of reduce.cuh (``MW_SHARED_KERNELS``) are added to every module.

CuPy is imported lazily: this package imports without it. Missing CuPy or a failed compilation raise
:class:`solvers.errors.EngineUnavailable`-compatible errors (``KernelUnavailable``) naming the cause.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

KERNEL_DIR = Path(__file__).resolve().parent
HEADERS = ("common.cuh", "random.cuh", "reduce.cuh", "problems.cuh")
CTYPES = {"float32": "float", "float64": "double"}
# Kernels defined in reduce.cuh, available in every module.
MW_SHARED_KERNELS = ("mw_argmin_update<T>", "mw_broadcast_point<T>")
# NVRTC options shared by CuPy and the CI compile test (which passes the same defines to nvcc).
BASE_OPTIONS = ("-std=c++17",)
_KERNELS_LINE = re.compile(r"^//\s*MW_KERNELS:(.*)$", re.MULTILINE)
_HEADERS_LINE = re.compile(r"^//\s*MW_HEADERS:(.*)$", re.MULTILINE)
_DEFINES_LINE = re.compile(r"^//\s*MW_DEFINES:(.*)$", re.MULTILINE)
_DEFINE = re.compile(r"^([A-Z_][A-Z0-9_]*)=(\w+)$")
_FUNCTOR_MACRO = re.compile(r"#define\s+MW_FOR_EACH_FUNCTOR\s*\(\s*(\w+)\s*\)((?:[^\n]*\\\n)*[^\n]*)")


def _unavailable(message: str) -> Exception:
    # Imported here so that kernels/ has no import-time dependency on solvers/ (layers point down).
    try:
        from solvers.errors import EngineUnavailable  # noqa: PLC0415
    except Exception:  # pragma: no cover - kernels used without the solvers package
        return RuntimeError(message)
    return EngineUnavailable(message)


def kernel_files() -> list[str]:
    """Every algorithm kernel file in kernels/ (``*.cu``), sorted."""
    return sorted(p.name for p in KERNEL_DIR.glob("*.cu"))


def read_text(name: str) -> str:
    return (KERNEL_DIR / name).read_text(encoding="utf-8")


def header_text(names=HEADERS) -> str:
    """Headers' text concatenated in the given order (default: the shared ones, dependency order)."""
    parts = []
    for name in names:
        path = KERNEL_DIR / name
        if not path.exists():
            raise _unavailable(f"kernel header kernels/{name} is missing")
        parts.append(f"// ---- {name} ----\n{path.read_text(encoding='utf-8')}\n")
    return "".join(parts)


def declared_headers(kernel_file: str) -> list[str]:
    """The headers a kernel file asks for beyond the shared ones (its ``// MW_HEADERS:`` lines)."""
    return [name for line in _HEADERS_LINE.findall(read_text(kernel_file)) for name in line.split()]


def declared_defines(kernel_file: str) -> list[tuple[str, str]]:
    """Macros a kernel file sets for the shared headers (its ``// MW_DEFINES: NAME=VALUE ...``
    lines), e.g. MW_COSPI_LIBRARY=1 (common.cuh): they must come before the headers, so the file
    cannot #define them itself."""
    out = []
    for item in (i for line in _DEFINES_LINE.findall(read_text(kernel_file)) for i in line.split()):
        match = _DEFINE.match(item)
        if match is None:
            raise _unavailable(f"kernels/{kernel_file}: MW_DEFINES item {item!r} is not NAME=VALUE")
        out.append((match.group(1), match.group(2)))
    return out


def source(kernel_file: str, functor_source: str = "") -> str:
    """The full translation unit for one kernel file: its MW_DEFINES macros, the shared headers, a
    generated functor's source (a user's expression), the file's own headers, then the file. All as
    text, so CuPy's cache key changes whenever any of them is edited.

    MW_FAST_MATH comes as a compiler option (``options(fast_math)``), which CuPy's cache also keys on.
    """
    extra = f"// ---- generated functor ----\n{functor_source}\n" if functor_source else ""
    own = header_text(declared_headers(kernel_file))
    defines = "".join(f"#define {name} {value}\n" for name, value in declared_defines(kernel_file))
    return defines + header_text() + extra + own + f"// ---- {kernel_file} ----\n" + read_text(kernel_file)


# A box within +-BOXED_LIMIT in every coordinate lets the folds' cospi drop its large-argument path
# (common.cuh: MW_COSPI_BOXED; every kernel evaluates points inside its box, or a rounding away from
# it: 2^19 leaves a factor 2 of room under what the boxed cospi allows). A host-supplied MDS start
# (multidirectional_search state_from_simplices) is evaluated as given: keep it inside the box.
BOXED_LIMIT = 2.0**19


def options(fast_math: bool, boxed: bool = False) -> tuple[str, ...]:
    """Compiler options for one module (NVRTC through CuPy; the CI test passes the same to nvcc).
    ``boxed``: the problem's box lies within +-BOXED_LIMIT (``is_boxed``)."""
    return BASE_OPTIONS + (f"-DMW_FAST_MATH={1 if fast_math else 0}", f"-DMW_COSPI_BOXED={1 if boxed else 0}")


def is_boxed(lower, upper) -> bool:
    """Whether every bound of the box lies within +-BOXED_LIMIT (finite), for ``options(boxed=...)``."""
    import numpy as np  # noqa: PLC0415 - kernels imports without NumPy at module level

    bounds = np.concatenate([np.ravel(np.asarray(lower, dtype=np.float64)),
                             np.ravel(np.asarray(upper, dtype=np.float64))])
    return bool(bounds.size) and bool(np.all(np.abs(bounds) <= BOXED_LIMIT))


def functor_names() -> list[str]:
    """Functor struct names listed by MW_FOR_EACH_FUNCTOR(X) in problems.cuh, in order."""
    path = KERNEL_DIR / "problems.cuh"
    if not path.exists():
        return []
    match = _FUNCTOR_MACRO.search(path.read_text(encoding="utf-8"))
    if match is None:
        raise _unavailable("kernels/problems.cuh defines no MW_FOR_EACH_FUNCTOR(X) list")
    arg, body = match.group(1), match.group(2)
    return re.findall(rf"\b{re.escape(arg)}\s*\(\s*(\w+)\s*\)", body)


_FOLD_STRUCT = re.compile(r"^struct\s+(\w+)\s*:\s*Mw\w*Fold<\1>", re.MULTILINE)


@functools.lru_cache(maxsize=None)  # hosts ask per launch (thread mapping, staging): parse once
def fold_functors() -> frozenset[str]:
    """Functors of problems.cuh written as folds (``struct Name : MwFold<Name>``, MwSumFold, ...):
    kernels that make coordinates one at a time fold them as drawn (evaluation_only.cu)."""
    path = KERNEL_DIR / "problems.cuh"
    return frozenset(_FOLD_STRUCT.findall(path.read_text(encoding="utf-8"))) if path.exists() else frozenset()


def declared_kernels(kernel_file: str) -> list[str]:
    """Template declarations of a kernel file, e.g. ['ps_step<F,T>', 'ps_init<T>']."""
    found = []
    for line in _KERNELS_LINE.findall(read_text(kernel_file)):
        found.extend(line.split())
    if not found:
        raise _unavailable(f"kernels/{kernel_file} declares no kernels (a '// MW_KERNELS:' line)")
    return found + list(MW_SHARED_KERNELS)


def expression(declared: str, functor: str, ctype: str) -> str:
    """The name expression of one declared kernel for one functor and C type."""
    name, _, args = declared.partition("<")
    params = [a.strip() for a in args.rstrip(">").split(",") if a.strip()]
    values = [functor if p == "F" else ctype for p in params]
    return f"{name}<{', '.join(values)}>"


def name_expressions(kernel_file: str, functor: str, dtype: str) -> dict[str, str]:
    """Kernel base name -> name expression, for one functor and dtype ('float32'/'float64')."""
    ctype = CTYPES[dtype]
    return {d.partition("<")[0]: expression(d, functor, ctype) for d in declared_kernels(kernel_file)}


def all_name_expressions(kernel_file: str) -> list[str]:
    """Every instantiation of a kernel file: each declared kernel over every functor x dtype.

    Kernels without the F parameter appear once per dtype. Used by the CI compile test.
    """
    out: list[str] = []
    for functor in functor_names():
        for dtype in CTYPES:
            for expr in name_expressions(kernel_file, functor, dtype).values():
                if expr not in out:
                    out.append(expr)
    return out


@dataclass(frozen=True)
class KernelSet:
    """The compiled kernels of one (file, functor, dtype, fast math): ``ks.get('ps_iterate')``."""

    module: object
    expressions: dict
    _functions: dict = field(default_factory=dict, repr=False, compare=False)

    def get(self, name: str):
        """The RawKernel of a declared kernel, by its base name (looked up once)."""
        function = self._functions.get(name)
        if function is None:
            function = self._functions[name] = self.module.get_function(self.expressions[name])
        return function


def _compile_error_lines(exc: Exception, limit: int = 6) -> str:
    text = str(exc)
    lines = [ln.strip() for ln in text.splitlines() if "error" in ln.lower()]
    if not lines:
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return " | ".join(lines[:limit])


@functools.lru_cache(maxsize=None)
def load(kernel_file: str, functor: str, dtype: str, fast_math: bool = False,
         functor_source: str = "", device: int = 0, boxed: bool = False) -> KernelSet:
    """Compile (or fetch from CuPy's cache) the kernels of one file for one functor and dtype.

    ``functor_source`` defines a functor not in problems.cuh (a user's expression, whose struct name
    is a hash of its body); it is part of the cache key here and of the source CuPy keys on.
    ``device``: the current CUDA device, which the module is loaded on (part of the cache key: a run
    split over GPUs loads one module per device). ``boxed``: see ``options``."""
    if dtype not in CTYPES:
        raise ValueError(f"dtype must be one of {', '.join(CTYPES)}, got {dtype!r}")
    try:
        import cupy  # noqa: PLC0415
    except Exception as exc:
        raise _unavailable(f"CuPy is not installed or failed to import ({type(exc).__name__}: {exc})") from exc
    names = functor_names()
    if functor not in names and not functor_source:
        raise _unavailable(f"no CUDA functor '{functor}' in kernels/problems.cuh")
    expressions = name_expressions(kernel_file, functor, dtype)
    try:
        module = cupy.RawModule(code=source(kernel_file, functor_source), options=options(fast_math, boxed),
                                name_expressions=list(expressions.values()))
        # compile now, so that errors surface here (the runner says "compiling") and not at a launch
        compile_now = getattr(module, "compile", None)
        if compile_now is not None:
            compile_now()
        else:  # older CuPy: fetching a function compiles the module
            module.get_function(next(iter(expressions.values())))
    except Exception as exc:
        raise _unavailable(f"kernels/{kernel_file} failed to compile for {functor}/{dtype}: "
                           f"{_compile_error_lines(exc)}") from exc
    return KernelSet(module=module, expressions=expressions)
