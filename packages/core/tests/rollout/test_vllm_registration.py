"""``vllm`` is registered as an import string: core imports without vLLM, and choosing it without
vLLM installed fails at config validation with the install command."""

from __future__ import annotations

import importlib.util
import sys

import pytest
from omegaconf import OmegaConf

from coevo.core import registry
from coevo.core.cli.components import engine_component
from coevo.core.config import ConfigError

HAS_VLLM = importlib.util.find_spec("vllm") is not None


def test_vllm_is_listed_without_being_imported():
    assert "vllm" in registry.rollout_engines.names()
    entry = registry.rollout_engines._entries["vllm"]
    if "coevo.core.rollout.vllm_engine" not in sys.modules:
        assert entry.target == "coevo.core.rollout.vllm_engine:VLLMEngine"  # still a lazy string


@pytest.mark.skipif(HAS_VLLM, reason="vLLM is installed here")
def test_choosing_vllm_without_vllm_says_how_to_install_it():
    with pytest.raises(ConfigError, match="make install-vllm") as info:
        engine_component(OmegaConf.create({"name": "vllm"}))
    assert "rollout.name" in str(info.value)


def test_lazy_entry_resolves_on_first_lookup():
    registry.rollout_engines.register("lazy_hf_for_test", "coevo.core.rollout.hf_engine:HFEngine")
    try:
        assert isinstance(registry.rollout_engines._entries["lazy_hf_for_test"].target, str)
        from coevo.core.rollout.hf_engine import HFEngine

        assert registry.rollout_engines.get("lazy_hf_for_test") is HFEngine
    finally:
        registry.rollout_engines.unregister("lazy_hf_for_test")
