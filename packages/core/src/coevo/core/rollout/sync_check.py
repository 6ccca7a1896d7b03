"""The weight-sync self-check: do the rollout engine's log-probs match the trainer's?

An engine with its own copy of the weights (``vllm``) samples from whatever weights it last
received. If a sync is skipped, applied to the wrong copy, or mixed with a stale prefix cache, the
run goes on silently with off-policy data. The trainer computes the log-probs of the sampled
tokens anyway (the "old" log-probs of the policy gradient); comparing them with the engine's costs
nothing and catches every such failure: the mean absolute difference over the agent tokens is
logged every step and, above ``max_abs_diff``, stops the run with ``WeightSyncError``.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from coevo.core.fields import bounded, check_instance


@dataclass
class SyncCheckSettings:
    enabled: bool = True  # compare engine and trainer log-probs every training step
    # largest allowed mean |engine log-prob - trainer log-prob| over a step's agent tokens; fp32 on
    # CPU agrees to ~1e-5, bf16 engines typically to ~1e-2
    max_abs_diff: float = bounded(0.05, gt=0)  # disable the check with rollout.sync_check.enabled=false

    def __post_init__(self):
        check_instance(self, "rollout.sync_check")


class WeightSyncError(RuntimeError):
    """The rollout engine sampled with other weights than the trainer's."""


class SyncCheck:
    """Accumulates |engine - trainer| log-prob differences over one step's micro-batches."""

    def __init__(self, settings: SyncCheckSettings | None = None, engine_name: str = "the rollout engine"):
        self.settings = settings or SyncCheckSettings()
        self.engine_name = engine_name
        self.reset()

    def reset(self) -> None:
        self.total = 0.0  # sum of |difference| over agent tokens
        self.count = 0.0  # agent tokens compared

    @torch.no_grad()
    def add(
        self,
        trainer: torch.Tensor,  # [b, T] the trainer's log-probs of the sampled tokens
        engine: torch.Tensor,  # [b, T] the engine's log-probs of the same tokens
        mask: torch.Tensor,  # [b, T] 1 on agent tokens
    ) -> None:
        if not self.settings.enabled:
            return
        mask = mask.to(trainer.dtype)
        self.total += float(((trainer.detach().float() - engine.float()).abs() * mask).sum())
        self.count += float(mask.sum())

    def finish(self) -> dict[str, float]:
        """The step's metrics (``sync/logprob_abs_diff``); raises ``WeightSyncError`` above the threshold."""
        if not self.settings.enabled or self.count == 0:
            self.reset()
            return {}
        diff = self.total / self.count
        tokens = self.count
        self.reset()
        if diff > self.settings.max_abs_diff:
            raise WeightSyncError(
                f"weight sync self-check failed: {self.engine_name} and the trainer disagree on the "
                f"log-probs of the sampled tokens (mean |difference| {diff:.4g} over {tokens:.0f} agent "
                f"tokens > rollout.sync_check.max_abs_diff={self.settings.max_abs_diff}), so the engine "
                f"sampled with other weights than the trainer's. Check that the engine's sync_weights ran "
                f"after the last optimizer step and reset its prefix cache, that engine and trainer use "
                f"the same dtype (rollout.dtype) and that the reported log-probs use the sampling "
                f"temperature; for a lower-precision engine raise rollout.sync_check.max_abs_diff."
            )
        return {"sync/logprob_abs_diff": diff}
