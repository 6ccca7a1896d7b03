"""The delegation grammar: ``<delegate>goal</delegate>``, repeated to launch several sub-agents.

A reply is a *delegation* when it contains a ``<delegate>`` or ``</delegate>`` tag: optionally a
``<think>…</think>``, then one or more ``<delegate>goal</delegate>`` tags separated by whitespace
and nothing else. Any other reply is an action in the environment's own grammar (the
environment parses it). A reply that mentions the tags but does not follow the grammar — an
unclosed tag, text before or after the tags, a tag inside a goal, an action mixed with
delegations — is *malformed*: the agent gets a refusal message that states the grammar, and it
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
GRAMMAR = "<delegate>sub-goal</delegate> (repeat the tag to launch several sub-agents at once)"

_REPLY = re.compile(r"^\s*(?:<think>.*?</think>\s*)?(?P<tags>(?:<delegate>.*?</delegate>\s*)+)$", re.DOTALL)
_TAG = re.compile(r"<delegate>(?P<goal>.*?)</delegate>", re.DOTALL)


@dataclass(frozen=True)
class Delegation:
    goals: tuple[str, ...]  # whitespace-normalised, in launch order; "" for an empty goal


@dataclass(frozen=True)
class Malformed:
    reason: str  # what is wrong, for the refusal message


def parse_reply(text: str) -> Delegation | Malformed | None:
    """A ``Delegation``, a ``Malformed`` delegation, or ``None`` when the reply is no delegation
    (then it is an action for the environment's ``parse_action``)."""
    if OPEN not in text and CLOSE not in text:
        return None
    match = _REPLY.match(text)
    if match is None:
        if text.count(OPEN) != text.count(CLOSE):
            return Malformed("unbalanced <delegate> tags")
        return Malformed("nothing but <delegate> tags may follow the optional <think>")
    goals = tuple(" ".join(m.group("goal").split()) for m in _TAG.finditer(match.group("tags")))
    if any("<" in g or ">" in g for g in goals):
        return Malformed("a goal may not contain tags")
    return Delegation(goals)


_REFERENCE = re.compile(r"^#(\d+)$")


def resolve(goal: str, shown: list[str]) -> str | None:
    """``goal`` itself, or the shown sub-goal that ``#k`` names; ``None`` for a number not shown."""
    match = _REFERENCE.match(goal)
    if match is None:
        return goal
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
