"""Sub-goals of TextCraft-Synth, written by the model: targets, counts, a step budget, context.

Grammar (case and spacing free), platoon's ``launch_subagent(targets, num_steps)`` as text::

    craft <n> <item>[, <n> <item> ...] [in <k> steps] [: <context for the sub-agent>]

e.g. ``craft 2 m1_i5, 1 c0_i4 in 12 steps: the recipe of m1_i5 is 1 m0_i4 + 2 m3_i3``. The items
must have recipes (base materials are in the stock, never crafted); at most ``MAX_TARGETS``
targets, each named once. ``k`` (default: the per-agent budget ``max_steps``) is at most that
budget; in the shared-budget mode also at most the parent's steps left minus one (the parent
reserves it and still needs a step to finish). The context (at most ``MAX_CONTEXT_CHARS``
characters) reaches the child's first observation and nothing else.

``parse_subgoal`` raises ``ForkError`` naming what is wrong; the environment checks the budget.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from coevo.core.env.protocol import ForkError
from coevo.envs.recursive import goal_int
from coevo.envs.textcraft_synth.world import World

GRAMMAR = "'craft <n> <item>, ... [in <k> steps] [: context]', e.g. 'craft 2 m1_i5 in 10 steps'"
MAX_TARGETS = 8
MAX_CONTEXT_CHARS = 300
_BUDGET = re.compile(r"^(?P<head>.*?)\s+in\s+(?P<steps>\S+)\s+steps?$")
_TARGET = re.compile(r"^(?P<count>\S+)\s+(?P<item>[a-z0-9_]+)$")


@dataclass(frozen=True)
class SubGoal:
    targets: tuple[tuple[str, int], ...]  # (item, count) in the order written
    steps: int | None  # the budget asked for; None: the per-agent budget
    context: str  # "" when none

    @property
    def text(self) -> str:
        """The canonical goal: ``craft 2 m1_i5, 1 c0_i4`` (budget and context are not part of it)."""
        return "craft " + ", ".join(f"{n} {item}" for item, n in self.targets)


def parse_subgoal(text: str, world: World) -> SubGoal:
    """The sub-goal ``text`` names; ``ForkError`` with the reason otherwise."""
    head, _, context = text.partition(":")
    context = " ".join(context.split())
    if len(context) > MAX_CONTEXT_CHARS:
        raise ForkError(f"the context is at most {MAX_CONTEXT_CHARS} characters, got {len(context)}")
    head = " ".join(head.lower().split())
    steps = None
    budget = _BUDGET.match(head)
    if budget is not None:
        head, steps = budget.group("head"), goal_int(budget.group("steps"), "the budget")
        if steps < 1:
            raise ForkError("the budget must be at least 1 step")
    verb, _, rest = head.partition(" ")
    if verb != "craft" or not rest:
        raise ForkError(f"malformed goal {text[:60]!r}; expected {GRAMMAR}")
    targets: list[tuple[str, int]] = []
    for part in rest.split(","):
        match = _TARGET.match(part.strip())
        if match is None:
            raise ForkError(f"malformed target {part.strip()[:40]!r}; expected '<n> <item>' ({GRAMMAR})")
        count, item = goal_int(match.group("count"), "a target's count"), match.group("item")
        if count < 1:
            raise ForkError(f"the count of {item} must be at least 1")
        if item not in world.recipes:
            why = "a base material (it is in the stock, never crafted)" if world.is_base(item) else "no item"
            raise ForkError(f"{item} is {why}; a sub-goal names crafted items")
        if any(item == seen for seen, _ in targets):
            raise ForkError(f"{item} is named twice")
        targets.append((item, count))
    if len(targets) > MAX_TARGETS:
        raise ForkError(f"at most {MAX_TARGETS} targets a sub-goal, got {len(targets)}")
    return SubGoal(tuple(targets), steps, context)
