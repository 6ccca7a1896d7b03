"""``external.*``: training an agent that runs outside coevo through the endpoint (``agent=openai_client``)."""

from __future__ import annotations

from dataclasses import dataclass

from coevo.core.fields import bounded, check_instance, free_text


@dataclass
class ExternalAgentSettings:
    enabled: bool = False  # true: each step's episodes are played by an external agent through the endpoint
    # the agent program the trainer starts once beside training (shell words, run from the working
    # folder) with OPENAI_BASE_URL and COEVO_TASKS_URL set; null: start it yourself against the printed URL
    command: str | None = free_text(None)
    # seconds a step waits for its sessions' rewards; then the missing ones are dropped and counted
    # (a step with none at all fails, naming the agent's log)
    batch_timeout_s: float = bounded(600.0, gt=0)

    def __post_init__(self):
        check_instance(self, "external")
