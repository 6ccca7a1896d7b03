"""The one place coevo-evoheir touches coevo-envs' ``math`` environment.

EVOHEIR's rounds propose, solve, label and verify math problems with the math environment's
pieces: the environment itself, its problem type and generator, the answer check (math-verify),
the validity and cost screens. Every evoheir module imports them from here, so the boundary
between the two packages is this file's import list; a change on the envs side is met here.
"""

from coevo.envs.math.answers import VERIFY_TIMEOUT_S, answers_match, extract_boxed, parse_answer
from coevo.envs.math.cost import costly_text
from coevo.envs.math.env import MathEnv
from coevo.envs.math.generator import generate_problem
from coevo.envs.math.problem import Problem, task_seed
from coevo.envs.math.validity import MAX_PROBLEM_CHARS, check_problem

__all__ = [
    "MAX_PROBLEM_CHARS",
    "VERIFY_TIMEOUT_S",
    "MathEnv",
    "Problem",
    "answers_match",
    "check_problem",
    "costly_text",
    "extract_boxed",
    "generate_problem",
    "parse_answer",
    "task_seed",
]
