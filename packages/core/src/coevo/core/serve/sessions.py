"""Per-session token traces and rewards: what training through the endpoint learns from.

A session is named by the client (``X-Session-Id`` header or the ``user`` field). Each request of
it adds one ``TurnRecord`` per returned choice, only once the whole answer has been produced and
delivered (a stream whose client went away adds nothing): the prompt token ids exactly as the
engine read them, the generated ids and their log-probs, the policy version and the seed.

Rewriting histories: a turn whose prompt does not start with the previous request's prompt +
completion token for token (a chat template that re-renders earlier turns, an agent that edits or
summarises its history) is marked ``extends=False`` and counted (``rewritten_turns``). coevo
*splits* there: every turn is trained as its own sample (its prompt exactly as sent, loss on its
generated tokens only), which is what coevo's own agent loop trains on, so nothing is lost or
re-tokenised; ``segments()`` gives the append-only runs (one sequence each with an exact
multi-span mask) for whoever wants to pack them.

A session is finished by ``reward`` (``POST /v1/sessions/{id}/reward``). One that sees no request
and no reward for ``reward_timeout_s`` is dropped and counted (``timed_out``); rewarded sessions
wait until ``take_rewarded`` hands them to the trainer.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field

from coevo.core.serve.requests import RequestError


@dataclass
class TurnRecord:
    prompt_ids: list[int]
    completion_ids: list[int]
    logprobs: list[float]  # one per completion id
    version: int  # policy version that generated it
    seed: int
    text: str
    finish_reason: str
    request_index: int  # which request of the session (choices of one request share it)
    choice: int = 0
    extends: bool = True  # its prompt starts with the previous request's prompt + some choice's completion
    messages: list[dict[str, str]] | None = None  # chat requests: the conversation as sent
    batch_rows: int = 0  # rows of the engine call it came from (> n: batched with other requests on ``seed``)


@dataclass
class Session:
    session_id: str
    created: float
    last_seen: float
    turns: list[TurnRecord] = field(default_factory=list)
    requests: int = 0
    reward: float | None = None
    task_id: str | None = None
    won: bool | None = None
    invalid: int | None = None  # the episode's invalid replies, as the agent counted them (at most its turns)

    def episode_turns(self) -> list[TurnRecord]:
        """The turns an episode is made of: each request's first choice (``n`` > 1 adds others beside it)."""
        return [t for t in self.turns if t.choice == 0]

    def segments(self) -> list[dict]:
        """The append-only runs of choice-0 turns as single sequences: ``input_ids``, ``agent_mask``
        (1 on generated tokens), ``logprobs`` (0 elsewhere); a rewritten turn starts a new one."""
        out: list[dict] = []
        for turn in self.episode_turns():
            if not out or not turn.extends:
                out.append({"input_ids": [], "agent_mask": [], "logprobs": []})
            seg = out[-1]
            fresh = turn.prompt_ids[len(seg["input_ids"]):]
            seg["input_ids"] += fresh + turn.completion_ids
            seg["agent_mask"] += [0] * len(fresh) + [1] * len(turn.completion_ids)
            seg["logprobs"] += [0.0] * len(fresh) + list(turn.logprobs)
        return out


def _extends(prompt: list[int], previous: list[TurnRecord]) -> bool:
    for turn in previous:
        head = turn.prompt_ids + turn.completion_ids
        if prompt[: len(head)] == head:
            return True
    return False


