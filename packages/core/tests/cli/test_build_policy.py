"""``build_policy`` without a warm start computes only what the model uses: a model folder that brings
its own tokenizer (``hf``, ``smollm2``) plays no expert episode; ``tiny`` plays the 50 episodes its
tokenizer is trained on; and the long stages print a sign of life."""

import pytest

from coevo.core import progress
from coevo.core.cli import train
from coevo.core.cli.components import env_factory
from coevo.core.cli.schema import TrainSchema
from coevo.core.config import validate
from coevo.core.policy.builders import TinyBuilder, TinyBuilderConfig
from coevo.core.policy.saving import save_policy_folder
from coevo.core.testing.fast_configs import boxes_corpus


class CountingExpert:
    """An ``ExpertSource`` that counts the episodes it is asked for (and plays them with core's)."""

    def __init__(self):
        self.episodes = 0

    def __call__(self, env, prompt, num_episodes, split="train", first_index=0):
        from coevo.core.expert_data import collect_expert_examples

        self.episodes += num_episodes
        return collect_expert_examples(env, prompt, num_episodes, split, first_index)


def _settings_and_env(cfg):
    settings = validate(cfg, TrainSchema, "train")
    _, env_cfg, make_env = env_factory(cfg.env)
    return settings, env_cfg, make_env


@pytest.fixture
def model_folder(tmp_path):
    config = TinyBuilderConfig(hidden_size=32, num_layers=1, num_heads=2, num_kv_heads=1, intermediate_size=64,
                               vocab_size=300)
    model, tokenizer = TinyBuilder(config).build(lambda: boxes_corpus(4))
    return save_policy_folder(model, tokenizer, tmp_path / "folder")


def test_a_model_with_its_own_tokenizer_plays_no_expert_episode(compose_train, model_folder):
    cfg = compose_train("model=hf", f"model.path={model_folder}", "warmstart.enabled=false")
    settings, env_cfg, make_env = _settings_and_env(cfg)
    expert = CountingExpert()
    model, tokenizer = train.build_policy(settings, cfg, make_env, env_cfg, expert)
    assert expert.episodes == 0
    assert tokenizer.name_or_path == str(model_folder) and model.config.hidden_size == 32


def test_tiny_trains_its_tokenizer_on_the_experts_episodes(compose_train):
    cfg = compose_train("warmstart.enabled=false")
    settings, env_cfg, make_env = _settings_and_env(cfg)
    expert = CountingExpert()
    _, tokenizer = train.build_policy(settings, cfg, make_env, env_cfg, expert)
    assert expert.episodes == train.TOKENIZER_EPISODES == 50
    assert "box" in tokenizer.get_vocab() or any("box" in t for t in tokenizer.get_vocab())


def test_expert_episodes_print_lines_once_they_run_long(compose_train, monkeypatch, capsys):
    """Without a terminal (CI logs), a stage that runs past QUIET_SECONDS prints its count and a closing line."""
    monkeypatch.setattr(progress, "QUIET_SECONDS", 0.0)
    monkeypatch.setattr(progress, "LINE_SECONDS", 0.0)
    monkeypatch.setattr(progress, "_console", None)
    cfg = compose_train("warmstart.enabled=false")
    settings, env_cfg, make_env = _settings_and_env(cfg)
    train.tokenizer_corpus(make_env(), settings)
    lines = capsys.readouterr().out.splitlines()
    counted = [line for line in lines if line.startswith("boxes: playing expert episodes: ")]
    assert counted[0] == "boxes: playing expert episodes: 1/50 (0 s)"
    assert counted[-1].startswith("boxes: playing expert episodes: 50 done in ")
    assert len(counted) == 51
