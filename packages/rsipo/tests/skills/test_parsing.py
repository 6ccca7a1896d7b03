"""Parsing a written skill never raises; every problem is named."""

from hypothesis import given, settings
from hypothesis import strategies as st

from coevo.rsipo.skills.parsing import format_skill, parse_skill


def test_well_formed():
    parsed = parse_skill("<skill> go to the  box,\nthen open it </skill>")
    assert parsed.text == "go to the box, then open it" and parsed.valid and parsed.problem == ""
    assert parse_skill(format_skill("take it")).text == "take it"


def test_problems():
    assert parse_skill("").problem == "empty" and not parse_skill("").valid
    assert parse_skill("<skill> </skill>").problem == "empty"
    no_tags = parse_skill("go to fridge 1")
    assert no_tags.problem == "no_tags" and no_tags.text == "go to fridge 1" and not no_tags.valid
    cut = parse_skill("<skill>go to fri", finished=False)
    assert cut.problem == "unfinished" and cut.text == "go to fri"
    long = parse_skill("<skill>" + "a" * 50 + "</skill>", max_chars=10)
    assert long.problem == "too_long" and long.text == "a" * 10
    assert parse_skill("<skill>x\x00y</skill>").text == "x y"


@settings(max_examples=200, deadline=None)
@given(st.text(), st.booleans())
def test_any_text_parses(text, finished):
    parsed = parse_skill(text, finished, max_chars=40)
    assert len(parsed.text) <= 40
    assert parsed.valid == (parsed.problem == "")
