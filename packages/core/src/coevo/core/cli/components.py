"""Build the policy and environment factory that both ``train`` and ``eval`` need from a config."""

from __future__ import annotations

import functools
from dataclasses import asdict, is_dataclass

from omegaconf import DictConfig, OmegaConf

from coevo.core import registry
from coevo.core.config import ConfigError, build_component


def env_factory(node: DictConfig):
    """``(environment class, validated config, factory)`` for the ``env`` node."""
    env_cls, env_cfg = build_component(registry.envs, node, "env")
    try:
        env_cls(env_cfg).close()  # surfaces value errors (e.g. an unknown task type) before any work
    except ValueError as exc:
        raise ConfigError(f"config error at 'env': {exc}") from None
    return env_cls, env_cfg, functools.partial(env_cls, env_cfg)


def engine_component(node: DictConfig | None):
    """``(engine class, validated config)`` of the ``rollout`` node (its ``async`` and ``ray`` nodes say
    where the engine runs: ``coevo.core.rollout.async_settings``)."""
    node = node if node is not None else OmegaConf.create({"name": "hf"})
    return build_component(registry.rollout_engines, node, "rollout")  # (drops the shared async/ray keys)


def as_plain(config) -> dict:
    """A JSON-able dict of a validated config (for cache keys and saved files)."""
    if is_dataclass(config):
        return asdict(config)
    return OmegaConf.to_container(config, resolve=True)
