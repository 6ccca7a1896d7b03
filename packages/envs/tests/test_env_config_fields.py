"""Every field of every environment's ``Config`` declares its range or choices, and validation enforces them.

Walks the ``Config`` of each environment coevo-envs registers (``coevo.core.testing.field_walk``):
a value just outside a declared range (or a bogus choice) is refused with one line naming the full
key (``env.num_objects``), a value just inside is accepted, and a field without a declaration fails.
"""

from __future__ import annotations

import pytest

from coevo.core import registry
from coevo.core.config import ConfigError, build_component
from coevo.core.testing.field_walk import field_problems, package_schemas

ENVS = package_schemas("envs")


def test_every_registered_env_is_walked():
    assert {f"env={name}" for name in registry.envs.names() if name != "boxes"} <= set(ENVS)


@pytest.mark.parametrize("component", sorted(ENVS))
def test_env_config_fields_are_declared_and_enforced(component):
    assert field_problems(ENVS[component], "env") == []


@pytest.mark.parametrize(("node", "key", "fix"), [
    ({"name": "household", "num_objects": -1}, "env.num_objects", "must be >= 0"),
    ({"name": "household", "closed_fraction": 2}, "env.closed_fraction", "must be in [0, 1]"),
    ({"name": "household", "task_types": ["make_coffee"]}, "env.task_types", "choose one of"),
    ({"name": "search", "retriever": "tfidf"}, "env.retriever", "choose one of ['bm25', 'dense']"),
    ({"name": "math", "difficulty": 6}, "env.difficulty", "must be in [1, 5]"),
])
def test_examples_from_the_bad_input_survey(node, key, fix):
    with pytest.raises(ConfigError) as info:
        build_component(registry.envs, node, "env")
    assert f"'{key}'" in str(info.value) and fix in str(info.value)
