"""GRPO for multi-turn agents, as a LightningModule.

Differences from the textbook single-turn method (DeepSeekMath): an episode is several agent
turns; its return (env reward minus invalid-action penalties) is normalised within the group of
``group_size`` episodes of the same task, and that advantage is given to every agent token of
every turn of the episode. Each turn is one training sequence (its prompt holds the truncated
history); prompt and observation tokens are masked out. In choice mode with
``choice_loss="softmax"`` a turn's unit is instead the pick itself: its log-probability under the
softmax over the admissible commands (``choice_batching``); both kinds of sample go through the
same loss code as micro-batches of one interface (``micro_batches``). With the default one optimizer step per
batch the ratio is exactly 1 and the clipped loss is the plain policy gradient; with
``updates_per_batch > 1`` old log-probs are recomputed before the first update and clipping acts.
The policy loss is chosen by name from ``registry.losses`` (``algo.loss``: clipped_pg, dapo, gspo, cispo).
The advantages come from ``registry.advantages`` (``algo.advantage``): grpo and rloo give every turn
its episode's value; gigpo (``coevo.core.algos.gigpo``, settings ``algo.gigpo``) adds a per-turn
term from the states several episodes of a group met (``Turn.state_key``).
Two options, off by default: ``algo.dynamic_sampling`` (DAPO's: groups whose returns are all equal are
dropped and fresh tasks played until ``tasks_per_step`` informative groups; ``dynamic_sampling.py``)
and ``algo.off_policy.tis_cap`` (truncated importance sampling between the engine's and the trainer's
log-probs, weighting every agent token's policy-gradient loss; ``off_policy.py``).

Launch: ``make train ALGO=grpo`` (``python -m coevo.core.cli.train algo=grpo``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import torch

from coevo.core import distributed as dist
from coevo.core import registry
from coevo.core.agent.types import Episode
from coevo.core.algos.advantages import broadcast, turn_advantages
from coevo.core.algos.algorithm_context import AlgorithmContext
from coevo.core.algos.batching import Sample
from coevo.core.algos.choice_batching import ChoiceSample
from coevo.core.algos.dynamic_sampling import (
    DynamicSamplingSettings,
    refill_seed,
    refill_tasks,
    sample_informative_groups,
)
from coevo.core.algos.gigpo import GiGPOSettings
from coevo.core.algos.losses import AGGREGATIONS, aggregate, k3_kl
from coevo.core.algos.micro_batches import (
    LogprobScoring,
    MicroBatch,
    loss_normalizer,
    loss_tensors,
    padding_micro_batch,
    split_micro_batches,
)
from coevo.core.algos.off_policy import OffPolicySettings, TISStats, tis_weights
from coevo.core.algos.optim import OptimSettings
from coevo.core.algos.rollout_module import RolloutModule
from coevo.core.env.protocol import Task
from coevo.core.fields import bounded, check_instance, choice, registry_name
from coevo.core.policy.lora import ReferencePolicy
from coevo.core.rollout.sync_check import SyncCheck
from coevo.core.seeds import step_seed

CHOICE_LOSSES = ("softmax", "tokens")


@dataclass
class GRPOConfig:
    name: str = registry_name("grpo")
    tasks_per_step: int = bounded(4, ge=1)  # distinct tasks per training step
    group_size: int = bounded(8, ge=2)  # episodes per task (GRPO's G; a group of 1 has no baseline)
    # registry name of the advantage estimator (grpo | rloo | gigpo: per-turn, from anchor states)
    advantage: str = choice("grpo", registry.advantages.names)
    scale_by_std: bool = True  # divide by the group's reward std (False: Dr. GRPO)
    gigpo: GiGPOSettings = field(default_factory=GiGPOSettings)  # gamma and step weight (advantage=gigpo)
    # registry name of the policy loss (losses.py): clipped_pg (PPO/GRPO) | dapo (clip-higher: set
    # clip_high=0.28) | gspo (sequence-level ratio: set tiny clips, clip_low=3e-4 clip_high=4e-4,
    # and loss_aggregation=seq_mean_token_mean) | cispo (clipped stop-gradient IS weight: clip_high=0.28)
    loss: str = choice("clipped_pg", registry.losses.names)
    clip_low: float = bounded(0.2, ge=0, lt=1)  # ratios below 1 - clip_low are clipped (>= 1: no lower clip left)
    clip_high: float = bounded(0.2, ge=0)  # ratios above 1 + clip_high are clipped
    kl_coef: float = bounded(0.05, ge=0)  # weight of the k3 KL to the reference policy (0: no reference forward)
    # token_mean | seq_mean_token_mean | seq_mean_token_sum
    loss_aggregation: str = choice("token_mean", AGGREGATIONS)
    updates_per_batch: int = bounded(1, ge=1)  # optimizer steps (mini-batches) per rollout batch
    micro_batch_tokens: int = bounded(8192, ge=1)  # padded tokens per forward/backward
    skip_zero_advantage: bool = True  # drop sequences whose advantage is 0 (no PG signal; no KL term either)
    # choice mode: "softmax" trains log softmax(score / T)[chosen] (the choice policy's exact
    # log-probability); "tokens" trains the chosen candidate's tokens like generated ones
    choice_loss: str = choice("softmax", CHOICE_LOSSES)
    optim: OptimSettings = field(default_factory=lambda: OptimSettings(lr=3e-4))
    # DAPO's dynamic sampling: drop groups whose returns are all equal and play fresh tasks until
    # tasks_per_step informative groups (or max_rounds rounds) (dynamic_sampling.py); off by default
    dynamic_sampling: DynamicSamplingSettings = field(default_factory=DynamicSamplingSettings)
    # engine/trainer mismatch: tis_cap (e.g. 2.0) weights each agent token's loss by the truncated
    # importance ratio min(exp(lp_trainer - lp_engine), cap) (off_policy.py); null: off
    off_policy: OffPolicySettings = field(default_factory=OffPolicySettings)

    def __post_init__(self):  # subclasses (rsipo, rao) add their cross-field rules after this
        check_instance(self, "algo")


def episode_samples(
    episodes: list[Episode], advantages: torch.Tensor, choice_loss: str = "tokens"
) -> list[Sample | ChoiceSample]:
    """One training sample per turn, with its episode's advantage (``advantages``: ``[E]``)."""
    return turn_samples(episodes, broadcast(episodes, advantages.tolist()), choice_loss)


