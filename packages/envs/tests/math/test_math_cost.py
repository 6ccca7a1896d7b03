"""``costly_text``: the structural pre-check refuses values too large to compute quickly and lets
ordinary answers through. Each refused case is justified by its size next to it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coevo.core.testing.hostile import hostile_texts, timed
from coevo.envs.math.cost import costly_text


@pytest.mark.parametrize("text", [
    "9^{9^{9}}",  # 9^387,420,489: 370 million digits
    "2^{2^{20}}",  # 2^1,048,576: 315,653 digits (27 s before)
    "9**9**9", "9^9^9",  # the same tower without braces
    "2^{3!}",  # a factorial in an exponent counts as a tower
    "10^{5000}",  # one exponent above 1,000
    "2^{999 \\times 999}",  # 998,001: the product of the exponent's literals bounds it
    "2^{1e9}",  # scientific notation in an exponent
    "((2^{31})^{31})^{31}",  # 2^29,791: 2 (digit run) x 29,791 > 10,000 estimated digits
    "5000!",  # a factorial above 1,000
    "(10^3)!",  # a factorial of anything but a literal
    "(1000!)^{1000}",  # 2,568 digits x 1,000
    "\\sum_{k=1}^{1000} k^{1000}",  # the sum's 1,000 terms multiply the 1,000: 4 x 10^6
    "\\binom{100000}{50000}",  # a binomial of a literal above 1,000
    "(" * 17 + "1" + ")" * 17,  # nesting deeper than 16
    "x" * 5001,  # longer than any caller lets through
])
def test_costly_values_are_refused(text):
    assert costly_text(text)


@pytest.mark.parametrize("text", [
    "42", "-7", "\\frac{3}{4}", "0.5", "2^{10}", "2^{1000}", "(2^{3})^{2}", "e^{1000}", "x^2 + 1",
    "2^{-3}", "2^{100} + 3^{100}", "10!", "(10!)^{3}", "\\sum_{k=1}^{10} k^{2}", "1,000", "x != 3",
    "\\sqrt{2}", "((((1))))",
])
def test_ordinary_answers_pass(text):
    assert not costly_text(text)


@settings(max_examples=300, deadline=1000, database=None)
@given(st.text(max_size=300))
def test_any_text_is_judged_quickly(text):
    assert timed(costly_text, text) in (True, False)


@pytest.mark.parametrize(("name", "text"), hostile_texts(1_000_000), ids=lambda v: v if len(v) < 40 else "")
def test_a_megabyte_is_refused_without_reading_it(name, text):
    assert timed(costly_text, text, limit=0.1)
