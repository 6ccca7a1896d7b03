"""The crafting oracle: shortfalls worked out by hand, and a finish from any inventory."""

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from coevo.envs.craft.planner import apply_action, delegations, next_action, plan_length, shortfall
from coevo.envs.craft.recipes import generate_book


def test_shortfall_by_hand(chest_book):
    # chest: 1 craft → 1 iron, 2 plank, 1 stick; stick: 1 craft → 2 plank; plank: 4 → 2 crafts → 2 log
    assert shortfall(chest_book, "chest", 1, Counter()) == {"chest": 1, "stick": 1, "plank": 2, "iron": 1, "log": 2}
    assert shortfall(chest_book, "chest", 1, Counter(stick=1, plank=1)) == {"chest": 1, "plank": 1, "iron": 1,
                                                                          "log": 1}
    assert shortfall(chest_book, "chest", 1, Counter(chest=1)) == {}


def test_flat_plan_by_hand(chest_book):
    inventory, actions = Counter(), []
    while (action := next_action(chest_book, "chest", 1, inventory, max_get=5)) is not None:
        actions.append(action)
        apply_action(chest_book, inventory, action)
    assert actions == ["get 1 iron", "get 2 log", "craft plank", "craft plank", "craft stick", "craft chest"]
    assert inventory == Counter(chest=1, iron=0, log=0, plank=0, stick=0)
    # 3 chests: 12 plank (6 crafts, 6 log: gets of 5 and 1), 3 stick, 3 iron (one get): 3 gets + 12 crafts
    assert plan_length(chest_book, "chest", 3, Counter(), max_get=5) == 15


def test_delegations_are_the_missing_crafted_ingredients(chest_book):
    assert delegations(chest_book, "chest", 1, Counter()) == [(2, "plank"), (1, "stick")]
    assert delegations(chest_book, "chest", 1, Counter(plank=3)) == [(1, "stick")]
    assert delegations(chest_book, "plank", 2, Counter()) == []  # only base ingredients


@settings(deadline=None, max_examples=60)
@given(seed=st.integers(0, 10**6), depth=st.integers(1, 5), extra=st.lists(st.integers(0, 3), max_size=12))
def test_the_flat_oracle_finishes_from_any_inventory(seed, depth, extra):
    book, target = generate_book(random.Random(seed), depth)
    items = book.items()
    inventory = Counter({items[i % len(items)]: n for i, n in enumerate(extra)})
    budget = plan_length(book, target, 1, Counter(), max_get=3)
    steps = 0
    while (action := next_action(book, target, 1, inventory, max_get=3)) is not None:
        recipe = book.by_item.get(action.removeprefix("craft "))
        if recipe is not None:  # a craft the oracle picks is always possible
            assert all(inventory[n] >= c for n, c in recipe.ingredients)
        apply_action(book, inventory, action)
        steps += 1
        assert steps <= budget  # holding more never makes the plan longer
    assert inventory[target] >= 1
