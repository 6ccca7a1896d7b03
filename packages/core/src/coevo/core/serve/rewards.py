"""The client side of rewards: post a session's reward with the standard library only.

``post_reward("http://127.0.0.1:8000/v1", "episode-17", 1.0, task_id="task-3")`` is
``POST /v1/sessions/episode-17/reward``. An agent written against the ``openai`` client can copy
these few lines instead of importing coevo.
"""

from __future__ import annotations

import json
import urllib.request
from urllib.parse import quote


def post_reward(base_url: str, session_id: str, reward: float, task_id: str | None = None,
                won: bool | None = None, invalid: int | None = None, timeout_s: float = 30.0) -> dict:
    """Post ``reward`` for ``session_id`` to the endpoint at ``base_url`` (its ``/v1`` URL); the server's answer."""
    body = {"reward": float(reward)}
    if task_id is not None:
        body["task_id"] = task_id
    if won is not None:
        body["won"] = bool(won)
    if invalid is not None:
        body["invalid"] = int(invalid)
    request = urllib.request.Request(f"{base_url.rstrip('/')}/sessions/{quote(session_id, safe='')}/reward",
                                     data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout_s) as response:  # noqa: S310 (the caller's endpoint)
        return json.loads(response.read())
