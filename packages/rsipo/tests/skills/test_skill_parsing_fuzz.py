"""Written skills on hostile text: ``parse_skill`` is one regex substitution and two ``find`` calls,
linear in the reply; 1 MB of any of the hostile patterns is parsed in under a second."""

import pytest

from coevo.core.testing.hostile import SMALL_HOSTILE, hostile_texts, timed
from coevo.rsipo.skills.parsing import parse_skill


@pytest.mark.parametrize(("name", "text"), hostile_texts(1_000_000), ids=lambda v: v if len(v) < 40 else "")
@pytest.mark.parametrize("finished", [True, False])
def test_a_megabyte_reply_is_parsed_in_under_a_second(name, text, finished):
    parsed = timed(parse_skill, text, finished)
    assert len(parsed.text) <= 400 and (parsed.valid is False or parsed.problem == "")


@pytest.mark.parametrize("text", SMALL_HOSTILE + ("<skill>" * 100_000, "</skill>" * 100_000))
def test_short_and_repeated_tag_replies_are_parsed_in_under_a_second(text):
    timed(parse_skill, text)
