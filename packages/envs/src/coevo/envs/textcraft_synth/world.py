"""The TextCraft-Synth world: one generated recipe database of tiered items in five domains.

Items live in five material domains (``m`` metal, ``c`` crystal, ``o`` organic, ``a`` arcane,
``t`` tech) and tiers 0 to 12. Tier 0 holds the base materials (no recipe); every item of tier
``t >= 1`` has one recipe whose ingredients come from its own domain, from the tiers just below
it: always one item of tier ``t - 1``, then others drawn from tiers ``t - 1`` and ``t - 2``
(closer tiers weighted more, 1/2 against 1/3), and from tier 4 on one more candidate from tier
``t - 3`` or ``t - 4`` (weight 1/4 or 1/5). So an item's crafting depth (crafts on the longest
path from base materials) is exactly its tier.

Per tier, as in the authors' generator: the number of ingredients is 1 at tier 1, 2 at tiers
2–7, 3 at tiers 8–11 and 4 at tier 12, plus 0 to ``min(2, tier // 3)`` more, at most 6 (and at
most the candidates there are); each ingredient is needed once or twice per craft up to tier 4,
once above; one craft yields 2–4 items at tier 1, 2–3 at tier 2, 1–2 at tiers 3–5, one above
(larger yields low down keep the base materials a deep target needs from exploding).

Cross-domain items sit at tiers 10–12 (four per tier): one ingredient from each of 2, 3 or 4
domains (tier 10, 11, 12), the first from tier ``t - 1``, the others from ``t - 1`` to ``t - 3``,
1–2 of each, yield 1.

Names say nothing about use (the model must ask for recipes): ``m3_i0`` is base material 3 of
the metal domain, ``c2_i7`` crafted item 2 of tier 7 of the crystal domain, ``x1_i11_act`` the
second cross-domain item of tier 11, made from arcane, crystal and tech items.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

DOMAINS = ("m", "c", "o", "a", "t")
MAX_TIER = 12
MAX_INGREDIENTS = 6
CROSS_TIERS = (10, 11, 12)
CROSS_PER_TIER = 4


def base_ingredients(tier: int) -> int:
    """Ingredients of a tier's recipes before the random extra (0 to ``min(2, tier // 3)``)."""
    return 1 if tier == 1 else 2 if tier <= 7 else 3 if tier <= 11 else 4


def yield_range(tier: int) -> tuple[int, int]:
    """Items one craft of a tier's recipe makes: the lowest and highest."""
    return (2, 4) if tier == 1 else (2, 3) if tier == 2 else (1, 2) if tier <= 5 else (1, 1)


def most_per_ingredient(tier: int) -> int:
    """The most of one ingredient a craft of a tier's recipe uses (the fewest is 1)."""
    return 2 if tier <= 4 else 1


@dataclass(frozen=True)
class Recipe:
    item: str
    makes: int  # items one craft yields
    ingredients: tuple[tuple[str, int], ...]  # (item, count) one craft uses, by name
    depth: int  # crafting depth of ``item`` (its tier)

    def line(self) -> str:
        uses = " + ".join(f"{n} {name}" for name, n in self.ingredients)
        return f"{self.makes} {self.item} = {uses}"


@dataclass(frozen=True)
class World:
    recipes: dict[str, Recipe]  # crafted item -> its recipe
    base: tuple[str, ...]  # base materials, sorted
    tiers: dict[int, tuple[str, ...]] = field(default_factory=dict)  # tier -> items (base at 0)

    def depth(self, item: str) -> int:
        """Crafting depth: 0 for a base material, the recipe's tier for a crafted item."""
        recipe = self.recipes.get(item)
        return recipe.depth if recipe is not None else 0

    def knows(self, item: str) -> bool:
        return item in self.recipes or item in self._base_set

    def is_base(self, item: str) -> bool:
        return item in self._base_set

    @property
    def _base_set(self) -> frozenset[str]:
        cached = self.__dict__.get("_bases")
        if cached is None:
            cached = frozenset(self.base)
            object.__setattr__(self, "_bases", cached)
        return cached

    def closure(self, item: str) -> list[str]:
        """Every crafted item ``item`` is made from, ``item`` included, deepest first."""
        seen, stack = {item}, [item]
        while stack:
            recipe = self.recipes.get(stack.pop())
            for name, _ in recipe.ingredients if recipe else ():
                if name not in seen and name in self.recipes:
                    seen.add(name)
                    stack.append(name)
        return sorted((n for n in seen if n in self.recipes), key=lambda n: (-self.depth(n), n))


