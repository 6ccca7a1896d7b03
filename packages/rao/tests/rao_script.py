"""A scripted decider for coevo-rao's tests: replies come from a function of the request."""

from __future__ import annotations

from collections.abc import Callable

from coevo.rao.deciders import Reply, Request


class ScriptDecider:
    """``reply(request) -> text`` (or ``(text, finished)``); records every call's batch size."""

    def __init__(self, reply: Callable[[Request], str | tuple[str, bool]]):
        self.reply = reply
        self.calls: list[int] = []

    def decide(self, requests: list[Request]) -> list[Reply]:
        self.calls.append(len(requests))
        out = []
        for r in requests:
            answer = self.reply(r)
            text, finished = answer if isinstance(answer, tuple) else (answer, True)
            out.append(Reply(text, [], [], finished))
        return out


def goal_of(request: Request) -> str:
    return request.env.goal
