"""Gradient direction of each loss term on a toy policy, and ω = 0 switching OPSD off."""

import pytest
import torch

from coevo.core.algos.losses import clipped_policy_gradient_loss
from coevo.rsipo.losses import opsd_loss


def _toy():
    """Two rows, two tokens each, over a 3-word vocabulary: logits are the parameters."""
    torch.manual_seed(0)
    logits = torch.zeros(2, 2, 3, requires_grad=True)  # [B, T, V] uniform: log p = −log 3 everywhere
    tokens = torch.tensor([[0, 1], [2, 0]])  # [B, T]
    return logits, tokens


def _logprobs(logits, tokens):  # [B, T]
    return torch.log_softmax(logits, -1).gather(-1, tokens[..., None]).squeeze(-1)


def _step(loss, logits, lr=0.5):
    (grad,) = torch.autograd.grad(loss, logits)
    return (logits - lr * grad).detach(), grad


def test_opsd_moves_towards_the_teacher():
    logits, tokens = _toy()
    lp = _logprobs(logits, tokens)
    # the teacher gives row 0's tokens more probability than the student (a > 0), row 1's less (a < 0)
    teacher = torch.stack([lp[0].detach() + 0.5, lp[1].detach() - 0.5])  # [B, T]
    mask = torch.ones(2, 2)
    loss, stats = opsd_loss(lp, teacher, torch.tensor([1.0, 1.0]), mask)
    assert stats["gap_mean"].item() == pytest.approx(0.0)  # +0.5 and −0.5
    assert stats["teacher_prefers_sum"].item() == 2
    new, _ = _step(loss, logits)
    new_lp = _logprobs(new, tokens)
    assert (new_lp[0] > lp[0]).all()  # pushed up where the teacher prefers the token
    assert (new_lp[1] < lp[1]).all()  # pushed down where it does not
    # value: −Σ ω a log p / 4 = −(0.5·2·(−log 3) − 0.5·2·(−log 3)) / 4 = 0
    assert loss.item() == pytest.approx(0.0, abs=1e-6)


def test_omega_zero_gives_zero_opsd_gradient_for_that_task():
    logits, tokens = _toy()
    lp = _logprobs(logits, tokens)
    teacher = lp.detach() + torch.tensor([[0.7, -0.3], [0.4, 0.9]])
    loss, _ = opsd_loss(lp, teacher, torch.tensor([0.0, 1.5]), torch.ones(2, 2))
    (grad,) = torch.autograd.grad(loss, logits)
    assert torch.equal(grad[0], torch.zeros_like(grad[0]))  # ω = 0: exactly no gradient
    assert grad[1].abs().sum() > 0
    # ω scales the gradient linearly: ω = 1.5 gives 1.5 times the ω = 1 gradient
    lp = _logprobs(logits, tokens)
    loss_one, _ = opsd_loss(lp, teacher, torch.tensor([0.0, 1.0]), torch.ones(2, 2))
    (grad_one,) = torch.autograd.grad(loss_one, logits)
    assert torch.allclose(grad[1], 1.5 * grad_one[1])


def test_masked_tokens_get_no_opsd_gradient():
    logits, tokens = _toy()
    lp = _logprobs(logits, tokens)
    mask = torch.tensor([[0.0, 1.0], [1.0, 1.0]])
    loss, _ = opsd_loss(lp, lp.detach() + 1.0, torch.ones(2), mask)
    (grad,) = torch.autograd.grad(loss, logits)
    assert torch.equal(grad[0, 0], torch.zeros(3))
    # normaliser: the 3 unmasked tokens; each term −1·1·(−log 3) → loss = log 3
    assert loss.item() == pytest.approx(torch.log(torch.tensor(3.0)).item())


@pytest.mark.parametrize("advantage, direction", [(1.0, 1), (-1.0, -1)])
def test_rlvr_and_skill_policy_gradient_direction(advantage, direction):
    # L_RLVR and L_skill are the same (on-policy, ratio 1) policy-gradient loss: a positive
    # advantage (episode above its group mean / skill with positive centred replay gain) raises
    # the log-probability of its tokens, a negative one lowers it
    logits, tokens = _toy()
    lp = _logprobs(logits, tokens)
    adv = torch.full((2, 2), advantage)
    loss, _ = clipped_policy_gradient_loss(lp, lp.detach(), adv, torch.ones(2, 2))
    new, _ = _step(loss, logits)
    change = _logprobs(new, tokens) - lp.detach()
    assert (torch.sign(change) == direction).all()
