"""The delegation grammar: what parses, what is malformed, what is left to the environment."""

import pytest

from coevo.rao.protocol import Delegation, Malformed, format_delegation, parse_reply, resolve, same_goal


@pytest.mark.parametrize(
    ("text", "goals"),
    [
        ("<delegate>add 1 2</delegate>", ("add 1 2",)),
        ("  <delegate> add   1\n2 </delegate>\n", ("add 1 2",)),  # whitespace is collapsed
        ("<delegate>a</delegate> <delegate>b</delegate><delegate>c</delegate>", ("a", "b", "c")),
        ("<think>split it</think><delegate>a</delegate>", ("a",)),
        ("<delegate></delegate><delegate>b</delegate>", ("", "b")),  # empty goals are refused at launch
    ],
)
def test_delegations_parse(text, goals):
    assert parse_reply(text) == Delegation(goals)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("<delegate>a", "unbalanced"),
        ("a</delegate>", "unbalanced"),
        ("<delegate>a</delegate> and more", "nothing but"),
        ("<action>look</action><delegate>a</delegate>", "nothing but"),
        ("<delegate>a <delegate>b</delegate></delegate>", "unbalanced|nothing but|tags"),
        ("<delegate>use <action>x</action></delegate>", "tags"),
    ],
)
def test_malformed_delegations_say_why(text, reason):
    parsed = parse_reply(text)
    assert isinstance(parsed, Malformed)
    assert any(word in parsed.reason for word in reason.split("|"))


@pytest.mark.parametrize("text", ["<action>answer 3</action>", "answer 3", "", "<delegat>x</delegat>"])
def test_replies_without_delegate_tags_are_left_to_the_environment(text):
    assert parse_reply(text) is None


def test_format_round_trips_and_goals_compare_loosely():
    goals = ("count red in chunks 1-2", "count red in chunks 3-4")
    assert parse_reply(format_delegation(goals)) == Delegation(goals)
    assert same_goal("Add  1 2", "add 1 2") and not same_goal("add 1 2", "add 1 3")


def test_numbered_goals_resolve_to_the_listed_sub_goals():
    shown = ["count red in chunks 0-1", "count red in chunks 2-3"]
    assert parse_reply("<delegate>#2</delegate>") == Delegation(("#2",))
    assert resolve("#2", shown) == shown[1] and resolve("count x", shown) == "count x"
    assert resolve("#3", shown) is None and resolve("#0", shown) is None and resolve("#1", []) is None
