"""Generated symbolic problems: integer arithmetic, fraction arithmetic and linear equations, and
the basic tier's one-operation problems (addition, one-step equations).

Values are computed from the construction (integers and ``fractions.Fraction``), never by
evaluating text. Every answer is an integer or a reduced fraction written ``\\frac{p}{q}``.
"""

from __future__ import annotations

import random
from fractions import Fraction

from coevo.envs.math.problem import Problem
from coevo.envs.math.scale import Scale


def latex_number(value: Fraction | int) -> str:
    """``7``, ``-3``, ``\\frac{3}{4}`` or ``-\\frac{3}{4}`` (reduced)."""
    value = Fraction(value)
    if value.denominator == 1:
        return str(value.numerator)
    sign = "-" if value < 0 else ""
    return f"{sign}\\frac{{{abs(value.numerator)}}}{{{value.denominator}}}"


def arithmetic(rng: random.Random, scale: Scale) -> Problem:
    """A signed sum of terms; a term is a number, a product, or (level >= 3) ``(a + b) \\times c``."""
    parts: list[str] = []
    total = 0
    for position in range(scale.terms):
        kind = rng.random()
        if kind < 0.35:
            a, b = rng.randint(2, scale.factor_max), rng.randint(2, scale.factor_max)
            text, value = f"{a} \\times {b}", a * b
        elif kind < 0.5 and scale.level >= 3:
            a, b = rng.randint(1, scale.value_max), rng.randint(1, scale.value_max)
            c = rng.randint(2, scale.factor_max)
            text, value = f"({a} + {b}) \\times {c}", (a + b) * c
        else:
            value = rng.randint(1, scale.value_max)
            text = str(value)
        sign = 1 if position == 0 or rng.random() < 0.5 else -1
        parts.append(text if position == 0 else f"{'+' if sign > 0 else '-'} {text}")
        total += sign * value
    return Problem(f"Compute ${' '.join(parts)}$.", str(total), "arithmetic")


def fractions(rng: random.Random, scale: Scale) -> Problem:
    """Two fractions combined with + - × ÷, or (level >= 4) three with + and -."""

    def draw() -> Fraction:
        q = rng.randint(2, scale.denominator_max)
        return Fraction(rng.randint(1, 2 * q - 1), q)

    if scale.terms >= 3 and scale.level >= 4:
        values = [draw() for _ in range(3)]
        ops = [rng.choice("+-") for _ in range(2)]
    else:
        values = [draw(), draw()]
        ops = [rng.choice("+-*/")]
    total = values[0]
    text = latex_number(values[0])
    symbols = {"+": "+", "-": "-", "*": "\\times", "/": "\\div"}
    for op, value in zip(ops, values[1:]):
        total = {"+": total + value, "-": total - value, "*": total * value, "/": total / value}[op]
        text += f" {symbols[op]} {latex_number(value)}"
    question = f"Compute ${text}$. Give the answer as a fraction in lowest terms or an integer."
    return Problem(question, latex_number(total), "fractions")


def _linear(coefficient: int, constant: int) -> str:
    """``3x + 5``, ``x - 2``, ``-x``, ``4x`` (LaTeX-free, inside $...$)."""
    head = {1: "x", -1: "-x"}.get(coefficient, f"{coefficient}x")
    if constant == 0:
        return head
    return f"{head} {'+' if constant > 0 else '-'} {abs(constant)}"


def linear_equation(rng: random.Random, scale: Scale) -> Problem:
    """``a x + b = c`` (level 1), ``a x + b = c x + d`` (level 2), ``a(x + b) = c x + d`` (level >= 3)."""
    x = rng.randint(-scale.value_max, scale.value_max)
    a = rng.randint(2, scale.factor_max) * rng.choice((1, -1))
    b = rng.randint(-scale.value_max, scale.value_max)
    if scale.level == 1:
        equation = f"{_linear(a, b)} = {a * x + b}"
    else:
        c = rng.choice([k for k in range(-scale.factor_max, scale.factor_max + 1) if k not in (0, a)])
        if scale.level == 2:
            d = a * x + b - c * x
            equation = f"{_linear(a, b)} = {_linear(c, d)}"
        else:
            d = a * (x + b) - c * x
            equation = f"{a}({_linear(1, b)}) = {_linear(c, d)}"
    return Problem(f"Solve for $x$: ${equation}$.", str(x), "linear_equation")


def addition(rng: random.Random, scale: Scale) -> Problem:
    """``a + b`` with both addends in ``[1, value_max]`` (difficulty 1: the single-digit table)."""
    a, b = rng.randint(1, scale.value_max), rng.randint(1, scale.value_max)
    return Problem(f"Compute ${a} + {b}$.", str(a + b), "addition")


def one_step_equation(rng: random.Random, scale: Scale) -> Problem:
    """``x + a = b`` with ``x`` and ``a`` in ``[1, value_max]``: addition's inverse, one step."""
    x, a = rng.randint(1, scale.value_max), rng.randint(1, scale.value_max)
    return Problem(f"Solve for $x$: $x + {a} = {x + a}$.", str(x), "one_step_equation")
