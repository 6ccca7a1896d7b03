"""A scripted decider for coevo-rao's tests: replies come from a function of the request."""

from __future__ import annotations

from collections.abc import Callable

from coevo.core.agent.prompt import PromptSettings
from coevo.rao.deciders import OracleDecider, Reply, Request

PROMPT = PromptSettings(system_prompt="", first_observation="full", history_turns=2)


class ScriptDecider:
    """``reply(request) -> text`` (or ``(text, finished)``); records every call's batch size.

    With a ``tokenizer`` the reply also gets token ids (+ end of turn) and log-probs, as a policy's would.
    """

    def __init__(self, reply: Callable[[Request], str | tuple[str, bool]], tokenizer=None):
        self.reply = reply
        self.tokenizer = tokenizer
        self.calls: list[int] = []

    def decide(self, requests: list[Request]) -> list[Reply]:
        self.calls.append(len(requests))
        out = []
        for r in requests:
            answer = self.reply(r)
            text, finished = answer if isinstance(answer, tuple) else (answer, True)
            ids = []
            if self.tokenizer is not None:
                ids = self.tokenizer.encode(text, add_special_tokens=False) + [self.tokenizer.eos_token_id] * finished
            out.append(Reply(text, ids, [-0.5] * len(ids), finished))
        return out


def oracle_text(request: Request) -> str:
    """What the environment's oracle replies (as a script)."""
    return OracleDecider(4).decide([request])[0].text
