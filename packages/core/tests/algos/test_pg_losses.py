"""Clipped policy-gradient loss, aggregation modes and the k3 KL, against hand-computed values."""

from __future__ import annotations

import math

import pytest
import torch

from coevo.core import registry
from coevo.core.algos.losses import aggregate, clipped_policy_gradient_loss, k3_kl

# ratios r = exp(lp - lp_old); clip range [0.8, 1.2] (clip_low = clip_high = 0.2)
RATIOS = [[1.0, 1.5, 0.5], [1.5, 0.5, 2.0]]
ADVANTAGES = [[1.0, 1.0, 1.0], [-2.0, -2.0, -2.0]]
MASK = [[1, 1, 1], [1, 1, 0]]  # the last token of row 1 is not an agent token
# per-token loss -min(r A, clip(r) A):
#   row 0 (A=+1): r=1.0 → -1.0 ; r=1.5 → -min(1.5, 1.2) = -1.2 ; r=0.5 → -min(0.5, 0.8) = -0.5
#   row 1 (A=-2): r=1.5 → -min(-3.0, -2.4) = 3.0 ; r=0.5 → -min(-1.0, -1.6) = 1.6 ;
#                 r=2.0 → -min(-4.0, -2.4) = 4.0 but masked out
# masked sums: row 0 = -2.7 (3 tokens), row 1 = 4.6 (2 tokens); total 1.9 over 5 tokens


def _inputs():
    old = torch.tensor([[-1.0, -2.0, -0.5], [-0.3, -1.2, -2.2]], dtype=torch.float64)
    lp = old + torch.log(torch.tensor(RATIOS, dtype=torch.float64))
    return lp, old, torch.tensor(ADVANTAGES, dtype=torch.float64), torch.tensor(MASK)


@pytest.mark.parametrize(
    "mode, normalizer, expected",
    [
        ("token_mean", None, 1.9 / 5),  # 0.38
        ("seq_mean_token_mean", None, (-2.7 / 3 + 4.6 / 2) / 2),  # (-0.9 + 2.3) / 2 = 0.7
        ("seq_mean_token_sum", None, (-2.7 + 4.6) / 2),  # 0.95
        ("token_mean", 10.0, 1.9 / 10),  # 0.19
        ("seq_mean_token_mean", 10.0, (-0.9 + 2.3) / 10),  # 0.14
        ("seq_mean_token_sum", 10.0, 1.9 / 10),  # 0.19
    ],
)
def test_clipped_loss_hand_computed(mode, normalizer, expected):
    lp, old, adv, mask = _inputs()
    loss, stats = clipped_policy_gradient_loss(lp, old, adv, mask, aggregate_mode=mode, normalizer=normalizer)
    assert loss.item() == pytest.approx(expected, abs=1e-9)
    # tokens whose ratio the clamp changed, among the 5 agent tokens: 1.5, 0.5, 1.5, 0.5 → 4/5
    assert stats["clip_fraction"].item() == pytest.approx(0.8, abs=1e-9)
    # (1.0 + 1.5 + 0.5 + 1.5 + 0.5) / 5 = 1.0 (the masked ratio 2.0 would make it 7/6)
    assert stats["ratio_mean"].item() == pytest.approx(1.0, abs=1e-9)


def test_asymmetric_clip_range():
    lp, old, adv, mask = _inputs()
    # clip range [0.9, 1.6]: row 0: -1.0, -1.5 (1.5 inside), -min(0.5, 0.9) = -0.5
    #                        row 1: r=1.5 → 3.0 ; r=0.5 → -min(-1.0, -1.8) = 1.8
    # token mean = (-3.0 + 4.8) / 5 = 0.36; clipped tokens: the two r=0.5 → 2/5
    loss, stats = clipped_policy_gradient_loss(lp, old, adv, mask, clip_low=0.1, clip_high=0.6)
    assert loss.item() == pytest.approx(0.36, abs=1e-9)
    assert stats["clip_fraction"].item() == pytest.approx(0.4, abs=1e-9)


def test_mask_excludes_positions():
    lp, old, adv, mask = _inputs()
    loss, _ = clipped_policy_gradient_loss(lp, old, adv, mask)
    # changing anything at the masked position leaves the loss unchanged
    lp2, adv2 = lp.clone(), adv.clone()
    lp2[1, 2] += 5.0
    adv2[1, 2] = 100.0
    loss2, stats2 = clipped_policy_gradient_loss(lp2, old, adv2, mask)
    assert loss2.item() == pytest.approx(loss.item(), abs=1e-12)
    assert stats2["clip_fraction"].item() == pytest.approx(0.8, abs=1e-9)
    # with every position included: sum = 1.9 + 4.0 over 6 tokens
    full, _ = clipped_policy_gradient_loss(lp, old, adv, torch.ones(2, 3))
    assert full.item() == pytest.approx(5.9 / 6, abs=1e-9)


