"""Sub-goals of ``craft``: ``craft <n> <item>``, a crafted ingredient of the parent's goal.

Grammar (case and spacing free; ``<n>`` defaults to 1; a plural ``s`` is forgiven)::

    craft <n> <item>

``<item>`` must be a crafted item of the parent's recipes other than its goal item (base items
are got, not delegated), and ``<n>`` at least 1 and at most what the parent's goal could ever
use of it (its demand from an empty inventory). Otherwise ``ForkError`` says what is wrong.
"""

from __future__ import annotations

import re
from collections import Counter

from coevo.core.env.protocol import ForkError
from coevo.envs.craft.planner import shortfall
from coevo.envs.craft.recipes import RecipeBook
from coevo.envs.recursive import goal_int

GRAMMAR = "'craft <n> <item>' for a crafted ingredient of your goal, e.g. 'craft 2 copper gear'"

_GOAL = re.compile(r"^craft\s+(?:(?P<count>\d+)\s+)?(?:x\s+)?(?P<item>[a-z][a-z ]*)$")


def parse_goal(text: str, book: RecipeBook) -> tuple[int, str]:
    """``(count, item)`` of a goal text, the item named as in ``book``; ``ForkError`` otherwise."""
    match = _GOAL.match(" ".join(text.lower().split()))
    if match is None:
        raise ForkError(f"malformed goal {text!r}; expected {GRAMMAR}")
    count = goal_int(match.group("count"), "the count") if match.group("count") is not None else 1
    item = match.group("item").strip()
    if item not in book.levels and item.endswith("s") and item[:-1] in book.levels:
        item = item[:-1]
    if item not in book.levels:
        raise ForkError(f"unknown item {item!r}; your recipes make: {', '.join(r.item for r in book.recipes)}")
    if count < 1:
        raise ForkError("the count must be at least 1")
    return count, item


def check_subgoal(book: RecipeBook, goal_item: str, goal_count: int, count: int, item: str) -> None:
    """``ForkError`` unless ``count`` × ``item`` is a sub-goal of crafting ``goal_count`` × ``goal_item``."""
    if book.is_base(item):
        raise ForkError(f"{item} is a base item: get it with 'get <n> {item}' instead of delegating")
    if item == goal_item:
        raise ForkError(f"{item} is your own goal; delegate its crafted ingredients instead")
    most = shortfall(book, goal_item, goal_count, Counter()).get(item, 0) * book.by_item[item].makes
    if count > most:
        raise ForkError(f"your goal needs at most {most} {item}, not {count}")
