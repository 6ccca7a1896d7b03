"""Walk config schemas field by field, for the generic validation tests of every package.

``declared_fields(schema)`` lists every leaf field of a schema and its nested dataclasses with its
full key, type and declared :class:`coevo.core.fields.Spec`. ``field_problems(schema, prefix)``
then tries each declared field through ``coevo.core.config.validate``: a field without a
declaration (other than a bool), a value just outside a range or a bogus choice that is accepted,
a refusal whose message does not name the full key, or a value inside the range that is refused,
is one line of the result (empty: every field checks its values). ``package_schemas(package)``
gives the ``Config`` of every registered component a package provides (``key_prefix`` its keys' prefix).
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Iterator
from typing import Any

from omegaconf import OmegaConf

from coevo.core import registry
from coevo.core.config import ConfigError, check_declared, validate
from coevo.core.fields import Choice, Range, Spec, join, spec_of

KINDS = ("algorithms", "envs", "models", "rollout_engines", "callbacks")


@dataclasses.dataclass
class LeafField:
    key: str  # full key, e.g. "algo.optim.lr"
    path: tuple[str, ...]  # the key relative to the walked schema: ("optim", "lr")
    type: Any  # the resolved annotation
    spec: Spec | None
    default: Any


def _strip_optional(tp: Any) -> Any:
    args = [a for a in typing.get_args(tp) if a is not type(None)]
    if typing.get_origin(tp) in (typing.Union, types.UnionType) and len(args) == 1:
        return args[0]
    return tp


def _hints(schema: type) -> dict[str, Any]:
    try:
        return typing.get_type_hints(schema)
    except Exception:  # noqa: BLE001 - a forward reference it cannot resolve: fall back on the raw annotation
        return {f.name: f.type for f in dataclasses.fields(schema)}


def _default(f: dataclasses.Field) -> Any:
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return None


def declared_fields(schema: type, prefix: str = "", path: tuple[str, ...] = ()) -> Iterator[LeafField]:
    """Every leaf field of ``schema`` and of its nested dataclasses (bools included)."""
    hints = _hints(schema)
    for f in dataclasses.fields(schema):
        tp = _strip_optional(hints.get(f.name, f.type))
        key, here = join(prefix, f.name), (*path, f.name)
        if isinstance(tp, type) and dataclasses.is_dataclass(tp):
            yield from declared_fields(tp, key, here)
            continue
        yield LeafField(key, here, tp, spec_of(f, schema), _default(f))


def _is_bool(tp: Any) -> bool:
    return tp is bool


def _is_list(tp: Any) -> bool:
    return typing.get_origin(tp) in (list, tuple) or tp in (list, tuple)


def _is_int(tp: Any) -> bool:
    item = typing.get_args(tp)[0] if _is_list(tp) and typing.get_args(tp) else tp
    return item is int


def _nested(path: tuple[str, ...], value: Any) -> dict:
    node: Any = value
    for part in reversed(path):
        node = {part: node}
    return node


def _as_list_value(leaf: LeafField, item: Any) -> list:
    base = list(leaf.default) if isinstance(leaf.default, (list, tuple)) and leaf.default else []
    if not base:
        base = [item] * max(1, leaf.spec.min_items)
    base[0] = item
    return base


def _values(leaf: LeafField, which: str) -> list:
    integer = _is_int(leaf.type)
    items = getattr(leaf.spec, which)(integer)
    if not _is_list(leaf.type):
        return items
    values = [_as_list_value(leaf, v) for v in items]
    if which == "outside" and leaf.spec.min_items > 0:
        values.append([])  # too few items
    return values


def field_problems(schema: type, prefix: str, base: dict | None = None) -> list[str]:
    """What is wrong with the declarations of ``schema`` (see the module docstring); [] if nothing.

    ``base``: a node merged under every tried value (settings the schema needs to validate at all).
    """
    root = "" if getattr(schema, "ROOT_SCHEMA", False) else prefix
    problems = []
    for leaf in declared_fields(schema, root):
        if _is_bool(leaf.type):
            continue
        if leaf.spec is None:
            problems.append(f"{leaf.key}: no declared range, choices or validator")
            continue
        outside = _values(leaf, "outside")
        if isinstance(leaf.spec, (Range, Choice)) and not outside:
            problems.append(f"{leaf.key}: declares no bound or choice to refuse")
        for bad in outside:
            node = OmegaConf.merge(base or {}, _nested(leaf.path, bad))
            try:
                validate(node, schema, prefix)
            except ConfigError as exc:
                if f"'{leaf.key}'" not in str(exc) or "\n" in str(exc):
                    problems.append(f"{leaf.key}={bad!r}: refused without naming the key in one line: {exc}")
                continue
            problems.append(f"{leaf.key}={bad!r}: accepted, but the declaration refuses it")
        for good in _values(leaf, "inside"):
            node = OmegaConf.merge(OmegaConf.structured(schema), base or {}, _nested(leaf.path, good))
            try:
                check_declared(node, schema, root)
            except ConfigError as exc:
                problems.append(f"{leaf.key}={good!r}: refused, but the declaration allows it: {exc}")
    return problems


def package_schemas(package: str) -> dict[str, type]:
    """``{"algo=grpo": GRPOConfig, …}``: the Config of every registered component whose class lives in
    ``coevo.<package>`` (components that fail to load, e.g. vllm without vLLM, are left out)."""
    prefixes = {"algorithms": "algo", "envs": "env", "models": "model", "rollout_engines": "rollout",
                "callbacks": "callbacks"}
    found = {}
    for kind in KINDS:
        reg = getattr(registry, kind)
        for name in reg.names():
            try:
                cls = reg.get(name)
            except registry.RegistryError:
                continue
            config = getattr(cls, "Config", None)
            if config is None or not getattr(cls, "__module__", "").startswith(f"coevo.{package}."):
                continue
            found[f"{prefixes[kind]}={name}"] = config
    return found


def key_prefix(label: str) -> str:
    """The key prefix of a ``package_schemas`` label: ``algo=grpo`` -> ``algo``, a configured callback
    ``callbacks=heircommit`` -> ``callbacks.heircommit`` (its node's key under ``callbacks``)."""
    kind, name = label.split("=", 1)
    return f"callbacks.{name}" if kind == "callbacks" else kind
