"""Parse expression text (any spacing and parenthesisation) into a tree.

Usual precedence (``*`` before ``+``/``-``), left to right within a level, non-negative integer
literals, parentheses; no unary minus. ``ExpressionSyntaxError`` says what is wrong and where.

Model text is hostile input, so the work is bounded: at most ``MAX_TOKENS`` tokens, numbers of
at most ``MAX_DIGITS`` ASCII digits, parentheses nested at most ``MAX_NESTING`` deep, and trees at
most ``MAX_DEPTH`` deep (``1 + 1 + … + 1`` is a chain as deep as its terms; the recursive
helpers of ``expression`` — ``render``, ``depth``, ``==`` — then stay far from Python's recursion
limit).
"""

from __future__ import annotations

import re

from coevo.envs.algebra.expression import Expr, Num, Op

MAX_NESTING = 64  # deeper parentheses are refused (no expression of a task comes close)
MAX_TOKENS = 20_000  # longer expressions are refused (a depth-9 task has at most ~3,000)
MAX_DEPTH = 128  # deeper trees are refused (tasks are generated 4-18 deep)
MAX_DIGITS = 9
_TOKEN = re.compile(r"\s*([0-9]+|[-+*()])")


class ExpressionSyntaxError(ValueError):
    """Text that is not an expression."""


def parse_expression(text: str) -> Expr:
    tokens = _tokenize(text)
    parser = _Parser(tokens)
    expr, _ = parser.sum()
    if parser.position != len(tokens):
        raise ExpressionSyntaxError(f"unexpected {tokens[parser.position]!r} after a complete expression")
    return expr


def _tokenize(text: str) -> list[str]:
    tokens, position = [], 0
    text = text.rstrip()
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None:
            raise ExpressionSyntaxError(f"unexpected character {text[position:].lstrip()[:1]!r}")
        token = match.group(1)
        if len(token) > MAX_DIGITS:
            raise ExpressionSyntaxError(f"a number longer than {MAX_DIGITS} digits")
        tokens.append(token)
        if len(tokens) > MAX_TOKENS:
            raise ExpressionSyntaxError(f"more than {MAX_TOKENS} numbers, operators and parentheses")
        position = match.end()
    if not tokens:
        raise ExpressionSyntaxError("no expression")
    return tokens


class _Parser:
    def __init__(self, tokens: list[str]):
        self.tokens, self.position, self.nesting = tokens, 0, 0

    def peek(self) -> str | None:
        return self.tokens[self.position] if self.position < len(self.tokens) else None

    def sum(self) -> tuple[Expr, int]:
        expr, deep = self.product()
        while self.peek() in ("+", "-"):
            op = self.tokens[self.position]
            self.position += 1
            right, right_deep = self.product()
            expr, deep = Op(op, expr, right), self._deeper(deep, right_deep)
        return expr, deep

    def product(self) -> tuple[Expr, int]:
        expr, deep = self.factor()
        while self.peek() == "*":
            self.position += 1
            right, right_deep = self.factor()
            expr, deep = Op("*", expr, right), self._deeper(deep, right_deep)
        return expr, deep

    @staticmethod
    def _deeper(left: int, right: int) -> int:
        """The depth of an operation on operands this deep; refused past ``MAX_DEPTH``."""
        deep = 1 + max(left, right)
        if deep > MAX_DEPTH:
            raise ExpressionSyntaxError(f"an expression nested deeper than {MAX_DEPTH} operations")
        return deep

    def factor(self) -> tuple[Expr, int]:
        token = self.peek()
        if token is None:
            raise ExpressionSyntaxError("the expression ends too early")
        self.position += 1
        if token.isdigit():
            return Num(int(token)), 0
        if token != "(":
            raise ExpressionSyntaxError(f"expected a number or '(' but found {token!r}")
        self.nesting += 1
        if self.nesting > MAX_NESTING:
            raise ExpressionSyntaxError(f"parentheses nested deeper than {MAX_NESTING}")
        expr = self.sum()
        if self.peek() != ")":
            raise ExpressionSyntaxError("a '(' is never closed")
        self.position += 1
        self.nesting -= 1
        return expr
