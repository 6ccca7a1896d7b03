"""``algo.host=grpo``: the plain single-stream learner — GRPO on the env's generated train problems.

Each explore step takes the next batch of the training stream (``RolloutDataModule``, so the
data position is part of the run's state), plays ``group_size`` episodes per problem, and takes
one on-policy policy-gradient step. Won episodes become experience records.

The advantage estimator and the policy loss come from core's registries by the names in
``algo.advantage`` and ``algo.loss`` (the same keys as GRPO's; default grpo and clipped_pg, the
update this host always took): per turn (``turn_advantages``: gigpo's per-turn values where the env
gives state keys, else each episode's value on its turns; gigpo uses its default settings here),
and the loss at ratio 1 (``objective.policy_gradient_step``).
"""

from __future__ import annotations

from coevo.core import registry
from coevo.core.agent.groups import play_groups
from coevo.core.algos.advantages import turn_advantages
from coevo.core.algos.grpo import turn_samples
from coevo.evoheir.hosts.objective import episode_tokens, policy_gradient_step, winning_record
from coevo.evoheir.paired import GRPO_EXPLORE_STREAM, derived_seed


class GRPOHost:
    def __init__(self, module):
        self.module = module
        self.advantage_fn = registry.advantages.get(module.config.advantage)  # algo.advantage
        self.loss_fn = registry.losses.get(module.config.loss)  # algo.loss

    def explore_step(self, optimizer, round_: int, branch: int, step: int) -> dict:
        m = self.module
        tasks = m.training_batch()
        g = m.config.group_size
        envs = m.envs(len(tasks) * g)
        m.engine.sync_weights(m.policy)  # the branch's current weights (sharded: into the rollout replica)
        episodes = play_groups(m.agent, tasks, g, envs, derived_seed(m.context.seed, round_, branch, step, GRPO_EXPLORE_STREAM))
        advantages = turn_advantages(self.advantage_fn, episodes, scale_by_std=True)  # [E][turns]
        samples = turn_samples(episodes, advantages, "tokens")
        loss, train_tokens = policy_gradient_step(
            m.policy, samples, optimizer, m.context.tokenizer.pad_token_id, m.logprob_temperature,
            m.config.optim.grad_clip, lockstep=m.lockstep, loss_fn=self.loss_fn)
        records = []
        for ep in episodes:
            problem = envs[0].problem(ep.task)
            record = winning_record(ep, problem.text, problem.answer, round_, f"b{branch + 1}")
            if record is not None:
                records.append(record)
        return {"records": records, "tokens": episode_tokens(episodes) + train_tokens, "loss": loss,
                "success": sum(ep.won for ep in episodes) / len(episodes),
                "reward": sum(ep.reward for ep in episodes) / len(episodes)}
