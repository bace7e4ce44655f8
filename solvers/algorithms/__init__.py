"""The five algorithms; importing this package fills the registry in a fixed order."""
from .registry import get_algorithm, list_algorithms, register_algorithm  # noqa: F401
from . import pattern_search  # noqa: F401,E402
from . import multidirectional_search  # noqa: F401,E402
from . import simulated_annealing  # noqa: F401,E402
from . import particle_swarm  # noqa: F401,E402
from . import differential_evolution  # noqa: F401,E402
