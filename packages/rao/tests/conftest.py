"""Shared fixtures of coevo-rao's tests: the forkable ``rao_sums`` test environment (registered
for config-driven runs), a tokenizer and tiny Qwen2 built on its text, and fast train configs."""

from __future__ import annotations

import pytest
import torch
from omegaconf import OmegaConf, open_dict
from rao_sums_env import SumsConfig, SumsEnv

from coevo.core import registry
from coevo.core.agent.prompt import PromptSettings
from coevo.core.cli.config_sources import compose_config
from coevo.core.expert_data import corpus_texts
from coevo.core.policy.tiny import TinyModelConfig, build_tiny_model
from coevo.core.policy.tokenizer import train_bpe_tokenizer
from coevo.core.testing.fast_configs import TINY_MODEL, repository_configs
from coevo.core.testing.fixtures import single_torch_thread  # noqa: F401 (autouse: one torch thread)
from coevo.rao.expert import RecursiveExpert
from coevo.rao.settings import RecursionSettings

CONFIG_DIR = repository_configs(__file__)
PROMPT = PromptSettings(system_prompt="", first_observation="full", history_turns=1)

if "rao_sums" not in registry.envs:
    registry.envs.register("rao_sums", SumsEnv)

FAST = [
    "env=boxes",  # replaced by rao_sums (see compose_train): configs/env/ holds only coevo-envs' presets
    *TINY_MODEL,
    "warmstart.episodes=24",
    "warmstart.sft.epochs=2",
    "warmstart.sft.batch_size=16",
    "algo.tasks_per_step=2",
    "algo.group_size=4",
    "algo.optim.lr=1e-3",
    "algo.report.num_tasks=4",
    "trainer.checkpoint_every=1",
    "trainer.progress_bar=false",
]


@pytest.fixture
def compose_train(tmp_path):
    """``compose_train(*overrides, env={...})`` → a fast ``algo=rao`` config on rao_sums under tmp_path."""

    def _compose(*overrides: str, env: dict | None = None):
        cfg = compose_config("train", ["algo=rao", *FAST, f"warmstart.cache_dir={tmp_path / 'cache'}",
                                              f"run_dir={tmp_path / 'run'}", *overrides], repository=CONFIG_DIR)
        with open_dict(cfg):
            cfg.env = OmegaConf.create({"name": "rao_sums", "length": 4, "leaf": 2, **(env or {})})
        return cfg

    return _compose


@pytest.fixture(scope="session")
def sums_corpus() -> list[str]:
    data = RecursiveExpert(RecursionSettings(), 0.25)(SumsEnv(SumsConfig(length=8)), PROMPT, 12)
    return corpus_texts(data.examples) + ["<action>answer 9</action>", "Malformed delegation", "Refused"]


@pytest.fixture(scope="session")
def tokenizer(sums_corpus):
    return train_bpe_tokenizer(sums_corpus, vocab_size=300)


@pytest.fixture
def tiny_model(tokenizer):
    torch.manual_seed(0)
    return build_tiny_model(TinyModelConfig(hidden_size=32, num_layers=2, num_heads=2, num_kv_heads=1,
                                            intermediate_size=64), tokenizer).eval()
