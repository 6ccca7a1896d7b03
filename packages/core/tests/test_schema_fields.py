"""Every field of every core schema declares its range or choices, and validation enforces them.

Walks (``coevo.core.testing.field_walk``) the command line's own schemas (``TrainSchema``,
``EvalSchema``, with the agent, trainer, warm-start and eval settings nested in them) and the
``Config`` of every component core registers (grpo, boxes, tiny/hf/smollm2, the hf engine). For
each declared field: a value just outside its range (or a bogus choice) is refused with one line
naming the full key, and a value just inside is accepted. A field without a declaration fails.
"""

from __future__ import annotations

import pytest

from coevo.core import registry
from coevo.core.cli.schema import EvalSchema, TrainSchema
from coevo.core.testing.field_walk import declared_fields, field_problems, key_prefix, package_schemas

CORE = package_schemas("core")


@pytest.mark.parametrize("schema", [TrainSchema, EvalSchema], ids=lambda s: s.__name__)
def test_root_schema_fields_are_declared_and_enforced(schema):
    assert field_problems(schema, "") == []


def test_core_registers_the_components_walked_here():
    assert {"algo=grpo", "env=boxes", "model=tiny", "model=hf", "model=smollm2", "rollout=hf"} <= set(CORE)


@pytest.mark.parametrize("component", sorted(CORE))
def test_component_config_fields_are_declared_and_enforced(component):
    assert field_problems(CORE[component], key_prefix(component)) == []


def test_the_walk_reaches_nested_settings():
    keys = {leaf.key for leaf in declared_fields(TrainSchema)}
    assert {"warmstart.sft.optim.lr", "agent.sampling.top_p", "trainer.fsdp.sharding_strategy",
            "eval.num_tasks"} <= keys


def test_vllm_engine_config_is_walked_where_vllm_is_installed():
    try:
        engine = registry.rollout_engines.get("vllm")
    except registry.RegistryError:
        pytest.skip("vLLM is not installed here (its engine module imports it)")
    assert field_problems(engine.Config, "rollout") == []


def test_eval_split_is_checked_against_the_chosen_envs_splits():
    from coevo.core.config import ConfigError, validate

    with pytest.raises(ConfigError, match=r"eval\.split: env 'boxes' has no split 'bogus'; choose one of \['train'"):
        validate({"env": {"name": "boxes"}, "eval": {"split": "bogus"}}, TrainSchema, "train")
    node = {"checkpoint": "runs/x", "env": {"name": "boxes"}, "eval": {"split": "train"}}
    assert validate(node, EvalSchema, "eval").eval.split == "train"
