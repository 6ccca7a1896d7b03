"""Typed plugin registries and entry-point discovery.

Components register by decorator into one of the typed registries below
(``algorithms``, ``envs``, ``rollout_engines`` ...). Installed distributions extend them through
one entry point each in the group ``coevo.plugins`` that names a ``register()`` function; core
calls every such function lazily, on the first lookup in a process, so discovery works the same
in a worker or an FSDP rank as in the launching process.

Heavy optional backends register as an import string (``"pkg.module:Class"``) and are imported
only when chosen. A miss names what is installed, a duplicate raises, and a plugin that fails to
import is reported by distribution name without taking the other plugins down. An algorithm class
is checked against the algorithm contract (``coevo.core.algorithm_contract``) when it registers.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any, Generic, TypeVar

from coevo.core.algorithm_contract import check_algorithm

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "coevo.plugins"

T = TypeVar("T")


class RegistryError(LookupError):
    """Unknown or duplicate component name."""


@dataclass
class PluginRecord:
    """What discovery found for one installed distribution."""

    distribution: str
    version: str
    entry_point: str
    error: str | None = None
    registered: list[tuple[str, str]] = field(default_factory=list)  # (registry kind, name)


@dataclass
class _Entry:
    target: Any  # the object, or an import string "module:attr" resolved on first use
    distribution: str | None


class Registry(Generic[T]):
    """A name → component map of one kind (e.g. ``algorithm``)."""

    def __init__(self, kind: str, hints: dict[str, str] | None = None, shared_keys: tuple[str, ...] = (),
                 check: Callable[[str, Any], None] | None = None):
        self.kind = kind
        # raises when a component lacks what its users need (algorithms: coevo.core.algorithm_contract);
        # run on registration, and on first use of a component registered as an import string
        self.check = check
        # keys of a component's config node that are not its own settings (validated elsewhere): a
        # component's Config is built without them
        self.shared_keys = shared_keys
        self._entries: dict[str, _Entry] = {}
        # name → distribution that provides it, for "pip install ..." advice on a miss
        self.hints: dict[str, str] = dict(hints or {})

    def register(self, name: str, target: T | str | None = None) -> Callable[[T], T] | T:
        """Register ``target`` under ``name``; usable as ``@registry.register("name")``.

        ``target`` may be an import string ``"package.module:Attr"`` for heavy backends.
        """
        if target is not None:
            self._add(name, target)
            return target

        def decorator(obj: T) -> T:
            self._add(name, obj)
            return obj

        return decorator

    def _add(self, name: str, target: Any) -> None:
        if not isinstance(name, str) or not name:
            raise RegistryError(f"{self.kind} names must be non-empty strings, got {name!r}")
        if self.check is not None and not isinstance(target, str):
            self.check(name, target)
        if name in self._entries:
            previous = self._entries[name]
            if isinstance(previous.target, str) and previous.target == _import_spec(target):
                # a lazily registered component's module, being imported, registers it by decorator
                previous.target = target
                return
            if isinstance(target, str) and target == _import_spec(previous.target):
                # the lazy registration of a component whose module was imported (and registered it) first
                previous.distribution = previous.distribution or _current_distribution
                if _current_record is not None:
                    _current_record.registered.append((self.kind, name))
                return
            if previous.target is target:
                # the same object again (a module imported before discovery ran): keep it, and
                # learn which distribution provides it
                previous.distribution = previous.distribution or _current_distribution
                if _current_record is not None:
                    _current_record.registered.append((self.kind, name))
                return
            owner = previous.distribution or "this process"
            raise RegistryError(
                f"duplicate {self.kind} '{name}': already registered by {owner}; "
                f"choose another name or uninstall one of the two plugins"
            )
        dist = _current_distribution
        self._entries[name] = _Entry(target, dist)
        if _current_record is not None:
            _current_record.registered.append((self.kind, name))

    def get(self, name: str) -> T:
        """The component called ``name``; raises a RegistryError listing the installed names."""
        discover()
        entry = self._entries.get(name)
        if entry is None:
            installed = sorted(self._entries)
            message = f"unknown {self.kind} '{name}'; installed: {installed}"
            if name in self.hints:
                message += f". '{name}' is provided by {self.hints[name]}: pip install {self.hints[name]}"
            broken = [r for r in _records.values() if r.error]
            if broken:
                message += "; plugins that failed to load: " + ", ".join(r.distribution for r in broken)
            raise RegistryError(message)
        if isinstance(entry.target, str):
            target = _import_string(entry.target, self.kind, name)
            if self.check is not None:
                self.check(name, target)
            entry.target = target
        return entry.target

    def names(self) -> list[str]:
        discover()
        return sorted(self._entries)

    def distribution_of(self, name: str) -> str | None:
        discover()
        entry = self._entries.get(name)
        return entry.distribution if entry else None

    def __contains__(self, name: str) -> bool:
        discover()
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def unregister(self, name: str) -> None:
        """Remove ``name`` (tests and interactive use)."""
        self._entries.pop(name, None)


def _import_spec(obj: Any) -> str | None:
    """``"module:QualName"`` of a class or function (what a lazy registration names)."""
    module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    return f"{module}:{qualname}" if module and qualname else None


def _import_string(spec: str, kind: str, name: str) -> Any:
    module_name, _, attr = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise RegistryError(
            f"{kind} '{name}' needs '{module_name}', which failed to import ({exc}); "
            f"install its optional dependencies"
        ) from exc
    if not attr:
        return module
    try:
        return getattr(module, attr)
    except AttributeError:
        raise RegistryError(f"{kind} '{name}': module '{module_name}' has no attribute '{attr}'") from None


# Which distribution provides each component that lives outside coevo-core: a miss of one of
# these names says what to install. It has to be written here (an uninstalled distribution cannot
# be asked what it provides); tests/test_plugins.py, where every package is installed, checks it
# against what each plugin actually registers, in both directions.
PROVIDED_BY: dict[str, dict[str, str]] = {
    "algorithm": {
        **dict.fromkeys(("rsipo", "opsd", "grpo_opsd", "skill_grpo", "skill_prompt"), "coevo-rsipo"),
        "evoheir": "coevo-evoheir",
        "rao": "coevo-rao",
    },
    "env": dict.fromkeys(
        ("household", "alfworld", "search", "math", "longctx", "algebra", "craft", "maze", "textcraft_synth"), "coevo-envs"
    ),
    "callback": {"trust_calibration": "coevo-rsipo", "heircommit": "coevo-evoheir"},
}

# The typed registries (a miss of a name in PROVIDED_BY[kind] names the distribution to install).
algorithms: Registry = Registry("algorithm", hints=PROVIDED_BY.get("algorithm"), check=check_algorithm)
envs: Registry = Registry("env", hints=PROVIDED_BY.get("env"))
models: Registry = Registry("model", hints=PROVIDED_BY.get("model"))
# rollout.async / rollout.ray say where the engine runs (coevo.core.rollout.async_settings)
rollout_engines: Registry = Registry("rollout engine", hints=PROVIDED_BY.get("rollout engine"),
                                     shared_keys=("async", "ray"))
callbacks: Registry = Registry("callback", hints=PROVIDED_BY.get("callback"))
advantages: Registry = Registry("advantage estimator", hints=PROVIDED_BY.get("advantage estimator"))
losses: Registry = Registry("loss", hints=PROVIDED_BY.get("loss"))

REGISTRIES: dict[str, Registry] = {
    r.kind: r for r in (algorithms, envs, models, rollout_engines, callbacks, advantages, losses)
}

# ---------------------------------------------------------------------------------------------
# Discovery
_records: dict[str, PluginRecord] = {}
_discovered = False
_current_distribution: str | None = None
_current_record: PluginRecord | None = None


def discover(force: bool = False) -> dict[str, PluginRecord]:
    """Call every installed ``coevo.plugins`` entry point once; return what was found."""
    global _discovered, _current_distribution, _current_record
    if _discovered and not force:
        return _records
    _discovered = True
    for ep in sorted(metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        dist_name = ep.dist.name if ep.dist is not None else ep.name
        version = ep.dist.version if ep.dist is not None else "?"
        if dist_name in _records and not force:
            continue
        record = PluginRecord(dist_name, version, ep.value)
        _records[dist_name] = record
        _current_distribution, _current_record = dist_name, record
        try:
            register = ep.load()
            register()
        except Exception as exc:  # a broken plugin must not take the others down
            record.error = f"{type(exc).__name__}: {exc}"
            log.warning("coevo plugin %s failed to load: %s", dist_name, record.error)
        finally:
            _current_distribution, _current_record = None, None
    return _records


def plugin_records() -> list[PluginRecord]:
    return sorted(discover().values(), key=lambda r: r.distribution)


def register_components(components: dict[str, dict[str, Any]]) -> None:
    """Register ``{kind: {name: target}}`` into the typed registries (``REGISTRIES[kind]``).

    What a plugin's ``register()`` calls with import strings (``"coevo.rsipo.module:RSIPO"``), so
    that discovery imports none of its modules.
    """
    for kind, names in components.items():
        if kind not in REGISTRIES:
            raise RegistryError(f"no registry of kind {kind!r}; the kinds: {sorted(REGISTRIES)}")
        for name, target in names.items():
            REGISTRIES[kind].register(name, target)
