"""Arithmetic expression trees: small integer leaves, ``+ - *``, values taken modulo ``m``.

``render`` writes the canonical text: binary operators with single spaces and parentheses
around every compound operand, none around the whole, e.g. ``(3 + 4) * (2 - (5 * 1))``. The
depth of a number is 0 and of an operation 1 + the deeper operand's depth.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Union

OPERATORS = ("+", "-", "*")


@dataclass(frozen=True)
class Num:
    value: int


@dataclass(frozen=True)
class Op:
    op: str  # one of OPERATORS
    left: Expr
    right: Expr


Expr = Union[Num, Op]  # noqa: UP007 (the alias is evaluated at import time on Python 3.10)


def evaluate(expr: Expr, modulus: int) -> int:
    """The value of ``expr`` modulo ``modulus`` (in ``0..modulus-1``)."""
    if isinstance(expr, Num):
        return expr.value % modulus
    left, right = evaluate(expr.left, modulus), evaluate(expr.right, modulus)
    if expr.op == "+":
        return (left + right) % modulus
    if expr.op == "-":
        return (left - right) % modulus
    return (left * right) % modulus


def depth(expr: Expr) -> int:
    return 0 if isinstance(expr, Num) else 1 + max(depth(expr.left), depth(expr.right))


def render(expr: Expr) -> str:
    if isinstance(expr, Num):
        return str(expr.value)
    return f"{_operand(expr.left)} {expr.op} {_operand(expr.right)}"


def _operand(expr: Expr) -> str:
    return render(expr) if isinstance(expr, Num) else f"({render(expr)})"


def subexpressions(expr: Expr) -> Iterator[Expr]:
    """Every node of the tree, the root first (pre-order)."""
    yield expr
    if isinstance(expr, Op):
        yield from subexpressions(expr.left)
        yield from subexpressions(expr.right)


def substitute(expr: Expr, target: Expr, replacement: Expr) -> tuple[Expr, int]:
    """``expr`` with every occurrence of the sub-tree ``target`` replaced; and how many there were."""
    if expr == target:
        return replacement, 1
    if isinstance(expr, Num):
        return expr, 0
    left, n_left = substitute(expr.left, target, replacement)
    right, n_right = substitute(expr.right, target, replacement)
    if n_left + n_right == 0:
        return expr, 0
    return Op(expr.op, left, right), n_left + n_right
