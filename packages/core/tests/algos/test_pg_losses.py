"""Policy-gradient losses (clipped_pg, dapo, gspo, cispo), aggregation modes and the k3 KL, against
hand-computed values."""

from __future__ import annotations

import inspect
import math

import pytest
import torch

from coevo.core import registry
from coevo.core.algos.grpo import GRPOConfig
from coevo.core.algos.losses import (
    AGGREGATIONS,
    aggregate,
    cispo_loss,
    clipped_policy_gradient_loss,
    dapo_loss,
    gspo_loss,
    k3_kl,
)
from coevo.core.config import ConfigError, validate

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


# ---------------------------------------------------------------------------------------------
# dapo, gspo, cispo: the other registered policy losses (algo.loss)

POLICY_LOSSES = {"clipped_pg": clipped_policy_gradient_loss, "dapo": dapo_loss, "gspo": gspo_loss, "cispo": cispo_loss}


def test_policy_losses_are_registered_with_one_signature():
    assert {name: registry.losses.get(name) for name in POLICY_LOSSES} == POLICY_LOSSES
    params = list(inspect.signature(clipped_policy_gradient_loss).parameters)
    for fn in POLICY_LOSSES.values():
        assert list(inspect.signature(fn).parameters) == params
    defaults = {name: inspect.signature(fn).parameters for name, fn in POLICY_LOSSES.items()}
    assert (defaults["dapo"]["clip_low"].default, defaults["dapo"]["clip_high"].default) == (0.2, 0.28)
    assert (defaults["gspo"]["clip_low"].default, defaults["gspo"]["clip_high"].default) == (3e-4, 4e-4)
    assert (defaults["cispo"]["clip_low"].default, defaults["cispo"]["clip_high"].default) == (1.0, 0.28)


def test_dapo_is_clipped_pg_with_clip_higher():
    lp, old, adv, mask = _inputs()  # ratios [[1.0, 1.5, 0.5], [1.5, 0.5, (2.0)]], A = +1 / -2
    # clip range [0.8, 1.28]: row 0: -1.0, -min(1.5, 1.28) = -1.28, -min(0.5, 0.8) = -0.5 → -2.78
    #                         row 1: -min(-3.0, -2.56) = 3.0, -min(-1.0, -1.6) = 1.6 → 4.6
    # token mean = (−2.78 + 4.6) / 5 = 0.364; the clamp changed 1.5, 0.5, 1.5, 0.5 → 4/5
    loss, stats = dapo_loss(lp, old, adv, mask)
    assert loss.item() == pytest.approx(0.364, abs=1e-9)
    assert stats["clip_fraction"].item() == pytest.approx(0.8, abs=1e-9)
    same, _ = clipped_policy_gradient_loss(lp, old, adv, mask, 0.2, 0.28)
    assert torch.equal(loss, same)


def _gspo_inputs(requires_grad: bool = False):
    # token log-ratios d = lp - lp_old; the last token of row 1 is masked (its d = 5.0 is ignored)
    d = torch.tensor([[0.3, 0.0, 0.0], [0.6, 0.0, 5.0]], dtype=torch.float64)
    old = torch.tensor([[-1.0, -2.0, -0.5], [-0.3, -1.2, -2.2]], dtype=torch.float64)
    lp = (old + d).requires_grad_(requires_grad)
    adv = torch.tensor([[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]], dtype=torch.float64)
    return lp, old, adv, torch.tensor(MASK)


# s_0 = exp((0.3 + 0 + 0) / 3) = exp(0.1) = 1.1051709 (inside [0.8, 1.2]); A = +1 → per token -s_0
# s_1 = exp((0.6 + 0) / 2) = exp(0.3) = 1.3498588 (> 1.2), A = +2 → -min(2.6997, 2.4) = -2.4: clipped
S0, S1 = math.exp(0.1), math.exp(0.3)


