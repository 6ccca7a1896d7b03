"""The delegation grammar on hostile text: never raises, linear in the reply (24 tags took 13 s
with the former backtracking regex; 100,000 tags now take milliseconds), and it reads exactly
the documented grammar: whitespace-separated tags after an optional think, nothing else."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coevo.core.testing.hostile import SMALL_HOSTILE, hostile_texts, timed
from coevo.rao.protocol import CLOSE, OPEN, Delegation, Malformed, format_delegation, parse_reply, resolve

_PIECES = st.sampled_from([OPEN, CLOSE, "<think>", "</think>", " ", "\n", "a", "b c", "<", ">", "#2", "\u3000"])
_TEXTS = st.one_of(st.text(max_size=80), st.lists(_PIECES, max_size=16).map("".join))
_FUZZ = settings(max_examples=400, deadline=1000, database=None)
_GOAL = st.text(alphabet=st.characters(blacklist_characters="<>", blacklist_categories=("Cs",)), max_size=20)


@_FUZZ
@given(_TEXTS)
def test_any_text_parses_to_a_verdict_quickly(text):
    parsed = timed(parse_reply, text)
    if OPEN not in text and CLOSE not in text:
        assert parsed is None
    else:
        assert isinstance(parsed, (Delegation, Malformed))
    if isinstance(parsed, Delegation):  # then the text is made of the tags and their goals only
        assert all("<" not in g and ">" not in g for g in parsed.goals)
        assert text.count(OPEN) == text.count(CLOSE) == len(parsed.goals)


@_FUZZ
@given(st.lists(_GOAL, min_size=1, max_size=8), st.sampled_from(["", " ", "\n\t"]),
       st.one_of(st.none(), _GOAL))
def test_formatted_delegations_parse_back_with_any_separators_and_think(goals, separator, think):
    text = separator.join(f"{OPEN}{g}{CLOSE}" for g in goals)
    if think is not None:
        text = f"<think>{think}</think>{separator}{text}"
    assert parse_reply(text) == Delegation(tuple(" ".join(g.split()) for g in goals))


@_FUZZ
@given(st.lists(_GOAL, min_size=2, max_size=5), st.text(min_size=1, max_size=10).filter(lambda t: t.strip()))
def test_text_between_two_tags_is_malformed(goals, junk):
    text = format_delegation(goals[:1]) + junk + format_delegation(goals[1:])
    assert isinstance(parse_reply(text), Malformed)


@pytest.mark.parametrize("count", [24, 1_000, 100_000])
def test_many_tags_stay_linear(count):
    assert timed(parse_reply, OPEN * count) == Malformed("unbalanced <delegate> tags")
    assert timed(parse_reply, format_delegation(["a"] * count) + " x") == Malformed(
        "nothing but <delegate> tags may follow the optional <think>")
    assert timed(parse_reply, format_delegation(["a"] * count)) == Delegation(("a",) * count)
    assert isinstance(timed(parse_reply, "<think>" + "</think>" * count + OPEN), Malformed)


@pytest.mark.parametrize(("name", "text"), hostile_texts(1_000_000), ids=lambda v: v if len(v) < 40 else "")
def test_a_megabyte_of_hostile_text_is_parsed_in_under_a_second(name, text):
    assert timed(parse_reply, text) is None or isinstance(parse_reply(text), (Delegation, Malformed))


@pytest.mark.parametrize("goal", SMALL_HOSTILE + ("#0", "#3", "#" + "9" * 7))
def test_references_of_any_size_resolve_or_are_refused_without_raising(goal):
    assert timed(resolve, goal, ["a", "b"]) in (goal, None)
    assert resolve("#2", ["a", "b"]) == "b"
