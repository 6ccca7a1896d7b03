"""Questions: canonical text, true answers worked out by hand, answer parsing."""

import pytest

from coevo.envs.longctx.questions import Question, format_tally


def test_truths_on_the_hand_built_document(small_document):
    doc = small_document
    # red records: 0 (10), 1 (20), 3 (30), 5 (1) → count 4, sum 61, max 30
    assert Question("count", "colour", "red", 0, 2).truth(doc) == "4"
    assert Question("sum", "colour", "red", 0, 2).truth(doc) == "61"
    assert Question("max", "colour", "red", 0, 2).truth(doc) == "30"
    # chunk 2 only: lima blue 7, rome red 1 → no oslo: sum 0, max 0
    assert Question("sum", "city", "oslo", 2, 2).truth(doc) == "0"
    assert Question("max", "city", "oslo", 2, 2).truth(doc) == "0"
    # cities: oslo 3, lima 2, rome 1
    assert Question("most_frequent", "city", "", 0, 2).truth(doc) == "oslo"
    assert Question("tally", "city", "", 0, 2).truth(doc) == "lima=2, oslo=3, rome=1"
    # chunk 0 has oslo 1, lima 1: a tie goes to the alphabetically first
    assert Question("most_frequent", "city", "", 0, 0).truth(doc) == "lima"


def test_text_and_decomposition():
    q = Question("most_frequent", "city", "", 0, 15)
    assert q.text == "most frequent city in chunks 0-15"
    assert q.decomposed(4, 7).text == "tally city in chunks 4-7"
    count = Question("count", "colour", "red", 0, 15)
    assert count.decomposed(4, 7) == count.over(4, 7)
    assert count.decomposed(4, 7).text == "count records with colour=red in chunks 4-7"
    assert Question("sum", "city", "oslo", 2, 3).text == "sum amount of records with city=oslo in chunks 2-3"


@pytest.mark.parametrize(
    ("kind", "text", "parsed"),
    [
        ("count", "17", "17"),
        ("count", " 007 ", "7"),
        ("count", "seventeen", None),
        ("count", "-3", None),
        ("most_frequent", "Oslo", "oslo"),
        ("most_frequent", "paris", None),
        ("tally", "oslo=3, lima=2", "lima=2, oslo=3"),
        ("tally", "lima = 2 oslo = 3", "lima=2, oslo=3"),
        ("tally", "lima: 2; oslo: 3", "lima=2, oslo=3"),
        ("tally", "lima=2, lima=3", None),
        ("tally", "paris=2", None),
        ("tally", "", None),
    ],
)
def test_parse_answer(kind, text, parsed):
    assert Question(kind, "city", "oslo" if kind == "count" else "", 0, 1).parse_answer(text) == parsed


def test_format_tally_sorts_and_drops_zeros():
    assert format_tally({"rome": 1, "lima": 0, "cairo": 4}) == "cairo=4, rome=1"
