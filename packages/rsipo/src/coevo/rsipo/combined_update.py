"""RSIPO's combined update, step 8 of the spec: L = L_RLVR + λ·L_OPSD(ω) + L_skill in one step.

- L_RLVR: GRPO's policy loss (``algo.loss`` from ``registry.losses``, looked up once in
  ``GRPO.__init__`` as ``self.loss_fn``; on-policy, ratio 1) (+ k3 KL to the reference) on the
  student turns in the RLVR term, normalised as GRPO normalises them (``micro_batches.loss_normalizer``);
- L_OPSD(ω) = −mean ω_x a_t log π_θ(y_t) over the student turns with a teacher (``losses.py``);
- L_skill: policy gradient on the skill tokens with the skill reward as advantage (always the
  clipped PG at ratio 1: RSIPO's own term, not chosen by ``algo.loss``).

With ``algo.off_policy.tis_cap`` (set by the run for stale batches, ``rollout.async.max_staleness`` > 0)
the two policy-gradient terms weight each token by min(exp(lp_trainer − lp_engine), cap) against
the log-probs it was sampled with (``coevo.core.algos.off_policy``); L_OPSD distils the teacher on
the visited states and is not reweighted.

All micro-batches (``coevo.core.algos.micro_batches``: token or choice, one interface) backpropagate
into one optimizer step. Sharded over ranks, every rank runs as many micro-batches of each kind as
the rank with the most (``lockstep``; the extra ones are GRPO's padding steps, loss x 0). With λ = 0
and no skill loss the gradient is GRPO's.

``CombinedUpdate`` runs on GRPO's update machinery, so it is built with the module that owns it as
an explicit, named dependency (``CombinedUpdate(config, pad_id, host=module)``); of the host it uses
only the members ``UpdateHost`` lists.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Protocol

import torch

from coevo.core.algos.batching import Sample
from coevo.core.algos.losses import aggregate, clipped_policy_gradient_loss, k3_kl
from coevo.core.algos.micro_batches import (
    LogprobScoring,
    MicroBatch,
    loss_normalizer,
    loss_tensors,
    split_micro_batches,
)
from coevo.core.algos.off_policy import TISStats
from coevo.core.policy.lora import ReferencePolicy
from coevo.rsipo.config import RSIPOConfig
from coevo.rsipo.losses import opsd_loss
from coevo.rsipo.samples import has_teacher, opsd_units, teacher_tensor


class UpdateHost(Protocol):
    """What ``CombinedUpdate`` uses of the module it updates: core's GRPO (``coevo.core.algos.grpo``)."""

    policy: torch.nn.Module  # the trained model (the FSDP unit when sharded)
    device: torch.device
    scoring: LogprobScoring  # how a micro-batch's log-probs are computed (temperature, choice scoring)
    loss_fn: object  # algo.loss (registry.losses)
    reference: ReferencePolicy | None  # the k3 KL's reference (kl_coef > 0)
    tis: TISStats | None  # algo.off_policy.tis_cap's truncated IS counters
    sharded_over_ranks: bool

    def manual_backward(self, loss: torch.Tensor) -> None: ...

    def lockstep(self, count: int) -> int: ...  # micro-batches every rank runs (collective when sharded)

    def padding_step(self, pad_id: int, with_reference: bool = True) -> None: ...

    def optimizer_step_with_clipping(self) -> float: ...  # the grad norm

    def _counted_tis_weights(self, logprobs: torch.Tensor, engine: torch.Tensor,
                             mask: torch.Tensor) -> torch.Tensor: ...

    def _tis_metrics(self) -> dict[str, float]: ...


