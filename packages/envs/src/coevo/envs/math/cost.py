"""A cheap structural bound on the work a math text can cause, read before any parsing.

Parsing an answer evaluates it: ``9^{9^{9}}`` becomes an integer of 370 million digits before
anything can compare it, which takes minutes. ``costly_text`` looks at the characters only
and says whether the value could be huge:

- a power tower: an exponent that itself holds a power or a factorial (``9^{9^{9}}``, ``2^{3!}``);
- an exponent whose integer literals multiply to more than ``MAX_EXPONENT`` (``10^{5000}``,
  ``2^{999 \\times 999}``), or in scientific notation (``2^{1e9}``); the product of an
  exponent's literals (each counted as at least 2) bounds any ``+ - \\times \\div`` of them;
- ``a^b^c`` (a tower without braces), and more than ``MAX_POWERS`` powers;
- nested powers: a power whose base is a bracket group holding powers multiplies their
  exponents; (longest digit run) × (largest such product) estimates the digits of the largest
  value the text builds (``((2^{31})^{31})^{31}``: 2 × 29,791), where a factorial ``n!`` counts as
  a run of its own digits (``(1000!)^{1000}``: 2,568 × 1,000) and a ``\\sum``/``\\prod`` makes
  the exponents multiply (``\\sum_{k=1}^{1000} k^{1000}``); more than ``MAX_DIGITS`` is refused;
- brackets nested deeper than ``MAX_NESTING`` (math-verify's parser takes seconds on 200 ``(``);
- a factorial of a literal above ``MAX_EXPONENT`` or of anything but a literal (``5000!``,
  ``(10^3)!``), and ``\\Gamma``/``\\binom``/``factorial``/``binomial`` with such a literal.

Work: a scan per ``^`` (at most ``MAX_POWERS``) over a text of at most ``MAX_TEXT`` characters
(callers cap answers at 200, problems at 2,000), and one pass for the factorials. It is a
pre-check, not the bound: every verification also runs under a hard time limit
(``coevo.core.time_bound``). Refusing is safe: a refused answer does not match (unless it is
literally the gold text), a refused proposed problem is not admitted.
"""

from __future__ import annotations

import math
import re

MAX_EXPONENT = 1000  # bound on any one exponent, and on factorial arguments
MAX_DIGITS = 10_000  # bound on the estimated digits of a value
MAX_POWERS = 64  # more powers than this in one text are refused (no answer needs them)
MAX_NESTING = 16  # deeper brackets are refused (math-verify's parser slows down: 200 '(' take seconds)
MAX_TEXT = 5_000  # longer texts are refused outright (callers cap answers at 200, problems at 2,000)
_LITERAL = re.compile(r"[0-9]+")
_SCIENTIFIC = re.compile(r"[0-9.][eE][+-]?[0-9]")
_ITERATED = ("\\sum", "\\prod", "Sum", "Product")
_TOKEN = re.compile(r"[+-]?[0-9.]+|\\[A-Za-z]+|.", re.DOTALL)
_COMBINATORIAL = re.compile(r"(?:\\Gamma|\\binom|\\dbinom|\\tbinom|factorial|binomial|gamma)\W{0,3}([0-9]+)")


def _group(text: str, start: int, opening: str, closing: str) -> tuple[str, int]:
    """The content of the bracket group opening at ``start`` and the index after it (unclosed: to the end)."""
    depth = 0
    for i in range(start, len(text)):
        depth += (text[i] == opening) - (text[i] == closing)
        if depth == 0:
            return text[start + 1 : i], i + 1
    return text[start + 1 :], len(text)


def _exponent(text: str, caret: int) -> tuple[str, int]:
    """The exponent after the ``^`` at ``caret`` (a ``{…}``/``(…)`` group, a number, or one symbol)
    and the index after it."""
    i = _skip_space(text, caret + 1)
    if i >= len(text):
        return "", i
    if text[i] in "{(":
        return _group(text, i, text[i], "}" if text[i] == "{" else ")")
    match = _TOKEN.match(text, i)
    return match.group(0), match.end()


def _base_start(text: str, caret: int) -> int:
    """Where the base of the ``^`` at ``caret`` starts, when it is a bracket group; else ``caret``."""
    j = caret
    while j > 0 and text[j - 1].isspace():
        j -= 1
    if j == 0 or text[j - 1] not in ")}":
        return caret
    closing = text[j - 1]
    opening = "(" if closing == ")" else "{"
    depth = 0
    for i in range(j - 1, -1, -1):
        depth += (text[i] == closing) - (text[i] == opening)
        if depth == 0:
            return i
    return 0


def _skip_space(text: str, i: int) -> int:
    while i < len(text) and text[i].isspace():
        i += 1
    return i


def _literal_bound(text: str) -> int | None:
    """The product of the integer literals of ``text`` (each at least 2); ``None`` if over ``MAX_EXPONENT``."""
    bound = 1
    for literal in _LITERAL.findall(text):
        if len(literal) > 4:
            return None
        bound *= max(int(literal), 2)
        if bound > MAX_EXPONENT:
            return None
    return bound


def _costly_powers(text: str, longest: int) -> bool:
    carets = [i for i, ch in enumerate(text) if ch == "^"]
    if len(carets) > MAX_POWERS:
        return True
    effective: list[tuple[int, int]] = []  # (caret, its exponent bound × the largest nested inside its base)
    for caret in carets:
        exponent, end = _exponent(text, caret)
        if "^" in exponent or "!" in exponent or _SCIENTIFIC.search(exponent):
            return True
        if text.startswith("^", _skip_space(text, end)):
            return True  # a^b^c is a tower too
        bound = _literal_bound(exponent)
        if bound is None:
            return True
        start = _base_start(text, caret)
        inner = max((e for c, e in effective if start <= c < caret), default=1)
        effective.append((caret, bound * inner))
    if not effective:
        return False
    largest = max(e for _, e in effective)
    if any(word in text for word in _ITERATED):  # the upper limit of a sum repeats the powers inside
        largest = 1
        for _, e in effective:
            largest *= e
    return longest * largest > MAX_DIGITS


def _factorial_digits(text: str) -> int | None:
    """The digits of the largest ``n!`` of the text (``None``: a factorial that is refused outright)."""
    digits = 0
    for i, ch in enumerate(text):
        if ch == "!" and not text.startswith("!=", i):
            j = i
            while j > 0 and text[j - 1].isspace():
                j -= 1
            k = j
            while k > 0 and text[k - 1] in "0123456789":
                k -= 1
            if k == j or j - k > 4 or int(text[k:j]) > MAX_EXPONENT:
                return None
            digits = max(digits, int(math.lgamma(int(text[k:j]) + 1) / math.log(10)) + 1)
    if any(len(m) > 4 or int(m) > MAX_EXPONENT for m in _COMBINATORIAL.findall(text)):
        return None
    return digits


def _nesting(text: str) -> int:
    """The deepest nesting of ``( [ {`` (closing brackets of any kind close one level)."""
    depth = deepest = 0
    for ch in text:
        if ch in "([{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in ")]}" and depth:
            depth -= 1
    return deepest


def costly_text(text: str) -> bool:
    """True when the value ``text`` writes could be too large to compute quickly (see the module)."""
    if len(text) > MAX_TEXT:
        return True
    if _nesting(text) > MAX_NESTING:
        return True
    text = text.replace("**", "^")
    factorial = _factorial_digits(text)
    if factorial is None:
        return True
    longest = max([factorial] + [len(run) for run in _LITERAL.findall(text)])
    return _costly_powers(text, longest)
