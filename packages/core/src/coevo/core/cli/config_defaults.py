"""Hydra config nodes made from the config dataclasses: the one source of every default.

Each registered algorithm, environment, model builder and callback declares a ``Config``
dataclass; its defaults are stored in Hydra's ConfigStore as ``<group>/base_<name>`` (``algo/base_rsipo``,
``env/base_household``, ``callbacks/base_heircommit``), and the run's own settings as ``base_train`` /
``base_eval`` (TrainSchema / EvalSchema without the component nodes) and ``trainer/base_trainer``.
A preset inherits one and lists only the keys that differ::

    # algo/skill_grpo.yaml
    defaults: [base_skill_grpo, _self_]

Reading a Config imports its component's module, so only the components a composition chooses are
read: every other registered name is a placeholder (``{name: …}``) that lists it as an option
(``store_defaults``); ``config_sources.prepare_components`` composes the preset choices once on the
placeholders and stores the chosen components' defaults (``store_chosen``) before the composition
that counts. A default run imports no other component (vLLM, for one, scans every imported module
when it starts, and stumbled over numba's, which the search env brings in).

Nothing is typed in Hydra (the nodes are plain dicts): the dataclasses check the composed values
afterwards (``coevo.core.config.validate``), with one message naming the key. Rollout engines keep
full presets (``rollout/*.yaml``): the vLLM engine's Config cannot be read without vLLM installed;
a test keeps those presets equal to the dataclasses.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from hydra.core.config_store import ConfigStore
from omegaconf import DictConfig, OmegaConf

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
_stored: set[tuple[str, str]] = set()  # (group, name) whose Config defaults are in the ConfigStore
_placeholders: set[tuple[str, str]] = set()  # (group, name) stored as a name-only placeholder


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


def _store_component(group: str, name: str, node: dict[str, Any]) -> None:
    # a callback preset is keyed by its name (+callbacks=heircommit -> callbacks.heircommit)
    ConfigStore.instance().store(group=group, name=BASE_PREFIX + name,
                                 node={name: node} if group == "callbacks" else node)


def store_defaults() -> None:
    """Put the base nodes in the ConfigStore: the run's own once; for every registered component a
    placeholder (``{name: …}``) until ``store_chosen`` replaces it with the Config's defaults.
    Placeholders import nothing: reading a Config imports its component's module (bm25s and numba
    for search, sympy for math, vLLM's engine), which only the components a run chooses may cost.
    Plugins are discovered by ``names()``; a component registered later (a test's) joins at the
    next call."""
    from coevo.core.cli.schema import EvalSchema, TrainerSettings, TrainSchema
    from coevo.core.serve.schema import ServeSchema

    store = ConfigStore.instance()
    if ("", "train") not in _stored:
        store.store(name="base_train", node=run_settings(TrainSchema))
        store.store(name="base_eval", node=run_settings(EvalSchema))
        store.store(name="base_serve", node=defaults_of(ServeSchema))
        store.store(group="trainer", name="base_trainer", node=defaults_of(TrainerSettings))
        _stored.add(("", "train"))
    for group, kind in COMPONENT_GROUPS.items():
        for name in kind.names():
            if (group, name) not in _placeholders and (group, name) not in _stored:
                _store_component(group, name, {"name": name})
                _placeholders.add((group, name))


def chosen_components(cfg: DictConfig) -> list[tuple[str, str]]:
    """``(group, registry name)`` of every component node in a composed config."""
    chosen = [(group, cfg[group].name) for group in ("algo", "env", "model")
              if isinstance(cfg.get(group), DictConfig) and cfg[group].get("name")]
    callbacks = cfg.get("callbacks")
    if isinstance(callbacks, DictConfig):
        chosen += [("callbacks", node.name) for node in callbacks.values()
                   if isinstance(node, DictConfig) and node.get("name")]
    return chosen


def store_chosen(chosen: list[tuple[str, str]]) -> None:
    """Replace the placeholders of ``chosen`` by their Config's defaults (once per process)."""
    for group, name in chosen:
        if (group, name) in _stored or name not in COMPONENT_GROUPS[group]:
            continue
        _store_component(group, name, component_node(COMPONENT_GROUPS[group], name))
        _stored.add((group, name))
        _placeholders.discard((group, name))


def is_base(option: str) -> bool:
    """A ``base_<name>`` node (inherited by presets; not listed to users as a choice)."""
    return option.startswith(BASE_PREFIX)
