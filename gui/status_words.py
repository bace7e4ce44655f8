"""A run's statuses in the words the window's status bar shows, shared with the compare panel's rows.

The runner and the controller speak in short internal words ('initialising walkers', 'max_iters');
the window says them as sentences. Each status has forms: the whole sentence first, then shorter
ones for less room. The status bar shows the longest that fits (MainWindow.show_fitted_message); a
narrow table cell shows ``cell_words`` and keeps the whole sentence in its tooltip.
"""
from __future__ import annotations

import re

from solvers import RunConfig

from .controller import ALREADY_RUNNING, STOPPING_AFTER_COMPILE

# Plain words for the runner's stop reasons ({budget} is the budget's number as the user wrote it).
STOP_WORDS = {"max_iters": "the budget of {budget} iterations is spent",
              "max_evals": "the budget of {budget} evaluations is spent",
              "max_seconds": "the budget of {budget} seconds is spent",
              "converged": "every walker has converged", "stopped": "stopped"}
# The same reasons in a few words, for a status bar whose numbers leave no room for the sentence
# (1024 x 640): the numbers beside it say how many iterations, evaluations and seconds.
SHORT_STOP_WORDS = {"max_iters": "budget spent", "max_evals": "budget spent",
                    "max_seconds": "budget spent", "converged": "converged", "stopped": "stopped"}
CELL_CHARS = 24  # a compare row's status cell: 'finished: budget spent' fits, a sentence does not


def run_words(config: RunConfig) -> str:
    """'Multi-walk pattern search on Sphere (f1) (2-D, numpy engine)'."""
    return (f"{algorithm_title(config.algorithm)} on {problem_title(config.problem)} "
            f"({config.dim}-D, {config.engine} engine)")


def short_run_words(config: RunConfig) -> str:
    """'pattern search, Sphere 2-D': the run in a few words (the engine is named beside it)."""
    problem = re.sub(r"\s*\([^()]*\)$", "", problem_title(config.problem)) or config.problem
    return f"{config.algorithm.replace('_', ' ')}, {problem} {config.dim}-D"


def starting_forms(config: RunConfig) -> tuple[str, ...]:
    return f"starting {run_words(config)}", f"starting: {short_run_words(config)}"


def status_forms(text: str, config: RunConfig | None = None) -> tuple[str, ...]:
    """The forms of a controller status (sigStatus) for the run of `config`; words the window has
    no sentence for are shown as they are."""
    if text == ALREADY_RUNNING:
        return text, "run in progress: stop it first", "run in progress"
    if text == STOPPING_AFTER_COMPILE:
        return text, "stopping after the compile under way…", "stopping…"
    if config is None:
        return (text,)
    algorithm, problem = algorithm_title(config.algorithm), problem_title(config.problem)
    forms = {"compiling kernels": (f"compiling CUDA kernels for {algorithm} x {problem} (first use;"
                                   " cached on disk; not counted in the timings)…",
                                   "compiling CUDA kernels (first use, not timed)…",
                                   "compiling kernels…"),
             "initialising walkers": ("placing the walkers…",),
             "first iteration": (f"first iteration on the {config.engine} engine: it compiles its "
                                 "kernels on first use (cached on disk; 'python main.py warmup' "
                                 "before a lesson)…",
                                 "first iteration: compiling kernels (first use)…",
                                 "compiling kernels…"),
             "warming up": ("warming up the GPU (not counted in the timings)…",
                            "warming up the GPU…"),
             "running": (f"running {run_words(config)}",
                         f"running: {short_run_words(config)}")}.get(text)
    if forms is None and text.startswith("compiling"):  # another engine's words (numba)
        forms = (text, "compiling kernels…")
    return forms or (text,)


def finished_forms(reason: str, budget: str) -> tuple[str, ...]:
    """The end of a run: why it stopped, `budget` the number the budget was written with."""
    why = STOP_WORDS.get(reason, reason).format(budget=budget)
    if budget in ("1", "1.0"):  # "the budget of 1 evaluations": one of each unit
        why = why.replace("iterations is", "iteration is").replace(
            "evaluations is", "evaluation is").replace("seconds is", "second is")
    return f"finished, {why}", f"finished: {SHORT_STOP_WORDS.get(reason, reason)}"


def error_forms(message: str, title: str = "The run stopped with an error:",
                short: str = "error") -> tuple[str, ...]:
    return f"{title} {message}", f"{short}: {message}"


def cell_words(forms: tuple[str, ...]) -> str:
    """A narrow cell's text: the shortest form where it fits CELL_CHARS, else the word before its
    colon ('error: <message>' -> 'error'), else its start cut with a mark."""
    shortest = forms[-1]
    if len(shortest) <= CELL_CHARS:
        return shortest
    head = shortest.split(":", 1)[0]
    if head != shortest and len(head) <= CELL_CHARS:
        return head
    return shortest[:CELL_CHARS - 1].rstrip() + "…"


def algorithm_title(name: str) -> str:
    import solvers  # noqa: PLC0415

    return getattr(solvers.get_algorithm(name), "title", name)


def problem_title(name: str) -> str:
    from solvers.problems import get_definition  # noqa: PLC0415

    return get_definition(name).title
