"""The coevo.plugins entry point registers the household environment in core's registry."""

from coevo.core import registry
from coevo.envs.household.env import HouseholdEnv


def test_household_is_found_by_discovery():
    assert registry.envs.get("household") is HouseholdEnv
    assert "household" in registry.envs.names()
    assert registry.envs.distribution_of("household") in ("coevo-envs", "coevo_envs", None)
    records = {r.distribution: r for r in registry.plugin_records()}
    assert "coevo-envs" in records and records["coevo-envs"].error is None


def test_config_is_a_plain_dataclass_of_simple_types():
    import dataclasses

    fields = {f.name: f.type for f in dataclasses.fields(HouseholdEnv.Config)}
    assert set(fields) >= {
        "seed",
        "task_types",
        "num_receptacles",
        "num_objects",
        "closed_fraction",
        "max_steps",
    }
    assert set(fields.values()) <= {"int", "float", "bool", "str", "list[str]"}
