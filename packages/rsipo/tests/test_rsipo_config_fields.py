"""Every field of every coevo-rsipo component's ``Config`` declares its range or choices, enforced.

Walks (``coevo.core.testing.field_walk``) the Config of each algorithm and callback coevo-rsipo
registers (rsipo, opsd, grpo_opsd, skill_grpo, skill_prompt, trust_calibration) with their nested
settings (trust, skill, warmup, optim): a value just outside a declared range or a bogus choice is
refused with one line naming the full key, a value just inside is accepted, and an undeclared
field fails. The baselines only change defaults, so they keep RSIPO's declarations.
"""

from __future__ import annotations

import pytest

from coevo.core.testing.field_walk import field_problems, key_prefix, package_schemas

RSIPO = package_schemas("rsipo")


def test_every_rsipo_component_is_walked():
    assert {"algo=rsipo", "algo=opsd", "algo=grpo_opsd", "algo=skill_grpo", "algo=skill_prompt",
            "callbacks=trust_calibration"} <= set(RSIPO)


@pytest.mark.parametrize("component", sorted(RSIPO))
def test_component_config_fields_are_declared_and_enforced(component):
    assert field_problems(RSIPO[component], key_prefix(component)) == []
