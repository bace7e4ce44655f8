"""Every algorithm x variant, read from the registries: the cases of the contract tests.

A variant is one combination of an algorithm's choice and switch parameters (``variant``,
``schedule``, ``hybrid_base``, ``restart``...; a parameter that does not apply to the chosen
``variant`` is not combined). Sizes are small: "auto" counts become SMALL_WALKERS walkers and
SMALL_GROUPS swarms/populations, so a new algorithm, variant or engine is covered by the tests that
use ``variant_cases()`` without editing a case table.
"""
from __future__ import annotations

import itertools

from solvers.algorithms import list_algorithms
from solvers.engines import reference_class
from solvers.params import specs

SMALL_WALKERS = 32
SMALL_GROUPS = 3
# Overrides that make a short run reach every phase: the annealing cools in a few dozen
# iterations (the hybrid then polishes), pattern search restarts within them.
QUICK = {
    "simulated_annealing": dict(t0=10.0, alpha=0.5, chain_length=2, polish_points=4),
    "pattern_search": dict(round_iterations=7),
}
QUICK_ITERATIONS = 70  # iterations after which every QUICK run has reached its last phase


def _axes(params_cls) -> list:
    """The choice and switch parameters, ``variant`` first (the others may depend on it)."""
    chosen = [s for s in specs(params_cls) if s.kind is bool or (s.kind is str and s.choices)]
    return sorted(chosen, key=lambda s: s.name != "variant")


def small_params(algorithm: str, **choices) -> dict:
    """Keyword arguments of a small run of `algorithm` with the given choices."""
    out = {}
    for spec in specs(reference_class(algorithm).Params):
        if spec.auto or spec.name == "walkers":
            out[spec.name] = int(max(spec.lo or 1, SMALL_WALKERS if spec.name == "walkers" else SMALL_GROUPS))
    # the quick settings that apply to the chosen variant: a parameter of another variant is refused
    # (solvers/params.py: "has no effect under variant ..."), e.g. the hybrid's polish_points
    applies = {s.name for s in specs(reference_class(algorithm).Params) if s.applies_to(choices.get("variant"))}
    out.update({k: v for k, v in QUICK.get(algorithm, {}).items() if k in applies})
    out.update(choices)
    return out


def variants(algorithm: str) -> list[dict]:
    """Every combination of the algorithm's choices that changes what runs."""
    axes = _axes(reference_class(algorithm).Params)
    values = [s.choices if s.kind is str else (False, True) for s in axes]
    seen, out = set(), []
    for combo in itertools.product(*values):
        chosen = dict(zip((s.name for s in axes), combo))
        variant = chosen.get("variant")
        applied = {s.name: chosen[s.name] for s in axes if s.applies_to(variant)}
        key = tuple(sorted(applied.items()))
        if key not in seen:
            seen.add(key)
            out.append(applied)
    return out


def variant_cases(algorithms=None) -> list[tuple[str, dict, str]]:
    """(algorithm, small params, test id) for every algorithm x variant (default: the registered
    algorithms; benchmark-only ones such as evaluation_only may be named)."""
    cases = []
    for algorithm in algorithms or list_algorithms():
        for chosen in variants(algorithm):
            label = "-".join(f"{k}={v}" for k, v in chosen.items())
            cases.append((algorithm, small_params(algorithm, **chosen),
                          f"{algorithm}-{label}" if label else algorithm))
    return cases


# max_evals as a hard cap, numba and cuda against numpy (tests/test_numba_cap.py,
# tests/test_gpu_budget_caps.py): (algorithm, params, counts equal numpy's in every case). Pattern
# search, PSO, DE and the annealing proposals make fixed evaluations per iteration; MDS and the
# hybrid's Nelder-Mead depend on the moves, so their counts agree where both engines run into the
# budget (with restarts they do).
CAP_VARIANTS = [
    ("pattern_search", {}, True),
    ("pattern_search", {"restart": True, "round_iterations": 3}, True),
    ("multidirectional_search", {"restart": True}, True),
    ("multidirectional_search", {}, False),
    ("simulated_annealing", {"variant": "async"}, True),
    ("simulated_annealing", {"variant": "sync"}, True),
    ("simulated_annealing", {"variant": "hybrid"}, False),
    ("particle_swarm", {"variant": "classic"}, True),
    ("particle_swarm", {"variant": "classic", "swarms": 3}, True),
    ("particle_swarm", {"variant": "spso2011"}, True),
    ("particle_swarm", {"variant": "spso2011", "swarms": 3}, True),
    ("differential_evolution", {}, True),
    ("differential_evolution", {"populations": 3}, True),
]
CAP_IDS = [a + "".join(f"-{k}={v}" for k, v in p.items()) for a, p, _ in CAP_VARIANTS]
