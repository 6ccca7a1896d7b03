"""``coevo-eval`` of a run folder: the run's own env and agent are the defaults, the command line's
overrides go on top; ``env=<name>`` chooses another environment."""

import pytest
from conftest import compose_installed
from omegaconf import OmegaConf

from coevo.core.cli.errors import InputError
from coevo.core.cli.eval import with_run_settings


@pytest.fixture
def run_folder(tmp_path):
    saved = {"env": {"name": "boxes", "num_boxes": 4, "max_steps": 6}, "agent": {"mode": "choose", "max_turns": 5}}
    OmegaConf.save(OmegaConf.create(saved), tmp_path / "config.yaml")
    return tmp_path


def _settings(*overrides: str):
    cfg = compose_installed("eval", list(overrides))  # the default env as composed (boxes without coevo-envs)
    return with_run_settings(cfg, list(overrides))  # the command line as the user typed it


def test_env_overrides_change_the_runs_own_env(run_folder):
    # was: any env.* override replaced the run's env with the default (household)
    cfg = _settings(f"checkpoint={run_folder}", "env.max_steps=3", "agent.max_turns=2")
    assert OmegaConf.to_container(cfg.env) == {"name": "boxes", "num_boxes": 4, "max_steps": 3}
    assert OmegaConf.to_container(cfg.agent) == {"mode": "choose", "max_turns": 2}


def test_without_overrides_the_run_is_evaluated_as_trained(run_folder):
    cfg = _settings(f"checkpoint={run_folder}")
    assert cfg.env.name == "boxes" and cfg.env.num_boxes == 4


def test_choosing_another_env_uses_its_preset(run_folder):
    cfg = _settings(f"checkpoint={run_folder}", "env=boxes", "env.max_steps=2")
    assert cfg.env.max_steps == 2 and cfg.env.num_boxes == 3  # boxes.yaml's num_boxes, not the run's


def test_a_missing_checkpoint_is_named():
    with pytest.raises(InputError, match="checkpoint: missing; pass checkpoint=.*make eval CKPT=runs/<run>"):
        _settings()


def test_a_model_folder_is_evaluated_with_the_agent_settings_training_used(tmp_path):
    # was: coevo-eval of a plain model folder took AgentSettings' defaults (a household system prompt,
    # the full first observation, no goal reminder) while coevo-train overrode them: a warm-started
    # math model scored 7% greedy under eval's prompt and 78% under the prompt it was trained on
    (tmp_path / "config.json").write_text("{}")
    evaluated = _settings(f"checkpoint={tmp_path}").agent
    trained = compose_installed("train", []).agent
    assert OmegaConf.to_container(evaluated) == OmegaConf.to_container(trained)
    assert evaluated.prompt.system_prompt == "" and evaluated.prompt.first_observation == "goal"
