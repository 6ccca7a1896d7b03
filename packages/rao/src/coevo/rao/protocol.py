"""The delegation grammar: ``<delegate>goal</delegate>``, repeated to launch several sub-agents.

A reply is a *delegation* when it contains a ``<delegate>`` or ``</delegate>`` tag: optionally a
``<think>…</think>``, then one or more ``<delegate>goal</delegate>`` tags separated by whitespace
and nothing else. Any other reply is an action in the environment's own grammar (the
environment parses it). A reply that mentions the tags but does not follow the grammar — an
unclosed tag, text before or after the tags, a tag inside a goal, an action mixed with
delegations, text between two tags — is *malformed*: the agent gets a refusal message that states the grammar, and it
is counted; parsing never raises. Empty goals parse (as ``""``) and are refused one by one at
launch, so the other goals of the same reply still run.

Where the prompt lists suggested sub-goals (``Sub-goals: #1 … | #2 …``, see
``delegation.show_options``), a goal may name one by number: ``<delegate>#2</delegate>`` launches
the second suggestion (``resolve``); a number that was not shown is refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

OPEN, CLOSE = "<delegate>", "</delegate>"
THINK_OPEN, THINK_CLOSE = "<think>", "</think>"
GRAMMAR = "<delegate>sub-goal</delegate> (repeat the tag to launch several sub-agents at once)"


@dataclass(frozen=True)
class Delegation:
    goals: tuple[str, ...]  # whitespace-normalised, in launch order; "" for an empty goal


@dataclass(frozen=True)
class Malformed:
    reason: str  # what is wrong, for the refusal message


def parse_reply(text: str) -> Delegation | Malformed | None:
    """A ``Delegation``, a ``Malformed`` delegation, or ``None`` when the reply is no delegation
    (then it is an action for the environment's ``parse_action``).

    One left-to-right scan with ``str.find``: linear in the length of the reply, however many
    tags it holds (a backtracking regex over repeated tags was exponential in their number).
    """
    if not isinstance(text, str) or (OPEN not in text and CLOSE not in text):
        return None
    position = _tags_start(text)
    goals: list[str] = []
    while position is not None and position < len(text):
        if not text.startswith(OPEN, position):
            position = None
            break
        close = text.find(CLOSE, position + len(OPEN))
        if close < 0:
            position = None
            break
        goals.append(text[position + len(OPEN) : close])
        position = _skip_space(text, close + len(CLOSE))
    if position is None or not goals:
        if text.count(OPEN) != text.count(CLOSE):
            return Malformed("unbalanced <delegate> tags")
        return Malformed("nothing but <delegate> tags may follow the optional <think>")
    if any("<" in g or ">" in g for g in goals):
        return Malformed("a goal may not contain tags")
    return Delegation(tuple(" ".join(g.split()) for g in goals))


def _skip_space(text: str, position: int) -> int:
    """The first index at or after ``position`` that is not whitespace (``len(text)`` if none)."""
    while position < len(text) and text[position].isspace():
        position += 1
    return position


def _tags_start(text: str) -> int | None:
    """Where the first ``<delegate>`` of the tag section starts, after leading whitespace and an
    optional think block; ``None`` when something else stands there.

    The think block ends at the first ``</think>`` that is followed (after whitespace) by a
    ``<delegate>``, so a think may mention the tags. Each ``</think>`` is looked at once.
    """
    start = _skip_space(text, 0)
    if not text.startswith(THINK_OPEN, start):
        return start if text.startswith(OPEN, start) else None
    end = text.find(THINK_CLOSE, start + len(THINK_OPEN))
    while end >= 0:
        after = _skip_space(text, end + len(THINK_CLOSE))
        if text.startswith(OPEN, after):
            return after
        end = text.find(THINK_CLOSE, end + len(THINK_CLOSE))
    return None


_REFERENCE = re.compile(r"^#(\d+)$")


def resolve(goal: str, shown: list[str]) -> str | None:
    """``goal`` itself, or the shown sub-goal that ``#k`` names; ``None`` for a number not shown."""
    match = _REFERENCE.match(goal)
    if match is None:
        return goal
    if len(match.group(1)) > 6:  # no prompt shows a million sub-goals (and int() of 5,000 digits raises)
        return None
    k = int(match.group(1))
    return shown[k - 1] if 1 <= k <= len(shown) else None


def reference(k: int) -> str:
    """The goal text that names the k-th shown sub-goal (1-based)."""
    return f"#{k}"


def format_delegation(goals: list[str] | tuple[str, ...]) -> str:
    """The canonical delegation reply for ``goals`` (what oracle demonstrations and choice candidates look like)."""
    return "".join(f"{OPEN}{goal}{CLOSE}" for goal in goals)


def same_goal(a: str, b: str) -> bool:
    """Goals compared as the loop check sees them: case and whitespace do not matter."""
    return " ".join(a.lower().split()) == " ".join(b.lower().split())
