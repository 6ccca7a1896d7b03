"""Compose the repository's Hydra configs for a fast CPU run on the ``boxes`` env with a tiny model."""

import re

import pytest

from coevo.core.cli.config_sources import compose_config
from coevo.core.testing.fast_configs import (
    FAST_BOXES,
    TINY_MODEL,
    available_env,
    compose_fast,
    repository_configs,
)

CONFIG_DIR = repository_configs(__file__)
DEFAULT_ENV = available_env()  # env=boxes where coevo-envs (the default env, household) is not installed
FAST = [*FAST_BOXES, "algo.tasks_per_step=2", "algo.group_size=4", "algo.optim.lr=1e-3", "trainer.checkpoint_every=1"]


@pytest.fixture
def compose_train(tmp_path):
    """``compose_train(*overrides)`` → a train config writing under tmp_path (cache shared per test)."""

    def _compose(*overrides: str):
        base = FAST if "model=hf" not in overrides else [o for o in FAST if o not in TINY_MODEL]
        return compose_fast(CONFIG_DIR, overrides, tmp_path / "cache", tmp_path / "run", base)

    return _compose


def compose_installed(config_name: str, overrides: list[str]):
    """``config_name`` composed with ``overrides`` (on ``DEFAULT_ENV`` unless they choose an env); a
    preset of a package not installed here skips the test."""
    chosen = any(o.split("=", 1)[0].lstrip("+~") == "env" for o in overrides)
    try:
        return compose_config(config_name, [*([] if chosen else DEFAULT_ENV), *overrides], repository=CONFIG_DIR)
    except Exception as exc:  # noqa: BLE001 - Hydra's composition errors have several types
        missing = re.search(r"Could not (?:find|load) '([^']+)'", str(exc))
        if missing:
            pytest.skip(f"{missing.group(1)}: its package is not installed here")
        raise
