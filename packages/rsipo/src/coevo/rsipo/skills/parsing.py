"""Parse and validate a written skill; never raises.

A well-formed reply is ``<skill>text</skill>`` (then the end-of-turn token). Everything else is
*recorded* with a ``problem`` and still used as well as it can be (its reward comes from the same
replay as any skill): ``empty`` (no text: the replay runs without a skill), ``no_tags`` (the raw
text is the skill), ``unfinished`` (the length limit cut it: the text so far is the skill),
``too_long`` (cut to ``max_chars``). Control characters are removed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_OPEN, _CLOSE = "<skill>", "</skill>"
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


@dataclass
class ParsedSkill:
    text: str  # the skill as used in the replay/teacher context ("" = none)
    valid: bool  # well-formed, non-empty, within the limit
    problem: str = ""  # "" | empty | no_tags | unfinished | too_long


def parse_skill(reply: str, finished: bool = True, max_chars: int = 400) -> ParsedSkill:
    """The skill in a policy reply; ``finished`` is False when generation hit its token limit."""
    raw = _CONTROL.sub(" ", reply or "")
    start = raw.find(_OPEN)
    end = raw.find(_CLOSE, start + len(_OPEN)) if start >= 0 else -1
    if start >= 0 and end >= 0:
        text, problem = raw[start + len(_OPEN) : end], ""
    elif start >= 0:
        text, problem = raw[start + len(_OPEN) :], "unfinished" if not finished else "no_tags"
    else:
        text, problem = raw.replace(_CLOSE, ""), "no_tags" if finished else "unfinished"
    text = " ".join(text.split())
    if not text:
        return ParsedSkill("", False, "empty")
    if len(text) > max_chars:
        return ParsedSkill(text[:max_chars].rstrip(), False, "too_long")
    return ParsedSkill(text, problem == "", problem)


def format_skill(text: str) -> str:
    """The reply that carries ``text`` (warm-up targets)."""
    return f"{_OPEN}{text}{_CLOSE}"