@pytest.mark.parametrize(
    "mode, expected",
    [
        ("seq_mean_token_mean", (-S0 - 2.4) / 2),  # the paper's mean over sequences: -1.7525855
        ("token_mean", (-3 * S0 - 2 * 2.4) / 5),  # every token carries its sequence's loss: -1.6231026
    ],
)
def test_gspo_hand_computed(mode, expected):
    lp, old, adv, mask = _gspo_inputs(requires_grad=True)
    loss, stats = gspo_loss(lp, old, adv, mask, clip_low=0.2, clip_high=0.2, aggregate_mode=mode)
    assert loss.item() == pytest.approx(expected, abs=1e-9)
    # the clamp changed s_1, on row 1's two agent tokens: 2/5; ratio mean (3 s_0 + 2 s_1) / 5 = 1.2030462
    assert stats["clip_fraction"].item() == pytest.approx(0.4, abs=1e-9)
    assert stats["ratio_mean"].item() == pytest.approx((3 * S0 + 2 * S1) / 5, abs=1e-9)
    loss.backward()
    # d s_0 / d lp_t = s_0 / 3 for each of row 0's tokens; row 1 is clipped (constant): no gradient
    #   seq_mean_token_mean: loss = (-s_0 - 2.4) / 2      → d/d lp_0t = -s_0 / 6 = -0.1841952
    #   token_mean: loss = (3 (-s_0) + 2 (-2.4)) / 5      → d/d lp_0t = -3 s_0 / 3 / 5 = -s_0 / 5 = -0.2210342
    g = -S0 / 6 if mode == "seq_mean_token_mean" else -S0 / 5
    expected_grad = torch.tensor([[g, g, g], [0.0, 0.0, 0.0]], dtype=torch.float64)
    torch.testing.assert_close(lp.grad, expected_grad)


def test_gspo_negative_advantage_keeps_the_larger_loss():
    lp, old, adv, mask = _gspo_inputs(requires_grad=True)
    adv = -adv
    # row 0: -min(-s_0, -s_0) = s_0 ; row 1: A = -2: -min(-2 s_1, -2.4) = 2 s_1 = 2.6997176 (unclipped)
    loss, _ = gspo_loss(lp, old, adv, mask, 0.2, 0.2, "seq_mean_token_mean")
    assert loss.item() == pytest.approx((S0 + 2 * S1) / 2, abs=1e-9)
    loss.backward()
    # row 1: d(2 s_1)/d lp_1t = 2 s_1 / 2 = s_1 on each of its 2 agent tokens, / 2 sequences
    expected = torch.tensor([[S0 / 6] * 3, [S1 / 2, S1 / 2, 0.0]], dtype=torch.float64)
    torch.testing.assert_close(lp.grad, expected)


def test_gspo_with_the_papers_tiny_clips():
    lp, old, adv, mask = _gspo_inputs()
    # [1 - 3e-4, 1 + 4e-4]: both s_0 = 1.105 and s_1 = 1.350 are clipped to 1.0004, A > 0 → -1.0004 A
    loss, stats = gspo_loss(lp, old, adv, mask)  # defaults: 3e-4 / 4e-4, seq_mean_token_mean
    assert loss.item() == pytest.approx((-1.0004 - 2 * 1.0004) / 2, abs=1e-12)
    assert stats["clip_fraction"].item() == pytest.approx(1.0)


def _cispo_inputs(requires_grad: bool = False):
    lp = torch.tensor([[-1.0, -2.0, -0.5], [-0.5, -1.0, -2.0]], dtype=torch.float64)
    old = lp - torch.log(torch.tensor(RATIOS, dtype=torch.float64))  # ratios [[1, 1.5, 0.5], [1.5, 0.5, 2]]
    return lp.clone().requires_grad_(requires_grad), old, torch.tensor(ADVANTAGES, dtype=torch.float64), \
        torch.tensor(MASK)


def test_cispo_hand_computed():
    lp, old, adv, mask = _cispo_inputs(requires_grad=True)
    # clip range [0.8, 1.2]: weights w = sg(clip(r)) = [[1.0, 1.2, 0.8], [1.2, 0.8, (1.2)]]
    # per-token -w A lp: row 0 (A=+1): -1.0(-1.0) = 1.0, -1.2(-2.0) = 2.4, -0.8(-0.5) = 0.4 → 3.8
    #                    row 1 (A=-2): -1.2(-2)(-0.5) = -1.2, -0.8(-2)(-1.0) = -1.6 → -2.8 (masked: -4.8)
    loss, stats = cispo_loss(lp, old, adv, mask, clip_low=0.2, clip_high=0.2)
    assert loss.item() == pytest.approx((3.8 - 2.8) / 5, abs=1e-9)  # 0.2
    assert stats["clip_fraction"].item() == pytest.approx(0.8, abs=1e-9)  # 1.5, 0.5, 1.5, 0.5 clamped
    assert stats["ratio_mean"].item() == pytest.approx(1.0, abs=1e-9)
    loss.backward()
    # d/d lp_t = -w_t A_t / 5: row 0: -0.2, -0.24, -0.16 ; row 1: 0.48, 0.32, 0 (masked)
    expected = torch.tensor([[-0.2, -0.24, -0.16], [0.48, 0.32, 0.0]], dtype=torch.float64)
    torch.testing.assert_close(lp.grad, expected)
    seq_mean, _ = cispo_loss(lp, old, adv, mask, 0.2, 0.2, "seq_mean_token_mean")
    assert seq_mean.item() == pytest.approx((3.8 / 3 - 2.8 / 2) / 2, abs=1e-9)  # -0.0666667


