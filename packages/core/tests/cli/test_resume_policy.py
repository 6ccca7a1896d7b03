"""What ``resume=`` may change (``cli/resume_policy.py``), on composed configs and through the CLI."""

import os
import subprocess
import sys

import pytest
from conftest import CONFIG_DIR, DEFAULT_ENV
from hydra.core.hydra_config import HydraConfig
from omegaconf import OmegaConf, open_dict

from coevo.core.cli import train
from coevo.core.cli.config_sources import compose_config
from coevo.core.cli.resume_policy import command_line_keys, record_resume, resumed_config
from coevo.core.config import ConfigError


@pytest.fixture
def saved_run(compose_train, tmp_path):
    """A run folder whose config.yaml says 8 steps of grpo at the preset's learning rate."""
    run = tmp_path / "run"
    run.mkdir()
    OmegaConf.save(compose_train("trainer.max_steps=8"), run / "config.yaml")
    return run


def test_a_key_not_given_keeps_the_saved_value(compose_train, saved_run):
    # the bug: without trainer.max_steps the new composition holds the trainer=cpu preset's 12
    cfg = compose_train(f"resume={saved_run}")
    assert cfg.trainer.max_steps == 12
    merged, changes = resumed_config(cfg, saved_run, given=["resume"])
    assert merged.trainer.max_steps == 8 and changes == []
    assert merged.resume == str(saved_run)


def test_a_resumable_key_is_applied_and_recorded(compose_train, saved_run):
    cfg = compose_train(f"resume={saved_run}", "trainer.max_steps=20", "eval.num_tasks=3")
    merged, changes = resumed_config(cfg, saved_run, given=["resume", "trainer.max_steps", "eval.num_tasks"])
    assert merged.trainer.max_steps == 20 and merged.eval.num_tasks == 3
    assert changes == [("trainer.max_steps", 8, 20), ("eval.num_tasks", 6, 3)]
    record_resume(saved_run, merged, changes)
    written = OmegaConf.load(saved_run / "config.yaml")
    assert written.trainer.max_steps == 20 and written.resume is None
    assert written.resumed[0].changed["trainer.max_steps"] == {"from": 8, "to": 20}
    # the next resume reads the file with its history and keeps the recorded values
    again, changes = resumed_config(compose_train(f"resume={saved_run}"), saved_run, given=["resume"])
    assert again.trainer.max_steps == 20 and changes == [] and "resumed" not in again


@pytest.mark.parametrize(("override", "given", "message"), [
    ("algo.optim.lr=5.0", "algo.optim.lr", "algo.optim.lr=5.0 but the run in .* has algo.optim.lr=0.001"),
    # core's other algorithm (a test component, chosen through its base node)
    ("algo=base_unequal_forwards", "algo", "algo=unequal_forwards but the run in .* was trained with algo=grpo"),
    ("seed=3", "seed", "seed=3 but the run in .* has seed=0"),
    ("env.num_boxes=5", "env.num_boxes", "env.num_boxes=5 but"),
    ("trainer.precision=bf16-mixed", "trainer.precision", "trainer.precision='bf16-mixed' but"),
])
def test_a_change_a_resume_cannot_make_is_refused_naming_the_key(compose_train, saved_run, override, given, message):
    cfg = compose_train(f"resume={saved_run}", override)
    with pytest.raises(ConfigError, match=message + ".*may change only trainer.max_steps.*start a new run"):
        resumed_config(cfg, saved_run, given=["resume", given])


def test_run_dir_and_overwrite_contradict_resume(compose_train, saved_run, tmp_path):
    cfg = compose_train(f"resume={saved_run}")
    with open_dict(cfg):
        cfg.run_dir = str(tmp_path / "elsewhere")
    with pytest.raises(ConfigError, match="run_dir=.*elsewhere differs from the resumed folder"):
        resumed_config(cfg, saved_run, given=["resume", "run_dir"])
    resumed_config(cfg, saved_run, given=["resume"])  # not given: the default run_dir does not matter
    with pytest.raises(ConfigError, match="overwrite=true would replace the run"):
        resumed_config(compose_train(f"resume={saved_run}", "overwrite=true"), saved_run, given=["overwrite"])


