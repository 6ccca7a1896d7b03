"""Shared fixtures of coevo-rsipo's tests: config composition for fast CPU runs on core's ``boxes``
env, a byte-level BPE tokenizer and a tiny Qwen2 (as core's tests build them)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from hydra import compose, initialize_config_dir

from coevo.core.agent.parsing import format_action
from coevo.core.policy.tiny import TinyModelConfig, build_tiny_model
from coevo.core.policy.tokenizer import train_bpe_tokenizer
from coevo.core.testing.boxes_env import BoxesConfig, BoxesEnv

CONFIG_DIR = str(Path(__file__).resolve().parents[3] / "configs")

FAST = [
    "env=boxes",
    "model.hidden_size=32",
    "model.num_layers=2",
    "model.num_heads=2",
    "model.num_kv_heads=1",
    "model.intermediate_size=64",
    "model.vocab_size=300",
    "warmstart.episodes=40",
    "warmstart.sft.epochs=2",
    "warmstart.sft.batch_size=16",
    "algo.tasks_per_step=2",
    "algo.optim.lr=1e-3",
    "eval.num_tasks=6",
    "trainer.checkpoint_every=1",
    "trainer.progress_bar=false",
]


@pytest.fixture(scope="session", autouse=True)
def _single_thread_torch():
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(previous)


@pytest.fixture(scope="session")
def warmstart_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("warmstart")


@pytest.fixture
def compose_train(tmp_path, warmstart_cache):
    """``compose_train(algo, *overrides)`` → a fast train config writing under tmp_path (warm start shared)."""

    def _compose(algo: str, *overrides: str):
        group = [] if algo == "skill_prompt" else ["algo.group_size=4"]
        with initialize_config_dir(config_dir=CONFIG_DIR, version_base="1.3"):
            return compose("train", overrides=[f"algo={algo}", *FAST, *group, f"warmstart.cache_dir={warmstart_cache}",
                                               f"run_dir={tmp_path / 'run'}", *overrides])

    return _compose


def boxes_corpus(num_tasks: int = 24) -> list[str]:
    env = BoxesEnv(BoxesConfig(num_boxes=4))
    texts = [env.invalid_observation, "Skill: go to the box the task names, then open that box.",
             "<skill>go to the box</skill>", "Attempt 1 (success): go to red box > open red box"]
    for index in range(num_tasks):
        texts.append(env.reset(env.task("train", index)))
        while True:
            texts += [format_action(a) for a in env.admissible_actions()]
            texts.append("Memory: " + env.memory())
            result = env.step(env.expert_action())
            texts.append(result.observation)
            if result.done:
                break
    return texts


@pytest.fixture(scope="session")
def tokenizer():
    return train_bpe_tokenizer(boxes_corpus(), vocab_size=300)


@pytest.fixture
def tiny_model(tokenizer):
    torch.manual_seed(0)
    return build_tiny_model(TinyModelConfig(hidden_size=32, num_layers=2, num_heads=2, num_kv_heads=1,
                                            intermediate_size=64), tokenizer).eval()
