"""The reply grammar of the search environment (Search-R1's tags) and its canonical actions.

A reply is ``[free text][<think>…</think>]<search>query</search>`` or the same with
``<answer>text</answer>``, and nothing after the closing tag. Exactly one ``search`` or
``answer`` tag pair; at most one ``think`` pair, before it; no ``<information>`` (that is the
environment's part). Anything else is malformed: ``parse_reply`` returns ``None``, never raises.

The canonical action strings are ``search: <query>`` and ``answer: <text>`` (whitespace
collapsed); ``format_reply`` turns them back into a reply.

Parsing counts the tags first and then cuts the reply at them with ``str.find``: linear in the
reply's length (model text is hostile input; the former regex was quadratic in the number of
``<search>`` tags). ``tests/search/test_search_actions_fuzz.py`` checks that it accepts what
the former regex accepted.
"""

from __future__ import annotations

SEARCH, ANSWER = "search", "answer"
KINDS = (SEARCH, ANSWER)
_TAGS = ("<search>", "</search>", "<answer>", "</answer>")


def _tag_counts_ok(text: str, tag: str) -> bool:
    counts = {t: text.count(t) for t in _TAGS}
    expected = {t: int(tag in t) for t in _TAGS}
    if counts != expected:
        return False
    think_open, think_close = text.count("<think>"), text.count("</think>")
    return think_open == think_close <= 1 and "<information>" not in text and "</information>" not in text


def parse_reply(text: str) -> str | None:
    """``"search: q"`` / ``"answer: a"`` from a well-formed reply; ``None`` when malformed."""
    if not isinstance(text, str):
        return None
    tag = next((kind for kind in KINDS if f"<{kind}>" in text), None)
    if tag is None or not _tag_counts_ok(text, tag):
        return None  # from here on: exactly one <tag> and one </tag>, at most one think pair
    start, end = text.find(f"<{tag}>"), text.find(f"</{tag}>")
    if end < start + len(tag) + 2 or text[end + len(tag) + 3 :].strip():
        return None  # the closing tag must follow the opening one, with only whitespace after it
    prefix, body = text[:start], text[start + len(tag) + 2 : end]
    if "<think>" in prefix:  # free text without tags, then the think block right before the action
        think = prefix.find("<think>")
        think_end = prefix.rfind("</think>")
        if "<" in prefix[:think] or ">" in prefix[:think] or think_end < think + len("<think>"):
            return None
        if prefix[think_end + len("</think>") :].strip():
            return None
    content = " ".join(body.split())
    if not content or "<" in content or ">" in content:
        return None
    return f"{tag}: {content}"


def split_action(action: str) -> tuple[str, str] | None:
    """``("search", query)`` / ``("answer", text)`` from a canonical action; ``None`` otherwise."""
    if not isinstance(action, str):
        return None
    kind, sep, content = action.partition(":")
    content = " ".join(content.split())
    if not sep or kind.strip() not in KINDS or not content:
        return None
    return kind.strip(), content


def format_reply(action: str) -> str:
    """The reply carrying a canonical action (an unprefixed string is taken as an answer)."""
    parts = split_action(action)
    kind, content = parts if parts is not None else (ANSWER, " ".join(str(action).split()))
    return f"<{kind}>{content}</{kind}>"
