"""Truncated importance sampling between the engine's and the trainer's log-probs (``algo.off_policy``)."""

from __future__ import annotations

import math

import pytest
import torch

from coevo.core import registry
from coevo.core.algos.batching import Sample, TokenMicroBatch
from coevo.core.algos.choice_batching import ChoiceMicroBatch, ChoiceSample
from coevo.core.algos.grpo import GRPOConfig
from coevo.core.algos.losses import clipped_policy_gradient_loss
from coevo.core.algos.off_policy import OffPolicySettings, TISStats, effective_sample_size, tis_weights

LOSSES = ("clipped_pg", "dapo", "gspo", "cispo")

# trainer - engine on three agent tokens: 0, ln 1.5, ln 4 -> ratios 1, 1.5, 4; a 4th position is masked
TRAINER = torch.tensor([[-1.0, -2.0, -0.5, -3.0]])
ENGINE = torch.tensor([[-1.0, -2.0 - math.log(1.5), -0.5 - math.log(4.0), -9.0]])
MASK = torch.tensor([[1.0, 1.0, 1.0, 0.0]])


def test_off_by_default():
    assert GRPOConfig().off_policy == OffPolicySettings(tis_cap=None)


def test_weights_are_truncated_at_the_cap():
    w = tis_weights(TRAINER, ENGINE, cap=2.0)
    # min(1, 2) = 1, min(1.5, 2) = 1.5, min(4, 2) = 2, min(e^6, 2) = 2 (masked)
    assert torch.allclose(w, torch.tensor([[1.0, 1.5, 2.0, 2.0]]))
    assert torch.allclose(tis_weights(TRAINER, ENGINE, cap=10.0)[:, :3], torch.tensor([[1.0, 1.5, 4.0]]))
    assert not tis_weights(TRAINER.clone().requires_grad_(), ENGINE, 2.0).requires_grad  # a constant of the loss


def test_ess_and_clipped_fraction_by_hand():
    stats = TISStats(cap=2.0)
    stats.add(tis_weights(TRAINER, ENGINE, cap=2.0), MASK)
    # agent tokens w = 1, 1.5, 2: sum w = 4.5, sum w^2 = 1 + 2.25 + 4 = 7.25, N = 3
    # ESS = 4.5^2 / (3 x 7.25) = 20.25 / 21.75 = 0.9310…; one of three at the cap
    metrics = stats.metrics()
    assert metrics["tis_ess"] == pytest.approx(20.25 / 21.75)
    assert metrics["tis_clipped_fraction"] == pytest.approx(1 / 3)
    assert stats.metrics() == {"tis_ess": 1.0, "tis_clipped_fraction": 0.0}  # reset for the next step
    assert effective_sample_size(3.0, 3.0, 3.0) == 1.0  # all weights 1: on-policy
    assert effective_sample_size(1.0, 1.0, 4.0) == pytest.approx(0.25)  # one token carries it all


@pytest.mark.parametrize("name", LOSSES)
def test_unit_weights_leave_every_loss_unchanged(name):
    fn = registry.losses.get(name)
    gen = torch.Generator().manual_seed(0)
    lp = (-torch.rand(3, 5, generator=gen)).requires_grad_()
    old = lp.detach() + 0.01 * torch.randn(3, 5, generator=gen)
    adv = torch.randn(3, 1, generator=gen).expand(3, 5)
    mask = (torch.rand(3, 5, generator=gen) > 0.3).float()
    plain, plain_stats = fn(lp, old, adv, mask, 0.2, 0.28, "token_mean", None)
    weighted, weighted_stats = fn(lp, old, adv, mask, 0.2, 0.28, "token_mean", None, torch.ones(3, 5))
    assert torch.equal(plain, weighted)
    g_plain, = torch.autograd.grad(plain, lp)
    g_weighted, = torch.autograd.grad(weighted, lp)
    assert torch.equal(g_plain, g_weighted)
    assert plain_stats.keys() == weighted_stats.keys()


def test_weights_scale_each_tokens_policy_gradient():
    # on-policy (ratio 1): loss = -sum_t w_t A_t / N = -(1 x 1 + 1.5 x 1 + 2 x (-2)) / 3 = 1.5 / 3 = 0.5
    lp = TRAINER.clone().requires_grad_()
    adv = torch.tensor([[1.0, 1.0, -2.0, 5.0]])
    w = tis_weights(TRAINER, ENGINE, cap=2.0)
    loss, _ = clipped_policy_gradient_loss(lp, lp.detach(), adv, MASK, token_weights=w)
    assert float(loss.detach()) == pytest.approx(0.5)
    grad, = torch.autograd.grad(loss, lp)
    assert torch.allclose(grad, torch.tensor([[-1.0, -1.5, 4.0, 0.0]]) / 3)  # -w A / N, masked 0


def test_micro_batches_keep_stored_weights():
    token = TokenMicroBatch.collate([Sample([5, 6, 7], [0, 1, 1], 1.0, [0.0, -1.0, -2.0]),
                                     Sample([5, 6], [0, 1], 1.0, [0.0, -1.0])], [0, 1], pad_id=0)
    assert torch.equal(token.tis_weights(), torch.ones(2, 3))  # none stored: 1
    token.store_tis_weights(torch.tensor([[1.0, 0.5, 2.0], [1.0, 1.25, 9.0]]))
    assert token.samples[1].tis_weights == [1.0, 1.25]  # up to the sample's length
    assert torch.equal(token.tis_weights(), torch.tensor([[1.0, 0.5, 2.0], [1.0, 1.25, 1.0]]))
    choice = ChoiceMicroBatch.collate([ChoiceSample([1], [[2], [3]], 0, 1.0, -0.7)], [0])
    assert torch.equal(choice.tis_weights(), torch.ones(1, 1))
    choice.store_tis_weights(torch.tensor([[1.5]]))
    assert torch.equal(choice.tis_weights(), torch.tensor([[1.5]]))
