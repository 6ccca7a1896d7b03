"""Per-environment skill-writing templates: what the policy is asked, and the verbs of its commands.

The policy writes a skill for task x from its group's finished attempts: the prompt shows the
task, up to ``trajectories`` attempts (successes and failures, each as its command sequence and
outcome) and the instruction; the reply is ``<skill>…</skill>``. ``verbs`` are the environment's
command verbs, used to tell a procedural skill from a format/syntax tip (``category.py``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SkillTemplate:
    instruction: str
    verbs: tuple[str, ...]


HOUSEHOLD = SkillTemplate(
    instruction="Write a short reusable skill for tasks like this as <skill>steps</skill>.",
    verbs=("go to", "take", "put", "open", "close", "clean", "heat", "cool", "use", "examine", "look", "toggle"),
)

TEMPLATES: dict[str, SkillTemplate] = {
    "household": HOUSEHOLD,
    "alfworld": HOUSEHOLD,
    "boxes": SkillTemplate(
        instruction="Write a short reusable skill for tasks like this as <skill>steps</skill>.",
        verbs=("go to", "open"),
    ),
    "search": SkillTemplate(
        instruction="Write a short reusable search strategy as <skill>steps</skill>.",
        verbs=("search", "answer", "find", "look up", "compare"),
    ),
    "math": SkillTemplate(
        instruction="Write a short reusable solution method as <skill>steps</skill>.",
        verbs=("compute", "solve", "simplify", "substitute", "check", "add", "multiply", "divide"),
    ),
}

DEFAULT = SkillTemplate(
    instruction="Write a short reusable skill for tasks like this as <skill>steps</skill>.",
    verbs=(),
)


def template_for(env_name: str) -> SkillTemplate:
    """The template of ``env_name`` (a generic one for environments without their own)."""
    return TEMPLATES.get(env_name, DEFAULT)


@dataclass
class Attempt:
    actions: list[str]  # the commands played, "(invalid)" where the reply was malformed
    success: bool


def attempt_line(number: int, attempt: Attempt, max_actions: int) -> str:
    """"Attempt 2 (failure): ... > go to fridge 1 > open fridge 1" (the last ``max_actions`` commands)."""
    actions = attempt.actions[-max_actions:] if max_actions > 0 else []
    cut = "... > " if len(attempt.actions) > len(actions) else ""
    outcome = "success" if attempt.success else "failure"
    return f"Attempt {number} ({outcome}): {cut}{' > '.join(actions) or '(no action)'}"


def choose_attempts(attempts: list[Attempt], count: int) -> list[Attempt]:
    """Up to ``count`` attempts, successes and failures alternating (first of each kind first)."""
    wins = [a for a in attempts if a.success]
    losses = [a for a in attempts if not a.success]
    chosen = []
    while len(chosen) < count and (wins or losses):
        for pool in (wins, losses):
            if pool and len(chosen) < count:
                chosen.append(pool.pop(0))
    return chosen


def skill_messages(template: SkillTemplate, goal: str, attempts: list[Attempt], count: int,
                   max_actions: int) -> list[dict[str, str]]:
    """The chat messages the policy writes a skill from."""
    lines = [f"Task: {goal}"]
    lines += [attempt_line(i + 1, a, max_actions) for i, a in enumerate(choose_attempts(attempts, count))]
    lines.append(template.instruction)
    return [{"role": "user", "content": "\n".join(lines)}]
