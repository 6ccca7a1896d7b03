"""Hypothesis runs without its example database; a hand-built recipe book for exact plans."""

import pytest
from hypothesis import settings

from coevo.envs.craft.recipes import Recipe, RecipeBook

settings.register_profile("coevo-envs", database=None)
settings.load_profile("coevo-envs")


@pytest.fixture
def chest_book() -> RecipeBook:
    """2 plank = 1 log; 1 stick = 2 plank; 1 chest = 1 iron + 2 plank + 1 stick (bases: iron, log)."""
    return RecipeBook(
        (
            Recipe("plank", 2, (("log", 1),)),
            Recipe("stick", 1, (("plank", 2),)),
            Recipe("chest", 1, (("iron", 1), ("plank", 2), ("stick", 1))),
        ),
        ("iron", "log"),
    )
