"""The problem library; importing it registers every function in a fixed order."""
from .base import Problem, ProblemDef, get_definition, get_problem, list_problems, problem_definitions  # noqa: F401
from . import yao  # noqa: F401,E402
from . import annealing_suite  # noqa: F401,E402
from . import others  # noqa: F401,E402
