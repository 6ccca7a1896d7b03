"""Is a (generated or proposed) problem usable? ``check_problem(problem, answer) -> (ok, reason)``.

Used on every generated problem (tests) and by algorithms that propose new problems (EVOHEIR's
Scout), so it only accepts problems whose reward can be computed reliably:

- the problem is non-empty text of bounded length, with balanced braces and ``$`` delimiters,
  and does not reveal its answer in a ``\\boxed{}``;
- the answer is short, parses with math-verify, and is one finite numeric value: not a list,
  set, interval, equation or inequality, and free of variables (``"5 apples"`` reads as 5, but
  ``"five"`` reads as a product of symbols and is refused);
- the answer verifies against itself (math-verify can check a reply against it);
- neither the answer nor the problem's math (its ``$…$`` parts) could build a value too large to
  compute quickly (``coevo.envs.math.cost``: ``Compute $9^{9^{9}}$.`` is refused), and the
  symbolic checks finish within ``VERIFY_TIMEOUT_S`` in ``coevo.core.time_bound``'s worker (in any
  thread); a check that runs out of time refuses the problem.
"""

from __future__ import annotations

import re

import sympy

from coevo.core.time_bound import call_bounded
from coevo.envs.math.answers import MAX_ANSWER_CHARS, VERIFY_TIMEOUT_S, match_unbounded, parse_answer
from coevo.envs.math.cost import costly_text

MAX_PROBLEM_CHARS = 2000
# 1,234 or 12,345.5: commas that are thousands separators, not list separators
_THOUSANDS = re.compile(r"^-?\d{1,3}(,\d{3})+(\.\d+)?$")
_MULTIPLE = re.compile(r"(;|\\pm|±|\bor\b|\band\b|\\cup|\\le|\\ge|\\neq|[<>=≤≥≠])")
_NON_VALUES = (sympy.logic.boolalg.Boolean, sympy.Set, sympy.Tuple, sympy.MatrixBase)


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text.replace("\\{", "").replace("\\}", ""):
        depth += (ch == "{") - (ch == "}")
        if depth < 0:
            return False
    return depth == 0


def check_problem(problem: str, answer: str) -> tuple[bool, str]:
    """``(True, "ok")`` when the problem is well-formed with one checkable answer; else the reason."""
    if not isinstance(problem, str) or not isinstance(answer, str):
        return False, "problem and answer must be strings"
    problem, answer = problem.strip(), answer.strip()
    if not problem:
        return False, "empty problem"
    if len(problem) > MAX_PROBLEM_CHARS:
        return False, f"problem longer than {MAX_PROBLEM_CHARS} characters"
    if sum(ch.isalnum() for ch in problem) < 3:
        return False, "problem has no content"
    if not _balanced(problem):
        return False, "unbalanced braces in the problem"
    if problem.replace("\\$", "").count("$") % 2:
        return False, "unbalanced $ in the problem"
    if "\\boxed" in problem:
        return False, "the problem reveals an answer in \\boxed{}"
    if not answer:
        return False, "empty answer"
    if len(answer) > MAX_ANSWER_CHARS:
        return False, f"answer longer than {MAX_ANSWER_CHARS} characters"
    if not _balanced(answer) or "\\boxed" in answer:
        return False, "malformed answer"
    if _MULTIPLE.search(answer) or ("," in answer and not _THOUSANDS.match(answer)):
        return False, "the answer is not a single value (list, equation or inequality)"
    if costly_text(answer) or any(costly_text(part) for part in _math_parts(problem)):
        return False, "its numbers are too large to compute within the time bound"
    reason = call_bounded("coevo.envs.math.validity:answer_problem", (answer,), VERIFY_TIMEOUT_S, default=None)
    if reason is None:
        return False, f"the answer could not be checked within {VERIFY_TIMEOUT_S:g} s"
    return reason == "ok", reason


def _math_parts(problem: str) -> list[str]:
    """The ``$…$`` parts of a problem (the whole text when it has none)."""
    parts = problem.replace("\\$", "").split("$")[1::2]
    return parts or [problem]


def answer_problem(answer: str) -> str:
    """``"ok"`` when ``answer`` is one finite number math-verify can check; else what is wrong.

    The symbolic half of ``check_problem``, unbounded: ``check_problem`` runs it in the worker.
    """
    parsed = parse_answer(answer)
    if not parsed:
        return "math-verify cannot parse the answer"
    value = parsed[0]
    if isinstance(value, _NON_VALUES) or not isinstance(value, sympy.Expr):
        return f"the answer is not a single value ({type(value).__name__})"
    if value.free_symbols:
        return "the answer is not numeric (it has variables)"
    if value.has(sympy.oo, -sympy.oo, sympy.zoo, sympy.nan):
        return "the answer is not finite"
    if not match_unbounded(answer, answer):
        return "math-verify cannot verify the answer against itself"
    return "ok"
