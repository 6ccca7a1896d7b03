"""The memory planner: parameter counts from a model built on the meta device, per-GPU bytes of
DDP and FSDP, checked against what ``bench/scaling/fsdp_scaling.py`` measured on 1, 2 and 4 gloo ranks."""

import json
from pathlib import Path

import pytest
from omegaconf import OmegaConf

from coevo.core.memory_planner import ModelSize, main, meta_model_size, plan
from coevo.core.policy.lora import LoraSettings, apply_lora
from coevo.core.policy.tiny import TinyModelConfig, build_tiny_model
from coevo.core.policy.tokenizer import train_bpe_tokenizer
from coevo.core.testing.fast_configs import available_env, boxes_corpus, repository_configs

RESULTS = Path(__file__).resolve().parents[3] / "bench" / "scaling" / "fsdp_scaling.json"


@pytest.mark.skipif(not RESULTS.is_file(), reason="bench/scaling/fsdp_scaling.json is in the repository")
def test_fsdp_training_state_matches_the_measured_bytes_per_rank():
    for row in json.loads(RESULTS.read_text())["rows"]:
        size = ModelSize(row["parameters"], row["parameters"], hidden=128, layers=4, vocab=302)
        planned = plan(size, "fsdp", row["world_size"], row["world_size"])
        assert planned.training_state == row["per_rank_bytes"]
        assert planned.weights == row["per_rank"]["parameters"] and planned.optimizer == row["per_rank"]["optimizer"]


def test_sharding_strategies_divide_what_they_shard():
    size = ModelSize(1000, 1000, 8, 1, 10)
    full = plan(size, "ddp", 4, 4)
    assert (full.weights, full.gradients, full.optimizer, full.rollout_copy) == (4000, 4000, 8000, 0)
    sharded = plan(size, "fsdp", 4, 4)
    assert (sharded.weights, sharded.gradients, sharded.optimizer) == (1000, 1000, 2000)
    assert sharded.rollout_copy == 4000  # float32 run: the rollout copy is a float32 copy
    grad_op = plan(size, "fsdp", 4, 4, "SHARD_GRAD_OP")
    assert (grad_op.weights, grad_op.gradients, grad_op.optimizer) == (4000, 1000, 2000)
    hybrid = plan(size, "fsdp", 8, 4, "HYBRID_SHARD")  # 2 nodes x 4: sharded within a node
    assert hybrid.weights == 1000
    assert plan(size, "fsdp", 4, 4, precision="bf16-mixed").rollout_copy == 2000  # the bf16 copy
    assert plan(size, "ddp", 1, 1, kl_reference=True).reference == 4000  # frozen copy under full fine-tuning
    assert plan(size, "fsdp", 4, 4, kl_reference=True).reference == 1000  # sharded like the weights
    assert plan(size, "fsdp", 4, 4, "SHARD_GRAD_OP", kl_reference=True).reference == 4000  # weights unsharded


def test_lora_trains_only_the_adapters():
    size = ModelSize(1000, 10, 8, 1, 10)
    lora = plan(size, "ddp", 1, 1, kl_reference=True)
    assert (lora.weights, lora.gradients, lora.optimizer, lora.reference) == (4000, 40, 80, 0)


def test_meta_counts_equal_the_built_model_with_and_without_lora():
    tokenizer = train_bpe_tokenizer(boxes_corpus(), vocab_size=300)
    config = TinyModelConfig(hidden_size=32, num_layers=2, num_heads=2, num_kv_heads=1, intermediate_size=64)
    node = OmegaConf.create({"name": "tiny", "vocab_size": len(tokenizer), "hidden_size": 32, "num_layers": 2,
                             "num_heads": 2, "num_kv_heads": 1, "intermediate_size": 64})
    built = build_tiny_model(config, tokenizer)
    size = meta_model_size(node, LoraSettings(enabled=False))
    assert size.parameters == size.trainable == sum(p.numel() for p in built.parameters())
    settings = LoraSettings(enabled=True)
    adapted = apply_lora(built, settings)
    lora_size = meta_model_size(node, settings)
    assert lora_size.parameters == sum(p.numel() for p in adapted.parameters())
    assert lora_size.trainable == sum(p.numel() for p in adapted.parameters() if p.requires_grad) > 0


def test_the_command_prints_ddp_and_fsdp_per_gpu(capsys, monkeypatch):
    monkeypatch.setenv("COEVO_CONFIG_DIR", repository_configs(__file__))
    main([*available_env(), "trainer=fsdp_cpu", "trainer.devices=4", "model.hidden_size=128", "model.num_layers=4",
          "model.num_heads=4", "model.num_kv_heads=2", "model.intermediate_size=256", "model.vocab_size=302"])
    out = capsys.readouterr().out
    assert "630,656 parameters (630,656 trainable), 4 process(es)" in out
    assert "DDP" in out and "FSDP" in out and "0.60 MiB" in out  # 630,656 x 4 bytes / 4 ranks


@pytest.mark.parametrize(("overrides", "expected"), [
    (["model=hf", "model.path=/no/such/folder"], "error (model folder): model.path: '/no/such/folder' has no config.json"),
    (["model=smollm2"], "the planner reads model=tiny or model=hf"),
    (["trainer.devices=abc"], "error (config): config error at 'trainer.devices'"),
])
def test_bad_input_is_one_line(capsys, monkeypatch, overrides, expected):
    monkeypatch.setenv("COEVO_CONFIG_DIR", repository_configs(__file__))
    with pytest.raises(SystemExit) as stopped:
        main([*available_env(), *overrides])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert expected in err and "Traceback" not in err
