"""Hydra config nodes made from the config dataclasses: the one source of every default.

Each registered algorithm, environment, model builder and callback declares a ``Config``
dataclass; its defaults are stored in Hydra's ConfigStore as ``<group>/base_<name>`` (``algo/base_rsipo``,
``env/base_household``, ``callbacks/base_heircommit``), and the run's own settings as ``base_train`` /
``base_eval`` (TrainSchema / EvalSchema without the component nodes) and ``trainer/base_trainer``.
A preset inherits one and lists only the keys that differ::

    # algo/skill_grpo.yaml
    defaults: [base_skill_grpo, _self_]

Nothing is typed in Hydra (the nodes are plain dicts): the dataclasses check the composed values
afterwards (``coevo.core.config.validate``), with one message naming the key. Rollout engines keep
full presets (``rollout/*.yaml``): the vLLM engine's Config cannot be read without vLLM installed;
a test keeps those presets equal to the dataclasses.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from hydra.core.config_store import ConfigStore
from omegaconf import OmegaConf

from coevo.core import registry

# Hydra group -> the registry whose components it selects
COMPONENT_GROUPS: dict[str, registry.Registry] = {
    "algo": registry.algorithms,
    "env": registry.envs,
    "model": registry.models,
    "callbacks": registry.callbacks,
}
BASE_PREFIX = "base_"
_COMPONENT_KEYS = ("algo", "env", "model", "rollout", "callbacks", "trainer")
_stored: set[tuple[str, str]] = set()  # (group, name) already in the ConfigStore


def defaults_of(schema: type) -> dict[str, Any]:
    """Every field of ``schema`` (nested dataclasses included) at its default, as plain data."""
    return OmegaConf.to_container(OmegaConf.structured(schema))


def run_settings(schema: type) -> dict[str, Any]:
    """``schema``'s defaults without the component nodes (they come from their own groups)."""
    return {k: v for k, v in defaults_of(schema).items() if k not in _COMPONENT_KEYS}


def component_node(kind: registry.Registry, name: str) -> dict[str, Any]:
    """``{name: <name>, …Config defaults}``; only the name where the component cannot be imported
    (a missing optional dependency), so that choosing it reaches the registry's message naming the
    install, instead of a composition error."""
    try:
        schema = getattr(kind.get(name), "Config", None)
    except registry.RegistryError:
        schema = None
    if schema is None or not dataclasses.is_dataclass(schema):
        return {"name": name}
    return {**defaults_of(schema), "name": name}


def store_defaults() -> None:
    """Put the base nodes in the ConfigStore: the run's own once, a component's when it is first
    seen (plugins are discovered by ``names()``; a component registered later, e.g. by a test,
    joins at the next call)."""
    from coevo.core.cli.schema import EvalSchema, TrainerSettings, TrainSchema

    store = ConfigStore.instance()
    if ("", "train") not in _stored:
        store.store(name="base_train", node=run_settings(TrainSchema))
        store.store(name="base_eval", node=run_settings(EvalSchema))
        store.store(group="trainer", name="base_trainer", node=defaults_of(TrainerSettings))
        _stored.add(("", "train"))
    for group, kind in COMPONENT_GROUPS.items():
        for name in kind.names():
            if (group, name) in _stored:
                continue
            node = component_node(kind, name)
            # a callback preset is keyed by its name (+callbacks=heircommit -> callbacks.heircommit)
            store.store(group=group, name=BASE_PREFIX + name, node={name: node} if group == "callbacks" else node)
            _stored.add((group, name))


def is_base(option: str) -> bool:
    """A ``base_<name>`` node (inherited by presets; not listed to users as a choice)."""
    return option.startswith(BASE_PREFIX)