def test_empty_mask_gives_zero_not_nan():
    lp, old, adv, _ = _inputs()
    loss, stats = clipped_policy_gradient_loss(lp, old, adv, torch.zeros(2, 3))
    assert loss.item() == 0.0
    assert stats["clip_fraction"].item() == 0.0


def test_gradient_at_ratio_one_is_the_plain_policy_gradient():
    # with lp_old = lp (ratio 1, inside the clip range), loss = -(1/n) sum_t A_t exp(lp_t - lp_t.detach())
    # so d loss / d theta = -(1/n) sum_t A_t d lp_t / d theta
    torch.manual_seed(0)
    theta = torch.randn(2, 3, 5, requires_grad=True)  # logits of a toy policy over 5 tokens
    targets = torch.tensor([[0, 3, 1], [4, 2, 2]])
    adv = torch.tensor([[0.7, 0.7, 0.7], [-1.3, -1.3, -1.3]])
    mask = torch.tensor([[1.0, 1.0, 0.0], [1.0, 1.0, 1.0]])

    def logprobs():
        return torch.log_softmax(theta, -1).gather(-1, targets.unsqueeze(-1)).squeeze(-1)

    lp = logprobs()
    loss, _ = clipped_policy_gradient_loss(lp, lp.detach(), adv, mask)
    (grad_loss,) = torch.autograd.grad(loss, theta)

    n = mask.sum()  # 5 agent tokens
    (grad_pg,) = torch.autograd.grad((-(adv * logprobs() * mask).sum() / n), theta)
    torch.testing.assert_close(grad_loss, grad_pg)

    # and directly on the log-probs: d loss / d lp_t = -A_t mask_t / n
    lp_leaf = lp.detach().clone().requires_grad_(True)
    loss, _ = clipped_policy_gradient_loss(lp_leaf, lp_leaf.detach(), adv, mask)
    loss.backward()
    torch.testing.assert_close(lp_leaf.grad, -adv * mask / 5)


def test_clipped_ratio_has_no_gradient():
    # r = 1.5 > 1.2 with A > 0: the clipped term is the min and is constant → zero gradient
    lp = torch.tensor([[math.log(1.5)]], requires_grad=True)
    loss, _ = clipped_policy_gradient_loss(lp, torch.zeros(1, 1), torch.ones(1, 1), torch.ones(1, 1))
    loss.backward()
    assert lp.grad.item() == 0.0
    assert loss.item() == pytest.approx(-1.2)


def test_aggregate_unknown_mode_raises():
    with pytest.raises(ValueError, match="unknown loss aggregation 'median'"):
        aggregate(torch.zeros(1, 2), torch.ones(1, 2), "median")


def test_seq_mean_modes_weigh_sequences_not_tokens():
    per_token = torch.tensor([[1.0, 1.0, 1.0, 1.0], [5.0, 0.0, 0.0, 0.0]])
    mask = torch.tensor([[1, 1, 1, 1], [1, 0, 0, 0]])
    assert aggregate(per_token, mask, "token_mean").item() == pytest.approx(9 / 5)  # (4 + 5) / 5 tokens
    assert aggregate(per_token, mask, "seq_mean_token_mean").item() == pytest.approx(3.0)  # (1 + 5) / 2
    assert aggregate(per_token, mask, "seq_mean_token_sum").item() == pytest.approx(4.5)  # (4 + 5) / 2


def test_k3_kl_hand_computed():
    lp = torch.tensor([[0.0, 0.0, -1.0]])
    ref = torch.tensor([[math.log(2), -math.log(2), -1.0]])
    kl = k3_kl(lp, ref)
    # d = ref - lp: log 2 → 2 - log 2 - 1 = 0.306853 ; -log 2 → 0.5 + log 2 - 1 = 0.193147 ; 0 → 0
    expected = torch.tensor([[1 - math.log(2), math.log(2) - 0.5, 0.0]])
    torch.testing.assert_close(kl, expected)


def test_k3_kl_is_zero_when_equal_and_non_negative():
    gen = torch.Generator().manual_seed(1)
    lp = -torch.rand(4, 6, generator=gen) * 3
    assert torch.equal(k3_kl(lp, lp), torch.zeros(4, 6))
    ref = -torch.rand(4, 6, generator=gen) * 3
    assert (k3_kl(lp, ref) > 0).all()


def test_k3_kl_gradient_vanishes_at_equality():
    lp = torch.tensor([-0.5, -2.0], requires_grad=True)
    k3_kl(lp, lp.detach()).sum().backward()
    # d/d lp [exp(ref - lp) - (ref - lp) - 1] = -exp(ref - lp) + 1 = 0 at lp = ref
    assert torch.equal(lp.grad, torch.zeros(2))


def test_clipped_pg_is_registered():
    assert registry.losses.get("clipped_pg") is clipped_policy_gradient_loss
