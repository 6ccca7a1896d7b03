"""Expression trees: values worked out by hand, canonical text, parsing, substitution."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coevo.envs.algebra.expression import Num, Op, depth, evaluate, render, subexpressions, substitute
from coevo.envs.algebra.generation import generate_expression
from coevo.envs.algebra.parser import ExpressionSyntaxError, parse_expression

# (3 + 4) * (2 - 9): 7 * -7 = -49 → 1 modulo 10, 2 modulo 17 (-49 + 51)
EXAMPLE = Op("*", Op("+", Num(3), Num(4)), Op("-", Num(2), Num(9)))


def test_value_depth_and_text():
    assert evaluate(EXAMPLE, 10) == 1 and evaluate(EXAMPLE, 17) == 2
    assert depth(EXAMPLE) == 2 and depth(Num(5)) == 0
    assert render(EXAMPLE) == "(3 + 4) * (2 - 9)"
    assert render(Op("-", Num(1), Op("-", Num(2), Num(3)))) == "1 - (2 - 3)"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("(3 + 4) * (2 - 9)", EXAMPLE),
        ("(3+4)*(2-9)", EXAMPLE),
        ("((3 + 4)) * ((2) - 9)", EXAMPLE),
        ("1 - 2 - 3", Op("-", Op("-", Num(1), Num(2)), Num(3))),
        ("1 + 2 * 3", Op("+", Num(1), Op("*", Num(2), Num(3)))),
        ("12", Num(12)),
    ],
)
def test_parse(text, expected):
    assert parse_expression(text) == expected


@pytest.mark.parametrize(
    ("text", "reason"),
    [("", "no expression"), ("3 +", "ends too early"), ("(3 + 4", "never closed"), ("3 + 4)", r"unexpected '\)'"),
     ("-3", "expected a number"), ("3 / 4", "unexpected character '/'"), ("(" * 70 + "1" + ")" * 70, "nested")],
)
def test_parse_errors_say_what_is_wrong(text, reason):
    with pytest.raises(ExpressionSyntaxError, match=reason):
        parse_expression(text)


def test_substitute_replaces_every_occurrence():
    twice = Op("+", Op("*", Num(1), Num(2)), Op("*", Num(1), Num(2)))
    replaced, count = substitute(twice, Op("*", Num(1), Num(2)), Num(2))
    assert (replaced, count) == (Op("+", Num(2), Num(2)), 2)
    assert substitute(twice, Num(7), Num(0)) == (twice, 0)


@settings(deadline=None, max_examples=60)
@given(seed=st.integers(0, 10**9), level=st.integers(0, 9))
def test_generated_expressions_have_the_depth_and_survive_their_text(seed, level):
    expr = generate_expression(random.Random(seed), level)
    assert depth(expr) == level
    assert parse_expression(render(expr)) == expr
    assert all(parse_expression(render(x)) == x for x in subexpressions(expr))
