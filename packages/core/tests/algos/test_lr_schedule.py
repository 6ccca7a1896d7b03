"""Learning-rate schedule factors at hand-computed steps."""

from __future__ import annotations

import math

import pytest
import torch

from coevo.core.algos.optim import OptimSettings, build_optimizer, lr_factor


def test_constant_without_warmup_is_one():
    s = OptimSettings(schedule="constant")
    assert [lr_factor(k, s) for k in (0, 1, 1000, 10**6)] == [1.0, 1.0, 1.0, 1.0]


def test_linear_warmup_then_constant():
    s = OptimSettings(schedule="constant", warmup_steps=4)
    # (step + 1) / 4 during warm-up
    assert [lr_factor(k, s) for k in range(6)] == [0.25, 0.5, 0.75, 1.0, 1.0, 1.0]


def test_cosine_decay_hand_computed():
    s = OptimSettings(schedule="cosine", warmup_steps=4, decay_steps=14, min_lr_ratio=0.1)
    # progress = (step - 4) / (14 - 4); factor = 0.1 + 0.9 * 0.5 * (1 + cos(pi * progress))
    assert lr_factor(0, s) == pytest.approx(0.25)
    assert lr_factor(4, s) == pytest.approx(1.0)  # progress 0
    assert lr_factor(6, s) == pytest.approx(0.1 + 0.45 * (1 + math.cos(0.2 * math.pi)))  # 0.914058
    assert lr_factor(6, s) == pytest.approx(0.914058, abs=1e-6)
    assert lr_factor(9, s) == pytest.approx(0.55)  # progress 0.5: cos = 0
    assert lr_factor(14, s) == pytest.approx(0.1)  # progress 1: the floor
    assert lr_factor(500, s) == pytest.approx(0.1)  # stays at the floor


def test_linear_decay_hand_computed():
    s = OptimSettings(schedule="linear", warmup_steps=4, decay_steps=14, min_lr_ratio=0.1)
    # factor = 0.1 + 0.9 * (1 - progress)
    assert lr_factor(3, s) == pytest.approx(1.0)  # last warm-up step: 4/4
    assert lr_factor(4, s) == pytest.approx(1.0)
    assert lr_factor(6, s) == pytest.approx(0.82)  # progress 0.2
    assert lr_factor(9, s) == pytest.approx(0.55)  # progress 0.5
    assert lr_factor(14, s) == pytest.approx(0.1)
    assert lr_factor(20, s) == pytest.approx(0.1)


def test_cosine_without_warmup_to_zero():
    s = OptimSettings(schedule="cosine", decay_steps=100)
    assert lr_factor(0, s) == pytest.approx(1.0)
    assert lr_factor(50, s) == pytest.approx(0.5)
    assert lr_factor(100, s) == pytest.approx(0.0, abs=1e-12)


def test_unknown_schedule_raises_naming_it():
    s = OptimSettings(schedule="exponential")
    with pytest.raises(ValueError, match="unknown schedule 'exponential'"):
        lr_factor(5, s)
    with pytest.raises(ValueError, match=r"algo\.optim\.schedule"):
        build_optimizer([torch.nn.Parameter(torch.zeros(1))], s)


def test_build_optimizer_uses_trainable_params_and_schedule():
    trainable = torch.nn.Parameter(torch.zeros(2))
    frozen = torch.nn.Parameter(torch.zeros(2), requires_grad=False)
    s = OptimSettings(lr=0.1, warmup_steps=2, schedule="linear", decay_steps=4, weight_decay=0.01, betas=[0.8, 0.9])
    out = build_optimizer([trainable, frozen], s)
    opt, sched = out["optimizer"], out["lr_scheduler"]["scheduler"]
    assert out["lr_scheduler"]["interval"] == "step"
    assert isinstance(opt, torch.optim.AdamW)
    group = opt.param_groups[0]
    assert len(group["params"]) == 1 and group["params"][0] is trainable
    assert group["betas"] == (0.8, 0.9) and group["weight_decay"] == 0.01
    lrs = []
    for _ in range(4):
        lrs.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()
    # factors: step 0 → 1/2, step 1 → 2/2, step 2 → progress 0 → 1, step 3 → progress 1/2 → 0.5
    assert lrs == pytest.approx([0.05, 0.1, 0.1, 0.05])
