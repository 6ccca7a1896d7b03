"""GRPO for multi-turn agents, as a LightningModule.

Differences from the textbook single-turn method (DeepSeekMath): an episode is several agent
turns; its return (env reward minus invalid-action penalties) is normalised within the group of
``group_size`` episodes of the same task, and that advantage is given to every agent token of
every turn of the episode. Each turn is one training sequence (its prompt holds the truncated
history); prompt and observation tokens are masked out. With the default one optimizer step per
batch the ratio is exactly 1 and the clipped loss is the plain policy gradient; with
``updates_per_batch > 1`` old log-probs are recomputed before the first update and clipping acts.

Launch: ``make train ALGO=grpo`` (``python -m coevo.core.cli.train algo=grpo``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import torch

from coevo.core import registry
from coevo.core.agent.types import Episode
from coevo.core.algos.batching import Sample, micro_batches
from coevo.core.algos.context import AlgorithmContext
from coevo.core.algos.losses import AGGREGATIONS, aggregate, clipped_policy_gradient_loss, k3_kl
from coevo.core.algos.optim import OptimSettings
from coevo.core.algos.rollout_module import RolloutModule
from coevo.core.policy.logprobs import sequence_token_logprobs
from coevo.core.policy.lora import ReferencePolicy


@dataclass
class GRPOConfig:
    name: str = "grpo"
    tasks_per_step: int = 8  # distinct tasks per training step
    group_size: int = 8  # episodes per task (GRPO's G)
    advantage: str = "grpo"  # registry name of the advantage estimator (grpo | rloo)
    scale_by_std: bool = True  # divide by the group's reward std (False: Dr. GRPO)
    clip_low: float = 0.2
    clip_high: float = 0.2
    kl_coef: float = 0.0  # weight of the k3 KL to the reference policy (0: no reference forward)
    loss_aggregation: str = "token_mean"  # token_mean | seq_mean_token_mean | seq_mean_token_sum
    updates_per_batch: int = 1  # optimizer steps (mini-batches) per rollout batch
    micro_batch_tokens: int = 8192  # padded tokens per forward/backward
    skip_zero_advantage: bool = True  # drop sequences whose advantage is 0 (no PG signal; no KL term either)
    optim: OptimSettings = field(default_factory=lambda: OptimSettings(lr=1e-4))

    def __post_init__(self):
        if self.loss_aggregation not in AGGREGATIONS:
            raise ValueError(
                f"algo.loss_aggregation: unknown '{self.loss_aggregation}'; choose one of {list(AGGREGATIONS)}"
            )
        if self.group_size < 2:
            raise ValueError("algo.group_size: GRPO needs at least 2 episodes per task; set algo.group_size>=2")


def episode_samples(episodes: list[Episode], advantages: torch.Tensor) -> list[Sample]:
    """One training sequence per turn: prompt (mask 0) + response (mask 1), with its episode's advantage."""
    samples = []
    for episode, advantage in zip(episodes, advantages.tolist()):
        for turn in episode.turns:
            if not turn.response_ids:
                continue
            n_prompt = len(turn.prompt_ids)
            samples.append(
                Sample(
                    input_ids=turn.prompt_ids + turn.response_ids,
                    agent_mask=[0] * n_prompt + [1] * len(turn.response_ids),
                    advantage=advantage,
                    rollout_logprobs=[0.0] * n_prompt + list(turn.response_logprobs),
                )
            )
    return samples


