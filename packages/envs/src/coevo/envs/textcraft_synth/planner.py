"""What a crafting target still needs: crafts per item and base materials, from any inventory.

``shortfall`` walks the recipes from the target down, deepest first (every item's consumers
are deeper than it, so its demand is complete before its own shortfall is taken), and crafts
each missing item once for the whole demand: ``ceil(missing / yield)`` crafts. That is the least
any plan uses, so ``base_need`` from an empty inventory is the base materials a task must stock.
``recipes`` may be the whole world's or only those an agent has read (the expert's view).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from math import ceil

from coevo.envs.textcraft_synth.world import Recipe


def shortfall(recipes: Mapping[str, Recipe], item: str, count: int,
              inventory: Mapping[str, int]) -> tuple[dict[str, int], dict[str, int]]:
    """``(crafts, base)`` for ``count`` × ``item`` from ``inventory``: crafts still to make per
    crafted item, and base units still missing per material (empty dicts: nothing is missing).

    An item without an entry in ``recipes`` counts as a base material."""
    return needs(recipes, {item: count}, inventory)


def needs(recipes: Mapping[str, Recipe], wanted: Mapping[str, int],
          inventory: Mapping[str, int]) -> tuple[dict[str, int], dict[str, int]]:
    """``shortfall`` for holding ``wanted[item]`` of every item at once (several targets)."""
    demand: Counter[str] = Counter(wanted)
    crafts: dict[str, int] = {}
    base: dict[str, int] = {}
    pending = set(wanted)
    while pending:
        name = max(pending, key=lambda n: (_depth(recipes, n), n))
        pending.discard(name)
        short = demand[name] - inventory.get(name, 0)
        if short <= 0:
            continue
        recipe = recipes.get(name)
        if recipe is None:
            base[name] = short
            continue
        crafts[name] = ceil(short / recipe.makes)
        for ingredient, n in recipe.ingredients:
            demand[ingredient] += crafts[name] * n
            pending.add(ingredient)
    return crafts, base


def base_need(recipes: Mapping[str, Recipe], item: str, count: int) -> dict[str, int]:
    """The base materials ``count`` × ``item`` consumes when crafted from nothing."""
    return shortfall(recipes, item, count, {})[1]


def _depth(recipes: Mapping[str, Recipe], item: str) -> int:
    recipe = recipes.get(item)
    return recipe.depth if recipe is not None else 0
