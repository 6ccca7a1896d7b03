"""Plugin boundaries, checked where every package is installed.

Core's "pip install ..." hints (``registry.PROVIDED_BY``) are written by hand, since an uninstalled
distribution cannot be asked what it provides; here they are compared with what each installed
plugin actually registers, so that a component added, renamed or moved shows up as a failure.
"""

import subprocess
import sys

from coevo.core import registry


def _registered_outside_core() -> dict[tuple[str, str], str]:
    records = registry.plugin_records()
    assert [r.distribution for r in records if r.error] == []
    return {
        (kind, name): record.distribution
        for record in records
        if record.distribution != "coevo-core"
        for kind, name in record.registered
    }


def test_the_registry_hints_are_exactly_what_the_plugins_register():
    hinted = {
        (kind, name): dist for kind, names in registry.PROVIDED_BY.items() for name, dist in names.items()
    }
    assert hinted == _registered_outside_core()


def test_each_hint_is_carried_by_its_registry_and_named_on_a_miss():
    for kind, names in registry.PROVIDED_BY.items():
        assert kind in registry.REGISTRIES, f"PROVIDED_BY names a kind no registry has: {kind!r}"
        assert registry.REGISTRIES[kind].hints == names
        fresh = registry.Registry(kind, hints=names)  # as if the distribution were not installed
        for name, dist in names.items():
            try:
                fresh.get(name)
            except registry.RegistryError as exc:
                assert f"pip install {dist}" in str(exc)
            else:
                raise AssertionError(f"{kind} {name!r} found in an empty registry")


def test_discovery_imports_no_plugin_module_but_the_entry_points():
    """rsipo, evoheir and rao register import strings: their modules (and evoheir's sympy and
    math-verify, through the math environment) load only when a component is chosen."""
    code = "import sys; from coevo.core import registry; registry.discover(); print(*sorted(sys.modules))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    loaded = proc.stdout.split()
    plugins = ("coevo.rsipo", "coevo.evoheir", "coevo.rao")
    assert [m for m in loaded if m.startswith(plugins) and m not in plugins and not m.endswith(".plugin")] == []
    assert [m for m in loaded if m.startswith(("math_verify", "coevo.envs.math"))] == []
    # and every name still resolves (its module's decorator registering the same class again), to
    # a class of the distribution that provides it
    for kind, names in registry.PROVIDED_BY.items():
        for name, dist in names.items():
            component = registry.REGISTRIES[kind].get(name)
            assert component.__module__.startswith("coevo." + dist.removeprefix("coevo-") + ".")
            assert registry.REGISTRIES[kind].distribution_of(name) == dist
