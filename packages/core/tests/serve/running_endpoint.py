"""A real endpoint for the serve tests: uvicorn on a free loopback port over the tiny model's hf engine,
and the direct engine call a request must reproduce."""

from __future__ import annotations

import torch

from coevo.core.rollout.engine import SamplingSettings
from coevo.core.rollout.hf_engine import HFEngine
from coevo.core.serve.background import BackgroundServer
from coevo.core.serve.settings import ServerSettings

MODEL = "coevo-policy"


def start(model, tokenizer, **settings) -> BackgroundServer:
    """A started server on 127.0.0.1, any free port (``settings``: ``server.*`` overrides)."""
    return BackgroundServer(HFEngine(None, model, tokenizer), tokenizer,
                            ServerSettings(host="127.0.0.1", port=0, **settings)).start()


def direct(model, tokenizer, prompt: list[int], seed: int, n: int = 1, temperature: float = 1.0, top_p: float = 1.0,
           max_tokens: int = 16):
    """What the engine itself generates for ``prompt`` with ``seed``: the reference of every trace."""
    engine = HFEngine(None, model, tokenizer)
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        return engine.generate([prompt] * n, SamplingSettings(temperature, top_p if temperature > 0 else 1.0,
                                                              max_tokens))
