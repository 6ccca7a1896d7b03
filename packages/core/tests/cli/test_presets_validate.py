"""Every preset shipped by the installed packages and the repository's ``configs/`` still validates
against the declared field ranges.

Each preset is composed with core's ``train.yaml`` (``eval.yaml`` for the eval config)
and run through the same checks ``coevo-train`` makes before any work: the top-level schema, then
every component node against its registered ``Config``. A preset whose plugin or backend is not
installed here (vLLM) is skipped, not failed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import CONFIG_DIR, compose_installed
from omegaconf import OmegaConf

from coevo.core import registry
from coevo.core.cli.config_sources import preset_names
from coevo.core.cli.schema import EvalSchema, TrainSchema
from coevo.core.config import build_component, validate

CONFIGS = Path(CONFIG_DIR)
HF_PATH = "model.path=/nonexistent/model"  # model=hf needs a folder; only its shape is checked here


def _names(group: str) -> list[str]:
    return preset_names(group, repository=str(CONFIGS))


def _check_train(overrides: list[str]) -> None:
    cfg = compose_installed("train", overrides)
    if cfg.model.name == "hf" and OmegaConf.is_missing(cfg.model, "path"):
        cfg.model.path = "/nonexistent/model"
    validate(cfg, TrainSchema, "train")
    kinds = {"algo": registry.algorithms, "env": registry.envs, "model": registry.models,
             "rollout": registry.rollout_engines}
    for key, kind in kinds.items():
        if cfg.get(key) is None:
            continue
        if cfg[key].name not in kind.names():
            pytest.skip(f"{key}={cfg[key].name} is not installed here")
        try:
            kind.get(cfg[key].name)
        except registry.RegistryError as exc:
            pytest.skip(f"{key}={cfg[key].name} cannot load here: {exc}")
        build_component(kind, cfg[key], key)
    for name, node in (cfg.get("callbacks") or {}).items():
        build_component(registry.callbacks, node, f"callbacks.{name}")


@pytest.mark.parametrize("algo", _names("algo"))
def test_algorithm_presets_validate(algo):
    _check_train([f"algo={algo}"])


@pytest.mark.parametrize("env", _names("env"))
def test_environment_presets_validate(env):
    _check_train([f"env={env}"])


@pytest.mark.parametrize("pair", _names("algo_env"))
def test_algorithm_environment_presets_validate(pair):
    algo, env = pair.split("_", 1)
    _check_train([f"algo={algo}", f"env={env}"])


@pytest.mark.parametrize("triple", _names("algo_env_model"))
def test_algorithm_environment_model_presets_validate(triple):
    algo, rest = triple.split("_", 1)
    env, model = rest.rsplit("_", 1)
    _check_train([f"algo={algo}", f"env={env}", f"model={model}"])


@pytest.mark.parametrize("group", ["model", "rollout", "trainer", "callbacks", "experiment", "agent"])
def test_other_presets_validate(group):
    for name in _names(group):
        override = f"+callbacks={name}" if group == "callbacks" else f"{group}={name}"
        _check_train([override])


def test_an_external_agent_trains_from_the_generate_presets_settings():
    """agent=openai_client builds on agent=generate: coevo's own loop in generate mode (the comparison run)
    and the external agent start from the same warm start and prompt layout; household's default
    (choose among commands, the shorter warm start of train.yaml) is untouched."""
    generate, external, default = (compose_installed("train", overrides)
                                   for overrides in (["agent=generate"], ["agent=openai_client"], []))
    assert generate.agent == external.agent and generate.warmstart == external.warmstart
    assert (external.agent.mode, external.agent.prompt.show_admissible) == ("generate", True)
    assert (external.warmstart.episodes, external.warmstart.sft.epochs) == (600, 10)
    assert external.external.enabled and not generate.external.enabled
    assert (default.agent.mode, default.warmstart.episodes, default.warmstart.sft.epochs) == ("auto", 300, 6)


def test_eval_config_validates():
    cfg = compose_installed("eval", ["checkpoint=runs/some-run"])
    validate(cfg, EvalSchema, "eval")
