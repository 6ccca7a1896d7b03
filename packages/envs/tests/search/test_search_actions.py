"""The <search>/<answer> grammar: a table of well-formed and malformed replies, round trips, and
fuzzing (no input raises)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coevo.envs.search.actions import format_reply, parse_reply, split_action

CASES = [
    ("<think>I need the city.</think><search>Zorvan Pelt</search>", "search: Zorvan Pelt"),
    ("<think>a</think>\n<answer> New  York </answer>\n", "answer: New York"),
    ("<search>q</search>", "search: q"),
    ("Let me look. <search>q</search>", "search: q"),  # free text before the tag
    # malformed
    ("Paris", None),  # no tag
    ("<search>a</search><search>b</search>", None),  # two tags
    ("<search>a</search><answer>b</answer>", None),  # both search and answer
    ("<search>a", None),  # unclosed
    ("<search>a</answer>", None),  # mismatched
    ("<answer>b</answer> and more", None),  # text after the action
    ("<search>   </search>", None),  # empty
    ("<search>a <b> c</search>", None),  # tag-like content
    ("<think>x<search>a</search>", None),  # unclosed think
    ("<think>x</think> then <search>a</search>", None),  # text between think and action
    ("<think>a</think><think>b</think><search>a</search>", None),  # two thinks
    ("<information>Doc 1</information><answer>x</answer>", None),  # the env's tag
    ("", None),
]


@pytest.mark.parametrize("reply,expected", CASES)
def test_parse_reply(reply, expected):
    assert parse_reply(reply) == expected


@pytest.mark.parametrize(
    "action,parts",
    [
        ("search: who is x", ("search", "who is x")),
        ("answer:  Paris ", ("answer", "Paris")),
        ("answer: a: b", ("answer", "a: b")),
        ("answer:", None),
        ("look: x", None),
        ("Paris", None),
    ],
)
def test_split_action(action, parts):
    assert split_action(action) == parts


def test_format_reply():
    assert format_reply("search: Zorvan Pelt") == "<search>Zorvan Pelt</search>"
    assert format_reply("answer: 1923") == "<answer>1923</answer>"
    assert format_reply("Paris") == "<answer>Paris</answer>"  # unprefixed: an answer


_content = st.text(
    alphabet=st.characters(blacklist_characters="<>", blacklist_categories=("Cs",)), min_size=1
).filter(lambda s: s.strip())


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(["search", "answer"]), _content)
def test_round_trip(kind, content):
    action = f"{kind}: {content}"
    assert parse_reply(format_reply(action)) == f"{kind}: {' '.join(content.split())}"


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_parse_reply_never_raises(text):
    result = parse_reply(text)
    assert result is None or split_action(result) is not None


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            ["<search>", "</search>", "<answer>", "</answer>", "<think>", "</think>", "q", " ", "\n"]
        ),
        max_size=12,
    )
)
def test_tag_soup_never_raises(parts):
    text = "".join(parts)
    result = parse_reply(text)
    assert result is None or result.split(":")[0] in ("search", "answer")
    split_action(text)
    format_reply(text)