class SessionStore:
    """Thread-safe: the app's request handlers add, the trainer takes."""

    COUNTERS = ("turns", "rewritten_turns", "disconnected", "timed_out", "rewarded", "taken", "evicted")

    def __init__(self, reward_timeout_s: float, max_sessions: int, max_turns: int, clock=time.monotonic):
        self.reward_timeout_s = reward_timeout_s
        self.max_sessions = max_sessions
        self.max_turns = max_turns
        self.clock = clock
        self._open: dict[str, Session] = {}
        self._rewarded: OrderedDict[str, Session] = OrderedDict()
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)
        self.counts = dict.fromkeys(self.COUNTERS, 0)

    # -- requests ---------------------------------------------------------------------------
    def admit(self, session_id: str) -> None:
        """Before generating for ``session_id``: refuse a rewarded session, a full store, too many turns."""
        with self._lock:
            self._expire()
            if session_id in self._rewarded:
                raise RequestError(f"session '{session_id}' already has its reward; start a new session id",
                                   "user", 409, "session_finished")
            session = self._open.get(session_id)
            if session is None and len(self._open) + len(self._rewarded) >= self.max_sessions:
                if self._rewarded:  # the oldest rewarded session nobody took makes room
                    self._rewarded.popitem(last=False)
                    self.counts["evicted"] += 1
                else:
                    raise RequestError(f"too many open sessions (server.max_sessions={self.max_sessions}); "
                                       f"post their rewards or let them time out", "user", 429, "too_many_sessions")
            if session is not None and session.requests >= self.max_turns:
                raise RequestError(f"session '{session_id}' reached server.max_turns_per_session="
                                   f"{self.max_turns}", "user", 400, "too_many_turns")

    def record(self, session_id: str, turns: list[TurnRecord]) -> None:
        """Add one request's choices (all of them at once: a turn is recorded whole or not at all)."""
        with self._lock:
            if session_id in self._rewarded:
                return  # rewarded while this request ran: the reward closed it
            now = self.clock()
            session = self._open.get(session_id)
            if session is None:
                session = self._open[session_id] = Session(session_id, now, now)
            previous = [t for t in session.turns if t.request_index == session.requests - 1]
            extends = not previous or _extends(turns[0].prompt_ids, previous)
            for turn in turns:
                turn.request_index = session.requests
                turn.extends = extends
            session.turns += turns
            session.requests += 1
            session.last_seen = now
            self.counts["turns"] += 1
            self.counts["rewritten_turns"] += int(not extends)

    def disconnected(self) -> None:
        with self._lock:
            self.counts["disconnected"] += 1

    def touch(self, session_id: str) -> None:
        with self._lock:
            if session_id in self._open:
                self._open[session_id].last_seen = self.clock()

    # -- rewards ----------------------------------------------------------------------------
    def reward(self, session_id: str, reward: float, task_id: str | None, won: bool | None,
               invalid: int | None = None) -> Session:
        with self._arrived:
            self._expire()
            if session_id in self._rewarded:
                raise RequestError(f"session '{session_id}' already has a reward", None, 409, "session_finished")
            session = self._open.get(session_id)
            if session is None:
                raise RequestError(f"no open session '{session_id}' (never used, timed out after "
                                   f"server.reward_timeout_s={self.reward_timeout_s:g} s, or taken)", None, 404,
                                   "session_not_found")
            turns = len(session.episode_turns())
            if invalid is not None and invalid > turns:
                raise RequestError(f"'invalid' is {invalid}, more than the session's {turns} turns", "invalid")
            del self._open[session_id]
            session.reward, session.task_id, session.won, session.invalid = reward, task_id, won, invalid
            self._rewarded[session_id] = session
            self.counts["rewarded"] += 1
            self._arrived.notify_all()
            return session

    def take_rewarded(self, wanted=None) -> list[Session]:
        """Remove and return the rewarded sessions (those ``wanted(session)`` accepts, when given)."""
        with self._lock:
            self._expire()
            chosen = [s for s in self._rewarded.values() if wanted is None or wanted(s)]
            for s in chosen:
                del self._rewarded[s.session_id]
            self.counts["taken"] += len(chosen)
            return chosen

    def wait(self, timeout: float) -> None:
        """Block until a reward arrives or ``timeout`` seconds pass."""
        with self._arrived:
            self._arrived.wait(timeout)

    def get(self, session_id: str) -> Session | None:
        with self._lock:
            self._expire()
            return self._open.get(session_id) or self._rewarded.get(session_id)

    def stats(self) -> dict[str, int]:
        with self._lock:
            self._expire()
            return {**self.counts, "open": len(self._open), "waiting": len(self._rewarded)}

    def _expire(self) -> None:
        """Drop open sessions idle past the reward timeout (lock held)."""
        cutoff = self.clock() - self.reward_timeout_s
        for sid in [sid for sid, s in self._open.items() if s.last_seen < cutoff]:
            del self._open[sid]
            self.counts["timed_out"] += 1

    def expire(self) -> None:
        with self._lock:
            self._expire()
