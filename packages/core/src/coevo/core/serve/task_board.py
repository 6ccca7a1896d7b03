"""The tasks a training step wants played by an external agent, handed out over HTTP.

The trainer (``EndpointLoop``) posts one job per episode: a fresh session id, the task (its
environment's registry name, split, index, type and seed) and the environment's settings, so the
agent's harness can build the very same environment. The harness asks ``GET /v1/tasks/next``
(long poll, ``wait`` seconds at most: 200 with a job, 204 when none came, 410 once training is
over), plays the episode through the chat endpoint under that session id and posts the reward.
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque

from fastapi import FastAPI
from fastapi.responses import Response

MAX_WAIT_S = 30.0
POLL_S = 0.05


class TaskBoard:
    def __init__(self):
        self._jobs: deque[dict] = deque()
        self._changed = threading.Condition()
        self.closed = False
        self.handed_out = 0

    def publish(self, jobs: list[dict]) -> None:
        with self._changed:
            self._jobs.extend(jobs)
            self._changed.notify_all()

    def withdraw(self, session_ids: set[str]) -> int:
        """Remove the jobs of ``session_ids`` nobody took; how many there were."""
        with self._changed:
            kept = [j for j in self._jobs if j["session_id"] not in session_ids]
            removed = len(self._jobs) - len(kept)
            self._jobs = deque(kept)
            return removed

    def take(self, wait_s: float) -> dict | None:
        with self._changed:
            self._changed.wait_for(lambda: self._jobs or self.closed, wait_s)
            if not self._jobs:
                return None
            self.handed_out += 1
            return self._jobs.popleft()

    def close(self) -> None:
        with self._changed:
            self.closed = True
            self._changed.notify_all()


def add_task_routes(app: FastAPI, board: TaskBoard) -> None:
    @app.get("/v1/tasks/next")
    async def next_task(wait: float = 10.0):
        loop = asyncio.get_running_loop()
        deadline = loop.time() + min(max(float(wait), 0.0), MAX_WAIT_S)
        while (job := board.take(0)) is None and not board.closed and loop.time() < deadline:
            await asyncio.sleep(POLL_S)  # polling: waiting requests hold no thread
        if job is not None:
            return job
        return Response(status_code=410 if board.closed else 204)
