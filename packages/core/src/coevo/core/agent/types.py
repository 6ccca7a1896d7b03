"""What the agent loop produces: turns and episodes, in token ids ready for training."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field

from coevo.core.env.protocol import Task


@dataclass
class Turn:
    prompt_ids: list[int]  # chat-templated prompt (system, task, history, memory): never gets loss
    response_ids: list[int]  # the agent's tokens (sampled, or the chosen candidate's): get loss
    response_logprobs: list[float]  # log p of each response token at rollout time
    response_text: str
    action: str | None  # parsed command; None when the output was malformed
    observation: str  # what the environment answered
    reward: float  # environment reward of this step (penalties excluded)
    invalid: bool  # malformed output or inadmissible command
    messages: list[dict[str, str]] | None = None  # the chat messages prompt_ids were rendered from
    # choice mode only: every candidate reply's token ids (the chosen one is response_ids), the
    # chosen index and its log-probability under softmax(score / choice_temperature) at rollout time
    candidates: list[list[int]] | None = None
    choice: int | None = None
    choice_logprob: float | None = None
    # the environment's ``state_key()`` before this turn's action (GiGPO's anchor states); None when
    # the environment has none (or it raised)
    state_key: Hashable | None = None


@dataclass
class Episode:
    task: Task
    group_id: int  # episodes rolled out from the same task in one batch share it
    turns: list[Turn] = field(default_factory=list)
    won: bool = False
    num_invalid: int = 0
    context_overflow: bool = False  # ended because even the shortest prompt exceeded the limit
    reward: float = 0.0  # the return used for advantages: env rewards minus invalid penalties
    env_errors: int = 0  # invalid turns where the environment raised (a bug: counted, never a crash)

    @property
    def num_turns(self) -> int:
        return len(self.turns)
