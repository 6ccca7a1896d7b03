"""Shared fixtures: compose the repository's Hydra configs for fast CPU runs (boxes or math, tiny model)."""

from pathlib import Path

import pytest
import torch
from hydra import compose, initialize_config_dir

CONFIG_DIR = str(Path(__file__).resolve().parents[3] / "configs")

TINY_MODEL = [
    "model.hidden_size=32",
    "model.num_layers=2",
    "model.num_heads=2",
    "model.num_kv_heads=1",
    "model.intermediate_size=64",
    "model.vocab_size=300",
]

FAST_BOXES = [
    "env=boxes",
    *TINY_MODEL,
    "warmstart.episodes=40",
    "warmstart.sft.epochs=2",
    "warmstart.sft.batch_size=16",
    "eval.num_tasks=6",
    "trainer.checkpoint_every=100",
    "trainer.progress_bar=false",
]

FAST_MATH = [
    "env=math",
    "algo=evoheir",
    *TINY_MODEL,
    "warmstart.episodes=40",
    "warmstart.sft.epochs=2",
    "warmstart.sft.batch_size=16",
    "eval.num_tasks=4",
    "agent.sampling.max_new_tokens=16",
    "trainer.checkpoint_every=100",
    "trainer.progress_bar=false",
]


@pytest.fixture(autouse=True)
def _single_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture
def compose_train(tmp_path):
    """``compose_train(*overrides)`` → a train config writing under tmp_path."""

    def _compose(*overrides: str, base=FAST_BOXES):
        with initialize_config_dir(config_dir=CONFIG_DIR, version_base="1.3"):
            return compose(
                "train",
                overrides=[*base, f"warmstart.cache_dir={tmp_path / 'cache'}", f"run_dir={tmp_path / 'run'}", *overrides],
            )

    return _compose