def generate_world(seed: int, items_per_tier: int) -> World:
    """The recipe database of ``seed``: ``items_per_tier`` base materials per domain, and per
    domain and tier ``t`` ``max(2, items_per_tier - t // 3)`` crafted items."""
    rng = random.Random(f"textcraft_synth/world/{seed}/{items_per_tier}")
    recipes: dict[str, Recipe] = {}
    by_domain: dict[str, dict[int, list[str]]] = {d: {0: [f"{d}{i}_i0" for i in range(items_per_tier)]}
                                                  for d in DOMAINS}
    for domain in DOMAINS:
        for tier in range(1, MAX_TIER + 1):
            names = [f"{domain}{i}_i{tier}" for i in range(max(2, items_per_tier - tier // 3))]
            for name in names:
                recipes[name] = _domain_recipe(rng, name, tier, by_domain[domain])
            by_domain[domain][tier] = names
    cross: dict[int, list[str]] = {}
    for tier in CROSS_TIERS:
        cross[tier] = []
        for i in range(CROSS_PER_TIER):
            domains = sorted(rng.sample(DOMAINS, tier - 8), key=DOMAINS.index)
            name = f"x{i}_i{tier}_{''.join(domains)}"
            recipes[name] = _cross_recipe(rng, name, tier, [by_domain[d] for d in domains])
            cross[tier].append(name)
    tiers = {t: tuple(n for d in DOMAINS for n in by_domain[d][t]) + tuple(cross.get(t, ()))
             for t in range(MAX_TIER + 1)}
    return World(recipes, tuple(sorted(tiers[0])), tiers)


def _domain_recipe(rng: random.Random, name: str, tier: int, items: dict[int, list[str]]) -> Recipe:
    first = rng.choice(items[tier - 1])
    candidates = [(n, 1 / 2) for n in items[tier - 1] if n != first]
    if tier >= 2:
        candidates += [(n, 1 / 3) for n in items[tier - 2]]
    if tier >= 4:
        far = rng.choice((tier - 3, tier - 4))
        candidates.append((rng.choice(items[far]), 1 / (tier - far + 1)))
    wanted = base_ingredients(tier) + rng.randint(0, min(2, tier // 3))
    chosen = [first] + _weighted_sample(rng, candidates, min(wanted, MAX_INGREDIENTS) - 1)
    ingredients = tuple(sorted((n, rng.randint(1, most_per_ingredient(tier))) for n in chosen))
    return Recipe(name, rng.randint(*yield_range(tier)), ingredients, tier)


def _cross_recipe(rng: random.Random, name: str, tier: int, domains: list[dict[int, list[str]]]) -> Recipe:
    chosen = [rng.choice(domains[0][tier - 1])]
    chosen += [rng.choice(items[rng.randint(tier - 3, tier - 1)]) for items in domains[1:]]
    return Recipe(name, 1, tuple(sorted((n, rng.randint(1, 2)) for n in chosen)), tier)


def _weighted_sample(rng: random.Random, candidates: list[tuple[str, float]], k: int) -> list[str]:
    """Up to ``k`` distinct names, each draw weighted by its weight among those left."""
    pool = list(dict(candidates).items())  # a name listed twice keeps its last weight
    chosen: list[str] = []
    while pool and len(chosen) < k:
        pick = rng.random() * sum(w for _, w in pool)
        for i, (n, w) in enumerate(pool):
            pick -= w
            if pick <= 0 or i == len(pool) - 1:
                chosen.append(n)
                pool.pop(i)
                break
    return chosen
