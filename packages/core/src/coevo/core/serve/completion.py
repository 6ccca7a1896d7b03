"""From the engine's tokens to what a client reads: text, stop strings, finish reason.

A completion ends at the first of: the end-of-turn token (``finish_reason="stop"``; its text is left
out), a stop string (``"stop"``; the text ends before it, and the tokens end with the one that
completed it: those are the tokens the client's text came from, and what is recorded and trained
on), or ``max_tokens`` (``"length"``). ``visible_text`` gives the text a stream may already send
for a prefix of the tokens: everything except what could still turn out to be part of a stop
string, or an incomplete UTF-8 character.
"""

from __future__ import annotations

from dataclasses import dataclass

from coevo.core.rollout.engine import Generation

REPLACEMENT = "\ufffd"  # what decoding shows for a byte sequence cut inside a character


@dataclass
class Completion:
    token_ids: list[int]  # the generated tokens the text came from (end-of-turn token included when hit)
    logprobs: list[float]  # log p of each, at the sampling temperature
    text: str
    finish_reason: str  # "stop" | "length"


def _decode(tokenizer, ids: list[int], eos_id: int) -> str:
    return tokenizer.decode([t for t in ids if t != eos_id], skip_special_tokens=False)


def _first_stop(text: str, stops: list[str]) -> int | None:
    found = [i for i in (text.find(s) for s in stops) if i >= 0]
    return min(found) if found else None


def complete(generation: Generation, stops: list[str], tokenizer) -> Completion:
    """The client's completion of one engine ``generation`` with the request's ``stops``."""
    eos = tokenizer.eos_token_id
    ids, lps = list(generation.token_ids), list(generation.logprobs)
    if stops:
        for k in range(1, len(ids) + 1):  # the shortest token prefix whose text holds a stop string
            text = _decode(tokenizer, ids[:k], eos)
            cut = _first_stop(text, stops)
            if cut is not None:
                return Completion(ids[:k], lps[:k], text[:cut], "stop")
    text = _decode(tokenizer, ids, eos)
    return Completion(ids, lps, text, "stop" if generation.finished else "length")


def visible_text(ids: list[int], stops: list[str], tokenizer) -> str:
    """The text of the generated prefix ``ids`` that a stream may send now."""
    text = _decode(tokenizer, ids, tokenizer.eos_token_id)
    cut = _first_stop(text, stops)
    if cut is not None:
        return text[:cut]
    hold = max((len(s) - 1 for s in stops), default=0)  # a stop string may be starting at the end
    for n in range(hold, 0, -1):
        if any(s.startswith(text[-n:]) for s in stops):
            text = text[:-n]
            break
    while text.endswith(REPLACEMENT):
        text = text[:-1]
    return text


def token_strings(tokenizer, ids: list[int]) -> list[str]:
    """Each token's own text (for OpenAI's log-prob entries)."""
    return [tokenizer.decode([t], skip_special_tokens=False) for t in ids]
