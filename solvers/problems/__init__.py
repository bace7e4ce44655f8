"""The problem library; importing it registers every function in a fixed order."""
from .base import (Problem, ProblemDef, get_definition, get_problem, is_builtin, list_problems,  # noqa: F401
                   param_defaults, problem_definitions)
from . import yao  # noqa: F401,E402
from . import annealing_suite  # noqa: F401,E402
from . import others  # noqa: F401,E402
