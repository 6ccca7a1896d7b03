"""Sub-goal grammar of longctx: what parses, and the reason given for what is refused."""

import pytest

from coevo.core.env.protocol import ForkError
from coevo.envs.longctx.goals import check_subgoal, parse_goal
from coevo.envs.longctx.questions import Question

COUNT = Question("count", "colour", "red", 0, 15)
MOST = Question("most_frequent", "city", "", 0, 15)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("count records with colour=red in chunks 4-7", Question("count", "colour", "red", 4, 7)),
        ("Count records with color = RED in chunks 4 to 7", Question("count", "colour", "red", 4, 7)),
        ("count colour=red in chunk 5", Question("count", "colour", "red", 5, 5)),
        ("sum amount of records with city=oslo in chunks 0-3", Question("sum", "city", "oslo", 0, 3)),
        ("max amount where city=oslo in chunks 0-3", Question("max", "city", "oslo", 0, 3)),
        ("most frequent city in chunks 2-9", Question("most_frequent", "city", "", 2, 9)),
        ("tally colour in chunks 2-9", Question("tally", "colour", "", 2, 9)),
    ],
)
def test_parse_goal(text, expected):
    assert parse_goal(text) == expected


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("count records with colour=red", "no chunk range"),
        ("count records with colour=red in chunks 7-4", "empty chunk range 7-4"),
        ("average amount in chunks 0-3", "unknown question"),
        ("count records with shape=round in chunks 0-3", "unknown field 'shape'"),
        ("count records with colour=purple in chunks 0-3", "unknown colour 'purple'"),
    ],
)
def test_malformed_goals_say_why(text, reason):
    with pytest.raises(ForkError, match=reason):
        parse_goal(text)


def test_subgoals_of_a_count_question():
    check_subgoal(COUNT, COUNT.over(4, 7))  # the same question over fewer chunks
    with pytest.raises(ForkError, match="chunks 4-9 are not inside this task's chunks 0-7"):
        check_subgoal(COUNT.over(0, 7), COUNT.over(4, 9))
    with pytest.raises(ForkError, match="this whole task"):
        check_subgoal(COUNT, COUNT.over(0, 15))
    with pytest.raises(ForkError, match="is not a sub-goal of"):
        check_subgoal(COUNT, Question("count", "colour", "blue", 4, 7))
    with pytest.raises(ForkError, match="is not a sub-goal of"):
        check_subgoal(COUNT, Question("tally", "colour", "", 4, 7))


def test_most_frequent_decomposes_into_tallies_of_its_field():
    check_subgoal(MOST, Question("tally", "city", "", 0, 7))
    check_subgoal(MOST, Question("most_frequent", "city", "", 0, 7))
    with pytest.raises(ForkError, match="'tally city'"):
        check_subgoal(MOST, Question("tally", "colour", "", 0, 7))
