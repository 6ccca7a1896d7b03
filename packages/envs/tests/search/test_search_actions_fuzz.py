"""Search's reply grammar on hostile text: the same verdict as the regex it replaced (on texts
short enough for the regex), never an exception, linear time (160k characters took > 60 s)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coevo.core.testing.hostile import SMALL_HOSTILE, hostile_texts, timed
from coevo.envs.search.actions import format_reply, parse_reply, split_action

_FORMER_REPLY = re.compile(r"^(?P<prefix>.*?)<(?P<tag>search|answer)>(?P<body>.*?)</(?P=tag)>\s*$", re.DOTALL)
_TAGS = ("<search>", "</search>", "<answer>", "</answer>")


def _former(text: str) -> str | None:
    """The former parser (quadratic in the number of <search> tags): the reference for short texts."""
    match = _FORMER_REPLY.match(text)
    if match is None:
        return None
    tag, prefix, body = match.group("tag"), match.group("prefix"), match.group("body")
    if {t: text.count(t) for t in _TAGS} != {t: int(tag in t) for t in _TAGS}:
        return None
    think_open, think_close = text.count("<think>"), text.count("</think>")
    if not (think_open == think_close <= 1 and "<information>" not in text and "</information>" not in text):
        return None
    if "<think>" in prefix and not re.fullmatch(r"[^<>]*<think>.*</think>\s*", prefix, re.DOTALL):
        return None
    content = " ".join(body.split())
    if not content or "<" in content or ">" in content:
        return None
    return f"{tag}: {content}"


_PIECES = st.sampled_from(["<search>", "</search>", "<answer>", "</answer>", "<think>", "</think>",
                           "<information>", " ", "\n", "q", "a b", "<", ">"])
_TEXTS = st.one_of(st.text(max_size=60), st.lists(_PIECES, max_size=12).map("".join))
_FUZZ = settings(max_examples=400, deadline=1000, database=None)


@_FUZZ
@given(_TEXTS)
def test_the_scan_accepts_exactly_what_the_former_regex_accepted(text):
    assert timed(parse_reply, text) == _former(text)


@_FUZZ
@given(st.sampled_from(["search", "answer"]),
       st.text(alphabet=st.characters(blacklist_characters="<>:", blacklist_categories=("Cs",)), min_size=1,
               max_size=30).filter(lambda t: t.strip()))
def test_a_formatted_action_parses_back(kind, content):
    action = f"{kind}: {' '.join(content.split())}"
    assert parse_reply(format_reply(action)) == action
    assert split_action(action) == (kind, " ".join(content.split()))


@pytest.mark.parametrize("count", [1_000, 100_000])
def test_many_search_tags_stay_linear(count):
    assert timed(parse_reply, "<search>" * count + "</search>") is None
    assert timed(parse_reply, "x" * count + "<search>q</search>") == "search: q"


@pytest.mark.parametrize(("name", "text"), hostile_texts(1_000_000), ids=lambda v: v if len(v) < 40 else "")
def test_a_megabyte_of_hostile_text_is_parsed_in_under_a_second(name, text):
    for fn in (parse_reply, split_action):
        result = timed(fn, text)
        assert result is None or isinstance(result, (str, tuple))


@pytest.mark.parametrize("text", SMALL_HOSTILE + (None, 7))
def test_short_hostile_and_non_text_replies_never_raise(text):
    timed(parse_reply, text)
    timed(split_action, text)
