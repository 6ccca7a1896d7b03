"""Compose the repository's Hydra configs for a fast CPU run on the ``boxes`` env with a tiny model."""

from pathlib import Path

import pytest
import torch
from hydra import compose, initialize_config_dir

CONFIG_DIR = str(Path(__file__).resolve().parents[4] / "configs")

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
    "algo.group_size=4",
    "algo.optim.lr=1e-3",
    "eval.num_tasks=6",
    "trainer.checkpoint_every=1",
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
    """``compose_train(*overrides)`` → a train config writing under tmp_path (cache shared per test)."""

    def _compose(*overrides: str):
        fast = FAST if "model=hf" not in overrides else [o for o in FAST if not o.startswith("model.")]
        with initialize_config_dir(config_dir=CONFIG_DIR, version_base="1.3"):
            return compose(
                "train",
                overrides=[*fast, f"warmstart.cache_dir={tmp_path / 'cache'}", f"run_dir={tmp_path / 'run'}", *overrides],
            )

    return _compose
