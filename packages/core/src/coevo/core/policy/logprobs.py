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
    first_position: int = 1,
) -> torch.Tensor:  # [B, T]: out[:, t] = log p(input_ids[:, t] | input_ids[:, :t]) for t >= first_position, else 0
    """Log-probability of every token given its prefix, aligned so ``out * mask`` needs no shifting.

    Only positions from ``first_position`` on are computed (e.g. a batch's first response token):
    the LM head and the log-softmax then skip the prompt, which is most of a sequence in agent
    turns; earlier positions are 0. No KV cache is built (one full-sequence pass).
    """
    width = input_ids.shape[1]
    first_position = max(1, min(first_position, width))
    position_ids = (attention_mask.long().cumsum(-1) - 1).clamp(min=0)  # [B, T] works for left padding
    logits = model(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids,
                   use_cache=False, logits_to_keep=width - first_position + 1).logits  # [B, T - first + 1, V]
    shifted = gather_token_logprobs(logits[:, :-1], input_ids[:, first_position:], temperature)  # [B, T - first]
    return torch.cat([shifted.new_zeros(shifted.shape[0], first_position), shifted], dim=1)
