"""Strategies from ``trainer.*``: FSDP's clear refusal on a CPU machine, its decoder-layer wrap unit,
and the settings errors of the multi-process presets."""

import pytest
import torch
from conftest import CONFIG_DIR
from lightning.pytorch.strategies import DDPStrategy, FSDPStrategy

from coevo.core.cli import train
from coevo.core.cli.schema import TrainSchema
from coevo.core.cli.strategy import (
    CoevoFSDPStrategy,
    CPUFSDPStrategy,
    build_strategy,
    decoder_layer_classes,
    require_sharded_rollouts,
)
from coevo.core.config import ConfigError, validate
from coevo.core.policy.lora import LoraSettings, apply_lora
from coevo.core.testing.fast_configs import compose_fast
from coevo.core.testing.gloo import tiny_model

NO_GPU = not torch.cuda.is_available()


@pytest.mark.skipif(not NO_GPU, reason="checks the message a CPU-only machine gives")
def test_fsdp_without_a_gpu_fails_early_and_suggests_fsdp_cpu(compose_train, tmp_path):
    with pytest.raises(ConfigError) as raised:
        train.run(compose_train("trainer=fsdp"))
    message = str(raised.value)
    assert "'trainer.accelerator'" in message and "trainer=fsdp runs on GPUs" in message
    assert "trainer=fsdp_cpu" in message
    assert not (tmp_path / "cache").exists() and not (tmp_path / "run").exists()  # before any work


@pytest.mark.parametrize(("overrides", "expected"), [
    (["trainer.devices=2"], "trainer=ddp_cpu"),  # strategy auto is one process
    (["trainer=ddp_cpu", "trainer.devices=0"], "trainer.devices"),
    (["trainer.strategy=deepspeed"], "trainer.strategy"),
    (["trainer=fsdp", "trainer.fsdp.sharding_strategy=HALF"], "trainer.fsdp.sharding_strategy"),
    (["trainer=fsdp", "trainer.fsdp.state_dict_type=local"],
     r"config error at 'trainer.fsdp.state_dict_type': unknown 'local'; choose one of \['sharded', 'full'\]"),
])
def test_bad_trainer_settings_name_the_key(tmp_path, overrides, expected):
    cfg = compose_fast(CONFIG_DIR, overrides, tmp_path / "cache", tmp_path / "run")
    with pytest.raises(ConfigError, match=expected):
        validate(cfg, TrainSchema, "train")


def test_fsdp_wraps_the_decoder_layer_of_plain_and_lora_models():
    model = tiny_model()
    assert {c.__name__ for c in decoder_layer_classes(model)} == {"Qwen2DecoderLayer"}
    lora = apply_lora(model, LoraSettings(enabled=True))
    assert {c.__name__ for c in decoder_layer_classes(lora)} == {"Qwen2DecoderLayer"}
    with pytest.raises(ConfigError, match="decoder-layer class"):
        decoder_layer_classes(torch.nn.Linear(2, 2))


def test_ddp_cpu_preset_builds_a_gloo_ddp_strategy(tmp_path):
    cfg = compose_fast(CONFIG_DIR, ["trainer=ddp_cpu"], tmp_path / "cache", tmp_path / "run")
    t = validate(cfg, TrainSchema, "train").trainer
    assert (t.devices, t.accelerator, t.process_group_backend) == (2, "cpu", "gloo")
    strategy = build_strategy(t)
    assert isinstance(strategy, DDPStrategy) and strategy.process_group_backend == "gloo"


@pytest.mark.gpu
@pytest.mark.skipif(NO_GPU, reason="needs a CUDA GPU")
def test_fsdp_trains_and_exports_on_one_gpu(compose_train, tmp_path):
    # one GPU: FSDP with world size 1 (the wrap, bf16 mixed precision, sharded checkpoint, full export)
    cfg = compose_train("trainer=fsdp", "trainer.devices=1", "trainer.max_steps=2", "eval.before=false",
                        "eval.after=false", "trainer.fsdp.activation_checkpointing=true")
    result = train.run(cfg)
    assert result["steps"] == 2
    assert (tmp_path / "run" / "policy" / "model.safetensors").is_file()
    assert (tmp_path / "run" / "checkpoints" / "last.ckpt" / "meta.pt").is_file()  # a sharded checkpoint folder