def test_without_a_command_line_every_difference_counts(compose_train, saved_run):
    # a programmatic run(cfg): the composed config is what the caller asked for
    merged, changes = resumed_config(compose_train(f"resume={saved_run}"), saved_run, given=None)
    assert merged.trainer.max_steps == 12 and changes == [("trainer.max_steps", 8, 12)]
    with pytest.raises(ConfigError, match="algo.optim.lr=5.0"):
        resumed_config(compose_train(f"resume={saved_run}", "algo.optim.lr=5.0"), saved_run, given=None)


def test_command_line_keys_come_from_hydra():
    assert command_line_keys() is None  # no Hydra run: programmatic
    cfg = compose_config("train", ["env=boxes", "algo.optim.lr=5.0", "resume=x"], return_hydra_config=True,
                         repository=CONFIG_DIR)
    HydraConfig.instance().set_config(cfg)
    try:
        assert command_line_keys() == ["env", "algo.optim.lr", "resume"]
    finally:
        HydraConfig.instance().cfg = None


def _cli(*args, cwd):
    env = {**os.environ, "COEVO_CONFIG_DIR": CONFIG_DIR, "OMP_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-m", "coevo.core.cli.train", *DEFAULT_ENV, *args], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def test_cli_resume_keeps_the_saved_steps_and_refuses_a_new_learning_rate(compose_train, tmp_path):
    run = tmp_path / "run"
    train.run(compose_train("trainer.max_steps=2", "warmstart.enabled=false", "eval.before=false", "eval.after=false"))
    refused = _cli(f"resume={run}", "algo.optim.lr=5.0", cwd=tmp_path)
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "algo.optim.lr=5.0 but the run in" in refused.stdout and "Traceback" not in refused.stdout + refused.stderr
    done = _cli(f"resume={run}", cwd=tmp_path)  # no trainer.max_steps: the run's 2, not the preset's 12
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "training: 2 optimizer steps" in done.stdout
    written = OmegaConf.load(run / "config.yaml")
    assert written.trainer.max_steps == 2 and len(written.resumed) == 1 and written.resumed[0].changed == {}


def test_a_global_preset_counts_every_key_it_may_set(compose_train, saved_run):
    # experiment=… sets keys anywhere (``# @package _global_``) and no key is called "experiment":
    # every difference from the saved run is the preset's doing
    cfg = compose_train(f"resume={saved_run}", "algo.optim.lr=5.0")  # what such a preset might change
    with pytest.raises(ConfigError, match="algo.optim.lr=5.0 but"):
        resumed_config(cfg, saved_run, given=["resume", "experiment"])


def _saved_with_checkpoint(compose_train, tmp_path, trainer: str, sharded: bool):
    run = tmp_path / "multi"
    (run / "checkpoints").mkdir(parents=True)
    OmegaConf.save(compose_train(f"trainer={trainer}"), run / "config.yaml")
    last = run / "checkpoints" / "last.ckpt"
    if sharded:  # FSDP's sharded checkpoint: a folder with Lightning's meta.pt
        last.mkdir()
        (last / "meta.pt").write_bytes(b"")
    else:
        last.write_bytes(b"")
    return run


def test_a_sharded_fsdp_run_may_resume_on_another_number_of_processes(compose_train, tmp_path):
    run = _saved_with_checkpoint(compose_train, tmp_path, "fsdp_cpu", sharded=True)
    cfg = compose_train(f"resume={run}", "trainer=fsdp_cpu", "trainer.devices=1")
    merged, changes = resumed_config(cfg, run, given=["resume", "trainer", "trainer.devices"])
    assert merged.trainer.devices == 1 and changes == [("trainer.devices", 2, 1)]


@pytest.mark.parametrize(("trainer", "sharded", "why"), [
    ("fsdp_cpu", False, r"its checkpoint is a full state dict \(trainer.fsdp.state_dict_type=full\)"),
    ("ddp_cpu", False, "it ran with trainer.strategy=ddp"),
])
def test_another_number_of_processes_is_refused_otherwise(compose_train, tmp_path, trainer, sharded, why):
    run = _saved_with_checkpoint(compose_train, tmp_path, trainer, sharded)
    cfg = compose_train(f"resume={run}", f"trainer={trainer}", "trainer.devices=1")
    with pytest.raises(ConfigError, match=r"config error at 'trainer.devices': resume with trainer.devices=1 but the "
                                          r"run in .* has trainer.devices=2; .*sharded checkpoints .*" + why
                                          + ".*resume with trainer.devices=2"):
        resumed_config(cfg, run, given=["resume", "trainer", "trainer.devices"])
