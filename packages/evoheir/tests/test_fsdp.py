"""EVOHEIR does not run with its policy sharded over several processes yet: ``trainer=fsdp_cpu``
(2 processes) is refused before any work, naming the key and the ways that do work."""

import pytest
from conftest import FAST_MATH

from coevo.core.cli import train
from coevo.core.config import ConfigError


def test_evoheir_under_sharding_is_refused_before_any_work(compose_train, tmp_path):
    with pytest.raises(ConfigError) as refused:
        train.run(compose_train("trainer=fsdp_cpu", base=FAST_MATH))
    message = str(refused.value)
    assert "'trainer.strategy'" in message and "algo=evoheir does not run with its policy sharded" in message
    assert "trainer.devices=1" in message and "trainer=ddp_cpu" in message
    assert not (tmp_path / "run").exists() and not (tmp_path / "cache").exists()
