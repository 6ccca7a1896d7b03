"""Compose the repository's Hydra configs for a fast CPU run on the ``boxes`` env with a tiny model."""

import pytest

from coevo.core.testing.fast_configs import FAST_BOXES, TINY_MODEL, compose_fast, repository_configs

CONFIG_DIR = repository_configs(__file__)
FAST = [*FAST_BOXES, "algo.tasks_per_step=2", "algo.group_size=4", "algo.optim.lr=1e-3", "trainer.checkpoint_every=1"]


@pytest.fixture
def compose_train(tmp_path):
    """``compose_train(*overrides)`` → a train config writing under tmp_path (cache shared per test)."""

    def _compose(*overrides: str):
        base = FAST if "model=hf" not in overrides else [o for o in FAST if o not in TINY_MODEL]
        return compose_fast(CONFIG_DIR, overrides, tmp_path / "cache", tmp_path / "run", base)

    return _compose
