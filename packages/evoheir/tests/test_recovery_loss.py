"""Recovery's token-level forward KL on a 3-token vocabulary, worked out by hand."""

import math

import pytest
import torch

from coevo.evoheir.recovery_loss import record_forward_kl, recovery_loss, token_forward_kl

LN2 = math.log(2)


def _logits(probs):
    return torch.tensor(probs).log()


def test_forward_kl_on_three_tokens():
    # token 1: T = [1/2, 1/4, 1/4], P = [1/4, 1/4, 1/2]
    #   KL = 1/2·ln(2) + 1/4·ln(1) + 1/4·ln(1/2) = ln2/4 = 0.1732868
    # token 2: T = [1/3, 1/3, 1/3], P = [1/2, 1/4, 1/4]
    #   KL = 1/3·(ln(2/3) + 2·ln(4/3)) = 1/3·(−0.4054651 + 0.5753641) = 0.0566330
    teacher = torch.stack([_logits([0.5, 0.25, 0.25]), torch.zeros(3)])  # [T=2, V=3]
    student = torch.stack([_logits([0.25, 0.25, 0.5]), _logits([0.5, 0.25, 0.25])]) + 7.0  # shift: same softmax
    per_token = token_forward_kl(teacher, student)
    assert per_token.tolist() == pytest.approx([LN2 / 4, 0.0566330], abs=1e-6)
    # a record's d is the mean over its response tokens: (0.1732868 + 0.0566330) / 2 = 0.1149599
    assert float(record_forward_kl(teacher, student)) == pytest.approx(0.1149599, abs=1e-6)
    # forward, not reverse: KL(P‖T) of token 1 is 1/4·ln(1/2) + 1/2·ln 2 = ln2/4 too, but token 2
    # differs: 1/2·ln(3/2) + 2·1/4·ln(3/4) = 0.2027326 − 0.1438410 = 0.0588915
    assert float(token_forward_kl(student[1], teacher[1])) == pytest.approx(0.0588915, abs=1e-6)


def test_gradient_pulls_the_student_towards_the_teacher():
    # d KL(T‖softmax(s)) / d s = softmax(s) − T: for token 1, [1/4 − 1/2, 0, 1/2 − 1/4]
    teacher = _logits([0.5, 0.25, 0.25])
    student = _logits([0.25, 0.25, 0.5]).requires_grad_(True)
    token_forward_kl(teacher, student).backward()
    assert student.grad.tolist() == pytest.approx([-0.25, 0.0, 0.25], abs=1e-6)


def test_recovery_loss_combines_repair_and_keep():
    # L = mean_repair d + λ_keep·mean_keep d = 0.1149599 + 0.5·0.1732868 = 0.2016033
    repair = [torch.tensor(0.1149599)]
    keep = [torch.tensor(LN2 / 4)]
    assert float(recovery_loss(repair, keep, lambda_keep=0.5)) == pytest.approx(0.2016033, abs=1e-6)
    # means, not sums: two identical repair records weigh as one
    assert float(recovery_loss(repair * 2, [], 1.0)) == pytest.approx(0.1149599, abs=1e-6)
    assert float(recovery_loss([], [], 1.0)) == 0.0
