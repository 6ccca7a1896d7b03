"""Cross-package end-to-end: RSIPO (coevo-rsipo) on the search environment (coevo-envs).

``make train ALGO=rsipo ARGS="env=search"`` with a small tiny model: the warm start plays the
search expert (there is no library skill for search, so no writing examples join it), the policy
writes skills for its search questions in free generation, replays them and trains; the run writes
skills.jsonl with the search questions' types and the RSIPO metrics.
"""

import json
from pathlib import Path

import torch

from coevo.core.cli import train
from coevo.core.cli.config_sources import compose_config

CONFIG_DIR = str(Path(__file__).resolve().parents[1] / "configs")


def _rows(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_rsipo_trains_on_search(tmp_path):
    torch.set_num_threads(1)
    run_dir = tmp_path / "run"
    cfg = compose_config("train", [
            "algo=rsipo", "env=search", f"run_dir={run_dir}", f"warmstart.cache_dir={tmp_path / 'cache'}",
            f"env.index_dir={tmp_path / 'index'}", "env.num_people=12",
            "model.hidden_size=32", "model.num_layers=2", "model.num_heads=2", "model.num_kv_heads=1",
            "model.intermediate_size=64", "model.vocab_size=400",
            "warmstart.episodes=12", "warmstart.sft.epochs=1", "trainer.max_steps=2", "trainer.progress_bar=false",
            "algo.tasks_per_step=2", "algo.group_size=4", "algo.skip_zero_advantage=false",
            "agent.sampling.max_new_tokens=16", "algo.skill.max_new_tokens=16",
            "eval.num_tasks=2", "eval.samples_per_task=2",
        ], repository=CONFIG_DIR)
    result = train.run(cfg)
    assert result["steps"] == 2
    skills = _rows(run_dir / "skills.jsonl")
    assert [r["step"] for r in skills] == [1, 1, 2, 2]  # one skill per task, 2 tasks per step
    assert {r["type"] for r in skills} <= {"hop1", "hop2", "hop3"}  # the synthetic questions' hop counts
    for row in skills:
        assert row["source"] == "policy" and -1.0 <= row["replay_gain"] <= 1.0
    metrics = _rows(run_dir / "metrics.jsonl")
    for m in metrics:
        assert m["train/budget/replay_episodes"] == 4  # 2 tasks x 2 replays
        assert "train/omega_mean" in m and "train/opsd_loss" in m and "train/skill_loss" in m
    assert set(json.loads((run_dir / "eval_after.json").read_text())) >= {"success", "greedy/success"}
