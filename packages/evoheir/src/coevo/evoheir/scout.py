"""The Scout: the same policy, prompted to write a new problem.

Prompt (one per problem type): ``Propose a new <type> math problem. Reply as Problem: … Answer: …``.
Reply: ``Problem: <text>\\nAnswer: <answer>``. ``parse_proposal`` never raises: an empty,
unparsable or invalid reply (``check_problem`` refuses it) is returned as a rejected proposal with
its reason, counted by the caller and skipped. ``scout_warmup_examples`` turns the math
generator's problems into Scout replies so that the warm start teaches the format.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from coevo.envs.math.generator import generate_problem
from coevo.envs.math.problem import Problem, task_seed
from coevo.envs.math.validity import check_problem

_PROPOSAL = re.compile(r"Problem:\s*(?P<problem>.+?)\s*Answer:\s*(?P<answer>.+?)\s*$", re.DOTALL)


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
    match = _PROPOSAL.search(text.strip())
    if match is None:
        return Proposal(text, problem_type, None, "unparsable")
    problem, answer = match.group("problem").strip(), match.group("answer").strip()
    ok, reason = check_problem(problem, answer)
    if not ok:
        return Proposal(text, problem_type, None, f"invalid: {reason}")
    return Proposal(text, problem_type, Problem(problem, answer, problem_type), "ok")


def scout_warmup_examples(problem_types: list[str], n: int, first_index: int, seed: int, difficulty: int):
    """``n`` (prompt, reply) pairs from the generator's train split at indices ``first_index…``."""
    pairs = []
    for i in range(first_index, first_index + n):
        problem_type = problem_types[i % len(problem_types)]
        problem = generate_problem(problem_type, "train", task_seed("train", i, seed), difficulty)
        pairs.append((scout_prompt(problem_type), scout_reply(problem)))
    return pairs
