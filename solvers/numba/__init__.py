"""The numba engine: compiled, multi-core CPU implementations of every algorithm (the honest CPU
baseline of every speedup).

``numba_algorithm(name)`` returns the class for an algorithm, importing numba only then, so this
package imports where numba is missing; ``numba_status()`` says whether the engine runs here and,
if not, why. Every algorithm is a fused kernel over walkers (starts, chains, swarms, populations)
built on philox.py and functions.py; ``base.with_compiled_evaluation`` (the reference array code
with compiled evaluations) remains for an algorithm registered without one.
"""
from __future__ import annotations

import functools
import hashlib
import importlib
import os
import sys
from pathlib import Path

from ..errors import EngineUnavailable

# registry name -> (module in solvers.numba, class name); None = reference with compiled evaluation
_NUMBA_CLASSES: dict[str, tuple[str, str] | None] = {
    "pattern_search": ("pattern_search", "PatternSearchNumba"),
    "simulated_annealing": ("simulated_annealing", "SimulatedAnnealingNumba"),
    "multidirectional_search": ("multidirectional_search", "MultidirectionalSearchNumba"),
    "particle_swarm": ("particle_swarm", "ParticleSwarmNumba"),
    "differential_evolution": ("differential_evolution", "DifferentialEvolutionNumba"),
}

COMPILING_MESSAGE = "compiling the numba engine (once)"


def use_versioned_cache() -> str | None:
    """Keep Numba's on-disk cache in a folder named by a hash of the sources its kernels compile.

    Numba keys a cached function by its own file's modification time only: a kernel in
    pattern_search.py kept its old machine code after functions.py changed the objective it calls
    (seen here: a stale pattern-search kernel ran the old cosine at half the speed), and tables a
    kernel reads (solvers/problems: Shekel's and Foxholes' constants) are frozen into it. A folder
    per version of solvers/numba and solvers/problems (~/.cache/multiwalk/numba/<hash>, or under
    $XDG_CACHE_HOME) cannot go stale. A NUMBA_CACHE_DIR set by the user is left alone. Decided once
    per process (the sources on disk may change under a running window: the kernels it compiles
    still belong to the version it imported); returns the folder in use (None: the user's)."""
    global _CACHE_FOLDER
    if _CACHE_FOLDER is not None:
        return _CACHE_FOLDER or None
    if os.environ.get("NUMBA_CACHE_DIR") and not os.environ.get("MULTIWALK_NUMBA_CACHE"):
        _CACHE_FOLDER = ""
        return None
    here = Path(__file__).parent
    digest = hashlib.sha1()
    for path in sorted([*here.glob("*.py"), *(here.parent / "problems").rglob("*.py")]):
        digest.update(path.relative_to(here.parent).as_posix().encode() + b"\0" + path.read_bytes())
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = os.path.join(base, "multiwalk", "numba", digest.hexdigest()[:16])
    # the marker tells a child process (Dask workers, subprocesses) that the folder is ours: its
    # own sources may differ (another checkout), so it recomputes rather than inherits
    os.environ["NUMBA_CACHE_DIR"] = os.environ["MULTIWALK_NUMBA_CACHE"] = folder
    config = sys.modules.get("numba.core.config")
    if config is not None:  # numba already imported: it read the variable then
        config.CACHE_DIR = folder
    _CACHE_FOLDER = folder
    return folder


_CACHE_FOLDER: str | None = None  # decided once per process ("": the user's NUMBA_CACHE_DIR)


use_versioned_cache()


@functools.lru_cache(maxsize=None)
def numba_status() -> tuple[bool, str]:
    """(usable, description): the CPU and thread count, or why numba cannot run here."""
    try:
        import numba  # noqa: PLC0415
    except Exception as exc:  # ImportError, or a broken llvmlite underneath
        return False, f"Numba is not installed or failed to import ({type(exc).__name__}: {exc})"
    return True, f"{cpu_model()}, {numba.config.NUMBA_NUM_THREADS} threads (Numba {numba.__version__})"


@functools.lru_cache(maxsize=None)
def cpu_model() -> str:
    """The CPU's model name (Linux /proc/cpuinfo, else platform.processor())."""
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform  # noqa: PLC0415

    return platform.processor() or "unknown CPU"


def numba_algorithms() -> list[str]:
    return list(_NUMBA_CLASSES)


@functools.lru_cache(maxsize=None)
def numba_algorithm(name: str) -> type:
    """The numba-engine class of algorithm `name`; EngineUnavailable saying why if there is none."""
    ok, reason = numba_status()
    if not ok:
        raise EngineUnavailable(f"engine 'numba' is not available: {reason}")
    if name not in _NUMBA_CLASSES:
        raise EngineUnavailable(f"no numba implementation of '{name}'")
    entry = _NUMBA_CLASSES[name]
    try:
        if entry is None:
            from ..algorithms import get_algorithm  # noqa: PLC0415
            from .base import with_compiled_evaluation  # noqa: PLC0415

            return with_compiled_evaluation(get_algorithm(name))
        module = importlib.import_module(f"{__name__}.{entry[0]}")
    except ImportError as exc:
        raise EngineUnavailable(f"numba engine for '{name}' failed to import: {exc}") from exc
    return getattr(module, entry[1])
