"""Recovery's objective: token-level forward KL from frozen teachers to the student.

d(T ‖ P_θ) at response position j = Σ_v T(v | ·, y_<j) · (log T(v | ·, y_<j) − log P_θ(v | ·, y_<j)),
summed over the full vocabulary; a record's d is the mean over its response tokens, and

    L_rec(θ) = mean_{D_repair} d(T_repair ‖ P_θ) + λ_keep · mean_{D_keep} d(T_keep ‖ P_θ).
"""

from __future__ import annotations

import torch


def token_forward_kl(
    teacher_logits: torch.Tensor,  # [..., V]
    student_logits: torch.Tensor,  # [..., V]
) -> torch.Tensor:  # [...]: KL(teacher ‖ student) per position, summed over the vocabulary
    t_logp = torch.log_softmax(teacher_logits.float(), dim=-1)
    s_logp = torch.log_softmax(student_logits.float(), dim=-1)
    return (t_logp.exp() * (t_logp - s_logp)).sum(dim=-1)


def record_forward_kl(
    teacher_logits: torch.Tensor,  # [T, V] teacher logits predicting the T response tokens
    student_logits: torch.Tensor,  # [T, V] student logits predicting the same tokens
) -> torch.Tensor:  # scalar: mean over the T response tokens
    return token_forward_kl(teacher_logits, student_logits).mean()


def recovery_loss(
    repair: list[torch.Tensor],  # per-record d(T_repair ‖ P_θ), scalars
    keep: list[torch.Tensor],  # per-record d(T_keep ‖ P_θ), scalars
    lambda_keep: float = 1.0,
) -> torch.Tensor:  # scalar; an empty set contributes 0
    zero = torch.zeros(())
    repair_term = torch.stack(repair).mean() if repair else zero
    keep_term = torch.stack(keep).mean() if keep else zero
    return repair_term + lambda_keep * keep_term