def test_cispo_keeps_the_gradient_of_a_clipped_token():
    # r = 1.5 > 1.2 with A > 0: clipped_pg's min picks the constant clipped term (gradient 0, see
    # test_clipped_ratio_has_no_gradient); cispo's is -clip(r) A = -1.2
    for fn, grad in ((clipped_policy_gradient_loss, 0.0), (cispo_loss, -1.2)):
        lp = torch.tensor([[math.log(1.5)]], dtype=torch.float64, requires_grad=True)
        loss, stats = fn(lp, torch.zeros(1, 1, dtype=torch.float64), torch.ones(1, 1), torch.ones(1, 1), 0.2, 0.2)
        loss.backward()
        assert lp.grad.item() == pytest.approx(grad, abs=1e-12)
        assert stats["clip_fraction"].item() == 1.0
    # the weight also bounds a ratio far out: r = e^50, A = -1 → d/d lp = +1.2 (clipped_pg: -r A = e^50)
    lp = torch.tensor([[50.0]], requires_grad=True)
    cispo_loss(lp, torch.zeros(1, 1), -torch.ones(1, 1), torch.ones(1, 1), 0.2, 0.2)[0].backward()
    assert lp.grad.item() == pytest.approx(1.2)


def _toy_policy():
    torch.manual_seed(0)
    theta = torch.randn(2, 3, 5, requires_grad=True)  # logits of a toy policy over 5 tokens
    targets = torch.tensor([[0, 3, 1], [4, 2, 2]])
    return theta, lambda: torch.log_softmax(theta, -1).gather(-1, targets.unsqueeze(-1)).squeeze(-1)


@pytest.mark.parametrize("name", ["clipped_pg", "dapo", "cispo"])
def test_token_losses_at_ratio_one_give_the_plain_policy_gradient(name):
    # lp_old = lp: d loss / d theta = -(1/n) sum_t A_t d lp_t / d theta (n = 5 agent tokens)
    theta, logprobs = _toy_policy()
    adv = torch.tensor([[0.7, 0.7, 0.7], [-1.3, -1.3, -1.3]])
    mask = torch.tensor([[1.0, 1.0, 0.0], [1.0, 1.0, 1.0]])
    lp = logprobs()
    (got,) = torch.autograd.grad(POLICY_LOSSES[name](lp, lp.detach(), adv, mask, 0.2, 0.2)[0], theta)
    (want,) = torch.autograd.grad(-(adv * logprobs() * mask).sum() / 5, theta)
    torch.testing.assert_close(got, want)


def test_gspo_at_ratio_one_gives_the_sequence_averaged_policy_gradient():
    # s_i = 1 inside the clip: seq_mean_token_mean gives d/d lp_t = -A_i / (B |y_i|), the policy
    # gradient of each sequence's mean log-prob (token_mean: -A_i / n, the same as clipped_pg)
    theta, logprobs = _toy_policy()
    adv = torch.tensor([[0.7, 0.7, 0.7], [-1.3, -1.3, -1.3]])
    mask = torch.tensor([[1.0, 1.0, 0.0], [1.0, 1.0, 1.0]])
    lp = logprobs()
    (got,) = torch.autograd.grad(gspo_loss(lp, lp.detach(), adv, mask)[0], theta)
    per_seq = (adv * logprobs() * mask).sum(-1) / mask.sum(-1)  # [B]
    (want,) = torch.autograd.grad(-per_seq.mean(), theta)
    torch.testing.assert_close(got, want)
    lp = logprobs()
    (got,) = torch.autograd.grad(gspo_loss(lp, lp.detach(), adv, mask, aggregate_mode="token_mean")[0], theta)
    lp = logprobs()
    (want,) = torch.autograd.grad(clipped_policy_gradient_loss(lp, lp.detach(), adv, mask)[0], theta)
    torch.testing.assert_close(got, want)


@pytest.mark.parametrize("mode", AGGREGATIONS)
def test_gspo_with_one_token_per_sequence_is_clipped_pg(mode):
    gen = torch.Generator().manual_seed(3)
    old = -torch.rand(6, 1, generator=gen, dtype=torch.float64) * 3  # [B, 1]: one token per sequence
    log_ratio = (torch.rand(6, 1, generator=gen, dtype=torch.float64) - 0.5)  # ratios 0.61 .. 1.65
    adv = torch.randn(6, 1, generator=gen, dtype=torch.float64)
    mask = torch.tensor([[1], [1], [0], [1], [1], [1]])
    results = []
    for fn in (gspo_loss, clipped_policy_gradient_loss):
        lp = (old + log_ratio).requires_grad_(True)
        loss, stats = fn(lp, old, adv, mask, 0.2, 0.25, mode)
        loss.backward()
        results.append((loss, lp.grad, stats))
    (loss_g, grad_g, stats_g), (loss_c, grad_c, stats_c) = results
    torch.testing.assert_close(loss_g, loss_c)
    torch.testing.assert_close(grad_g, grad_c)
    assert 0 < stats_c["clip_fraction"].item() < 1  # both clipped and unclipped sequences are in it
    for key in ("clip_fraction", "ratio_mean"):
        torch.testing.assert_close(stats_g[key], stats_c[key])


