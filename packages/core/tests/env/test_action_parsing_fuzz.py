"""``parse_action`` on hostile text: the same verdict as the regex it replaced (on texts short
enough for the regex), never an exception, and linear time (1 MB of tags in well under 1 s)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coevo.core.env.actions import format_action, parse_action
from coevo.core.testing.hostile import SMALL_HOSTILE, hostile_texts, timed

# the former grammar, quadratic in the number of </think> tags: the reference for short texts
_FORMER = re.compile(r"^\s*(?:<think>(?P<think>.*?)</think>\s*)?<action>(?P<action>.*?)</action>\s*$", re.DOTALL)


def _former(text: str) -> str | None:
    match = _FORMER.match(text)
    if match is None:
        return None
    action = " ".join(match.group("action").split())
    return None if not action or "<" in action or ">" in action else action


# texts made of the grammar's pieces, so that the interesting cases are common
_PIECES = st.sampled_from(["<think>", "</think>", "<action>", "</action>", " ", "\n", "go", "<", ">", "x y", "\u2003"])
_TEXTS = st.one_of(st.text(max_size=60), st.lists(_PIECES, max_size=14).map("".join))
_FUZZ = settings(max_examples=400, deadline=1000, database=None)


@_FUZZ
@given(_TEXTS)
def test_the_scan_accepts_exactly_what_the_former_regex_accepted(text):
    assert timed(parse_action, text) == _former(text)


@_FUZZ
@given(st.text(alphabet=st.characters(blacklist_characters="<>"), min_size=1, max_size=40),
       st.one_of(st.none(), st.text(max_size=20).filter(lambda t: "</think>" not in t)))
def test_a_formatted_action_parses_back(action, think):
    expected = " ".join(action.split()) or None
    assert parse_action(format_action(action, think)) == expected


@pytest.mark.parametrize(("name", "text"), hostile_texts(1_000_000), ids=lambda v: v if len(v) < 40 else "")
def test_a_megabyte_of_hostile_text_is_parsed_in_under_a_second(name, text):
    assert timed(parse_action, text) is None or isinstance(parse_action(text), str)


@pytest.mark.parametrize("text", SMALL_HOSTILE + (None, 3, b"<action>x</action>"))
def test_short_hostile_and_non_text_replies_never_raise(text):
    assert timed(parse_action, text) is None or isinstance(parse_action(text), str)


def test_many_think_closes_before_the_action_stay_linear():
    text = "<think>" + "</think>" * 200_000 + "<action>look</action>"
    assert timed(parse_action, text, limit=0.5) == "look"  # the last </think> is the one before <action>