class CombinedUpdate:
    """Step 8: the one optimizer step on L. Depends on ``config`` (the loss terms' settings), ``pad_id``
    (the tokenizer's) and ``host``, the module whose update machinery it drives (``UpdateHost``)."""

    def __init__(self, config: RSIPOConfig, pad_id: int, *, host: UpdateHost):
        self.config = config
        self.pad_id = pad_id
        self.host = host

    def step(self, samples: list, skill_samples: list[Sample]) -> dict[str, float]:
        """8. One optimizer step on L = L_RLVR + λ L_OPSD(ω) + skill_coef L_skill (gradients of all
        micro-batches summed): the student turns' micro-batches first, then the skills'. ``samples``:
        the student turns (``UpdateSamples.action_samples``); ``skill_samples``: the written skills
        (``UpdateSamples.skill_samples``)."""
        start = time.perf_counter()
        cfg, host = self.config, self.host
        host.policy.train()
        pad_id = self.pad_id
        pg_samples = [s for s in samples if s.in_pg]
        pg_norm = loss_normalizer(pg_samples, cfg.loss_aggregation) if pg_samples else 1.0
        opsd_norm = float(max(1, sum(opsd_units(s) for s in samples))) if cfg.opsd_coef > 0 else 1.0
        forward = [s for s in samples if s.in_pg or (cfg.opsd_coef > 0 and has_teacher(s) and s.omega > 0)]
        totals = {"loss": 0.0, "pg_loss": 0.0, "kl": 0.0, "opsd_loss": 0.0, "skill_loss": 0.0,
                  "opsd/gap_sum": 0.0, "opsd/prefers_sum": 0.0, "opsd/tokens": 0.0}
        action_mbs = split_micro_batches(forward, cfg.micro_batch_tokens, pad_id) if forward else []
        skill_mbs = split_micro_batches(skill_samples, cfg.micro_batch_tokens, pad_id) if skill_samples else []
        # sharded over ranks: every rank runs as many of each as the rank with the most (agreed first)
        action_padding = host.lockstep(len(action_mbs)) - len(action_mbs)
        skill_padding = host.lockstep(len(skill_mbs)) - len(skill_mbs)
        for mb in action_mbs:
            loss, parts = self.action_loss(mb, pg_norm, opsd_norm)
            host.manual_backward(loss)
            for key, value in parts.items():
                totals[key] += value
        for _ in range(action_padding):
            host.padding_step(pad_id)
        skill_tokens = loss_normalizer(skill_samples, "token_mean")
        for _ in range(skill_padding):
            host.padding_step(pad_id, with_reference=False)
        skill_scoring = replace(host.scoring, temperature=cfg.skill.temperature)
        for mb in skill_mbs:
            skill_loss = self.skill_loss(mb, skill_scoring, skill_tokens)
            host.manual_backward(cfg.skill_coef * skill_loss)
            totals["skill_loss"] += float(skill_loss.detach())
            totals["loss"] += cfg.skill_coef * float(skill_loss.detach())
        totals["grad_norm"] = host.optimizer_step_with_clipping()
        tokens = totals.pop("opsd/tokens")
        gap, prefers = totals.pop("opsd/gap_sum"), totals.pop("opsd/prefers_sum")
        if tokens > 0:
            totals["opsd/gap_mean"] = gap / tokens
            totals["opsd/teacher_prefers_share"] = prefers / tokens
        totals["samples"] = float(len(pg_samples))
        totals["opsd_samples"] = float(sum(1 for s in forward if has_teacher(s) and s.omega > 0))
        totals["skill_samples"] = float(len(skill_samples))
        totals.update(host._tis_metrics())
        totals["update_seconds"] = time.perf_counter() - start
        return totals

    def action_loss(self, mb: MicroBatch, pg_norm: float, opsd_norm: float) -> tuple[torch.Tensor, dict[str, float]]:
        """A micro-batch of student turns: its RLVR term (+ k3 KL) over the turns in it, and its
        λ-weighted OPSD term over the turns with a teacher (ω of their task). ``pg_norm``,
        ``opsd_norm``: the step's normalisers of the two terms (over all its micro-batches)."""
        cfg, host = self.config, self.host
        device = host.device
        scoring = host.scoring
        rows = mb.samples
        mask, adv, engine = loss_tensors(mb, device)  # [b, T]
        pg_rows = torch.tensor([float(s.in_pg) for s in rows], device=device)  # [b]
        logprobs = mb.logprobs(host.policy, scoring, device)  # [b, T]
        parts = {}
        loss = torch.zeros((), device=device)
        # sharded: the reference forward runs for every micro-batch, so all ranks run the same forwards
        if bool(pg_rows.any()) or host.sharded_over_ranks:
            # algo.loss (registry.losses), as GRPO's update; on-policy: the old log-probs are these;
            # algo.off_policy.tis_cap (on for stale batches): truncated IS against the engine's log-probs
            weights = {} if host.tis is None else {
                "token_weights": host._counted_tis_weights(logprobs, engine, mask * pg_rows[:, None])}
            pg_loss, _ = host.loss_fn(logprobs, logprobs.detach(), adv * pg_rows[:, None], mask,
                                      cfg.clip_low, cfg.clip_high, cfg.loss_aggregation, pg_norm, **weights)
            loss = loss + pg_loss
            parts["pg_loss"] = float(pg_loss.detach())
            if host.reference is not None:
                with host.reference.model() as ref_model, torch.no_grad():
                    ref = mb.logprobs(ref_model, scoring, device)  # [b, T]
                kl = aggregate(k3_kl(logprobs, ref), mask * pg_rows[:, None], cfg.loss_aggregation, pg_norm)
                loss = loss + cfg.kl_coef * kl
                parts["kl"] = float(kl.detach())
        if cfg.opsd_coef > 0:
            teacher_rows = torch.tensor([float(has_teacher(s)) for s in rows], device=device)  # [b]
            omega = torch.tensor([s.omega for s in rows], device=device) * teacher_rows  # [b]
            teacher = teacher_tensor(mb, device)  # [b, T]
            opsd_mask = mask * teacher_rows[:, None]  # [b, T]
            distill, stats = opsd_loss(logprobs, teacher, omega, opsd_mask, opsd_norm)
            loss = loss + cfg.opsd_coef * distill
            parts["opsd_loss"] = float(distill.detach())
            parts["opsd/gap_sum"] = float(stats["gap_sum"])
            parts["opsd/prefers_sum"] = float(stats["teacher_prefers_sum"])
            parts["opsd/tokens"] = float(stats["tokens"])
        parts["loss"] = float(loss.detach())
        return loss, parts

    def skill_loss(self, mb: MicroBatch, scoring: LogprobScoring, skill_tokens: float) -> torch.Tensor:
        """L_skill of a micro-batch of skills: policy gradient on the skill tokens (advantage r_skill),
        on-policy (ratio 1), token mean over all the step's skill tokens (``skill_tokens``)."""
        cfg, host = self.config, self.host
        lp = mb.logprobs(host.policy, scoring, host.device)  # [b, T]
        mask, adv, engine = loss_tensors(mb, host.device)  # [b, T]
        # not algo.loss: L_skill is RSIPO's own term on the skill tokens (one sequence-level reward per
        # written skill, on-policy), not the RLVR policy gradient the registry's losses are choices of;
        # skills written with older weights (a stale batch) get the same truncated IS weights
        weights = None if host.tis is None else host._counted_tis_weights(lp, engine, mask)
        skill_loss, _ = clipped_policy_gradient_loss(lp, lp.detach(), adv, mask, cfg.clip_low, cfg.clip_high,
                                                     "token_mean", skill_tokens, weights)
        return skill_loss