@pytest.mark.parametrize("name", sorted(POLICY_LOSSES))
def test_an_all_masked_row_changes_nothing(name):
    fn = POLICY_LOSSES[name]
    lp, old, adv, mask = _cispo_inputs()
    extra = torch.tensor([[-0.1, -9.0, -3.0]], dtype=torch.float64)  # a row of no agent token
    with_row = fn(torch.cat([lp, extra]), torch.cat([old, extra - 7.0]), torch.cat([adv, 5 * torch.ones(1, 3)]),
                  torch.cat([mask, torch.zeros(1, 3, dtype=mask.dtype)]), 0.2, 0.2, "token_mean")
    without = fn(lp, old, adv, mask, 0.2, 0.2, "token_mean")
    torch.testing.assert_close(with_row[0], without[0])
    torch.testing.assert_close(with_row[1]["clip_fraction"], without[1]["clip_fraction"])
    for mode in AGGREGATIONS:  # nothing at all to learn from: 0, not NaN
        loss, stats = fn(lp, old, adv, torch.zeros(2, 3), 0.2, 0.2, mode)
        assert loss.item() == 0.0 and stats["clip_fraction"].item() == 0.0


@pytest.mark.parametrize("name", sorted(POLICY_LOSSES))
def test_zero_advantages_give_zero_loss_and_gradient(name):
    lp, old, _, mask = _cispo_inputs(requires_grad=True)
    loss, _ = POLICY_LOSSES[name](lp, old, torch.zeros(2, 3, dtype=torch.float64), mask, 0.2, 0.2)
    loss.backward()
    assert loss.item() == 0.0
    assert torch.equal(lp.grad, torch.zeros(2, 3, dtype=torch.float64))


@pytest.mark.parametrize("name", ["gspo", "cispo"])
@pytest.mark.parametrize("log_ratio", [-1e4, 1e4, 88.0, -88.0])
def test_huge_log_ratios_give_finite_losses_and_gradients(name, log_ratio):
    # fp32: exp(88.7) overflows; cispo's weight is clamped, gspo caps log s_i at GSPO_MAX_LOG_RATIO.
    # (clipped_pg's -r A is unbounded for A < 0 by design: PPO's surrogate, untouched here.)
    old = torch.tensor([[-1.0, -2.0, -0.5], [-0.3, -1.2, -2.2]])
    for sign in (1.0, -1.0):
        lp = (old + log_ratio).requires_grad_(True)
        adv = sign * torch.tensor([[1.0, 1.0, 1.0], [-2.0, -2.0, -2.0]])
        loss, stats = POLICY_LOSSES[name](lp, old, adv, torch.tensor(MASK), 0.2, 0.2)
        loss.backward()
        assert torch.isfinite(loss) and torch.isfinite(lp.grad).all()
        assert torch.isfinite(stats["clip_fraction"])


def test_gspo_ignores_whatever_sits_at_masked_positions():
    lp, old, adv, mask = _gspo_inputs()
    loss, _ = gspo_loss(lp, old, adv, mask, 0.2, 0.2)
    lp2 = lp.clone()
    lp2[1, 2] = float("inf")  # a padded position's log-ratio must not enter s_1
    loss2, _ = gspo_loss(lp2, old, adv, mask, 0.2, 0.2)
    assert loss2.item() == pytest.approx(loss.item(), abs=1e-12)


def test_algo_loss_chooses_a_registered_loss():
    for name, fn in POLICY_LOSSES.items():
        config = GRPOConfig(loss=name)
        assert registry.losses.get(config.loss) is fn  # what GRPO.__init__ looks up
    assert GRPOConfig().loss == "clipped_pg"
    with pytest.raises(ValueError) as info:
        GRPOConfig(loss="ppo")
    assert str(info.value) == "algo.loss: unknown 'ppo'; choose one of ['cispo', 'clipped_pg', 'dapo', 'gspo']"
    with pytest.raises(ConfigError, match=r"algo\.loss.*unknown 'grpo'; choose one of \['cispo', 'clipped_pg'"):
        validate({"loss": "grpo"}, GRPOConfig, "algo")
    assert validate({"loss": "gspo", "clip_low": 3e-4, "clip_high": 4e-4}, GRPOConfig, "algo").loss == "gspo"
