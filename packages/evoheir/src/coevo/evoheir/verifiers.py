"""Labels for Scout-proposed problems: ``consensus`` (R-Zero) or ``exact`` (checked where possible).

- consensus: cluster the Learner's answers by math-verify equivalence; the largest cluster's
  answer is the pseudo-label, its share of all samples (unparsed replies included) the support.
  Shared mistakes can win a vote — the paper's own critique — hence:
- exact: the answer the problem actually has, computed with sympy for the forms the math
  generator writes (``Compute $expr$.``, ``Solve for $x$: $a x + b = c$.``); other problems are
  not verifiable and get no label. A Scout writes the expression, so it is hostile input: one
  that could build a huge value (``coevo.envs.math.cost``: ``9^{9^{9}}``) gets no label at once,
  and the computation runs in ``coevo.core.time_bound``'s worker, killed after
  ``LABEL_TIMEOUT_S`` seconds (no label), in any thread.
"""

from __future__ import annotations

import re

import sympy

from coevo.core.time_bound import call_bounded
from coevo.evoheir.math_env import (
    MAX_PROBLEM_CHARS,
    VERIFY_TIMEOUT_S,
    answers_match,
    costly_text,
    parse_answer,
)

VERIFIERS = ("consensus", "exact")
#: the hard bound on computing one exact label, in seconds
LABEL_TIMEOUT_S = VERIFY_TIMEOUT_S
#: digits of a number in a ``Solve for`` problem (``int`` of over 4,300 digits raises)
_MAX_DIGITS = 18

_COMPUTE = re.compile(r"^Compute \$(?P<expr>[^$]+)\$\.")
# a x ± b = c with integers (never evaluated as code: the numbers are read by the regex); no two
# \s* touch, so a run of spaces is read once (the regex stays linear)
_SOLVE = re.compile(r"^Solve for \$x\$: \$\s*(?:(?P<a>-?[0-9]+|-)\s*)?x\s*(?P<op>[+-])\s*(?P<b>[0-9]+)\s*=\s*(?P<c>-?[0-9]+)\s*\$\.?$")


def consensus(answers: list[str | None]) -> tuple[str | None, float]:
    """``(pseudo-label, support)`` of sampled answers (``None`` = no parsable answer)."""
    clusters: list[list[str]] = []
    for answer in answers:
        if not answer:
            continue
        for cluster in clusters:
            if answers_match(cluster[0], answer):
                cluster.append(answer)
                break
        else:
            clusters.append([answer])
    if not clusters or not answers:
        return None, 0.0
    best = max(clusters, key=len)  # first-seen cluster wins ties
    return best[0], len(best) / len(answers)


def _value(latex: str):
    parsed = parse_answer(latex.strip())
    value = parsed[0] if parsed else None
    return value if isinstance(value, sympy.Expr) else None


def exact_label(problem_text: str) -> str | None:
    """The problem's true answer as a string, or ``None`` when it cannot be computed exactly (or
    not within ``LABEL_TIMEOUT_S``)."""
    if not isinstance(problem_text, str):
        return None
    text = problem_text.strip()
    if len(text) > MAX_PROBLEM_CHARS:
        return None
    match = _COMPUTE.match(text)
    if match:
        if costly_text(match.group("expr")):
            return None
        return call_bounded("coevo.evoheir.verifiers:computed_label", (match.group("expr"),), LABEL_TIMEOUT_S)
    try:
        match = _SOLVE.match(text)
        if match and max(len(match.group(k) or "") for k in ("a", "b", "c")) <= _MAX_DIGITS:
            a = {None: 1, "-": -1}.get(match.group("a"), None)
            a = int(match.group("a")) if a is None else a
            b = int(match.group("b")) * (1 if match.group("op") == "+" else -1)
            return str(sympy.Rational(int(match.group("c")) - b, a)) if a != 0 else None
    except Exception:  # a malformed proposal is unverifiable, never a crash
        return None
    return None


def computed_label(expression: str) -> str | None:
    """The value of a ``Compute $expression$.`` problem as a string (``None``: not one number).

    Unbounded: ``exact_label`` runs it in the bounded worker.
    """
    try:
        value = _value(expression)
        return str(sympy.nsimplify(value)) if value is not None and not value.free_symbols else None
    except Exception:  # a malformed proposal is unverifiable, never a crash
        return None
