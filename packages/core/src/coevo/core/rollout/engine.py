"""The rollout-engine interface: batched sampling and candidate scoring over token ids.

Engines see token ids only (the agent loop owns chat templates and parsing), so an engine
backed by transformers (``hf``) and one backed by vLLM are interchangeable.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

import torch

from coevo.core.fields import bounded


@dataclass
class SamplingSettings:
    temperature: float = bounded(1.0, ge=0)  # 0 means greedy
    top_p: float = bounded(1.0, gt=0, le=1)  # nucleus share of probability mass (1: the whole distribution)
    max_new_tokens: int = bounded(24, ge=1)  # length limit of one agent turn


@dataclass
class Generation:
    token_ids: list[int]  # sampled tokens, up to and including the stop token when one was hit
    logprobs: list[float]  # log p of each sampled token under the sampling temperature
    finished: bool  # True if a stop token ended it, False if it hit max_new_tokens


class RolloutEngine(ABC):
    """Generates continuations of token-id prompts with the current policy weights."""

    @abstractmethod
    def generate(self, prompts: list[list[int]], settings: SamplingSettings) -> list[Generation]:
        """One sampled continuation per prompt."""

    @abstractmethod
    def score(self, prompts: list[list[int]], candidates: list[list[list[int]]]) -> list[list[list[float]]]:
        """Per-token log-probs of each candidate continuation of each prompt (temperature 1).

        ``candidates[i][j]`` is the j-th continuation of prompt i; the result has the same shape.
        """

    def sync_weights(self, model: torch.nn.Module) -> None:  # noqa: B027 (no-op for shared weights)
        """Make the engine sample from ``model``'s current weights (a no-op when they are shared)."""

    def use_replica(self, replica) -> None:
        """Sample from ``replica`` (a ``coevo.core.policy.full_replica.FullReplica``) refreshed from the
        sharded policy at every ``sync_weights``: the policy is split over several processes."""
        raise NotImplementedError(
            f"the '{type(self).__name__}' rollout engine cannot sample from a policy sharded over several "
            f"processes yet; use rollout=hf with trainer=fsdp over several processes, or one process")

    def release_memory(self) -> None:  # noqa: B027 (no-op unless the engine holds its own memory)
        """Between rollouts: free what the engine holds (a colocated GPU engine's weights and KV cache);
        the next ``sync_weights`` brings it back."""
