"""Cross-package end-to-end: coevo-train with GRPO on the household env of coevo-envs.

A short run on CPU with a small tiny model: the warm start, the before/after evaluation, the
TensorBoard log, the checkpoints, the safetensors export and the PNG plot must all be produced,
and coevo-eval must evaluate the result on the out-of-distribution split.
"""

import json
from pathlib import Path

import torch

from coevo.core import registry
from coevo.core.cli import eval as eval_cli
from coevo.core.cli import train
from coevo.core.cli.config_sources import compose_config

CONFIG_DIR = str(Path(__file__).resolve().parents[1] / "configs")


def _compose(name, overrides):
    return compose_config(name, overrides, repository=CONFIG_DIR)


def test_household_is_discovered_from_the_installed_plugin():
    assert "household" in registry.envs.names()
    assert registry.envs.distribution_of("household") == "coevo-envs"


def test_train_then_eval_on_household(tmp_path):
    torch.set_num_threads(1)
    run_dir = tmp_path / "run"
    cfg = _compose("train", [
        "algo=grpo", "env=household", f"run_dir={run_dir}", f"warmstart.cache_dir={tmp_path / 'cache'}",
        "model.hidden_size=32", "model.num_layers=2", "model.num_heads=2", "model.num_kv_heads=1",
        "model.intermediate_size=64", "model.vocab_size=400",
        "warmstart.episodes=20", "warmstart.sft.epochs=1", "trainer.max_steps=2", "trainer.progress_bar=false",
        "algo.tasks_per_step=2", "algo.group_size=2", "eval.num_tasks=4", "env.max_steps=6",
    ])
    result = train.run(cfg)
    assert result["steps"] == 2
    for name in ("config.yaml", "metrics.jsonl", "eval_before.json", "eval_after.json", "training.png",
                 "checkpoints/last.ckpt", "policy/model.safetensors", "policy/tokenizer.json"):
        assert (run_dir / name).exists(), name
    assert any((run_dir / "tb").rglob("events.out.tfevents.*"))
    after = json.loads((run_dir / "eval_after.json").read_text())
    assert set(after) >= {"success", "reward", "invalid_rate", "greedy/success"}  # sampled, and greedy alongside

    eval_cfg = _compose("eval", [f"checkpoint={run_dir}", "eval.split=eval_out_of_distribution", "eval.num_tasks=4"])
    summary = eval_cli.run(eval_cli.with_run_settings(eval_cfg, [f"checkpoint={run_dir}"]))
    assert 0.0 <= summary["success"] <= 1.0
    assert summary["turns"] <= 6
