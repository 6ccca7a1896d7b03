"""``server.*``: where the endpoint listens and the bounds it puts on what clients send."""

from __future__ import annotations

from dataclasses import dataclass

from coevo.core.fields import bounded, check_instance, free_text, random_seed


@dataclass
class ServerSettings:
    host: str = free_text("127.0.0.1")  # interface to listen on (0.0.0.0: every interface)
    port: int = bounded(8000, ge=0, le=65535)  # TCP port (0: any free port, printed at start)
    model_name: str = free_text("coevo-policy")  # the id /v1/models lists and requests name
    # seconds a session may go without a request before its reward must have arrived; then it is
    # dropped (never trained on) and counted (sessions/timed_out)
    reward_timeout_s: float = bounded(600.0, gt=0)
    max_sessions: int = bounded(4096, ge=1)  # open + rewarded sessions held; a new one beyond is refused (429)
    max_turns_per_session: int = bounded(256, ge=1)  # requests one session may make
    max_request_bytes: int = bounded(1_048_576, ge=1024)  # a larger body is refused (400)
    max_tokens_limit: int = bounded(4096, ge=1)  # the most max_tokens a request may ask for
    default_max_tokens: int = bounded(256, ge=1)  # max_tokens when a request names none
    max_n: int = bounded(16, ge=1)  # the most completions one request may ask for
    max_stop: int = bounded(4, ge=0)  # stop strings per request (OpenAI: 4)
    # the context limit (prompt + max_tokens); null: the model's max_position_embeddings
    max_context_tokens: int | None = bounded(None, ge=1)
    max_batch_rows: int = bounded(64, ge=1)  # rows one engine call may batch from requests without a seed
    # after a request without a seed, while several clients are active, wait this long for another to
    # batch with (again after each that comes); 0: batch only what is already queued
    batch_wait_ms: float = bounded(10.0, ge=0, le=1000)
    max_queue: int = bounded(256, ge=1)  # generation requests waiting for the engine; beyond: 429
    request_timeout_s: float = bounded(600.0, gt=0)  # a request not answered within it gets 504
    seed: int = random_seed(0)  # draws the seed of a request that names none (every turn records its seed)

    def __post_init__(self):
        check_instance(self, "server")
