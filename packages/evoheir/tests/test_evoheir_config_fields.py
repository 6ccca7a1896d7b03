"""Every field of coevo-evoheir's configs (``algo=evoheir`` and the ``heircommit`` callback) declares its
range or choices, and validation enforces them.

Walks (``coevo.core.testing.field_walk``) each registered component's Config with its nested
settings (scout, screen, recovery, commit, archive, audit, optim): a value just outside a declared
range or a bogus choice is refused with one line naming the full key, a value just inside is
accepted, and an undeclared field fails.
"""

from __future__ import annotations

import pytest

from coevo.core.testing.field_walk import field_problems, key_prefix, package_schemas

EVOHEIR = package_schemas("evoheir")


def test_every_evoheir_component_is_walked():
    assert {"algo=evoheir", "callbacks=heircommit"} <= set(EVOHEIR)


@pytest.mark.parametrize("component", sorted(EVOHEIR))
def test_component_config_fields_are_declared_and_enforced(component):
    assert field_problems(EVOHEIR[component], key_prefix(component)) == []


def test_only_the_grpo_host_chooses_the_advantage_and_the_loss():
    from coevo.core import registry
    from coevo.core.config import ConfigError, build_component

    with pytest.raises(ConfigError, match="algo.advantage=gigpo algo.loss=clipped_pg: only the grpo host"):
        build_component(registry.algorithms, {"name": "evoheir", "advantage": "gigpo"}, "algo")
    _, config = build_component(registry.algorithms, {"name": "evoheir", "host": "grpo", "loss": "cispo"}, "algo")
    assert (config.host, config.loss) == ("grpo", "cispo")
