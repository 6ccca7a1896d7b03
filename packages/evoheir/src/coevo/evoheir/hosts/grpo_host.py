"""``algo.host=grpo``: the plain single-stream learner — GRPO on the env's generated train problems.

Each explore step takes the next batch of the training stream (``RolloutDataModule``, so the
data position is part of the run's state), plays ``group_size`` episodes per problem, and takes
one policy-gradient step on group-normalised returns. Won episodes become experience records.
"""

from __future__ import annotations

import torch

from coevo.core import registry
from coevo.core.agent.groups import play_groups
from coevo.core.algos.grpo import episode_samples
from coevo.evoheir.hosts.objective import episode_tokens, policy_gradient_step, winning_record
from coevo.evoheir.paired import derived_seed


class GRPOHost:
    def __init__(self, module):
        self.module = module

    def explore_step(self, optimizer, round_: int, branch: int, step: int) -> dict:
        m = self.module
        tasks = m.training_batch()
        g = m.config.group_size
        envs = m.envs(len(tasks) * g)
        m.engine.sync_weights(m.policy)  # the branch's current weights (sharded: into the rollout replica)
        episodes = play_groups(m.agent, tasks, g, envs, derived_seed(m.context.seed, round_, branch, step, 11))
        rewards = torch.tensor([ep.reward for ep in episodes])  # [E]
        group_ids = torch.tensor([ep.group_id for ep in episodes])  # [E]
        advantages = registry.advantages.get("grpo")(rewards, group_ids, scale_by_std=True)  # [E]
        samples = episode_samples(episodes, advantages, "tokens")
        loss, train_tokens = policy_gradient_step(
            m.policy, samples, optimizer, m.context.tokenizer.pad_token_id, m.logprob_temperature,
            m.config.optim.grad_clip, lockstep=m.lockstep)
        records = []
        for ep in episodes:
            problem = envs[0].problem(ep.task)
            record = winning_record(ep, problem.text, problem.answer, round_, f"b{branch + 1}")
            if record is not None:
                records.append(record)
        return {"records": records, "tokens": episode_tokens(episodes) + train_tokens, "loss": loss,
                "success": sum(ep.won for ep in episodes) / len(episodes)}
