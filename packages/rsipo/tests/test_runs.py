"""End-to-end coevo-train runs on core's ``boxes`` env with tiny settings: RSIPO and every
baseline/ablation by name."""

import json

import pytest
import torch
from safetensors.torch import load_file

from coevo.core.cli import train
from coevo.core.cli.components import env_factory
from coevo.core.cli.schema import TrainSchema
from coevo.core.config import ConfigError, validate

QUIET = ("eval.before=false", "eval.after=false")


def _rows(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_rsipo_changes_the_parameters_and_writes_skills(compose_train, tmp_path):
    cfg = compose_train("rsipo", "trainer.max_steps=3", "warmstart.enabled=false", *QUIET,
                        "algo.skip_zero_advantage=false", "algo.warmup.steps=5", "algo.warmup.episodes=8")
    settings = validate(cfg, TrainSchema, "train")
    _, env_cfg, make_env = env_factory(cfg.env)
    model, _ = train.build_policy(settings, cfg, make_env, env_cfg)
    before = {name: p.detach().clone() for name, p in model.named_parameters()}
    result = train.run(cfg)
    run = tmp_path / "run"
    after = load_file(str(run / "policy" / "model.safetensors"))
    assert result["steps"] == 3
    changed = [name for name in before if not torch.equal(before[name], after[name])]
    assert len(changed) == len(before)
    skills = _rows(run / "skills.jsonl")
    assert [r["step"] for r in skills] == [1, 1, 2, 2, 3, 3]  # 2 tasks per step
    for row in skills:
        assert {"task", "type", "skill", "replay_gain", "category", "omega", "skill_reward", "valid"} <= set(row)
        assert row["type"] in ("near", "far") and row["source"] == "policy"
        assert -1.0 <= row["replay_gain"] <= 1.0 and 0.0 <= row["omega"] <= 2.0
    metrics = _rows(run / "metrics.jsonl")
    assert [m["step"] for m in metrics] == [1, 2, 3]
    for m in metrics:
        for key in ("train/omega_mean", "train/omega_min", "train/omega_max", "train/omega_zero_share",
                    "train/teacher_better_share", "train/teacher_worse_share", "train/pg_loss", "train/opsd_loss",
                    "train/skill_loss", "train/skill/length_tokens", "train/skill/procedural_share",
                    "train/skill/format_share", "train/replay/success"):
            assert key in m, key
        assert any(k.startswith("train/gain/") for k in m) and any(k.startswith("train/omega/") for k in m)
        # 2 tasks x 4 student episodes + 2 tasks x 2 replays: the replays count in the budget
        assert m["train/budget/student_episodes"] == 8 and m["train/budget/replay_episodes"] == 4
        assert m["train/budget/rollouts"] == 12
    assert metrics[-1]["train/budget/rollouts_total"] == 36
    assert (run / "rsipo_dynamics.png").stat().st_size > 10_000


def test_baselines_and_ablations_run_by_name(compose_train, tmp_path):
    runs = {
        "opsd": ("opsd",),
        "grpo_opsd": ("grpo_opsd",),
        "skill_grpo": ("skill_grpo",),
        "static_trust": ("rsipo", "algo.dynamic_trust=false"),
        "no_evolution": ("rsipo", "algo.skill_evolution=false"),
    }
    for label, (algo, *extra) in runs.items():
        cfg = compose_train(algo, "trainer.max_steps=1", *QUIET, *extra, f"run_dir={tmp_path / label}",
                            "algo.warmup.steps=2", "algo.warmup.episodes=4")
        assert train.run(cfg)["steps"] == 1, label
        metrics = _rows(tmp_path / label / "metrics.jsonl")[0]
        skills = _rows(tmp_path / label / "skills.jsonl") if algo != "skill_grpo" else []
        if label == "opsd":
            assert metrics["train/samples"] == 0 and metrics["train/opsd_samples"] > 0  # no RLVR term
            assert metrics["train/budget/replay_episodes"] == 0 and skills[0]["source"] == "library"
        if label == "grpo_opsd":
            assert metrics["train/omega_mean"] == 1.0 and metrics["train/budget/replay_episodes"] == 0
        if label == "skill_grpo":
            assert metrics["train/budget/replay_episodes"] == 0 and metrics["train/opsd_samples"] == 0
        if label == "static_trust":  # replays still run (skill reward) but ω ≡ 1
            assert metrics["train/budget/replay_episodes"] == 4 and metrics["train/omega_min"] == 1.0
            assert skills[0]["omega"] == 1.0
        if label == "no_evolution":
            assert metrics["train/skill_samples"] == 0 and skills[0]["source"] == "frozen"


def test_skill_prompt_evaluates_with_library_skills_and_stops(compose_train, tmp_path):
    cfg = compose_train("skill_prompt", "trainer.max_steps=5", "eval.before=false", "eval.after=false",
                        "algo.num_tasks=4")
    result = train.run(cfg)
    assert result["steps"] == 1  # evaluation only: stops after its single step
    summary = json.loads((tmp_path / "run" / "eval_skill_prompt.json").read_text())
    assert 0.0 <= summary["success"] <= 1.0 and "success/near" in summary or "success/far" in summary
    assert (summary["success"] * 16) == pytest.approx(round(summary["success"] * 16))  # 4 tasks x 4 samples


def test_skill_prompt_refuses_an_unknown_evaluation_mode(compose_train):
    cfg = compose_train("skill_prompt", "eval.before=false", "eval.after=false", "algo.num_tasks=2",
                        "algo.mode=beam")
    with pytest.raises(ConfigError, match="algo.mode': unknown 'beam'"):
        train.run(cfg)


def test_rsipo_in_generate_mode_distills_per_token(compose_train, tmp_path):
    # free generation instead of choosing among commands: the teacher scores every generated token
    cfg = compose_train("rsipo", "trainer.max_steps=1", *QUIET, "agent.mode=generate", "agent.sampling.max_new_tokens=12",
                        "algo.warmup.steps=2", "algo.warmup.episodes=4", "algo.skill.max_new_tokens=16")
    assert train.run(cfg)["steps"] == 1
    metrics = _rows(tmp_path / "run" / "metrics.jsonl")[0]
    assert metrics["train/opsd_samples"] > 0 and "train/opsd/gap_mean" in metrics
    assert metrics["train/agent_tokens"] > metrics["train/opsd_samples"]  # several tokens per turn


def test_asynchronous_plays_with_the_frozen_skill_writer_are_refused_by_name(compose_train, tmp_path):
    # skill_evolution=false: the frozen initial policy writes the skills, a copy only the trainer holds
    cfg = compose_train("rsipo", "algo.skill_evolution=false", *QUIET, "rollout.async.enabled=true")
    with pytest.raises(ConfigError, match="'algo.skill_evolution'.*frozen initial policy.*rollout.async.enabled=false"):
        train.run(cfg)
    assert not (tmp_path / "run").exists()  # before any work
