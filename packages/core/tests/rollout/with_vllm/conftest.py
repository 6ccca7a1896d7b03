"""Fixtures of the vLLM engine tests (``make test-vllm``, own venv ``.venvs/vllm``).

Without vLLM these tests skip (the core venv has none), unless ``COEVO_REQUIRE_VLLM=1`` (set by
``.ci/test_vllm.sh``), where a missing vLLM is an error. The model is a random tiny Qwen2 with
head_dim 32 (vLLM's CPU attention has no 16), its weights spread so that greedy decoding varies.
"""

from __future__ import annotations

import importlib.util
import os

import pytest
import torch

from coevo.core.policy.tiny import TinyModelConfig, build_tiny_model

if importlib.util.find_spec("vllm") is None and os.environ.get("COEVO_REQUIRE_VLLM"):
    raise RuntimeError("COEVO_REQUIRE_VLLM=1 but vLLM is not importable: run `make install-vllm`")

VLLM_TINY = TinyModelConfig(hidden_size=64, num_layers=2, num_heads=2, num_kv_heads=1, intermediate_size=128)


def build_model(tokenizer, spread: float = 0.15):
    """The tiny model with extra seeded noise on every weight (sharper, more varied predictions)."""
    torch.manual_seed(0)
    model = build_tiny_model(VLLM_TINY, tokenizer).eval()
    generator = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() == 2:
                p.add_(torch.randn(p.shape, generator=generator) * spread)
    return model


@pytest.fixture
def make_model(tokenizer):
    """``make_model()`` → a new copy of the test model (for tests that change weights)."""
    return lambda: build_model(tokenizer)


@pytest.fixture(scope="module")
def vllm_model(tokenizer):
    return build_model(tokenizer)


@pytest.fixture(scope="module")
def vllm_engine(vllm_model, tokenizer):
    from coevo.core.rollout.vllm_engine import VLLMEngine

    engine = VLLMEngine(None, vllm_model, tokenizer)
    yield engine
    engine.close()


@pytest.fixture
def prompts(tokenizer):
    texts = ["You are in a room. You see a red box, a blue box, a green box.", "You arrive at the red box.",
             "Nothing happens.", "Your task is to: open the yellow box. Memory: visited: nothing"]
    return [tokenizer.encode(t, add_special_tokens=False) for t in texts]
