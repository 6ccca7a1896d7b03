"""``unequal_forwards``: GRPO whose last rank runs one forward more than the others in every update.

A deliberate rank mismatch for tests: with the policy sharded (``trainer=fsdp_cpu``) that extra
forward all-gathers alone, so the run must fail within ``trainer.collective_timeout`` with the
line of ``coevo.core.cli.collective_errors`` naming the rank and the call, never hang. Selected on
top of the GRPO preset with ``algo.name=unequal_forwards``.
"""

from __future__ import annotations

from dataclasses import dataclass

from coevo.core import distributed as dist
from coevo.core import registry
from coevo.core.algos.grpo import GRPO, GRPOConfig
from coevo.core.algos.micro_batches import padding_micro_batch
from coevo.core.fields import registry_name


@dataclass
class UnequalForwardsConfig(GRPOConfig):
    name: str = registry_name("unequal_forwards")


@registry.algorithms.register("unequal_forwards")
class UnequalForwards(GRPO):
    Config = UnequalForwardsConfig

    def update(self, samples):
        if dist.rank() == dist.world_size() - 1:  # a forward no other rank makes
            padding_micro_batch(self.context.tokenizer.pad_token_id).logprobs(self.policy, self.scoring, self.device)
        return super().update(samples)
