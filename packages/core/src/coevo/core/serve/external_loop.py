"""The agent loop of training through the endpoint: the episodes are played by an agent outside coevo.

``EndpointLoop`` stands where ``AgentLoop`` stands (``play_groups`` calls its ``run``), so every
algorithm that plays groups trains an external agent unchanged. For a batch of tasks it posts one
job per episode on the ``TaskBoard`` (a fresh session id, the task, the environment's settings),
lets the engine's worker generate (it is held while the trainer updates the weights), and waits
until every session has its reward, timed out, or ``external.batch_timeout_s`` passed. Each
rewarded session becomes an ``Episode`` of its task's group: one ``Turn`` per request with the
prompt ids exactly as the engine read them and the generated ids and log-probs exactly as it
produced them, so the samples GRPO builds (prompt mask 0, generated tokens mask 1) are the recorded
tokens; nothing is re-tokenised. The episode's return is the posted reward; ``won`` the posted
flag; its invalid replies (``invalid_rate``) the posted ``invalid`` count, 0 when none came. A session posted with another task id than its job's is counted and dropped.

Counters (``external/*`` in the metrics): sessions dropped (timed out, never taken, wrong task),
rewritten turns (split: each turn is its own sample anyway), disconnected streams, stale turns
(generated with older weights than the batch's).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable

from coevo.core.agent.types import Episode, Turn
from coevo.core.env.protocol import Environment, Task
from coevo.core.serve.background import BackgroundServer
from coevo.core.serve.task_board import TaskBoard

POLL_S = 0.2


class EndpointLoop:
    def __init__(self, server: BackgroundServer, board: TaskBoard, env_settings: dict, batch_timeout_s: float,
                 version: Callable[[], int] = lambda: 0, agent_alive: Callable[[], bool] = lambda: True):
        self.server = server
        self.board = board
        self.env_settings = env_settings
        self.batch_timeout_s = batch_timeout_s
        self.version = version
        self.agent_alive = agent_alive
        self.batches = 0
        self.counts = {"sessions": 0, "dropped": 0, "unplayed": 0, "wrong_task": 0, "stale_turns": 0}
        self._hold = server.worker.hold()
        self._hold.__enter__()  # the worker generates only while a batch is being played

    def mode_for(self, env: Environment) -> str:
        return "generate"

    def metrics(self) -> dict[str, float]:
        stats = self.server.store.stats()
        return {f"external/{k}": float(v) for k, v in {
            **self.counts, "rewritten_turns": stats["rewritten_turns"], "disconnected": stats["disconnected"],
            "timed_out": stats["timed_out"]}.items()}

    def close(self) -> None:
        self.board.close()
        if self._hold is not None:
            self._hold.__exit__(None, None, None)
            self._hold = None

    def run(self, tasks: list[Task], envs: list[Environment], group_ids: list[int] | None = None,
            greedy: bool = False, generator=None, contexts: list[str | None] | None = None) -> list[Episode]:
        if contexts is not None and any(contexts):
            raise ValueError("an external agent builds its own prompts: extra contexts (skills) cannot be given to it")
        group_ids = group_ids if group_ids is not None else list(range(len(tasks)))
        self.batches += 1
        version = self.version()
        jobs = {f"b{self.batches}-v{version}-e{i}": (task, gid) for i, (task, gid) in enumerate(zip(tasks, group_ids))}
        self.board.publish([{"session_id": sid, "task": dataclasses.asdict(task), "task_id": task.task_id,
                             "group": gid, "env": self.env_settings} for sid, (task, gid) in jobs.items()])
        self.server.worker.version = version
        self._hold.__exit__(None, None, None)
        try:
            sessions = self._collect(set(jobs))
        finally:
            self._hold = self.server.worker.hold()
            self._hold.__enter__()
        episodes = []
        for sid, (task, gid) in jobs.items():
            session = sessions.get(sid)
            if session is None:
                continue
            if session.task_id is not None and session.task_id != task.task_id:
                self.counts["wrong_task"] += 1
                continue
            episodes.append(self._episode(session, task, gid, version))
        self.counts["sessions"] += len(episodes)
        if not episodes:
            raise RuntimeError(f"no external session of this step's {len(jobs)} came back with a reward within "
                               f"external.batch_timeout_s={self.batch_timeout_s:g} (sessions: "
                               f"{self.server.store.stats()}); is the agent running against {self.server.url}?")
        return episodes

    def _collect(self, wanted: set[str]) -> dict:
        """The rewarded sessions of ``wanted``, by id; gives up on a session that was open and timed
        out, on all of them at the deadline or when the agent's process has ended."""
        got: dict = {}
        seen: set[str] = set()  # sessions that made a request
        deadline = time.monotonic() + self.batch_timeout_s
        while time.monotonic() < deadline and self.agent_alive():
            for session in self.server.store.take_rewarded(lambda s: s.session_id in wanted):
                got[session.session_id] = session
            missing = wanted - set(got)
            seen |= {sid for sid in missing if self.server.store.get(sid) is not None}
            timed_out = {sid for sid in seen & missing if self.server.store.get(sid) is None}
            if not missing - timed_out:
                break
            self.server.store.wait(POLL_S)
        missing = wanted - set(got)
        self.counts["unplayed"] += self.board.withdraw(missing)
        self.counts["dropped"] += len(missing)
        return got

    def _episode(self, session, task: Task, group_id: int, version: int) -> Episode:
        episode = Episode(task, group_id)
        for t in session.episode_turns():
            self.counts["stale_turns"] += int(t.version < version)
            episode.turns.append(Turn(list(t.prompt_ids), list(t.completion_ids), list(t.logprobs), t.text, None, "",
                                      0.0, False, messages=t.messages))
        episode.reward = float(session.reward)
        episode.won = bool(session.won)
        episode.num_invalid = session.invalid or 0
        return episode
