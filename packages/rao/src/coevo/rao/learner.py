"""A second policy trained in lockstep with the RAO policy: the flat baseline of the report.

``flat_baseline=train`` gives the flat agent its own copy of the warm-started weights, its own
AdamW and LR schedule (plain torch objects, invisible to Lightning, so ``global_step`` counts
the RAO policy's steps only) and its own reference policy. ``RAO.acting_as(learner)`` makes the
module's update code (core GRPO's) act on it for the duration of a ``with`` block.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import torch

from coevo.core.algos.optim import OptimSettings, build_optimizer
from coevo.core.policy.lora import ReferencePolicy


@dataclass
class Learner:
    policy: torch.nn.Module
    optimizer: torch.optim.Optimizer
    scheduler: torch.optim.lr_scheduler.LRScheduler
    reference: ReferencePolicy | None

    def state_dict(self) -> dict:
        return {"optimizer": self.optimizer.state_dict(), "scheduler": self.scheduler.state_dict()}

    def load_state_dict(self, state: dict) -> None:
        self.optimizer.load_state_dict(state["optimizer"])
        self.scheduler.load_state_dict(state["scheduler"])


def copy_learner(policy: torch.nn.Module, optim: OptimSettings, kl: bool) -> Learner:
    """A learner starting from a copy of ``policy``'s current weights."""
    twin = copy.deepcopy(policy)
    built = build_optimizer(twin.parameters(), optim)
    return Learner(twin, built["optimizer"], built["lr_scheduler"]["scheduler"], ReferencePolicy(twin) if kl else None)
