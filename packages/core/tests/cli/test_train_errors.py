"""Bad input to coevo-train gets one clear error naming the key and the fix; nothing on disk changes."""

import importlib.util

import pytest

from coevo.core.cli import train
from coevo.core.cli.run_lock import RunDirError
from coevo.core.config import ConfigError
from coevo.core.policy.builders import ModelLoadError


@pytest.mark.parametrize(
    ("override", "expected"),
    [
        ("algo.name=nope", ["algo.name", "unknown algorithm 'nope'", "grpo"]),
        pytest.param("algo.name=rao", ["algo.name", "pip install coevo-rao"],
                     marks=pytest.mark.skipif(importlib.util.find_spec("coevo.rao") is not None,
                                              reason="coevo-rao is installed here (the hint is for a missing plugin)")),
        ("env.name=nope", ["env.name", "unknown env 'nope'", "boxes"]),
        ("rollout.name=nope", ["rollout.name", "unknown rollout engine 'nope'", "hf"]),
        ("trainer.max_steps=abc", ["trainer.max_steps", "abc"]),
        ("agent.mode=telepathy", ["agent.mode", "telepathy", "generate", "choose"]),
        ("algo.group_size=1", ["algo.group_size", ">= 2"]),
        ("algo.loss_aggregation=median", ["algo.loss_aggregation", "token_mean"]),
        ("env.num_boxes=9", ["env", "num_boxes"]),
        ("+algo.grup_size=4", ["algo.grup_size", "group_size"]),
        ("+agent.prompt.histroy_turns=3", ["agent.prompt.histroy_turns", "history_turns"]),
        ("+callbacks.audit.name=nope", ["callbacks.audit.name", "unknown callback 'nope'"]),
        ("algo.choice_loss=both", ["algo.choice_loss", "softmax", "tokens"]),
    ],
)
def test_config_errors_name_the_key(compose_train, override, expected):
    with pytest.raises(ConfigError) as info:
        train.run(compose_train(override))
    for text in expected:
        assert text in str(info.value)


def test_missing_model_folder(compose_train, tmp_path):
    cfg = compose_train("model=hf", f"model.path={tmp_path / 'no-such-model'}", "warmstart.enabled=false")
    with pytest.raises(ModelLoadError, match="model.path: folder .*no-such-model' does not exist"):
        train.run(cfg)


def test_a_folder_without_config_json_is_not_a_model(compose_train, tmp_path):
    (tmp_path / "empty").mkdir()
    cfg = compose_train("model=hf", f"model.path={tmp_path / 'empty'}", "warmstart.enabled=false")
    with pytest.raises(ModelLoadError, match="no config.json"):
        train.run(cfg)


def test_refuses_a_run_dir_that_holds_a_run(compose_train, tmp_path):
    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    (run / "checkpoints" / "last.ckpt").write_bytes(b"")
    (run / "config.yaml").write_text("previous: run\n")
    with pytest.raises(RunDirError, match="already holds a run; pass resume=.* overwrite=true"):
        train.run(compose_train("trainer.max_steps=1"))
    assert (run / "config.yaml").read_text() == "previous: run\n"  # untouched


def test_resume_needs_a_checkpoint(compose_train, tmp_path):
    with pytest.raises(RunDirError, match="has no checkpoints/last.ckpt"):
        train.run(compose_train(f"resume={tmp_path / 'nothing-here'}"))


def test_overwrite_replaces_a_previous_run(compose_train, tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.yaml").write_text("previous: run\n")
    (run / "notes.txt").write_text("mine")
    result = train.run(compose_train("trainer.max_steps=1", "overwrite=true", "eval.before=false", "eval.after=false"))
    assert result["steps"] == 1
    assert "previous" not in (run / "config.yaml").read_text()
    assert (run / "notes.txt").read_text() == "mine"  # files coevo did not write are kept


def test_main_prints_the_error_and_exits_2(compose_train, capsys):
    with pytest.raises(SystemExit) as info:
        train._main(compose_train("algo.name=nope"))
    assert info.value.code == 2
    assert "unknown algorithm 'nope'" in capsys.readouterr().out
