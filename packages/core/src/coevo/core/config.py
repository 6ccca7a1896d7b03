"""Validate Hydra config nodes against the dataclass schemas of the chosen components.

Each registered component (algorithm, env, model builder, rollout engine) declares a ``Config``
dataclass. ``validate`` merges the user's node into it, so an unknown key or a wrong type fails
with one message that names the full key and says how to fix it; then every field's declared range
or choices (``coevo.core.fields``) is checked on the merged values, before the dataclass (and its
cross-field ``__post_init__`` rules) is built. A root schema (``ROOT_SCHEMA = True``: the command
line's own keys) names keys without a prefix (``trainer.max_steps``, not ``train.trainer.max_steps``).
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any, TypeVar

from omegaconf import DictConfig, ListConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from coevo.core import registry
from coevo.core.fields import join, spec_of

T = TypeVar("T")


class ConfigError(ValueError):
    """A config key is unknown, mistyped or out of range."""


def _field_names(schema: type) -> list[str]:
    return [f.name for f in dataclasses.fields(schema)]


def _nested_schema(schema: type, full_key: str) -> tuple[str, type]:
    """The dataclass that holds the last part of ``full_key`` (for "valid keys" hints)."""
    parts = full_key.split(".")[:-1]
    current, walked = schema, []
    for part in parts:
        field_types = {f.name: f.type for f in dataclasses.fields(current)}
        hints = typing.get_type_hints(current)
        candidate = hints.get(part, field_types.get(part))
        if not (isinstance(candidate, type) and dataclasses.is_dataclass(candidate)):
            break
        current = candidate
        walked.append(part)
    return ".".join(walked), current


def check_declared(merged: DictConfig, schema: type, prefix: str) -> None:
    """Check every declared field of ``merged`` (a merged ``schema`` node) and of its nested
    dataclass nodes; ConfigError naming the first bad key, its value and what is allowed."""
    for f in dataclasses.fields(schema):
        if f.name not in merged or OmegaConf.is_missing(merged, f.name):
            continue  # "???": OmegaConf reports a missing mandatory value when the object is built
        key = join(prefix, f.name)
        try:
            value = merged[f.name]
        except OmegaConfBaseException as exc:
            raise ConfigError(f"config error at '{key}': {str(exc).splitlines()[0]}") from None
        nested = OmegaConf.get_type(value) if isinstance(value, DictConfig) else None
        if nested is not None and dataclasses.is_dataclass(nested):
            check_declared(value, nested, key)
            continue
        if isinstance(value, ListConfig) and value and all(
                isinstance(v, DictConfig) and dataclasses.is_dataclass(OmegaConf.get_type(v)) for v in value):
            for i, item in enumerate(value):
                check_declared(item, OmegaConf.get_type(item), f"{key}[{i}]")
            continue
        spec = spec_of(f, schema)
        if spec is None:
            continue
        plain = OmegaConf.to_container(value, resolve=True) if isinstance(value, (DictConfig, ListConfig)) else value
        problem = spec.check(plain)
        if problem:
            raise ConfigError(f"config error at '{key}': {problem}")


def validate(node: Any, schema: type[T], prefix: str) -> T:
    """An instance of ``schema`` built from ``node``; ``prefix`` is the node's key path (e.g. "env")."""
    if node is None:
        node = {}
    if getattr(schema, "ROOT_SCHEMA", False):
        prefix = ""
    try:
        merged = OmegaConf.merge(OmegaConf.structured(schema), node)
    except OmegaConfBaseException as exc:
        key = join(prefix, exc.full_key) if getattr(exc, "full_key", None) else prefix
        message = str(exc).splitlines()[0]
        hint = ""
        if "not in" in message or "Key '" in message:
            parent, nested = _nested_schema(schema, getattr(exc, "full_key", "") or "")
            where = ".".join(p for p in (prefix, parent) if p)
            hint = f"; valid keys of {where}: {_field_names(nested)}"
        raise ConfigError(f"config error at '{key}': {message}{hint}") from None
    check_declared(merged, schema, prefix)
    try:
        return OmegaConf.to_object(merged)
    except OmegaConfBaseException as exc:
        key = join(prefix, exc.full_key) if getattr(exc, "full_key", None) else prefix
        raise ConfigError(f"config error at '{key}': {str(exc).splitlines()[0]}") from None
    except ValueError as exc:  # raised by a schema's __post_init__ with the key already named
        raise ConfigError(f"config error: {exc}") from None


def build_component(kind: registry.Registry, node: DictConfig | dict, prefix: str):
    """Look up ``node.name`` in ``kind`` and validate ``node`` against its ``Config``.

    Returns ``(component class, validated config)``.
    """
    name = node.get("name") if node is not None else None
    if not name:
        raise ConfigError(f"config error at '{prefix}.name': missing; choose one of {kind.names()}")
    try:
        cls = kind.get(name)
    except registry.RegistryError as exc:
        raise ConfigError(f"config error at '{prefix}.name': {exc}") from None
    schema = getattr(cls, "Config", None)
    if schema is None:
        return cls, node
    dropped = set(kind.shared_keys) | ({"name"} if "name" not in _field_names(schema) else set())
    if dropped:  # the selector, and keys that belong to the node but not to the component
        node = {k: v for k, v in OmegaConf.to_container(OmegaConf.create(node), resolve=True).items()
                if k not in dropped}
    return cls, validate(node, schema, prefix)
