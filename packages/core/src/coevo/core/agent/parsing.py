"""Parse an agent turn of the form ``[<think>…</think>] <action>command</action>``.

Anything else (missing or repeated tags, text after the action, an empty command) is malformed:
``parse_action`` returns ``None`` and the loop answers with the environment's invalid-action
observation and the configured penalty; it never raises.
"""

from __future__ import annotations

import re

_TURN = re.compile(r"^\s*(?:<think>(?P<think>.*?)</think>\s*)?<action>(?P<action>.*?)</action>\s*$", re.DOTALL)


def parse_action(text: str) -> str | None:
    """The command inside the single ``<action>`` tag, whitespace-normalised; ``None`` if malformed."""
    match = _TURN.match(text)
    if match is None:
        return None
    action = " ".join(match.group("action").split())
    if not action or "<" in action or ">" in action:
        return None
    return action


def format_action(action: str, think: str | None = None) -> str:
    """The canonical agent turn for ``action`` (what the expert data and candidates look like)."""
    prefix = f"<think>{think}</think>" if think else ""
    return f"{prefix}<action>{action}</action>"
