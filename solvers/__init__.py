"""Multiwalk's compute core: problems, algorithms, engines and the run loop. Imports no Qt."""
from .algorithms import get_algorithm, list_algorithms  # noqa: F401
from .api import run  # noqa: F401
from .config import Budget, RunConfig  # noqa: F401
from .engines import ENGINES, available_engines, engine_status  # noqa: F401
from .errors import ConfigError, DeviceMemoryError, EngineUnavailable  # noqa: F401
from .problems import Problem, get_problem, list_problems  # noqa: F401
from .runner import RunResult, Runner  # noqa: F401
from .snapshot import Snapshot  # noqa: F401
from .study import study  # noqa: F401
from .tune import tune  # noqa: F401
