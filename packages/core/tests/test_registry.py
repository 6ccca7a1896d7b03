"""The typed registries: registration, lookup errors, lazy import strings and plugin discovery."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

import pytest

import coevo.core
from coevo.core import registry
from coevo.core.registry import Registry, RegistryError


@pytest.fixture
def no_discovery(monkeypatch):
    """Pretend discovery already ran with no plugins, so fresh registries hold only what a test adds."""
    monkeypatch.setattr(registry, "_records", {})
    monkeypatch.setattr(registry, "_discovered", True)


def test_decorator_registers_and_get_returns_the_object(no_discovery):
    reg = Registry("widget")

    @reg.register("square")
    def square(x):
        return x * x

    assert reg.get("square") is square
    assert reg.get("square")(3) == 9  # the decorator returns the function unchanged
    assert "square" in reg
    assert reg.names() == ["square"]
    assert list(reg) == ["square"]


def test_register_with_explicit_target_returns_it(no_discovery):
    reg = Registry("widget")
    obj = object()
    assert reg.register("thing", obj) is obj
    assert reg.get("thing") is obj


def test_unknown_name_lists_installed_names(no_discovery):
    reg = Registry("widget")
    reg.register("beta", 2)
    reg.register("alpha", 1)
    with pytest.raises(RegistryError) as info:
        reg.get("gamma")
    message = str(info.value)
    assert "unknown widget 'gamma'" in message
    assert "['alpha', 'beta']" in message  # sorted installed names
    assert "pip install" not in message  # no hint for an unhinted name
    assert isinstance(info.value, LookupError)


@pytest.mark.skipif(importlib.util.find_spec("coevo.rsipo") is not None,
                    reason="coevo-rsipo is installed here (the hint is for a missing plugin)")
def test_hinted_name_names_the_package_to_install(no_discovery):
    with pytest.raises(RegistryError) as info:
        registry.algorithms.get("rsipo")
    message = str(info.value)
    assert "unknown algorithm 'rsipo'" in message
    assert "pip install coevo-rsipo" in message


def test_hint_of_a_fresh_registry(no_discovery):
    reg = Registry("env", hints={"alfworld": "coevo-envs"})
    with pytest.raises(RegistryError, match="pip install coevo-envs"):
        reg.get("alfworld")


def test_duplicate_name_raises(no_discovery):
    reg = Registry("widget")
    reg.register("a", 1.5)
    with pytest.raises(RegistryError, match="duplicate widget 'a'"):
        reg.register("a", 2.5)
    assert reg.get("a") == 1.5  # the first registration is kept


def test_reregistering_the_same_object_is_a_noop(no_discovery):
    reg = Registry("widget")

    class Thing:
        pass

    reg.register("thing")(Thing)
    reg.register("thing")(Thing)  # e.g. a module imported twice
    assert reg.get("thing") is Thing
    assert reg.names() == ["thing"]


@pytest.mark.parametrize("bad", ["", None, 3])
def test_bad_names_are_rejected(no_discovery, bad):
    reg = Registry("widget")
    with pytest.raises(RegistryError, match="non-empty strings"):
        reg.register(bad, object())


def test_unregister(no_discovery):
    reg = Registry("widget")
    reg.register("a", 1)
    reg.unregister("a")
    assert "a" not in reg
    reg.unregister("a")  # removing a missing name is harmless
    reg.register("a", 2)  # and the name is free again
    assert reg.get("a") == 2


def test_import_string_is_resolved_lazily(no_discovery):
    reg = Registry("backend")
    assert reg.register("dumps", "json:dumps") == "json:dumps"
    assert reg._entries["dumps"].target == "json:dumps"  # not imported at registration
    assert reg.get("dumps") is json.dumps
    assert reg._entries["dumps"].target is json.dumps  # resolved once, cached


def test_import_string_without_attribute_gives_the_module(no_discovery):
    reg = Registry("backend")
    reg.register("json_module", "json")
    assert reg.get("json_module") is json


def test_bad_import_string_gives_a_clear_error(no_discovery):
    reg = Registry("backend")
    reg.register("missing", "coevo_no_such_module_xyz.sub:Thing")  # registering never imports
    with pytest.raises(RegistryError) as info:
        reg.get("missing")
    message = str(info.value)
    assert "backend 'missing'" in message
    assert "coevo_no_such_module_xyz.sub" in message
    assert "install its optional dependencies" in message


def test_import_string_with_missing_attribute_gives_a_registry_error(no_discovery):
    reg = Registry("backend")
    reg.register("typo", "json:no_such_attr")
    with pytest.raises(RegistryError, match="no_such_attr"):
        reg.get("typo")


def test_distribution_of_outside_discovery_is_none(no_discovery):
    reg = Registry("widget")
    reg.register("a", 1)
    assert reg.distribution_of("a") is None
    assert reg.distribution_of("zzz") is None


# -- discovery ---------------------------------------------------------------------------------
class _FakeDist:
    def __init__(self, name: str, version: str):
        self.name, self.version = name, version


class _FakeEntryPoint:
    def __init__(self, name: str, value: str, dist: _FakeDist, load):
        self.name, self.value, self.dist, self._load = name, value, dist, load

    def load(self):
        return self._load()


def test_discovery_registers_good_plugins_and_records_broken_ones(monkeypatch):
    reg = Registry("widget")
    sentinel = object()

    def good_register():
        reg.register("good_widget", sentinel)

    def broken_load():
        raise ImportError("No module named 'heavy_dep'")

    entry_points = [
        _FakeEntryPoint("good", "good_pkg.plugin:register", _FakeDist("good-dist", "1.2.3"), lambda: good_register),
        _FakeEntryPoint("broken", "broken_pkg.plugin:register", _FakeDist("broken-dist", "0.0.1"), broken_load),
    ]
    calls = []

    def fake_entry_points(group=None):
        calls.append(group)
        return entry_points

    monkeypatch.setattr(registry.metadata, "entry_points", fake_entry_points)
    monkeypatch.setattr(registry, "_records", {})
    monkeypatch.setattr(registry, "_discovered", False)

    # the first lookup triggers discovery; the broken plugin does not prevent the good one
    assert reg.get("good_widget") is sentinel
    assert calls == [registry.ENTRY_POINT_GROUP]
    assert reg.distribution_of("good_widget") == "good-dist"

    records = {r.distribution: r for r in registry.plugin_records()}
    assert sorted(records) == ["broken-dist", "good-dist"]
    good, broken = records["good-dist"], records["broken-dist"]
    assert (good.version, good.entry_point, good.error) == ("1.2.3", "good_pkg.plugin:register", None)
    assert good.registered == [("widget", "good_widget")]
    assert broken.version == "0.0.1"
    assert broken.error == "ImportError: No module named 'heavy_dep'"
    assert broken.registered == []

    with pytest.raises(RegistryError) as info:
        reg.get("other")
    message = str(info.value)
    assert "plugins that failed to load: broken-dist" in message
    assert "['good_widget']" in message

    # discovery runs once per process: later lookups do not call entry_points again
    reg.names()
    assert calls == [registry.ENTRY_POINT_GROUP]
    # registrations outside discovery are not attributed to a plugin
    reg.register("local", 1)
    assert reg.distribution_of("local") is None


def test_discovery_survives_a_register_function_that_raises(monkeypatch):
    def register():
        raise RuntimeError("boom")

    ep = _FakeEntryPoint("bad", "bad:register", _FakeDist("bad-dist", "2.0"), lambda: register)
    monkeypatch.setattr(registry.metadata, "entry_points", lambda group=None: [ep])
    monkeypatch.setattr(registry, "_records", {})
    monkeypatch.setattr(registry, "_discovered", False)
    records = registry.plugin_records()
    assert [(r.distribution, r.error) for r in records] == [("bad-dist", "RuntimeError: boom")]
    # the module state is clean again after the failure
    assert registry._current_distribution is None and registry._current_record is None


def test_plugins_cli_lists_coevo_core_with_its_version():
    env = {**os.environ, "COLUMNS": "250"}
    proc = subprocess.run(
        [sys.executable, "-m", "coevo.core.plugins"], capture_output=True, text=True, timeout=120, env=env
    )
    out = proc.stdout
    assert "coevo-core" in out, proc.stdout + proc.stderr
    lines = out.splitlines()
    first = next(i for i, line in enumerate(lines) if "coevo-core" in line)
    core_line = lines[first]
    for line in lines[first + 1:]:  # the row's wrapped continuation lines (an empty first cell)
        cells = line.split("│")
        if len(cells) < 3 or cells[1].strip():
            break
        core_line += " " + line
    assert coevo.core.__version__ in core_line
    assert "ok" in core_line
    assert "env:boxes" in core_line
    assert "algorithm:grpo" in core_line
    # test scaffolding is registered by the tests (coevo.core.testing.components), not by the plugin
    assert "unequal_forwards" not in out and "scripted_commits" not in out
    # exit status 0 unless some installed plugin failed to load
    assert proc.returncode == (1 if "failed" in out else 0)


def test_a_lazily_registered_component_may_register_itself_again_on_import():
    reg = registry.Registry("widget")
    reg.register("lazy", "coevo.core.testing.boxes_env:BoxesEnv")
    from coevo.core.testing.boxes_env import BoxesEnv

    reg.register("lazy")(BoxesEnv)  # what its module's decorator does when imported: no duplicate
    assert reg.get("lazy") is BoxesEnv
    with pytest.raises(registry.RegistryError, match="duplicate"):
        reg.register("lazy", "coevo.core.testing.boxes_env:BoxesConfig")
    # the other order: the module was imported (and registered) before the lazy registration
    other = registry.Registry("widget")
    other.register("eager")(BoxesEnv)
    other.register("eager", "coevo.core.testing.boxes_env:BoxesEnv")
    assert other.get("eager") is BoxesEnv


def test_register_components_registers_import_strings_by_kind(no_discovery, monkeypatch):
    reg = Registry("widget")
    monkeypatch.setitem(registry.REGISTRIES, "widget", reg)
    registry.register_components({"widget": {"dumps": "json:dumps", "loads": "json:loads"}})
    assert reg._entries["dumps"].target == "json:dumps"  # nothing imported at registration
    assert reg.get("loads") is json.loads
    with pytest.raises(RegistryError, match="no registry of kind 'no such kind'"):
        registry.register_components({"no such kind": {"x": "json:dumps"}})
