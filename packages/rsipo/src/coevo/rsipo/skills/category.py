"""A simple category of a skill: procedural, format (syntax tips) or other.

``procedural``: it names at least ``min_verbs`` distinct command verbs of the environment (a
sequence of steps). ``format``: otherwise, it talks about the reply format (tags, syntax, valid
commands). ``other``: neither; ``empty``: no text. The paper reports early skills as
format/recovery tips with negative gain and procedural skills dominating late.
"""

from __future__ import annotations

import re

FORMAT_WORDS = ("<action>", "format", "tag", "syntax", "reply", "valid", "invalid", "exactly one", "command",
                "admissible", "nothing happens")
CATEGORIES = ("procedural", "format", "other", "empty")


def skill_category(text: str, verbs: tuple[str, ...], min_verbs: int = 2) -> str:
    lowered = text.lower()
    if not lowered.strip():
        return "empty"
    used = {v for v in verbs if re.search(rf"(?<![a-z]){re.escape(v)}(?![a-z])", lowered)}
    if len(used) >= min_verbs:
        return "procedural"
    if any(word in lowered for word in FORMAT_WORDS):
        return "format"
    return "other"
