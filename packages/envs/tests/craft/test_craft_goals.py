"""Sub-goal grammar of craft: what parses and the reason given for what is refused."""

import pytest

from coevo.core.env.protocol import ForkError
from coevo.envs.craft.goals import check_subgoal, parse_goal


@pytest.mark.parametrize(("text", "parsed"), [("craft 2 plank", (2, "plank")), ("Craft  plank", (1, "plank")),
                                              ("craft 4 planks", (4, "plank")), ("craft 1 stick", (1, "stick"))])
def test_parse_goal(chest_book, text, parsed):
    assert parse_goal(text, chest_book) == parsed


@pytest.mark.parametrize(
    ("text", "reason"),
    [("make 2 plank", "malformed goal"), ("craft 2", "malformed goal"), ("craft -1 plank", "malformed goal"),
     ("craft 2 table", "unknown item 'table'; your recipes make: plank, stick, chest"),
     ("craft 0 plank", "at least 1")],
)
def test_malformed_goals_say_why(chest_book, text, reason):
    with pytest.raises(ForkError, match=reason):
        parse_goal(text, chest_book)


def test_subgoals_of_a_chest(chest_book):
    check_subgoal(chest_book, "chest", 1, 4, "plank")
    check_subgoal(chest_book, "chest", 1, 1, "stick")
    with pytest.raises(ForkError, match="needs at most 4 plank, not 5"):
        check_subgoal(chest_book, "chest", 1, 5, "plank")
    with pytest.raises(ForkError, match="log is a base item: get it with 'get <n> log'"):
        check_subgoal(chest_book, "chest", 1, 1, "log")
    with pytest.raises(ForkError, match="chest is your own goal"):
        check_subgoal(chest_book, "chest", 1, 1, "chest")
