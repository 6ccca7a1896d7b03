"""Sub-goals of ``longctx``: parse ``<question> in chunks <first>-<last>`` and check that it is
a sub-goal of the parent's question.

Grammar (case and spacing free; ``chunk 5`` is ``chunks 5-5``, ``4 to 7`` is ``4-7``; the
words ``records with``/``amount of records with`` may be shortened to ``count colour=red``,
``sum city=oslo``)::

    count records with <field>=<value> in chunks <first>-<last>
    sum amount of records with <field>=<value> in chunks <first>-<last>
    max amount of records with <field>=<value> in chunks <first>-<last>
    most frequent <field> in chunks <first>-<last>
    tally <field> in chunks <first>-<last>

A sub-goal of a question over chunks ``a..b`` asks over a range inside ``a..b`` and smaller
than it, and asks the parent's own question, or, under ``most frequent <field>``, ``tally
<field>``. Anything else raises ``ForkError`` naming what is wrong.
"""

from __future__ import annotations

import re

from coevo.core.env.protocol import ForkError
from coevo.envs.longctx.document import FIELDS
from coevo.envs.longctx.questions import Question
from coevo.envs.recursive import goal_int

GRAMMAR = "'<question> in chunks <first>-<last>', e.g. 'count records with colour=red in chunks 4-7'"

_RANGE = re.compile(r"^(?P<question>.*?)\s+in\s+chunks?\s+(?P<first>\d+)(?:\s*(?:-|to)\s*(?P<last>\d+))?$")
_FILTERED = re.compile(
    r"^(?:(?P<count>count)(?:\s+records)?|(?P<agg>sum|max)(?:\s+(?:of\s+)?amounts?)?(?:\s+of\s+records)?)"
    r"(?:\s+(?:with|where))?\s+(?P<field>\w+)\s*=\s*(?P<value>\w+)$"
)
_COUNTED = re.compile(r"^(?P<kind>most\s+frequent|tally)\s+(?P<field>\w+)$")
_PHRASES = (
    "count records with <field>=<value>, sum amount of records with <field>=<value>, "
    "max amount of records with <field>=<value>, most frequent <field>, tally <field>"
)


def parse_goal(text: str) -> Question:
    """The question a goal text asks; ``ForkError`` when it is not in the grammar."""
    text = " ".join(text.lower().split())
    ranged = _RANGE.match(text)
    if ranged is None:
        raise ForkError(f"no chunk range in {text!r}; expected {GRAMMAR}")
    first = goal_int(ranged.group("first"), "a chunk")
    last = goal_int(ranged.group("last"), "a chunk") if ranged.group("last") is not None else first
    if first > last:
        raise ForkError(f"empty chunk range {first}-{last}: the first chunk comes after the last")
    phrase = ranged.group("question")
    filtered, counted = _FILTERED.match(phrase), _COUNTED.match(phrase)
    if filtered is not None:
        kind = "count" if filtered.group("count") else filtered.group("agg")
        field, value = _field(filtered.group("field")), filtered.group("value")
        if value not in FIELDS[field]:
            raise ForkError(f"unknown {field} {value!r}; the {field} values are {', '.join(FIELDS[field])}")
        return Question(kind, field, value, first, last)
    if counted is not None:
        kind = "tally" if counted.group("kind") == "tally" else "most_frequent"
        return Question(kind, _field(counted.group("field")), "", first, last)
    raise ForkError(f"unknown question {phrase!r}; ask one of: {_PHRASES}")


def check_subgoal(parent: Question, sub: Question) -> None:
    """``ForkError`` unless ``sub`` is a sub-goal of ``parent`` (see the module docstring)."""
    if not (parent.first <= sub.first and sub.last <= parent.last):
        raise ForkError(
            f"chunks {sub.first}-{sub.last} are not inside this task's chunks {parent.first}-{parent.last}"
        )
    if sub.num_chunks == parent.num_chunks:
        raise ForkError(
            f"chunks {sub.first}-{sub.last} are this whole task; a sub-goal must cover fewer chunks"
        )
    allowed = {parent.over(sub.first, sub.last).phrase, parent.decomposed(sub.first, sub.last).phrase}
    if sub.phrase not in allowed:
        asks = " or ".join(repr(p) for p in sorted(allowed))
        raise ForkError(f"{sub.phrase!r} is not a sub-goal of {parent.text!r}; ask {asks} over fewer chunks")


def _field(name: str) -> str:
    aliases = {"color": "colour", "colours": "colour", "colors": "colour", "cities": "city"}
    field = aliases.get(name, name)
    if field not in FIELDS:
        raise ForkError(f"unknown field {name!r}; the fields are {', '.join(FIELDS)}")
    return field
