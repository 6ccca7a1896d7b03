"""check_problem: accepted problems have one checkable value; lists, equations, inequalities,
words, infinities and malformed text are refused with a reason."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coevo.envs.math import check_problem

PROBLEM = "Compute $6 \\times 7$."


@pytest.mark.parametrize("answer", ["42", "-7", "1/2", "\\frac{3}{4}", "0.25", "12,000", "2\\sqrt{3}"])
def test_single_values_are_accepted(answer):
    assert check_problem(PROBLEM, answer) == (True, "ok")


@pytest.mark.parametrize(
    "answer,reason_part",
    [
        ("", "empty answer"),
        ("1, 2", "single value"),  # a list (not a thousands separator)
        ("1,2", "single value"),
        ("x = 3", "single value"),  # an equation
        ("x > 3", "single value"),  # an inequality
        ("2 \\le x", "single value"),
        ("\\pm 2", "single value"),
        ("1 or 2", "single value"),
        ("(1, 2)", "single value"),  # an interval / tuple
        ("five", "variables"),  # read by sympy as a product of symbols
        ("x + 1", "variables"),
        ("\\infty", "not finite"),
        ("\\frac{1}{0}", "not finite"),
        ("\\boxed{3}", "malformed"),
        ("{3", "malformed"),
        ("1" * 300, "longer than"),
    ],
)
def test_bad_answers_are_refused(answer, reason_part):
    ok, reason = check_problem(PROBLEM, answer)
    assert not ok
    assert reason_part in reason


@pytest.mark.parametrize(
    "problem,reason_part",
    [
        ("", "empty problem"),
        ("   ", "empty problem"),
        ("?!", "no content"),
        ("Compute $\\frac{1}{2$.", "braces"),
        ("Compute $1 + 2.", "unbalanced $"),
        ("Compute $1 + 2$. Answer: $\\boxed{3}$", "reveals"),
        ("x" * 2001, "longer than"),
    ],
)
def test_malformed_problems_are_refused(problem, reason_part):
    ok, reason = check_problem(problem, "3")
    assert not ok
    assert reason_part in reason


def test_non_strings_are_refused():
    assert check_problem(None, "3")[0] is False  # type: ignore[arg-type]
    assert check_problem(PROBLEM, 3)[0] is False  # type: ignore[arg-type]


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=80), st.text(max_size=30))
def test_never_raises(problem, answer):
    ok, reason = check_problem(problem, answer)
    assert isinstance(ok, bool) and isinstance(reason, str) and reason
