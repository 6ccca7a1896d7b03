"""Word problems from templates: people, objects and numbers filled into short stories.

Templates in ``TEMPLATES`` are used for training and in-distribution evaluation; those in
``OOD_TEMPLATES`` (other situations and question forms) only out of distribution. Every answer
is a non-negative integer computed from the drawn numbers.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from coevo.envs.math.problem import Problem
from coevo.envs.math.scale import Scale

NAMES = (
    ("Ava", "she"),
    ("Ben", "he"),
    ("Chloe", "she"),
    ("Daniel", "he"),
    ("Emma", "she"),
    ("Felix", "he"),
    ("Grace", "she"),
    ("Hugo", "he"),
    ("Iris", "she"),
    ("Jonas", "he"),
    ("Lena", "she"),
    ("Omar", "he"),
)
ITEMS = ("apples", "marbles", "stickers", "pencils", "cookies", "stamps", "shells", "cards")

Template = Callable[[random.Random, Scale], tuple[str, int]]


def _people(rng: random.Random) -> tuple[tuple[str, str], tuple[str, str]]:
    first, second = rng.sample(NAMES, 2)
    return first, second


def _buys_more(rng, s):
    (name, he), _ = _people(rng)
    a, b, item = rng.randint(1, s.value_max), rng.randint(1, s.value_max), rng.choice(ITEMS)
    return (
        f"{name} has {a} {item}. {he.capitalize()} buys {b} more. How many {item} does {name} have now?",
        a + b,
    )


def _gives_away(rng, s):
    (name, _), (friend, _) = _people(rng)
    a = rng.randint(2, s.value_max + 1)
    b, item = rng.randint(1, a - 1), rng.choice(ITEMS)
    return (
        f"{name} had {a} {item} and gave {b} of them to {friend}. How many {item} does {name} have left?",
        a - b,
    )


def _boxes(rng, s):
    a, b, item = rng.randint(2, s.factor_max), rng.randint(2, s.factor_max), rng.choice(ITEMS)
    return f"A box holds {a} {item}. How many {item} are there in {b} boxes?", a * b


def _shares(rng, s):
    (name, _), _ = _people(rng)
    each, friends, item = rng.randint(1, s.factor_max), rng.randint(2, s.factor_max), rng.choice(ITEMS)
    return (
        f"{name} shares {each * friends} {item} equally among {friends} friends. "
        f"How many {item} does each friend get?",
        each,
    )


def _reads(rng, s):
    (name, he), _ = _people(rng)
    a, b = rng.randint(2, s.factor_max), rng.randint(2, s.factor_max)
    return f"{name} reads {a} pages a day for {b} days. How many pages does {he} read in total?", a * b


def _change(rng, s):
    (name, he), _ = _people(rng)
    price, count = rng.randint(1, s.factor_max), rng.randint(2, s.factor_max)
    paid = price * count + rng.randint(0, s.value_max)
    return (
        f"A ticket costs {price} dollars. {name} buys {count} tickets and pays with {paid} dollars. "
        f"How many dollars of change does {he} get?",
        paid - price * count,
    )


def _ages(rng, s):
    (name, _), (friend, _) = _people(rng)
    a, b, c = rng.randint(1, s.value_max), rng.randint(1, s.value_max), rng.randint(1, s.value_max)
    return (
        f"{name} is {a} years old. {friend} is {b} years older than {name}. How old will {friend} be in {c} years?",
        a + b + c,
    )


def _times_as_many(rng, s):
    (name, _), (friend, _) = _people(rng)
    a, b, item = rng.randint(1, s.value_max), rng.randint(2, s.factor_max), rng.choice(ITEMS)
    return (
        f"{name} has {a} {item}. {friend} has {b} times as many {item} as {name}. "
        f"How many {item} do they have together?",
        a + a * b,
    )


def _train(rng, s):
    a, b = rng.randint(2, s.value_max + 1), rng.randint(2, s.factor_max)
    return (
        f"A train travels at {a} kilometers per hour for {b} hours. How many kilometers does it travel?",
        a * b,
    )


def _savings(rng, s):
    (name, he), _ = _people(rng)
    a, b = rng.randint(1, s.value_max), rng.randint(2, s.factor_max)
    c = rng.randint(0, a * b)
    return (
        f"{name} saves {a} dollars each week. After {b} weeks {he} spends {c} dollars. "
        f"How many dollars does {he} have left?",
        a * b - c,
    )


def _perimeter(rng, s):
    a, b = rng.randint(1, s.value_max), rng.randint(1, s.value_max)
    return f"A rectangle is {a} meters long and {b} meters wide. What is its perimeter in meters?", 2 * (
        a + b
    )


def _packs(rng, s):
    (name, he), _ = _people(rng)
    a, b, item = rng.randint(2, s.factor_max), rng.randint(2, s.factor_max), rng.choice(ITEMS)
    c = rng.randint(0, a * b)
    return (
        f"{name} buys {a} packs of {item} with {b} {item} in each pack and gives away {c}. "
        f"How many {item} does {he} keep?",
        a * b - c,
    )


TEMPLATES: tuple[Template, ...] = (
    _buys_more,
    _gives_away,
    _boxes,
    _shares,
    _reads,
    _change,
    _ages,
    _times_as_many,
)
OOD_TEMPLATES: tuple[Template, ...] = (_train, _savings, _perimeter, _packs)


def word_problem(rng: random.Random, scale: Scale, out_of_distribution: bool) -> Problem:
    template = rng.choice(OOD_TEMPLATES if out_of_distribution else TEMPLATES)
    text, answer = template(rng, scale)
    return Problem(text, str(answer), "word_problem")
