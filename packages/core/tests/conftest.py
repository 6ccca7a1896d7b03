"""Shared fixtures of coevo-core's tests: a BPE tokenizer and a tiny Qwen2 trained/built on boxes text.

Everything here runs on CPU without coevo-envs installed.
"""

from __future__ import annotations

import pytest
import torch

from coevo.core.agent.prompt import DEFAULT_SYSTEM_PROMPT
from coevo.core.policy.tiny import TinyModelConfig, build_tiny_model
from coevo.core.policy.tokenizer import train_bpe_tokenizer
from coevo.core.testing import components
from coevo.core.testing.fast_configs import boxes_corpus
from coevo.core.testing.fixtures import single_torch_thread  # noqa: F401 (autouse: one torch thread)

components.register()  # the test-only components (scripted_commits, unequal_forwards): not in the plugin

TINY_CONFIG = TinyModelConfig(hidden_size=32, num_layers=2, num_heads=2, num_kv_heads=1, intermediate_size=64)


@pytest.fixture(scope="session")
def corpus() -> list[str]:
    return boxes_corpus(extra=[DEFAULT_SYSTEM_PROMPT])


@pytest.fixture(scope="session")
def tokenizer(corpus):
    return train_bpe_tokenizer(corpus, vocab_size=300)


@pytest.fixture(scope="session")
def tiny_model(tokenizer):
    """A shared tiny model in eval mode; tests that change weights must use ``fresh_tiny_model``."""
    torch.manual_seed(0)
    return build_tiny_model(TINY_CONFIG, tokenizer).eval()


@pytest.fixture
def fresh_tiny_model(tokenizer):
    """A new tiny model (same seed-0 weights as ``tiny_model``) that a test may modify."""
    return build_tiny_model(TINY_CONFIG, tokenizer).eval()
