"""The generated recipe database follows the tier rules, and the same seed gives the same world."""

from __future__ import annotations

import pytest

from coevo.envs.textcraft_synth.world import (
    CROSS_PER_TIER,
    CROSS_TIERS,
    DOMAINS,
    MAX_INGREDIENTS,
    MAX_TIER,
    base_ingredients,
    generate_world,
    most_per_ingredient,
    yield_range,
)

SEEDS = (0, 1, 7)


def _tier(name: str) -> int:
    return int(name.split("_")[1][1:])  # "m3_i7" and "x1_i11_act" -> 7, 11


@pytest.fixture(scope="module", params=SEEDS)
def world(request):
    return generate_world(request.param, 12)


def test_every_items_crafting_depth_is_its_tier(world):
    for name, recipe in world.recipes.items():
        assert recipe.depth == _tier(name) == 1 + max(world.depth(i) for i, _ in recipe.ingredients), name
    assert all(world.depth(b) == 0 for b in world.base)


def test_domain_recipes_follow_the_tier_rules(world):
    for name, recipe in world.recipes.items():
        if name.startswith("x"):
            continue
        t, domain = recipe.depth, name[0]
        ingredients = dict(recipe.ingredients)
        # 1 at tier 1, 2 at 2-7, 3 at 8-11, 4 at 12, plus up to min(2, t // 3); never more than 6
        assert 1 <= len(ingredients) <= min(MAX_INGREDIENTS, base_ingredients(t) + min(2, t // 3)), name
        assert all(i.startswith(domain) for i in ingredients), name
        tiers = [world.depth(i) for i in ingredients]
        assert t - 1 in tiers and all(max(0, t - 4) <= d < t for d in tiers), (name, tiers)
        assert sum(d <= t - 3 for d in tiers) <= 1, name  # at most one from three or four tiers down
        assert all(1 <= k <= most_per_ingredient(t) for k in ingredients.values()), name
        low, high = yield_range(t)
        assert low <= recipe.makes <= high, name


def test_ingredient_counts_reach_the_top_of_their_range(world):
    """Not only the lower bound: tiers 3+ draw extra ingredients, up to 6 at the top."""
    widest = {t: max(len(world.recipes[n].ingredients) for n in world.tiers[t] if not n.startswith("x"))
              for t in range(1, MAX_TIER + 1)}
    assert widest[1] == 1 and widest[2] == 2 and widest[MAX_TIER] == 6
    assert all(widest[t] > base_ingredients(t) for t in range(3, MAX_TIER + 1))


def test_cross_domain_items_join_two_to_four_domains(world):
    for tier in CROSS_TIERS:
        cross = [n for n in world.tiers[tier] if n.startswith("x")]
        assert len(cross) == CROSS_PER_TIER
        for name in cross:
            recipe = world.recipes[name]
            domains = name.split("_")[2]
            assert len(domains) == tier - 8 and recipe.makes == 1
            assert sorted(i[0] for i, _ in recipe.ingredients) == sorted(domains)
            assert all(tier - 3 <= world.depth(i) < tier and 1 <= k <= 2 for i, k in recipe.ingredients)


def test_sizes_of_the_world():
    world = generate_world(0, 25)
    assert len(world.base) == 25 * len(DOMAINS)
    assert [len(world.tiers[t]) for t in (1, 3, 6, 12)] == [125, 120, 115, 105 + CROSS_PER_TIER]


def test_the_same_seed_gives_the_same_world_and_another_seed_another():
    assert generate_world(3, 10) == generate_world(3, 10)
    assert generate_world(3, 10).recipes != generate_world(4, 10).recipes
