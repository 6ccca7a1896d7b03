"""Recipe books: levels, closures, text, and generated books of the asked depth."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from coevo.envs.craft.recipes import BASE_ITEMS, generate_book


def test_levels_closure_and_text(chest_book):
    assert chest_book.levels == {"iron": 0, "log": 0, "plank": 1, "stick": 2, "chest": 3}
    stick = chest_book.closure("stick")
    assert [r.item for r in stick.recipes] == ["plank", "stick"] and stick.base == ("log",)
    assert chest_book.describe() == "1 chest = 1 iron + 2 plank + 1 stick\n1 stick = 2 plank\n2 plank = 1 log"


@settings(deadline=None, max_examples=60)
@given(seed=st.integers(0, 10**9), depth=st.integers(1, 8))
def test_generated_books_reach_exactly_the_depth(seed, depth):
    book, target = generate_book(random.Random(seed), depth)
    assert book.levels[target] == depth == max(book.levels.values())
    assert book.closure(target) == book  # nothing unrelated to the target
    assert set(book.base) <= set(BASE_ITEMS)
    crafted = [r.item for r in book.recipes]
    assert len(set(crafted)) == len(crafted) and not set(crafted) & set(book.base)
    for recipe in book.recipes:  # each recipe uses an item exactly one level down
        assert max(book.levels[n] for n, _ in recipe.ingredients) == book.levels[recipe.item] - 1


def test_same_seed_same_book():
    assert generate_book(random.Random(7), 4) == generate_book(random.Random(7), 4)
    assert generate_book(random.Random(7), 4) != generate_book(random.Random(8), 4)
