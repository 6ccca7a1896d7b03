"""Hostile model output for the fuzz tests and ``bench/robustness/hostile_output.py``: texts built to make a
parser or checker slow (backtracking, deep recursion, huge numbers) or crash.

``hostile_texts(size)`` returns ``(name, text)`` pairs of about ``size`` characters each:
seeded random garbage (ASCII and Unicode), every grammar's tags repeated without closing or
interleaved (``<delegate>``, ``<think>``, ``<action>``, ``<search>``, ``<answer>``,
``Problem:``/``Answer:``, ``\\boxed{``), deep nesting of brackets, runs of whitespace, digits
and operators, and math that evaluates to huge values. ``SMALL_HOSTILE`` are short adversarial
texts that target evaluation rather than length (``9^{9^{9}}``, a 5,000-digit number).
"""

from __future__ import annotations

import os
import random
import time

_TAGS = ("<delegate>", "</delegate>", "<think>", "</think>", "<action>", "</action>", "<search>", "</search>",
         "<answer>", "</answer>", "<information>", "<skill>", "</skill>")

#: short texts that are costly to evaluate or convert, not to scan
SMALL_HOSTILE = (
    "9^{9^{9}}", "2^{2^{20}}", "10^{5000}", "9**9**9", "((((((2^{31})^{31})^{31})^{31})^{31})^{31})^{31}",
    "5000!", "(1000!)^{1000}", "\\binom{100000}{50000}", "\\sum_{k=1}^{1000} k^{1000}", "2^{1e9}",
    "1" * 5000, "-" + "9" * 5000, "²", "١٢٣", "x" * 300, "\\frac{1}{" * 60 + "2" + "}" * 60,
    "Compute $9^{9^{9}}$.", "Compute $2^{2^{20}}$.", "Solve for $x$: $" + " " * 2000 + "x + 1 = 2$.",
    "reach (" + "1" * 5000 + ", 2)", "read " + "7" * 5000, "answer " + "3" * 5000, "get " + "2" * 5000 + " wood",
    "evaluate " + "1 + " * 1000 + "1", "evaluate " + "(" * 1000 + "1" + ")" * 1000,
    "count colour=red in chunks " + "1" * 5000 + "-2", "craft " + "9" * 5000 + " gear", "#" + "1" * 5000,
)


def _garbage(rng: random.Random, size: int, alphabet: str) -> str:
    return "".join(rng.choice(alphabet) for _ in range(size))


def _repeat(unit: str, size: int) -> str:
    return unit * max(1, size // max(1, len(unit)))


def hostile_texts(size: int = 1_000_000, seed: int = 0) -> list[tuple[str, str]]:
    """``(name, text)`` pairs, each about ``size`` characters (see the module docstring)."""
    rng = random.Random(seed)
    ascii_chars = "".join(chr(c) for c in range(32, 127)) + "\n\t"
    tag_soup = "".join(rng.choice(_TAGS) + _garbage(rng, rng.randint(0, 3), "ab 1{}^") for _ in range(size // 8))
    texts = [
        ("garbage_ascii", _garbage(rng, size, ascii_chars)),
        ("garbage_unicode", "".join(chr(rng.choice((rng.randint(0x80, 0x2FFF), rng.randint(0x4E00, 0x9FFF))))
                                    for _ in range(size))),
        ("tag_soup", tag_soup[:size]),
        ("delegate_open", _repeat("<delegate>", size)),
        ("delegate_pairs_then_junk", _repeat("<delegate>a</delegate>", size) + "x"),
        ("delegate_close", _repeat("</delegate>", size)),
        ("think_close", "<think>" + _repeat("</think>", size)),
        ("think_then_actions", "<think>" + _repeat("</think><action>", size) + "</action>x"),
        ("action_open", _repeat("<action>", size)),
        ("search_open", _repeat("<search>", size) + "</search>"),
        ("answer_pairs", _repeat("<answer>a</answer>", size)),
        ("problem_markers", _repeat("Problem: ", size)),
        ("problem_answer_markers", "Problem: " + _repeat("Answer: ", size)),
        ("boxed_open", _repeat("\\boxed{", size)),
        ("boxed_nested", "\\boxed{" + "{" * (size // 2) + "}" * (size // 2) + "}"),
        ("parens_deep", "(" * (size // 2) + "1" + ")" * (size // 2)),
        ("braces_deep", "{" * (size // 2) + "}" * (size // 2)),
        ("carets", _repeat("9^{", size)),
        ("whitespace", " " * size),
        ("newlines", _repeat("\n \t", size)),
        ("digits", "9" * size),
        ("sum_chain", _repeat("1 + ", size) + "1"),
        ("dollars", _repeat("$", size)),
        ("nul_and_controls", _garbage(rng, size, "".join(chr(c) for c in range(0, 32)))),
    ]
    return texts


#: what one parse or check of model text may take in the fuzz tests (seconds; measured: < 0.15 s
#: for 1 MB on the 2-core CI machine, bench/robustness/hostile_output.json), on an idle machine
CALL_LIMIT_S = 1.0


def load_factor() -> float:
    """How many runnable processes share each core now (the 1-minute load average over the cores,
    at least 1): on a machine shared with other jobs a call's wall time stretches by about this."""
    return max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1))


def timed(fn, *args, limit: float = CALL_LIMIT_S):
    """``fn(*args)``, asserting that it returned within ``limit`` seconds times ``load_factor()``.

    The bound is there to catch hangs and blow-ups (a 60 s label, a quadratic scan of a megabyte),
    which miss it by far under any load; the load factor keeps a call that merely shared its core
    (1.44 s measured while three training jobs ran on two cores) from failing the test."""
    start = time.perf_counter()
    result = fn(*args)
    seconds = time.perf_counter() - start
    allowed = limit * load_factor()
    assert seconds < allowed, f"{getattr(fn, '__name__', fn)} took {seconds:.2f} s (limit {allowed:.2f} s)"
    return result
