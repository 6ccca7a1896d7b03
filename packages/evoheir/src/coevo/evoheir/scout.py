"""The Scout: the same policy, prompted to write a new problem.

Prompt (one per problem type): ``Propose a new <type> math problem. Reply as Problem: … Answer: …``.
Reply: ``Problem: <text>\\nAnswer: <answer>`` (the first ``Problem:``, up to the first ``Answer:``
after it with text on both sides; found with ``str.find``, linear in the reply's length, where a
regex search was quadratic in the number of ``Problem:`` markers). ``parse_proposal`` never raises: an empty,
unparsable or invalid reply (``check_problem`` refuses it) is returned as a rejected proposal with
its reason, counted by the caller and skipped. ``scout_warmup_examples`` turns the math
generator's problems into Scout replies so that the warm start teaches the format.
"""

from __future__ import annotations

from dataclasses import dataclass

from coevo.evoheir.math_env import Problem, check_problem, generate_problem, task_seed

_PROBLEM, _ANSWER = "Problem:", "Answer:"


def scout_prompt(problem_type: str) -> str:
    return f"Propose a new {problem_type.replace('_', ' ')} math problem. Reply as Problem: ... Answer: ..."


def scout_reply(problem: Problem) -> str:
    return f"Problem: {problem.text}\nAnswer: {problem.answer}"


@dataclass
class Proposal:
    text: str  # the Scout's raw reply
    problem_type: str
    problem: Problem | None  # None when rejected
    reason: str  # "ok" or why it was rejected


def parse_proposal(text: str, problem_type: str) -> Proposal:
    if not isinstance(text, str) or not text.strip():
        return Proposal(text or "", problem_type, None, "empty")
    parts = _split(text.strip())
    if parts is None:
        return Proposal(text, problem_type, None, "unparsable")
    problem, answer = parts
    ok, reason = check_problem(problem, answer)
    if not ok:
        return Proposal(text, problem_type, None, f"invalid: {reason}")
    return Proposal(text, problem_type, Problem(problem, answer, problem_type), "ok")


def _split(text: str) -> tuple[str, str] | None:
    """``(problem, answer)`` around the first ``Problem:`` and the first ``Answer:`` after it that
    leaves text on both sides; ``None`` when there is none."""
    start = text.find(_PROBLEM)
    if start < 0:
        return None
    first = start + len(_PROBLEM)
    while first < len(text) and text[first].isspace():
        first += 1  # the problem's first character
    last = len(text.rstrip())  # the end of the answer
    marker = text.find(_ANSWER, first + 1)
    if marker < 0 or marker + len(_ANSWER) >= last:
        return None
    return text[first:marker].strip(), text[marker + len(_ANSWER) : last].strip()


def scout_warmup_examples(problem_types: list[str], n: int, first_index: int, seed: int, difficulty: int):
    """``n`` (prompt, reply) pairs from the generator's train split at indices ``first_index…``."""
    pairs = []
    for i in range(first_index, first_index + n):
        problem_type = problem_types[i % len(problem_types)]
        problem = generate_problem(problem_type, "train", task_seed("train", i, seed), difficulty)
        pairs.append((scout_prompt(problem_type), scout_reply(problem)))
    return pairs
