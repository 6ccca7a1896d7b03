"""Answer extraction from \\boxed{} and math-verify equivalence: equivalent forms match, wrong
ones do not, and no input raises."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coevo.envs.math.answers import MAX_ANSWER_CHARS, answers_match, extract_boxed, parse_answer, too_costly

EQUIVALENT = [
    ("\\frac{1}{2}", "1/2"),
    ("\\frac{1}{2}", "0.5"),
    ("1/2", "\\dfrac{1}{2}"),
    ("\\frac{1}{2}", "2/4"),  # not reduced, still the same number
    ("42", "42.0"),
    ("42", "42"),
    ("-7", "-7"),
    ("12000", "12,000"),  # thousands separator
    ("\\frac{3}{4}", "0.75"),
    ("3", "x = 3"),  # math-verify reads the right-hand side of a solution "x = 3"
    ("2\\sqrt{3}", "\\sqrt{12}"),
    ("18", "\\$18"),
    ("\\frac{7}{2}", "3.5"),
]

DIFFERENT = [
    ("\\frac{1}{2}", "0.4"),
    ("\\frac{1}{2}", "2"),
    ("42", "24"),
    ("-7", "7"),
    ("\\frac{1}{3}", "0.33"),  # a rounded decimal is not the fraction
    ("3", "4"),
    ("12", "twelve"),  # words are not parsed as numbers
    ("5", ""),
]


@pytest.mark.parametrize("gold,prediction", EQUIVALENT)
def test_equivalent_forms_match(gold, prediction):
    assert answers_match(gold, prediction)


@pytest.mark.parametrize("gold,prediction", DIFFERENT)
def test_wrong_answers_do_not_match(gold, prediction):
    assert not answers_match(gold, prediction)


def test_text_answers_match_by_normalised_text():
    # sympy cannot read "Monday" as a number; identical text (case, spaces, $) still matches
    assert answers_match("\\text{Monday}", "\\text{ monday }")
    assert not answers_match("\\text{Monday}", "\\text{Tuesday}")


@pytest.mark.parametrize(
    "text,expected",
    [
        ("so the answer is \\boxed{42}.", "42"),
        ("\\boxed{\\frac{3}{4}}", "\\frac{3}{4}"),  # nested braces
        ("first \\boxed{1} then \\boxed{2}", "2"),  # the last box counts
        ("\\boxed{ 7 }", "7"),
        ("\\boxed{}", None),  # empty
        ("\\boxed{12", None),  # never closed
        ("\\boxed{\\frac{1}{2}", None),  # the outer brace never closes
        ("the answer is 42", None),  # no box
        ("\\boxed 42", None),
        ("", None),
    ],
)
def test_extract_boxed(text, expected):
    assert extract_boxed(text) == expected


def test_overlong_answers_are_not_parsed():
    assert parse_answer("1" * (MAX_ANSWER_CHARS + 1)) == []
    assert parse_answer("1" * 10)


@settings(max_examples=150, deadline=None)
@given(st.text())
def test_extract_boxed_never_raises(text):
    result = extract_boxed(text)
    assert result is None or (isinstance(result, str) and result == result.strip() and result)


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=60), st.text(max_size=60))
def test_answers_match_never_raises(gold, prediction):
    assert answers_match(gold, prediction) in (True, False)


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet="0123456789+-*/^().,=\\{}fracsqt x", max_size=40))
def test_math_like_garbage_never_raises(text):
    answers_match("\\frac{1}{2}", text)
    extract_boxed("\\boxed{" + text + "}")


@pytest.mark.parametrize(
    "prediction",
    ["9^{9^{9}}", "9^{9^{9^{9}}}", "10^{10^{10}}!", "\\frac{1}{9^{9^{9}}}", "7^{99999}", "(5000)!"],
)
def test_costly_answers_are_refused_quickly(prediction):
    # math-verify would spend its 5 s timeout on these (and hang outside the main thread)
    import time

    start = time.perf_counter()
    assert not answers_match("3", prediction)
    assert time.perf_counter() - start < 2.0


@pytest.mark.parametrize(
    "gold,prediction", [("1024", "2^{10}"), ("6", "3!"), ("\\frac{1}{4}", "2^{-2}"), ("9", "\\sqrt{81}")]
)
def test_ordinary_powers_and_factorials_still_compare(gold, prediction):
    assert answers_match(gold, prediction)
    assert not too_costly(parse_answer("2^{\\sqrt{2}}")[0])  # an irrational exponent is no tower


def test_verification_works_outside_the_main_thread():
    # math-verify's signal-based timeout fails in other threads; answers_match runs without it there
    import threading

    results = []
    thread = threading.Thread(
        target=lambda: results.extend([answers_match("\\frac{1}{2}", "0.5"), answers_match("1", "2")])
    )
    thread.start()
    thread.join(timeout=30)
    assert results == [True, False]
