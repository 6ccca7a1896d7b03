"""Shared fixtures of coevo-rsipo's tests: config composition for fast CPU runs on core's ``boxes``
env, a byte-level BPE tokenizer and a tiny Qwen2 (as core's tests build them)."""

from __future__ import annotations

import pytest
import torch

from coevo.core.policy.tiny import TinyModelConfig, build_tiny_model
from coevo.core.policy.tokenizer import train_bpe_tokenizer
from coevo.core.testing.boxes_env import BoxesEnv
from coevo.core.testing.fast_configs import FAST_BOXES, boxes_corpus, compose_fast, repository_configs
from coevo.core.testing.fixtures import single_torch_thread  # noqa: F401 (autouse: one torch thread)

CONFIG_DIR = repository_configs(__file__)
FAST = [*FAST_BOXES, "algo.tasks_per_step=2", "algo.optim.lr=1e-3", "trainer.checkpoint_every=1"]
SKILL_TEXTS = ["Skill: go to the box the task names, then open that box.", "<skill>go to the box</skill>",
               "Attempt 1 (success): go to red box > open red box"]


@pytest.fixture(scope="session")
def warmstart_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("warmstart")


@pytest.fixture
def compose_train(tmp_path, warmstart_cache):
    """``compose_train(algo, *overrides)`` → a fast train config writing under tmp_path (warm start shared)."""

    def _compose(algo: str, *overrides: str):
        group = [] if algo == "skill_prompt" else ["algo.group_size=4"]
        return compose_fast(CONFIG_DIR, [f"algo={algo}", *group, *overrides], warmstart_cache, tmp_path / "run", FAST)

    return _compose


@pytest.fixture(scope="session")
def tokenizer():
    return train_bpe_tokenizer(boxes_corpus(extra=SKILL_TEXTS), vocab_size=300)


@pytest.fixture
def tiny_model(tokenizer):
    torch.manual_seed(0)
    return build_tiny_model(TinyModelConfig(hidden_size=32, num_layers=2, num_heads=2, num_kv_heads=1,
                                            intermediate_size=64), tokenizer).eval()


class NoExpertBoxes(BoxesEnv):
    """Boxes without an oracle: what the hindsight skill source must refuse."""

    def expert_action(self):
        return None


@pytest.fixture
def no_expert_boxes():
    """The class of a boxes env whose expert gives no action (call it with a BoxesConfig)."""
    return NoExpertBoxes
