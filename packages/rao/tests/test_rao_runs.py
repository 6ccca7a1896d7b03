"""End-to-end ``coevo-train algo=rao`` runs on the forkable ``rao_sums`` env with a tiny model."""

import json

import pytest
import torch
from omegaconf import open_dict
from safetensors.torch import load_file

from coevo.core.cli import train
from coevo.core.cli.components import env_factory
from coevo.core.cli.schema import TrainSchema
from coevo.core.config import ConfigError, validate


def _rows(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_rao_run_changes_every_parameter_of_both_agents_and_reports(compose_train, tmp_path):
    # no warm start: the random policy delegates, fails and succeeds by chance, so every node
    # sequence carries a non-zero advantage somewhere and every parameter receives gradient
    cfg = compose_train("trainer.max_steps=3", "warmstart.enabled=false", "algo.skip_zero_advantage=false",
                        "algo.report.sizes=[2,4]", "algo.sizes.knob=length", "algo.sizes.train=[2,4]",
                        "agent.mode=choose", env={"length": 4, "max_digit": 1})  # random answers: ~30% right
    settings = validate(cfg, TrainSchema, "train")
    _, env_cfg, make_env = env_factory(cfg.env)
    torch.manual_seed(0)
    model, _ = train.build_policy(settings, cfg, make_env, env_cfg, train.expert_source(*_algo(cfg)))
    before = {name: p.detach().clone() for name, p in model.named_parameters()}
    result = train.run(cfg)
    run = tmp_path / "run"
    assert result["steps"] == 3
    for folder in ("policy", "flat_policy"):
        after = load_file(str(run / folder / "model.safetensors"))
        unchanged = [n for n in before if not torch.equal(before[n], after[n])]
        assert len(unchanged) == len(before), folder  # every parameter changed
    metrics = _rows(run / "metrics.jsonl")
    assert [m["step"] for m in metrics] == [1, 2, 3]
    for m in metrics:
        for key in ("train/success", "train/flat/success", "train/tree/nodes", "train/tree/depth",
                    "train/delegation/success", "train/refused/all", "train/env_steps", "train/seconds_per_tree",
                    "train/samples", "train/flat/tree/nodes"):
            assert key in m, key
        assert m["train/flat/tree/nodes"] == 1.0  # the flat agent never delegates
    assert any(m["train/tree/nodes"] > 1 for m in metrics)
    report = json.loads((run / "rao_report.json").read_text())
    assert [r["value"] for r in report] == [2, 4] and {"recursive", "flat"} <= set(report[0])
    assert (run / "rao_report.png").stat().st_size > 10_000


def _algo(cfg):
    from coevo.core import registry
    from coevo.core.config import build_component

    return build_component(registry.algorithms, cfg.algo, "algo")


def test_resume_reproduces_an_uninterrupted_run_flat_agent_included(compose_train, tmp_path):
    common = ("algo.report.num_tasks=0", "warmstart.episodes=12", "warmstart.sft.epochs=1")
    train.run(compose_train("trainer.max_steps=3", f"run_dir={tmp_path / 'straight'}", *common))
    train.run(compose_train("trainer.max_steps=2", f"run_dir={tmp_path / 'split'}", *common))
    cfg = compose_train("trainer.max_steps=3", f"resume={tmp_path / 'split'}", f"run_dir={tmp_path / 'split'}", *common)
    assert train.run(cfg)["steps"] == 3
    a = torch.load(tmp_path / "straight" / "checkpoints" / "last.ckpt", weights_only=False)
    b = torch.load(tmp_path / "split" / "checkpoints" / "last.ckpt", weights_only=False)
    assert a["state_dict"].keys() == b["state_dict"].keys()
    assert any(k.startswith("flat_policy.") for k in a["state_dict"])
    for name in a["state_dict"]:
        assert torch.equal(a["state_dict"][name], b["state_dict"][name]), name
    assert a["rao"]["env_steps_total"] == b["rao"]["env_steps_total"]


def test_a_non_forkable_env_is_refused_before_any_work(compose_train):
    cfg = compose_train("trainer.max_steps=1", "warmstart.enabled=false")
    with open_dict(cfg):
        cfg.env = {"name": "boxes"}
    with pytest.raises(ConfigError, match="cannot fork"):
        train.run(cfg)


@pytest.mark.parametrize(
    ("override", "key"),
    [("algo.recursion.budget.mode=tree", "algo.recursion.budget.mode"),
     ("algo.recursion.schedule=parallel", "algo.recursion.schedule"),
     ("algo.credit.child_keep=0", "algo.credit.child_keep"),
     ("algo.flat_baseline=maybe", "algo.flat_baseline"),
     ("algo.warmstart_answer_episodes=-1", "algo.warmstart_answer_episodes"),
     ("+algo.recursion.budget.depth=3", "algo.recursion.budget.depth"),
     ("algo.report.sizes=[4]", "algo.sizes.knob")],
)
def test_bad_settings_name_their_key(compose_train, override, key):
    cfg = compose_train(override)
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        _algo(cfg)


def test_asynchronous_plays_with_the_trained_flat_baseline_are_refused_by_name(compose_train, tmp_path):
    # flat_baseline=train: a second policy plays its flat trees with that step's weights in the trainer
    cfg = compose_train("rollout.async.enabled=true", "warmstart.enabled=false")
    assert cfg.algo.flat_baseline == "train"  # the default
    with pytest.raises(ConfigError, match="'algo.flat_baseline'.*flat_baseline=policy or off"):
        train.run(cfg)
    assert not (tmp_path / "run").exists()  # before any work
