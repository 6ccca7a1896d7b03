"""Optimizer and learning-rate schedule settings shared by the algorithms."""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from coevo.core.fields import bounded, choice

SCHEDULES = ("constant", "cosine", "linear")


@dataclass
class OptimSettings:
    lr: float = bounded(1e-4, ge=0)  # AdamW's base learning rate; 0: weights never change (algo=skill_prompt)
    weight_decay: float = bounded(0.0, ge=0)  # AdamW's decoupled weight decay
    betas: list[float] = bounded([0.9, 0.999], ge=0, lt=1, length=2)  # AdamW's (beta1, beta2)
    warmup_steps: int = bounded(0, ge=0)  # linear warm-up from 0 over this many optimizer steps
    schedule: str = choice("constant", SCHEDULES)  # constant | cosine | linear (decay after warm-up)
    # optimizer steps over which cosine/linear decay reaches min_lr_ratio
    decay_steps: int = bounded(1000, ge=0)
    min_lr_ratio: float = bounded(0.0, ge=0, le=1)  # the decayed LR's floor, as a share of lr
    grad_clip: float = bounded(1.0, ge=0)  # max global grad norm; 0 disables clipping


def lr_factor(step: int, settings: OptimSettings) -> float:
    """Multiplier of the base LR after ``step`` optimizer steps."""
    if settings.warmup_steps > 0 and step < settings.warmup_steps:
        return (step + 1) / settings.warmup_steps
    if settings.schedule == "constant":
        return 1.0
    progress = min(1.0, (step - settings.warmup_steps) / max(1, settings.decay_steps - settings.warmup_steps))
    floor = settings.min_lr_ratio
    if settings.schedule == "cosine":
        return floor + (1 - floor) * 0.5 * (1 + math.cos(math.pi * progress))
    if settings.schedule == "linear":
        return floor + (1 - floor) * (1 - progress)
    raise ValueError(f"algo.optim.schedule: unknown schedule '{settings.schedule}'; choose one of {SCHEDULES}")


def build_optimizer(parameters, settings: OptimSettings):
    """AdamW over the trainable ``parameters`` and a per-step LambdaLR schedule."""
    if settings.schedule not in SCHEDULES:
        raise ValueError(f"algo.optim.schedule: unknown schedule '{settings.schedule}'; choose one of {SCHEDULES}")
    params = [p for p in parameters if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=settings.lr, weight_decay=settings.weight_decay, betas=tuple(settings.betas))
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: lr_factor(step, settings))
    return {"optimizer": optimizer, "lr_scheduler": {"scheduler": scheduler, "interval": "step"}}
