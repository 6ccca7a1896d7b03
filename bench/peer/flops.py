"""Model FLOPs of a training step and the machine's measured matmul peak (for MFU).

Model FLOPs follow the usual convention (PaLM's MFU): a forward pass costs 2 FLOPs per weight of
every matmul (attention projections, MLP, LM head; not the embedding lookup) per token, plus
causal attention, 2 x heads x head_dim x n^2 per layer for a sequence of n tokens (QK^T and AV over
the n^2 / 2 visible pairs); backward costs twice the forward. Padding and any work an
implementation saves or wastes do not count: the numerator is what the model needs.
"""

from __future__ import annotations

import time

import torch


def forward_flops_per_token(config) -> float:
    """2 x the matmul weights one token passes through (all layers and the LM head)."""
    d = config.hidden_size
    heads = config.num_attention_heads
    kv = getattr(config, "num_key_value_heads", heads)
    head_dim = getattr(config, "head_dim", None) or d // heads
    attention = d * heads * head_dim + 2 * d * kv * head_dim + heads * head_dim * d
    mlp = 3 * d * config.intermediate_size
    return 2.0 * (config.num_hidden_layers * (attention + mlp) + d * config.vocab_size)


def training_flops(config, tokens: float, tokens_sq: float) -> float:
    """Forward + backward FLOPs of sequences with ``tokens`` tokens in all and ``tokens_sq`` = sum of n^2."""
    heads = config.num_attention_heads
    head_dim = getattr(config, "head_dim", None) or config.hidden_size // heads
    forward = forward_flops_per_token(config) * tokens + 2.0 * config.num_hidden_layers * heads * head_dim * tokens_sq
    return 3.0 * forward


def matmul_peak(threads: int, size: int = 2048, repeats: int = 5) -> float:
    """Best FLOP/s of a ``size`` x ``size`` fp32 matmul with ``threads`` torch threads."""
    saved = torch.get_num_threads()
    torch.set_num_threads(threads)
    a, b = torch.randn(size, size), torch.randn(size, size)
    a @ b  # warm-up
    best = 0.0
    for _ in range(repeats):
        start = time.perf_counter()
        a @ b
        best = max(best, 2.0 * size**3 / (time.perf_counter() - start))
    torch.set_num_threads(saved)
    return best
