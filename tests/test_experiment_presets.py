"""Every ``configs/experiment/*.yaml`` preset composes with the train config and validates against
the schemas of the components it selects (a dummy ``model.path``); the papers' numbers are there."""

from pathlib import Path

import pytest
from omegaconf import OmegaConf

from coevo.core import registry
from coevo.core.cli.config_sources import compose_config
from coevo.core.cli.schema import TrainSchema
from coevo.core.config import ConfigError, build_component, validate

CONFIGS = Path(__file__).resolve().parents[1] / "configs"
PRESETS = sorted(p.stem for p in (CONFIGS / "experiment").glob("*.yaml"))


def _compose(*overrides):
    return compose_config("train", list(overrides), repository=str(CONFIGS))


@pytest.mark.parametrize("name", PRESETS)
def test_preset_composes_and_validates(name):
    cfg = _compose(f"experiment={name}", "model.path=/models/dummy")
    settings = validate(cfg, TrainSchema, "train")
    for group, kind in (("algo", registry.algorithms), ("env", registry.envs), ("model", registry.models),
                        ("rollout", registry.rollout_engines)):
        build_component(kind, cfg[group], group)
    assert cfg.model.name == "hf" and cfg.model.path == "/models/dummy"
    assert settings.trainer.strategy == "fsdp" and not settings.warmstart.enabled
    assert cfg.algo.optim.lr == 1e-6
    assert name.split("_")[0] == cfg.algo.name


def test_rsipo_alfworld_carries_the_papers_numbers():
    cfg = _compose("experiment=rsipo_alfworld_qwen2.5_3b", "model.path=/m")
    assert (cfg.algo.name, cfg.env.name, cfg.algo.group_size, cfg.algo.replay_fraction) == ("rsipo", "alfworld", 8, 0.5)
    assert (cfg.algo.trust.kappa, cfg.algo.trust.omega_max) == (1.0, 2.0)
    seven = _compose("experiment=rsipo_alfworld_qwen2.5_7b", "model.path=/m")
    assert seven.trainer.fsdp.activation_checkpointing and seven.algo.optim.lr == 1e-6
    search = _compose("experiment=rsipo_search_qwen2.5_3b", "model.path=/m")
    assert search.env.name == "search" and search.algo.group_size == 8


def test_evoheir_preset_matches_the_spec():
    a = _compose("experiment=evoheir_math_qwen3_4b", "model.path=/m").algo
    assert (a.branches, a.explore_steps, a.rounds) == (2, 15, 10)
    assert (a.screen.pool_size, a.screen.samples, a.commit.pool_size, a.archive.cap) == (16, 4, 64, 256)
    assert (a.recovery.lora_r, a.recovery.lora_alpha, a.recovery.steps, a.recovery.lr) == (8, 16, 16, 5e-5)
    assert list(a.recovery.target_modules) == ["q_proj", "v_proj"] and a.scout.min_support == 0.7


def test_a_preset_without_model_path_names_the_key():
    cfg = _compose("experiment=rsipo_alfworld_qwen2.5_3b")
    assert OmegaConf.is_missing(cfg.model, "path")
    with pytest.raises(ConfigError, match="model.path"):
        build_component(registry.models, cfg.model, "model")


@pytest.mark.parametrize("preset", ["cpu", "ddp_cpu", "ddp_gpu", "fsdp"])
def test_trainer_presets_validate(preset):
    trainer = validate(_compose(f"trainer={preset}"), TrainSchema, "train").trainer
    assert trainer.strategy == {"cpu": "auto", "ddp_cpu": "ddp", "ddp_gpu": "ddp", "fsdp": "fsdp"}[preset]


@pytest.mark.parametrize("name", PRESETS)
@pytest.mark.parametrize("first", [True, False], ids=["model_after", "model_before"])
def test_model_smollm2_replaces_a_presets_model_wherever_it_is_written(name, first):
    """``experiment=… model=smollm2`` (either order) runs the preset with SmolLM2: the preset's
    model group is replaced as Hydra users expect, its model settings (dtype, LoRA) kept, and nothing
    asks for the hf model's ``model.path``."""
    overrides = [f"experiment={name}", "model=smollm2"]
    cfg = _compose(*(overrides if first else overrides[::-1]))
    validate(cfg, TrainSchema, "train")
    _, model = build_component(registry.models, cfg.model, "model")
    assert cfg.model.name == "smollm2" and "path" not in cfg.model
    assert (model.dtype, model.lora.enabled) == ("bfloat16", False)  # the preset's
    assert cfg.algo.name == name.split("_")[0] and cfg.algo.optim.lr == 1e-6  # the rest of the preset stays


def test_rao_textcraft_synth_preset_is_the_papers_configuration():
    """Issue 46, item 5: the paper's TextCraft-Synth run (composed only; no model is loaded)."""
    cfg = _compose("experiment=rao_textcraft_synth_qwen3_4b", "model.path=/models/Qwen3-4B")
    settings = validate(cfg, TrainSchema, "train")
    _, env = build_component(registry.envs, cfg.env, "env")
    _, algo = build_component(registry.algorithms, cfg.algo, "algo")
    assert (cfg.env.name, env.band, env.ood_band, env.max_steps, env.budget_mode) == (
        "textcraft_synth", "medium", "hard", 25, "per_agent")
    assert (algo.group_size, algo.tasks_per_step, algo.loss, algo.kl_coef) == (8, 16, "cispo", 0.0)
    assert (algo.baseline, algo.depth_weighting, algo.flat_baseline) == ("root_loo", "inverse_frequency", "train")
    budget, delegation = algo.recursion.budget, algo.recursion.delegation
    assert (budget.mode, budget.agent_steps, budget.max_depth) == ("per_agent", 25, 6)
    assert (delegation.options, delegation.show_options, delegation.max_children) == ("none", False, 1)
    assert list(algo.report.splits) == ["eval_in_distribution", "eval_out_of_distribution"]
    assert (settings.agent.mode, settings.agent.sampling.temperature) == ("generate", 1.0)
    assert settings.agent.prompt.max_prompt_tokens == 12288 and settings.agent.sampling.max_new_tokens == 1024
    assert (cfg.model.name, cfg.model.dtype, cfg.model.lora.enabled, algo.optim.lr) == ("hf", "bfloat16", False, 1e-6)
    assert settings.trainer.fsdp.activation_checkpointing and not settings.warmstart.enabled
