"""Parse an agent turn of the form ``[<think>…</think>] <action>command</action>``.

Anything else (missing or repeated tags, text after the action, an empty command) is malformed:
``parse_action`` returns ``None`` and the loop answers with the environment's invalid-action
observation and the configured penalty; it never raises.

The parse is a left-to-right scan, linear in the reply's length (model text is hostile input:
the former backtracking regex was quadratic in the number of ``</think>`` tags): the end of the
think block is one search for ``</think>\\s*<action>``, which fails at each ``</think>`` after its
run of whitespace, so it never reads a character twice, and runs in C (200,000 ``</think>`` tags:
a Python loop over them took ~1 s on a busy machine). It accepts exactly what
``^\\s*(?:<think>.*?</think>\\s*)?<action>(.*?)</action>\\s*$`` (DOTALL) accepts;
``tests/env/test_action_parsing_fuzz.py`` checks that against the regex.
"""

from __future__ import annotations

import re

_THINK_OPEN, _THINK_CLOSE = "<think>", "</think>"
_OPEN, _CLOSE = "<action>", "</action>"
_THINK_END = re.compile(re.escape(_THINK_CLOSE) + r"\s*" + re.escape(_OPEN))  # \s is str.isspace


def _skip_space(text: str, position: int) -> int:
    while position < len(text) and text[position].isspace():
        position += 1
    return position


def parse_action(text: str) -> str | None:
    """The command inside the single ``<action>`` tag, whitespace-normalised; ``None`` if malformed."""
    if not isinstance(text, str):
        return None
    trimmed = len(text.rstrip())
    if not text.endswith(_CLOSE, 0, trimmed):
        return None
    close = trimmed - len(_CLOSE)  # the action ends at the last </action>: only whitespace may follow
    start = _skip_space(text, 0)
    opening = None
    if text.startswith(_THINK_OPEN, start):
        # the think block ends at the first </think> followed (after whitespace) by an <action>
        found = _THINK_END.search(text, start + len(_THINK_OPEN))
        if found is not None and found.end() <= close:
            opening = found.end() - len(_OPEN)
    elif text.startswith(_OPEN, start) and start + len(_OPEN) <= close:
        opening = start
    if opening is None:
        return None
    action = " ".join(text[opening + len(_OPEN) : close].split())
    if not action or "<" in action or ">" in action:
        return None
    return action


def format_action(action: str, think: str | None = None) -> str:
    """The canonical agent turn for ``action`` (what the expert data and candidates look like)."""
    prefix = f"<think>{think}</think>" if think else ""
    return f"{prefix}<action>{action}</action>"
