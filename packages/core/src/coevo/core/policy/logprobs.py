"""Per-token log-probabilities of a causal LM, aligned with the input ids."""

from __future__ import annotations

import torch


def gather_token_logprobs(
    logits: torch.Tensor,  # [B, T, V] logits at positions 0..T-1 (predicting tokens 1..T)
    targets: torch.Tensor,  # [B, T] long, the tokens that were predicted
    temperature: float = 1.0,
) -> torch.Tensor:  # [B, T] float32, log p(targets | context) at the given temperature
    """log_softmax(logits / temperature) gathered at ``targets`` without materialising [B,T,V] twice."""
    logits = logits.float()
    if temperature != 1.0:
        logits = logits / temperature
    picked = logits.gather(-1, targets.unsqueeze(-1)).squeeze(-1)  # [B, T]
    return picked - torch.logsumexp(logits, dim=-1)


def sequence_token_logprobs(
    model: torch.nn.Module,
    input_ids: torch.Tensor,  # [B, T] long
    attention_mask: torch.Tensor,  # [B, T] 1 on real tokens (left or right padding)
    temperature: float = 1.0,
) -> torch.Tensor:  # [B, T]: out[:, t] = log p(input_ids[:, t] | input_ids[:, :t]); out[:, 0] = 0
    """Log-probability of every token given its prefix, aligned so ``out * mask`` needs no shifting."""
    position_ids = (attention_mask.long().cumsum(-1) - 1).clamp(min=0)  # [B, T] works for left padding
    logits = model(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids).logits
    shifted = gather_token_logprobs(logits[:, :-1], input_ids[:, 1:], temperature)  # [B, T-1]
    return torch.cat([shifted.new_zeros(shifted.shape[0], 1), shifted], dim=1)
