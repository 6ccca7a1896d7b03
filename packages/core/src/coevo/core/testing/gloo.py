"""Tests over real gloo processes without the CLI: ``run_on_ranks(fn, folder)`` runs
``fn(rank, *args)`` in ``world_size`` processes (``torch.multiprocessing``) joined in one gloo process
group, and returns ``{rank: what fn returned}``; ``tiny_model()`` builds the tiny Qwen2 with a BPE
tokenizer trained on the boxes corpus, the same weights on every rank (fixed seed, no download).

A collective that the ranks do not all reach fails after ``timeout_s`` seconds instead of hanging
the test. ``fn`` must be a module-level function (it is pickled into the processes).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from coevo.core.policy.tiny import TinyModelConfig, build_tiny_model
from coevo.core.policy.tokenizer import train_bpe_tokenizer
from coevo.core.testing.fast_configs import boxes_corpus


def tiny_model_and_tokenizer(num_layers: int = 2):
    """The tiny Qwen2 (hidden 32, ``num_layers`` decoder layers) and its 300-token boxes tokenizer."""
    tokenizer = train_bpe_tokenizer(boxes_corpus(), vocab_size=300)
    model = build_tiny_model(TinyModelConfig(hidden_size=32, num_layers=num_layers, num_heads=2, num_kv_heads=1,
                                             intermediate_size=64), tokenizer)
    return model, tokenizer


def tiny_model(num_layers: int = 2):
    """The tiny Qwen2 of :func:`tiny_model_and_tokenizer`, without its tokenizer."""
    return tiny_model_and_tokenizer(num_layers)[0]


def run_on_ranks(fn: Callable[..., Any], folder: Path, *args: Any, world_size: int = 2,
                 timeout_s: float = 60) -> dict[int, Any]:
    """``{rank: fn(rank, *args)}`` over ``world_size`` gloo processes (their store file in ``folder``)."""
    results = mp.Manager().dict()
    mp.spawn(_entry, args=(fn, str(Path(folder) / "store"), world_size, timeout_s, results, args),
             nprocs=world_size, join=True)
    return dict(results)


def _entry(rank: int, fn, store: str, world_size: int, timeout_s: float, results, args) -> None:
    torch.set_num_threads(1)
    dist.init_process_group("gloo", store=dist.FileStore(store, world_size), rank=rank, world_size=world_size,
                            timeout=timedelta(seconds=timeout_s))
    try:
        results[rank] = fn(rank, *args)
    finally:
        dist.destroy_process_group()