def turn_samples(
    episodes: list[Episode], advantages: list[list[float]], choice_loss: str = "tokens"
) -> list[Sample | ChoiceSample]:
    """One training sample per turn, with its own advantage (``advantages[i][t]``: turn t of episode i).

    A generated turn (or any turn with ``choice_loss="tokens"``) is a sequence: prompt (mask 0) +
    response (mask 1). A chosen turn with ``choice_loss="softmax"`` is a ``ChoiceSample``.
    """
    samples = []
    for episode, turn_values in zip(episodes, advantages):
        for turn, advantage in zip(episode.turns, turn_values):
            if not turn.response_ids:
                continue
            if choice_loss == "softmax" and turn.candidates is not None:
                samples.append(
                    ChoiceSample(turn.prompt_ids, turn.candidates, turn.choice, advantage, turn.choice_logprob)
                )
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
    plays_async = True  # (without dynamic sampling: checked by the CLI)
    Config = GRPOConfig

    def __init__(self, config: GRPOConfig, context: AlgorithmContext):
        if config.dynamic_sampling.enabled and type(self).training_step is not GRPO.training_step:
            raise ValueError(f"algo.dynamic_sampling.enabled=true: {type(self).__name__} has its own training step, "
                             "which does not play dynamic sampling (GRPO's does); set it to false")
        super().__init__(context, config.optim, config.group_size)
        self.config = config
        self.advantage_fn = registry.advantages.get(config.advantage)
        self.loss_fn = registry.losses.get(config.loss)  # algo.loss
        self.reference = ReferencePolicy(self.policy) if config.kl_coef > 0 else None
        # training log-probs use the same temperature the tokens were sampled at
        self.logprob_temperature = context.agent.sampling.temperature if self.decoding_mode == "generate" else 1.0
        # engine vs trainer log-probs of the sampled tokens, every step (rollout.sync_check)
        self.sync_check = SyncCheck(getattr(self.engine.config, "sync_check", None), f"engine '{context.engine_name}'")
        cap = config.off_policy.tis_cap  # algo.off_policy.tis_cap: truncated importance sampling
        self.tis = TISStats(cap) if cap is not None else None

    def training_step(self, batch: list, batch_idx: int):
        tasks = self.take_tasks(batch)
        if self.config.dynamic_sampling.enabled:
            episodes = self.rollout_informative(tasks)
        else:
            episodes = self.rollout(tasks)
            self.engine.release_memory()  # a colocated engine frees the GPU for the update (sleep mode)
            self.log_rollout_metrics(episodes)
            self.record({"budget/rollouts": float(len(episodes))})  # summed over the ranks
        # per turn: the episode's advantage on each of its turns, or GiGPO's per-turn values
        advantages = turn_advantages(self.advantage_fn, episodes, self.config.scale_by_std, self.config.gigpo)
        samples = turn_samples(episodes, advantages, self.config.choice_loss)
        if self.config.skip_zero_advantage:  # halves the update cost when many groups are all-equal
            samples = [s for s in samples if s.advantage != 0.0]
        update_stats = self.update(samples)
        self.record(update_stats)
        self.log("loss", update_stats.get("loss", 0.0), prog_bar=True, on_step=True, logger=False)
        return None

    def rollout_informative(self, tasks: list[Task]) -> list[Episode]:
        """Dynamic sampling (``algo.dynamic_sampling``): the step's groups, then refill rounds of fresh
        tasks until ``tasks_per_step`` groups with unequal returns; the kept episodes. Logs the rollout
        metrics of the step's own tasks (round 1, as without the option), ``dynamic_sampling_rounds``
        and ``informative_groups`` (over all ranks)."""
        settings, seconds, played_total = self.config.dynamic_sampling, 0.0, 0

        def play(chunk: list[Task], round_: int) -> list[Episode]:
            nonlocal seconds, played_total
            seed = None if round_ == 1 else refill_seed(self.context.seed, self.batch_index, round_)
            played = self.rollout(chunk, seed=seed, sync=round_ == 1)  # refills: the same weights
            seconds += self._rollout_seconds
            played_total += len(played)
            return played

        env, split = self.envs(1)[0], tasks[0].split

        def refill(round_: int, count: int) -> list[Task]:
            return refill_tasks(env, split, self.config.tasks_per_step, count, self.batch_index, round_,
                                settings.max_rounds, self.context.seed)

        result = sample_informative_groups(tasks, play, refill, self.config.tasks_per_step, self.group_size,
                                           settings.max_rounds)
        self.engine.release_memory()  # a colocated engine frees the GPU for the update (sleep mode)
        self._rollout_seconds = seconds  # every round's
        self.log_rollout_metrics(result.first_round)
        played = dist.reduce_metrics({"budget/rollouts": float(played_total)})  # every round's, all ranks'
        self.record({"dynamic_sampling_rounds": float(result.rounds),
                     "informative_groups": float(result.informative_groups), **played}, reduce=False)
        return result.episodes

    @property
    def scoring(self) -> LogprobScoring:
        """How this module's training log-probs are computed (tokens at the sampling temperature in
        generate mode, picks by the agent's choice softmax)."""
        agent = self.context.agent
        return LogprobScoring(self.context.tokenizer.pad_token_id, self.logprob_temperature, agent.choice_score,
                              agent.choice_temperature)

    def update(self, samples: list[Sample | ChoiceSample]) -> dict[str, float]:
        """``updates_per_batch`` optimizer steps over ``samples`` (shuffled into mini-batches).

        Sharded over ranks, every rank runs the same number of micro-batches (``lockstep``): a rank
        with fewer runs padding micro-batches, whose loss is multiplied by 0.
        """
        start = time.perf_counter()
        self.policy.train()
        cfg = self.config
        pad_id = self.context.tokenizer.pad_token_id
        totals = {"loss": 0.0, "pg_loss": 0.0, "kl": 0.0, "clip_fraction": 0.0, "grad_norm": 0.0}
        if self.sharded_over_ranks:
            totals["padding_micro_batches"] = 0.0  # lockstep forwards of this rank (summed over ranks)
        if not self.lockstep(len(samples)):
            # nothing to learn from (every group had equal returns): still take the step so that
            # the schedule and the data position advance exactly as in any other step
            self.optimizer_step_with_clipping()
            return {**totals, **self._tis_metrics(), "samples": 0.0, "update_seconds": time.perf_counter() - start}
        if cfg.updates_per_batch > 1:
            self._recompute_old_logprobs(samples, pad_id)
        shuffle = torch.Generator().manual_seed(step_seed(self.context.seed, self.batch_index))
        order = torch.randperm(len(samples), generator=shuffle).tolist()
        minibatches = [order[k :: cfg.updates_per_batch] for k in range(cfg.updates_per_batch)]
        for minibatch in minibatches:
            chosen = [samples[i] for i in minibatch]
            normalizer = loss_normalizer(chosen, cfg.loss_aggregation)
            mbs = split_micro_batches(chosen, cfg.micro_batch_tokens, pad_id)
            padding = self.lockstep(len(mbs)) - len(mbs)  # agreed before any forward
            for mb in mbs:
                loss, parts = self._micro_loss(mb, normalizer, on_policy=cfg.updates_per_batch == 1)
                self.manual_backward(loss)
                for key, value in parts.items():
                    totals[key] += value / cfg.updates_per_batch
            for _ in range(padding):
                self.padding_step(pad_id)
            if padding:
                totals["padding_micro_batches"] += padding
            totals["grad_norm"] += self.optimizer_step_with_clipping() / cfg.updates_per_batch
        totals.update(self.sync_check.finish())  # raises WeightSyncError above the threshold
        totals.update(self._tis_metrics())
        totals["samples"] = float(len(samples))
        totals["update_seconds"] = time.perf_counter() - start
        return totals

    def padding_step(self, pad_id: int, with_reference: bool = True) -> None:
        """One lockstep forward and backward that changes nothing: the forwards of a real micro-batch
        (the policy's, and the reference's when there is one and ``with_reference``), loss x 0."""
        mb = padding_micro_batch(pad_id)
        if with_reference:
            loss, _ = self._micro_loss(mb, 1.0, on_policy=False)
        else:
            loss = mb.logprobs(self.policy, self.scoring, self.device).sum()
        self.manual_backward(loss * 0.0)

    def _micro_loss(self, mb: MicroBatch, normalizer: float, on_policy: bool):
        scoring = self.scoring
        mask, adv, rollout_old = loss_tensors(mb, self.device)  # [b, T]
        logprobs = mb.logprobs(self.policy, scoring, self.device)  # [b, T]
        old = logprobs.detach() if on_policy else rollout_old
        if on_policy and self.rollout_staleness == 0:  # before the step: the weights the engine sampled with
            self.sync_check.add(logprobs, rollout_old, mask)  # (a stale batch's were older: TIS corrects it)
        weights = {} if self.tis is None else {"token_weights": self._tis_weights(mb, logprobs, rollout_old, mask,
                                                                                  on_policy)}
        pg_loss, pg_stats = self.loss_fn(
            logprobs, old, adv, mask, self.config.clip_low, self.config.clip_high,
            self.config.loss_aggregation, normalizer, **weights,
        )
        loss = pg_loss
        kl_value = 0.0
        if self.reference is not None:
            with self.reference.model() as ref_model, torch.no_grad():
                ref = mb.logprobs(ref_model, scoring, self.device)  # [b, T]
            kl = aggregate(k3_kl(logprobs, ref), mask, self.config.loss_aggregation, normalizer)
            loss = loss + self.config.kl_coef * kl
            kl_value = float(kl.detach())
        # this micro-batch's share of the normaliser (a pick's mask is 1: one unit per row)
        token_mean = self.config.loss_aggregation == "token_mean"
        share = float(mask.sum()) / normalizer if token_mean else mask.shape[0] / normalizer
        parts = {
            "loss": float(loss.detach()),
            "pg_loss": float(pg_loss.detach()),
            "kl": kl_value,
            "clip_fraction": float(pg_stats["clip_fraction"]) * share,
        }
        return loss, parts

    def _tis_metrics(self) -> dict[str, float]:
        """``tis_ess`` and ``tis_clipped_fraction`` of this update's weights over every rank's agent
        tokens (collective: each rank's update ends with it, on either return path); {} when TIS is off."""
        return {} if self.tis is None else self.tis.metrics()

    def _tis_weights(self, mb: MicroBatch, logprobs: torch.Tensor, engine: torch.Tensor, mask: torch.Tensor,
                     on_policy: bool) -> torch.Tensor:  # [b, T]
        """The truncated importance weights of ``mb``: on-policy, from this forward's (detached)
        log-probs and the engine's; else those stored when the old log-probs were recomputed."""
        if not on_policy:
            return mb.tis_weights().to(logprobs.device)
        return self._counted_tis_weights(logprobs, engine, mask)

    def _counted_tis_weights(self, logprobs: torch.Tensor, engine: torch.Tensor,
                             mask: torch.Tensor) -> torch.Tensor:  # [b, T]
        """``tis_weights`` of these log-probs, counted into this update's ESS and clipped fraction."""
        weights = tis_weights(logprobs, engine, self.tis.cap)
        self.tis.add(weights, mask)
        return weights

    @torch.no_grad()
    def _recompute_old_logprobs(self, samples: list[Sample | ChoiceSample], pad_id: int) -> None:
        scoring = self.scoring
        mbs = split_micro_batches(samples, self.config.micro_batch_tokens, pad_id)
        for _ in range(self.lockstep(len(mbs)) - len(mbs)):  # sharded: as many forwards as every rank
            padding_micro_batch(pad_id).logprobs(self.policy, scoring, self.device)
        for mb in mbs:
            lp = mb.logprobs(self.policy, scoring, self.device)  # [b, T]
            mask, _, rollout_old = loss_tensors(mb, self.device)
            self.sync_check.add(lp, rollout_old, mask)
            if self.tis is not None:  # the engine's log-probs are about to be replaced by the trainer's
                mb.store_tis_weights(self._counted_tis_weights(lp, rollout_old, mask))
            mb.store_rollout_logprobs(lp)
