"""Bytes of training state one process holds: parameters, gradients and optimizer state.

Under FSDP (``use_orig_params``) a parameter outside a forward is a view of this rank's shard, so
the sums below are what the rank holds, and about 1/N of the whole model over N ranks; in one
process, or under DDP, they are the whole model. Logged every step under FSDP (the largest over
the ranks) as ``train/held_*_bytes`` and measured by ``bench/scaling/fsdp_scaling.py``.
"""

from __future__ import annotations

from collections.abc import Iterable

import torch


def tensor_bytes(tensors: Iterable[torch.Tensor | None]) -> int:
    return sum(t.numel() * t.element_size() for t in tensors if isinstance(t, torch.Tensor))


def held_state_bytes(parameters: Iterable[torch.nn.Parameter], optimizer: torch.optim.Optimizer) -> dict[str, int]:
    """``{"parameters", "gradients", "optimizer"}`` bytes held by this process (gradients before
    ``zero_grad``; optimizer state after its first step)."""
    params = list(parameters)
    state = [value for per_param in optimizer.state.values() for value in per_param.values()]
    return {
        "parameters": tensor_bytes(params),
        "gradients": tensor_bytes(p.grad for p in params),
        # a step counter is a 0-d tensor (or a number): state of size, not of the model
        "optimizer": tensor_bytes(v for v in state if isinstance(v, torch.Tensor) and v.dim() > 0),
    }
