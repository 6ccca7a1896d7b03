"""Shared fixtures: compose the repository's Hydra configs for fast CPU runs (boxes or math, tiny model)."""

import pytest

from coevo.core.testing import fast_configs
from coevo.core.testing.fast_configs import FAST_WARMSTART, TINY_MODEL, compose_fast
from coevo.core.testing.fixtures import single_torch_thread  # noqa: F401 (autouse: one torch thread)

CONFIG_DIR = fast_configs.repository_configs(__file__)
FAST_BOXES = [*fast_configs.FAST_BOXES, "trainer.checkpoint_every=100"]
FAST_MATH = [
    "env=math",
    "algo=evoheir",
    *TINY_MODEL,
    *FAST_WARMSTART,
    "eval.num_tasks=4",
    "agent.sampling.max_new_tokens=16",
    "trainer.checkpoint_every=100",
    "trainer.progress_bar=false",
    "algo.recovery.enabled=true",  # the tiny model's preset turns Recovery off; these runs go through every phase
]


@pytest.fixture
def compose_train(tmp_path):
    """``compose_train(*overrides)`` → a train config writing under tmp_path."""

    def _compose(*overrides: str, base=FAST_BOXES):
        return compose_fast(CONFIG_DIR, overrides, tmp_path / "cache", tmp_path / "run", base)

    return _compose
