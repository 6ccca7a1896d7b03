"""Labels for Scout-proposed problems: ``consensus`` (R-Zero) or ``exact`` (checked where possible).

- consensus: cluster the Learner's answers by math-verify equivalence; the largest cluster's
  answer is the pseudo-label, its share of all samples (unparsed replies included) the support.
  Shared mistakes can win a vote — the paper's own critique — hence:
- exact: the answer the problem actually has, computed with sympy for the forms the math
  generator writes (``Compute $expr$.``, ``Solve for $x$: $a x + b = c$.``); other problems are
  not verifiable and get no label.
"""

from __future__ import annotations

import re

import sympy

from coevo.envs.math.answers import answers_match, parse_answer

VERIFIERS = ("consensus", "exact")

_COMPUTE = re.compile(r"^Compute \$(?P<expr>[^$]+)\$\.")
# a x ± b = c with integers (never evaluated as code: the numbers are read by the regex)
_SOLVE = re.compile(r"^Solve for \$x\$: \$\s*(?P<a>-?\d*)\s*x\s*(?P<op>[+-])\s*(?P<b>\d+)\s*=\s*(?P<c>-?\d+)\s*\$\.?$")


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
    """The problem's true answer as a string, or ``None`` when it cannot be computed exactly."""
    text = problem_text.strip()
    try:
        match = _COMPUTE.match(text)
        if match:
            value = _value(match.group("expr"))
            return str(sympy.nsimplify(value)) if value is not None and not value.free_symbols else None
        match = _SOLVE.match(text)
        if match:
            a = {"": 1, "-": -1}.get(match.group("a"), None)
            a = int(match.group("a")) if a is None else a
            b = int(match.group("b")) * (1 if match.group("op") == "+" else -1)
            return str(sympy.Rational(int(match.group("c")) - b, a)) if a != 0 else None
    except Exception:  # a malformed proposal is unverifiable, never a crash
        return None
    return None