def _fsdp_settings(tmp_path, *overrides):
    cfg = compose_fast(CONFIG_DIR, ["trainer=fsdp", *overrides], tmp_path / "cache", tmp_path / "run")
    return validate(cfg, TrainSchema, "train").trainer


def test_fsdp_strategy_wraps_and_checkpoints_the_decoder_layers(tmp_path, monkeypatch):
    # built (not run) as on a one-GPU machine: the wrap unit, activation checkpointing, orig params
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    t = _fsdp_settings(tmp_path, "trainer.fsdp.activation_checkpointing=true")
    strategy = build_strategy(t, tiny_model())
    assert isinstance(strategy, FSDPStrategy)
    assert {c.__name__ for c in strategy.kwargs["auto_wrap_policy"]._module_classes} == {"Qwen2DecoderLayer"}
    assert {c.__name__ for c in strategy._activation_checkpointing_kwargs["auto_wrap_policy"]._module_classes} == {
        "Qwen2DecoderLayer"}
    assert strategy.kwargs["use_orig_params"] and strategy.sharding_strategy.name == "FULL_SHARD"
    assert t.precision == "bf16-mixed"
    assert isinstance(strategy, CoevoFSDPStrategy) and strategy._state_dict_type == "sharded"
    full = build_strategy(_fsdp_settings(tmp_path, "trainer.fsdp.state_dict_type=full"), tiny_model())
    assert full._state_dict_type == "full"


def test_more_devices_than_visible_gpus_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    monkeypatch.delenv("LOCAL_RANK", raising=False)
    with pytest.raises(ConfigError, match=r"'trainer.devices': 4 processes asked for, but 2 GPU\(s\).*trainer.devices=2"):
        build_strategy(_fsdp_settings(tmp_path, "trainer.devices=4"))
    assert isinstance(build_strategy(_fsdp_settings(tmp_path, "trainer.devices=2")), FSDPStrategy)


def test_fsdp_cpu_preset_builds_fsdp_over_two_gloo_processes(tmp_path):
    cfg = compose_fast(CONFIG_DIR, ["trainer=fsdp_cpu"], tmp_path / "cache", tmp_path / "run")
    t = validate(cfg, TrainSchema, "train").trainer
    assert (t.devices, t.accelerator, t.process_group_backend, t.strategy) == (2, "cpu", "gloo", "fsdp")
    strategy = build_strategy(t, tiny_model())
    assert isinstance(strategy, CPUFSDPStrategy) and strategy.kwargs["use_orig_params"]
    assert strategy.sharding_strategy.name == "FULL_SHARD" and strategy._state_dict_type == "sharded"


def test_a_sharded_policy_needs_an_engine_that_samples_from_full_weights(tmp_path):
    cfg = compose_fast(CONFIG_DIR, ["trainer=fsdp_cpu"], tmp_path / "cache", tmp_path / "run")
    t = validate(cfg, TrainSchema, "train").trainer
    with pytest.raises(ConfigError, match="'rollout.name': rollout=other cannot yet sample .* 2 processes"):
        require_sharded_rollouts(t, "other")
    require_sharded_rollouts(t, "hf")
    require_sharded_rollouts(t, "vllm")  # streams the FSDP units into one engine per rank

    class TeacherForwards:  # e.g. rsipo (teacher log-probs) and evoheir (recovery's student)
        full_weight_forwards = True

    require_sharded_rollouts(t, "hf", TeacherForwards, "teacher")  # hf keeps a full copy on every rank
    with pytest.raises(ConfigError, match="'rollout.name': algo=teacher runs no-grad forwards of the full weights"
                                          ".* use rollout=hf, or trainer=ddp_gpu"):
        require_sharded_rollouts(t, "vllm", TeacherForwards, "teacher")
    one = validate(compose_fast(CONFIG_DIR, ["trainer=fsdp_cpu", "trainer.devices=1"], tmp_path / "cache",
                                tmp_path / "run"), TrainSchema, "train").trainer
    require_sharded_rollouts(one, "vllm", TeacherForwards, "teacher")  # one process: the policy is whole
