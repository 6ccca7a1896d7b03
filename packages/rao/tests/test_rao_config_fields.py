"""Every field of RAO's ``Config`` (recursion, credit, sizes, report, GRPO's fields) declares its range
or choices, and validation enforces them.

Walks (``coevo.core.testing.field_walk``) the Config of the algorithm coevo-rao registers with its
nested settings: a value just outside a declared range or a bogus choice is refused with one line
naming the full key (``algo.recursion.budget.max_depth``), a value just inside is accepted, and an
undeclared field fails.
"""

from __future__ import annotations

import pytest

from coevo.core.testing.field_walk import declared_fields, field_problems, key_prefix, package_schemas

RAO = package_schemas("rao")


def test_the_rao_algorithm_is_walked_with_its_nested_settings():
    assert "algo=rao" in RAO
    keys = {leaf.key for leaf in declared_fields(RAO["algo=rao"], "algo")}
    assert {"algo.recursion.budget.max_depth", "algo.credit.root_mix", "algo.report.num_tasks",
            "algo.optim.lr"} <= keys


@pytest.mark.parametrize("component", sorted(RAO))
def test_component_config_fields_are_declared_and_enforced(component):
    assert field_problems(RAO[component], key_prefix(component)) == []


def test_grpos_dynamic_sampling_is_refused_before_any_work():
    from coevo.core import registry
    from coevo.core.config import ConfigError, build_component

    with pytest.raises(ConfigError, match="algo.dynamic_sampling.enabled: RAO plays recursion trees"):
        build_component(registry.algorithms, {"name": "rao", "dynamic_sampling": {"enabled": True}}, "algo")
