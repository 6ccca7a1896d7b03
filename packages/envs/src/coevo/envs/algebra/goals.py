"""Sub-goals of ``algebra``: ``evaluate <expression>``, a part of the parent's expression.

Grammar (case and spacing free; the word ``evaluate`` and a trailing ``modulo <m>`` are
optional, and ``<m>`` must be the task's modulus)::

    evaluate <expression> [modulo <m>]

``<expression>`` is any text of a sub-tree of the parent's current expression (after the
values of joined children were put in), with any parenthesisation that gives the same tree:
``(3 + 4) * 2`` or ``3+4`` both name ``3 + 4``. A bare number, the whole expression, or an
expression that is not a sub-tree raises ``ForkError`` with the reason.
"""

from __future__ import annotations

import re

from coevo.core.env.protocol import ForkError
from coevo.envs.algebra.expression import Expr, Num, render, subexpressions
from coevo.envs.algebra.parser import ExpressionSyntaxError, parse_expression
from coevo.envs.recursive import goal_int

GRAMMAR = "'evaluate <expression>', a part of your expression, e.g. 'evaluate (3 + 4) * 2'"

_GOAL = re.compile(r"^(?:evaluate\s*:?\s*)?(?P<expression>.*?)(?:\s*(?:modulo|mod)\s+(?P<modulus>\d+))?$")


def parse_goal(text: str, modulus: int) -> Expr:
    """The expression a goal names; ``ForkError`` when the text is not in the grammar."""
    match = _GOAL.match(" ".join(text.lower().split()))
    if match.group("modulus") is not None and goal_int(match.group("modulus"), "the modulus") != modulus:
        raise ForkError(f"this task works modulo {modulus}, not modulo {match.group('modulus')}")
    try:
        return parse_expression(match.group("expression"))
    except ExpressionSyntaxError as exc:
        raise ForkError(f"malformed expression in {text!r}: {exc}; expected {GRAMMAR}") from None


def check_subgoal(current: Expr, sub: Expr) -> None:
    """``ForkError`` unless ``sub`` is a compound sub-tree of ``current`` other than all of it."""
    if isinstance(sub, Num):
        raise ForkError(f"{sub.value} is a single number; it needs no sub-agent")
    if sub == current:
        raise ForkError("that is your whole expression; delegate a part of it")
    if sub not in set(subexpressions(current)):
        raise ForkError(f"{render(sub)!r} is not a part of your expression {render(current)!r}")
