"""The cuda engine: fused-kernel implementations of the algorithms (kernels/ through CuPy).

``cuda_algorithm(name)`` returns the class for an algorithm, importing its module only then (CuPy
and the kernels are loaded lazily, so this package imports on machines without either). Each class
has the interface of solvers.algorithms.base.Algorithm and the Params of its reference module.
"""
from __future__ import annotations

import importlib

from ..errors import EngineUnavailable

# registry name -> (module in solvers.cuda, class name). Part 2 adds its algorithms here.
_CUDA_CLASSES: dict[str, tuple[str, str]] = {
    "pattern_search": ("pattern_search", "PatternSearchCuda"),
    "simulated_annealing": ("simulated_annealing", "SimulatedAnnealingCuda"),
    "evaluation_only": ("evaluation_only", "EvaluationOnlyCuda"),
    "multidirectional_search": ("multidirectional_search", "MultidirectionalSearchCuda"),
    "particle_swarm": ("particle_swarm", "ParticleSwarmCuda"),
    "differential_evolution": ("differential_evolution", "DifferentialEvolutionCuda"),
}


def cuda_algorithms() -> list[str]:
    """Names of the algorithms that have a fused-kernel implementation."""
    return list(_CUDA_CLASSES)


def cuda_algorithm(name: str) -> type:
    """The cuda-engine class of algorithm `name`; EngineUnavailable saying why if there is none."""
    entry = _CUDA_CLASSES.get(name)
    if entry is None:
        raise EngineUnavailable(f"no fused CUDA kernel for '{name}' yet "
                                f"(cuda engine has: {', '.join(_CUDA_CLASSES)})")
    module_name, class_name = entry
    try:
        module = importlib.import_module(f"{__name__}.{module_name}")
    except ImportError as exc:
        raise EngineUnavailable(f"cuda engine for '{name}' failed to import: {exc}") from exc
    return getattr(module, class_name)
