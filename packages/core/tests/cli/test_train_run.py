"""End-to-end runs of coevo-train on the boxes env: smoke, exact resume, improvement."""

import json

import pytest
import torch
from safetensors.torch import load_file

from coevo.core.cli import train


def _weights(run_dir):
    return load_file(str(run_dir / "policy" / "model.safetensors"))


def _metrics(run_dir):
    return [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]


def test_grpo_smoke_changes_every_trainable_parameter(compose_train, tmp_path):
    # warm start off: the random-init model explores (length-normalised scores: sequence sums would
    # pick the shortest command almost surely), so groups have unequal returns and every
    # parameter (embeddings, attention, MLP, norms) receives gradient
    cfg = compose_train("trainer.max_steps=3", "warmstart.enabled=false", "eval.before=false", "eval.after=false",
                        "algo.skip_zero_advantage=false", "algo.kl_coef=0.05", "agent.choice_score=mean")
    from coevo.core.cli.components import env_factory
    from coevo.core.cli.schema import TrainSchema
    from coevo.core.config import validate

    settings = validate(cfg, TrainSchema, "train")
    _, env_cfg, make_env = env_factory(cfg.env)
    torch.manual_seed(0)
    model, tokenizer = train.build_policy(settings, cfg, make_env, env_cfg)
    before = {name: p.detach().clone() for name, p in model.named_parameters() if p.requires_grad}
    result = train.run(cfg)
    after = _weights(tmp_path / "run")
    assert result["steps"] == 3
    unchanged = [name for name, value in before.items() if torch.equal(value, after[name])]
    assert unchanged == []
    rows = _metrics(tmp_path / "run")
    assert [r["step"] for r in rows] == [1, 2, 3]
    assert all(r["train/samples"] > 0 for r in rows)
    assert (tmp_path / "run" / "training.png").stat().st_size > 10_000
    assert any((tmp_path / "run" / "tb").iterdir())


def test_resume_reproduces_an_uninterrupted_run(compose_train, tmp_path):
    straight = compose_train("trainer.max_steps=4", "eval.before=false", "eval.after=false",
                             f"run_dir={tmp_path / 'straight'}")
    train.run(straight)
    first = compose_train("trainer.max_steps=2", "eval.before=false", "eval.after=false",
                          f"run_dir={tmp_path / 'split'}")
    train.run(first)
    # what a kill -9 during step 3 leaves: a torn metrics line, half-written checkpoint and policy export
    split = tmp_path / "split"
    with (split / "metrics.jsonl").open("a") as handle:
        handle.write('{"step": 3, "train/rew')
    (split / "checkpoints" / "last.ckpt.tmp-999999").write_bytes(b"\x80\x02half")
    (split / "policy.tmp-999999").mkdir()
    resumed = compose_train("trainer.max_steps=4", f"resume={split}", "eval.before=false", "eval.after=false")
    result = train.run(resumed)
    assert result["steps"] == 4
    assert not (split / "checkpoints" / "last.ckpt.tmp-999999").exists() and not (split / "policy.tmp-999999").exists()
    a, b = _weights(tmp_path / "straight"), _weights(tmp_path / "split")
    assert a.keys() == b.keys()
    for name in a:
        assert torch.equal(a[name], b[name]), name
    drop = ("train/rollout_seconds", "train/update_seconds")
    strip = [{k: v for k, v in row.items() if k not in drop} for row in _metrics(tmp_path / "straight")]
    assert strip == [{k: v for k, v in row.items() if k not in drop} for row in _metrics(tmp_path / "split")]


@pytest.mark.slow
def test_grpo_improves_held_out_success_on_boxes(compose_train, tmp_path):
    # a weak warm start (10 expert episodes, 1 epoch) leaves room to improve; 20 GRPO steps on
    # 4 tasks x 8 episodes must raise greedy success on the 12 held-out tasks by 3 of them
    cfg = compose_train("warmstart.episodes=10", "warmstart.sft.epochs=1", "trainer.max_steps=20",
                        "algo.tasks_per_step=4", "algo.group_size=8", "eval.num_tasks=12", "env.num_boxes=4")
    result = train.run(cfg)
    # greedy (eval.also_greedy): 0.50 -> 0.75 here; sampled, 4 episodes per task: 0.67 -> 0.71
    assert result["after"]["greedy/success"] >= result["before"]["greedy/success"] + 0.25, result
    assert result["after"]["success"] > result["before"]["success"], result


def test_several_updates_per_batch_recompute_old_logprobs_and_clip(compose_train, tmp_path):
    # 2 optimizer steps per rollout batch: the second sees a policy that already moved, so the
    # ratio departs from 1 and the clipped objective is exercised; the data position advances
    # by one batch per 2 steps
    cfg = compose_train("trainer.max_steps=4", "warmstart.enabled=false", "eval.before=false", "eval.after=false",
                        "algo.updates_per_batch=2", "algo.skip_zero_advantage=false", "algo.optim.lr=1e-2",
                        "algo.clip_low=0.01", "algo.clip_high=0.01",
                        # untrained model: length-normalised scores keep the choice policy stochastic
                        # (sums favour the shortest command almost surely), so groups differ
                        "agent.choice_score=mean")
    result = train.run(cfg)
    assert result["steps"] == 4
    rows = _metrics(tmp_path / "run")
    assert [r["step"] for r in rows] == [2, 4]  # one row per rollout batch
    assert any(r["train/clip_fraction"] > 0 for r in rows)
    ckpt = torch.load(tmp_path / "run" / "checkpoints" / "last.ckpt", weights_only=False)
    assert ckpt["RolloutDataModule"]["batches_consumed"] == 2
