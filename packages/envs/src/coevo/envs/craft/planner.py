"""The crafting oracle: what is still missing for a goal, and the next action from any inventory.

``shortfall`` works down the book from the goal, highest level first (every consumer of an item
is above it), so each item's demand is complete before its own shortfall is taken: base items
to get, crafts to make. ``next_action`` gets the missing base items (at most ``max_get`` at a
time), then crafts the lowest missing item; recomputed after every action, the plan stays
right whatever the inventory holds, so the flat oracle can take over after any delegation.
``delegations`` are the crafted ingredients of the goal's own recipe that are still missing.
"""

from __future__ import annotations

from collections import Counter
from math import ceil

from coevo.envs.craft.recipes import RecipeBook


def shortfall(book: RecipeBook, item: str, count: int, inventory: Counter[str]) -> dict[str, int]:
    """Items → base units to get, or crafts to make, for ``count`` × ``item`` (missing ones only)."""
    demand: Counter[str] = Counter({item: count})
    missing: dict[str, int] = {}
    for name in sorted(book.levels, key=lambda n: -book.levels[n]):
        short = max(0, demand[name] - inventory[name])
        if short == 0:
            continue
        if book.is_base(name):
            missing[name] = short
            continue
        recipe = book.by_item[name]
        crafts = ceil(short / recipe.makes)
        missing[name] = crafts
        for ingredient, n in recipe.ingredients:
            demand[ingredient] += crafts * n
    return missing


def next_action(book: RecipeBook, item: str, count: int, inventory: Counter[str], max_get: int) -> str | None:
    """The flat oracle's next command; ``None`` once ``count`` × ``item`` are held."""
    missing = shortfall(book, item, count, inventory)
    if not missing:
        return None
    for name in book.base:
        if name in missing:
            return f"get {min(missing[name], max_get)} {name}"
    lowest = min(missing, key=lambda n: (book.levels[n], n))
    return f"craft {lowest}"


def delegations(book: RecipeBook, item: str, count: int, inventory: Counter[str]) -> list[tuple[int, str]]:
    """``(count, ingredient)`` for each crafted ingredient of ``item`` the next crafts still lack."""
    short = max(0, count - inventory[item])
    if short == 0 or book.is_base(item):
        return []
    recipe = book.by_item[item]
    crafts = ceil(short / recipe.makes)
    wanted = []
    for ingredient, n in recipe.ingredients:
        lacking = crafts * n - inventory[ingredient]
        if not book.is_base(ingredient) and lacking > 0:
            wanted.append((lacking, ingredient))
    return wanted


def plan_length(book: RecipeBook, item: str, count: int, inventory: Counter[str], max_get: int) -> int:
    """Steps the flat oracle takes from ``inventory``."""
    inventory, steps = Counter(inventory), 0
    while (action := next_action(book, item, count, inventory, max_get)) is not None:
        apply_action(book, inventory, action)
        steps += 1
    return steps


def apply_action(book: RecipeBook, inventory: Counter[str], action: str) -> None:
    """Apply one of the oracle's own (valid) commands to ``inventory``."""
    verb, _, rest = action.partition(" ")
    if verb == "get":
        n, _, name = rest.partition(" ")
        inventory[name] += int(n)
        return
    recipe = book.by_item[rest]
    for ingredient, n in recipe.ingredients:
        inventory[ingredient] -= n
    inventory[rest] += recipe.makes
