"""Final answers: extraction from ``\\boxed{}`` and equivalence checking with math-verify.

Answers are compared symbolically by ``math_verify`` (``1/2``, ``0.5`` and ``\\frac{1}{2}`` are
the same answer); model text is never evaluated as Python. Nothing here raises on any input:
an answer that cannot be parsed simply does not match (unless it is literally the gold text).

Every comparison is bounded, for the gold answer as for the prediction, in any thread and any
process: texts longer than ``MAX_ANSWER_CHARS`` or that could build a huge value
(``coevo.envs.math.cost``: ``9^{9^{9}}``, ``5000!``) do not match at once, and the symbolic work
runs in ``coevo.core.time_bound``'s worker process, killed after ``VERIFY_TIMEOUT_S`` seconds (a
comparison that runs out of time does not match). The bound costs a pipe round trip per call
(~20 µs, ``bench/robustness/hostile_output.py``).
"""

from __future__ import annotations

import threading

import sympy
from math_verify import ExprExtractionConfig, LatexExtractionConfig, parse, verify

from coevo.core.time_bound import call_bounded
from coevo.envs.math.cost import MAX_EXPONENT, costly_text

#: longer answers are not parsed at all (a bound on the work one reply can cause)
MAX_ANSWER_CHARS = 200
#: the hard bound on one comparison (parsing both answers and verifying), in seconds
VERIFY_TIMEOUT_S = 5.0
_EXTRACTION = (LatexExtractionConfig(), ExprExtractionConfig())
_TIMEOUT_S = 3  # math-verify's own (signal-based) timeout, which works in the worker's main thread
_MAX_EXPONENT = MAX_EXPONENT  # larger powers (and towers, and big factorials) are refused, not compared


def extract_boxed(text: str) -> str | None:
    """The content of the last ``\\boxed{...}`` in ``text`` (braces balanced), stripped.

    ``None`` when there is no ``\\boxed{``, its braces never close, or the content is empty.
    """
    if not isinstance(text, str):
        return None
    start = text.rfind("\\boxed{")
    if start < 0:
        return None
    i = start + len("\\boxed{")
    depth = 1
    for j in range(i, len(text)):
        ch = text[j]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                content = text[i:j].strip()
                return content or None
    return None


def _timeout() -> int | None:
    # math-verify's timeout uses signal.alarm, which only works in the main thread; elsewhere it
    # would make every parse fail, so run without one there (answers are length-bounded).
    return _TIMEOUT_S if threading.current_thread() is threading.main_thread() else None


def parse_answer(answer: str) -> list:
    """math-verify's parse of a bare answer (``[]`` when it cannot be parsed, is too long or could
    build a huge value).

    The first element, when present, is a sympy object; the second its string form. This runs in
    the calling process: bound it with ``call_bounded`` (``answers_match`` does).
    """
    if not isinstance(answer, str) or not answer.strip() or len(answer) > MAX_ANSWER_CHARS:
        return []
    if costly_text(answer):
        return []
    timeout = _timeout()
    for wrapped in (f"\\boxed{{{answer}}}", f"${answer}$"):
        try:
            parsed = parse(wrapped, extraction_config=_EXTRACTION, parsing_timeout=timeout)
        except Exception:  # math-verify should not raise, but a reply must never crash an episode
            parsed = []
        if parsed and not isinstance(parsed[0], str):
            return parsed
    return []


def too_costly(value) -> bool:
    """True for values whose comparison could take seconds (``9^{9^{9}}``, ``10^{5000}``, ``5000!``).

    math-verify's timeout only works in the main thread; this bounds the work in any thread.
    """
    try:
        for node in sympy.preorder_traversal(value):
            if isinstance(node, sympy.Pow) and (
                (node.exp.is_Number and abs(node.exp) > _MAX_EXPONENT)
                or any(
                    isinstance(p, sympy.Pow) and p.exp.is_Integer and p.exp > 1
                    for p in sympy.preorder_traversal(node.exp)
                )
            ):
                return True
            if isinstance(node, sympy.factorial) and (
                not node.args[0].is_Number or node.args[0] > _MAX_EXPONENT
            ):
                return True
    except Exception:
        return True
    return False


def normalize_text(answer: str) -> str:
    """Whitespace-, dollar- and trailing-period-insensitive text, for answers sympy cannot read."""
    return "".join(answer.replace("$", "").split()).rstrip(".").lower()


def answers_match(gold: str, prediction: str) -> bool:
    """True when ``prediction`` is the same answer as ``gold`` (math-verify, or identical text).

    Bounded in time wherever it runs (see the module docstring).
    """
    if not isinstance(gold, str) or not isinstance(prediction, str) or not prediction.strip():
        return False
    if normalize_text(gold) == normalize_text(prediction):
        return True
    if any(len(a) > MAX_ANSWER_CHARS or not a.strip() or costly_text(a) for a in (gold, prediction)):
        return False
    return bool(call_bounded("coevo.envs.math.answers:match_unbounded", (gold, prediction), VERIFY_TIMEOUT_S,
                             default=False))


def match_unbounded(gold: str, prediction: str) -> bool:
    """``answers_match``'s symbolic part, without the time bound (``answers_match`` runs it in the
    bounded worker)."""
    gold_parsed, pred_parsed = parse_answer(gold), parse_answer(prediction)
    if not gold_parsed or not pred_parsed or too_costly(gold_parsed[0]) or too_costly(pred_parsed[0]):
        return False
    try:
        return bool(verify(gold_parsed, pred_parsed, timeout_seconds=_timeout()))
    except Exception:
        return False
