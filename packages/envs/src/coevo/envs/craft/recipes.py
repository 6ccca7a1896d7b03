"""Generated recipe books: base items and crafted items in levels, one recipe per crafted item.

A task's target sits at level ``depth``. A recipe of level ``L`` uses one item of level ``L - 1``
(so the chain is exactly ``depth`` crafts long), at level 2 and above often a second crafted
item of a lower level (an existing one half the time, so books are graphs, not only trees),
and one or two base items; it makes one item, sometimes two. Names come from word lists
(``copper gear``, ``oak plank``; base items like ``iron ore``), unique within a book.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cached_property

BASE_ITEMS = (
    "bone", "clay", "coal", "copper ore", "feather", "flint", "gold ore", "iron ore",
    "oak log", "reed", "resin", "salt", "sand", "stone", "wax", "wool",
)
MATERIALS = (
    "amber", "birch", "bone", "brass", "bronze", "copper", "crystal", "glass", "gold", "iron",
    "jade", "oak", "silver", "steel", "stone", "tin",
)
PRODUCTS = (
    "beam", "block", "bolt", "chain", "coil", "compass", "frame", "gear", "hinge", "hook", "ingot",
    "lantern", "lens", "panel", "pipe", "plank", "plate", "ring", "rod", "spring", "tile", "valve",
    "wheel", "wire",
)
BRANCH_PROBABILITY = 0.5  # a recipe of level 2+ has a second crafted ingredient
REUSE_PROBABILITY = 0.5  # that ingredient is an item the book already has, when there is one


@dataclass(frozen=True)
class Recipe:
    item: str
    makes: int  # items one craft produces
    ingredients: tuple[tuple[str, int], ...]  # (item, count) consumed by one craft

    def line(self) -> str:
        uses = " + ".join(f"{n} {name}" for name, n in self.ingredients)
        return f"{self.makes} {self.item} = {uses}"


@dataclass(frozen=True)
class RecipeBook:
    recipes: tuple[Recipe, ...]  # one per crafted item, lowest level first
    base: tuple[str, ...]  # base items (got, never crafted), A-Z

    @cached_property
    def by_item(self) -> dict[str, Recipe]:
        return {r.item: r for r in self.recipes}

    @cached_property
    def levels(self) -> dict[str, int]:
        levels = dict.fromkeys(self.base, 0)
        for recipe in self.recipes:  # ingredients come first
            levels[recipe.item] = 1 + max(levels[name] for name, _ in recipe.ingredients)
        return levels

    def items(self) -> list[str]:
        return list(self.levels)

    def is_base(self, item: str) -> bool:
        return item in self.base

    def closure(self, item: str) -> RecipeBook:
        """The book of what ``item`` is made from, ``item`` included."""
        needed, stack = {item}, [item]
        while stack:
            recipe = self.by_item.get(stack.pop())
            for name, _ in recipe.ingredients if recipe else ():
                if name not in needed:
                    needed.add(name)
                    stack.append(name)
        return RecipeBook(
            tuple(r for r in self.recipes if r.item in needed), tuple(b for b in self.base if b in needed)
        )

    def describe(self) -> str:
        """Recipes from the highest level down, one per line."""
        ordered = sorted(self.recipes, key=lambda r: (-self.levels[r.item], r.item))
        return "\n".join(r.line() for r in ordered)


def generate_book(rng: random.Random, depth: int) -> tuple[RecipeBook, str]:
    """A recipe book and its target, an item of level ``depth``."""
    bases = sorted(rng.sample(BASE_ITEMS, min(len(BASE_ITEMS), 3 + depth)))
    names = [f"{m} {p}" for m in MATERIALS for p in PRODUCTS]
    rng.shuffle(names)
    recipes: list[Recipe] = []
    by_level: dict[int, list[str]] = {}

    def make(level: int) -> str:
        main = make(level - 1) if level > 1 else rng.choice(bases)
        ingredients = {main: (2 if rng.random() < 0.2 else 1) if level > 1 else rng.randint(1, 3)}
        if level > 1 and rng.random() < BRANCH_PROBABILITY:
            low = rng.randint(1, level - 1)
            existing = [n for n in by_level.get(low, []) if n not in ingredients]
            other = rng.choice(existing) if existing and rng.random() < REUSE_PROBABILITY else make(low)
            ingredients.setdefault(other, 1)
        for base in rng.sample(bases, rng.randint(1, 2) if level > 1 else 1):
            ingredients.setdefault(base, rng.randint(1, 3))
        name = names.pop()
        makes = 2 if rng.random() < 0.3 else 1
        recipes.append(Recipe(name, makes, tuple(sorted(ingredients.items()))))
        by_level.setdefault(level, []).append(name)
        return name

    target = make(depth)
    book = RecipeBook(tuple(recipes), tuple(bases))
    return book.closure(target), target