@registry.algorithms.register("grpo")
class GRPO(RolloutModule):
    Config = GRPOConfig

    def __init__(self, config: GRPOConfig, context: AlgorithmContext):
        super().__init__(context, config.optim, config.group_size)
        self.config = config
        self.advantage_fn = registry.advantages.get(config.advantage)
        self.reference = ReferencePolicy(self.policy) if config.kl_coef > 0 else None
        # training log-probs use the same temperature the tokens were sampled at
        self.logprob_temperature = context.agent.sampling.temperature if context.agent.mode == "generate" else 1.0

    def training_step(self, batch: list, batch_idx: int):
        tasks = list(batch)
        episodes = self.rollout(tasks)
        self.log_rollout_metrics(episodes)
        rewards = torch.tensor([ep.reward for ep in episodes])  # [E]
        group_ids = torch.tensor([ep.group_id for ep in episodes])  # [E]
        advantages = self.advantage_fn(rewards, group_ids, scale_by_std=self.config.scale_by_std)  # [E]
        samples = episode_samples(episodes, advantages)
        if self.config.skip_zero_advantage:  # halves the update cost when many groups are all-equal
            samples = [s for s in samples if s.advantage != 0.0]
        update_stats = self.update(samples)
        self.record(update_stats)
        self.log("loss", update_stats.get("loss", 0.0), prog_bar=True, on_step=True, logger=False)
        return None

    def update(self, samples: list[Sample]) -> dict[str, float]:
        """``updates_per_batch`` optimizer steps over ``samples`` (shuffled into mini-batches)."""
        start = time.perf_counter()
        self.policy.train()
        cfg = self.config
        pad_id = self.context.tokenizer.pad_token_id
        totals = {"loss": 0.0, "pg_loss": 0.0, "kl": 0.0, "clip_fraction": 0.0, "grad_norm": 0.0}
        if not samples:
            # nothing to learn from (every group had equal returns): still take the step so that
            # the schedule and the data position advance exactly as in any other step
            self.optimizer_step_with_clipping()
            return {**totals, "samples": 0.0, "update_seconds": time.perf_counter() - start}
        if cfg.updates_per_batch > 1:
            self._recompute_old_logprobs(samples, pad_id)
        order = torch.randperm(len(samples), generator=torch.Generator().manual_seed(self.global_step)).tolist()
        minibatches = [order[k :: cfg.updates_per_batch] for k in range(cfg.updates_per_batch)]
        for minibatch in minibatches:
            chosen = [samples[i] for i in minibatch]
            normalizer = self._normalizer(chosen)
            for mb in micro_batches(chosen, cfg.micro_batch_tokens, pad_id):
                loss, parts = self._micro_loss(mb, normalizer, on_policy=cfg.updates_per_batch == 1)
                self.manual_backward(loss)
                for key, value in parts.items():
                    totals[key] += value / cfg.updates_per_batch
            totals["grad_norm"] += self.optimizer_step_with_clipping() / cfg.updates_per_batch
        totals["samples"] = float(len(samples))
        totals["update_seconds"] = time.perf_counter() - start
        return totals

    def _normalizer(self, samples: list[Sample]) -> float:
        if self.config.loss_aggregation == "token_mean":
            return float(max(1, sum(sum(s.agent_mask) for s in samples)))
        return float(max(1, len(samples)))

    def _micro_loss(self, mb, normalizer: float, on_policy: bool):
        device = self.device
        ids, attn = mb.input_ids.to(device), mb.attention_mask.to(device)
        mask, adv = mb.agent_mask.to(device), mb.advantages.to(device)
        logprobs = sequence_token_logprobs(self.policy, ids, attn, self.logprob_temperature)  # [b, T]
        old = logprobs.detach() if on_policy else mb.rollout_logprobs.to(device)
        pg_loss, pg_stats = clipped_policy_gradient_loss(
            logprobs, old, adv, mask, self.config.clip_low, self.config.clip_high,
            self.config.loss_aggregation, normalizer,
        )
        loss = pg_loss
        kl_value = 0.0
        if self.reference is not None:
            with self.reference.model() as ref_model:
                ref = sequence_token_logprobs(ref_model, ids, attn, self.logprob_temperature)
            kl = aggregate(k3_kl(logprobs, ref), mask, self.config.loss_aggregation, normalizer)
            loss = loss + self.config.kl_coef * kl
            kl_value = float(kl.detach())
        share = float(mask.sum()) / normalizer if self.config.loss_aggregation == "token_mean" else mask.shape[0] / normalizer
        parts = {
            "loss": float(loss.detach()),
            "pg_loss": float(pg_loss.detach()),
            "kl": kl_value,
            "clip_fraction": float(pg_stats["clip_fraction"]) * share,
        }
        return loss, parts

    @torch.no_grad()
    def _recompute_old_logprobs(self, samples: list[Sample], pad_id: int) -> None:
        for mb in micro_batches(samples, self.config.micro_batch_tokens, pad_id):
            lp = sequence_token_logprobs(
                self.policy, mb.input_ids.to(self.device), mb.attention_mask.to(self.device), self.logprob_temperature
            )
            for row, index in enumerate(mb.indices):
                n = len(samples[index].input_ids)
                samples[index].rollout_logprobs = lp[row, :n].tolist()
