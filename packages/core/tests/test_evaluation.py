"""Held-out evaluation: greedy (each task once) and sampled (several episodes per task, fixed seed)."""

from __future__ import annotations

import pytest
import torch

from coevo.core.agent.loop import AgentSettings
from coevo.core.cli.schema import EvalSettings
from coevo.core.evaluation import evaluate
from coevo.core.testing.boxes_env import BoxesConfig, BoxesEnv


def make_env():
    return BoxesEnv(BoxesConfig(num_boxes=4, max_steps=5))


def _actions(episodes):
    return [(ep.task.index, [t.action for t in ep.turns]) for ep in episodes]


def _evaluate(model, tokenizer, **how):
    # choice_score=mean: the untrained model's choices are spread out, so samples differ
    agent = AgentSettings(mode="choose", choice_score="mean")
    return evaluate(model, tokenizer, make_env, agent, "train", 5, batch_size=4, **how)


def test_sampled_evaluation_plays_each_task_samples_times_and_averages_them(tiny_model, tokenizer):
    summary, episodes = _evaluate(tiny_model, tokenizer, mode="sample", samples_per_task=3, sample_seed=7)
    assert [ep.task.index for ep in episodes] == [i for i in range(5) for _ in range(3)]
    assert summary["success"] == pytest.approx(sum(ep.won for ep in episodes) / 15)
    # the same seed replays the same episodes; the three samples of a task are not all the same
    _, again = _evaluate(tiny_model, tokenizer, mode="sample", samples_per_task=3, sample_seed=7)
    assert _actions(again) == _actions(episodes)
    per_task = [{tuple(a) for i, a in _actions(episodes) if i == task} for task in range(5)]
    assert any(len(samples) > 1 for samples in per_task)


def test_evaluation_leaves_the_callers_random_state_alone(tiny_model, tokenizer):
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    _evaluate(tiny_model, tokenizer, mode="sample", samples_per_task=2)
    assert torch.equal(torch.rand(3), expected)  # a training run's RNG (exact resume) is untouched


def test_greedy_evaluation_plays_each_task_once(tiny_model, tokenizer):
    summary, episodes = _evaluate(tiny_model, tokenizer)
    assert [ep.task.index for ep in episodes] == list(range(5))
    _, again = _evaluate(tiny_model, tokenizer, sample_seed=99)  # the seed does not matter to argmax
    assert _actions(again) == _actions(episodes)


def test_process_shares_cover_every_sampled_episode_once(tiny_model, tokenizer):
    _, first = _evaluate(tiny_model, tokenizer, mode="sample", samples_per_task=2, share=(0, 2))
    _, second = _evaluate(tiny_model, tokenizer, mode="sample", samples_per_task=2, share=(1, 2))
    indices = sorted(ep.task.index for ep in first + second)
    assert indices == sorted(i for i in range(5) for _ in range(2))


def test_bad_eval_settings_say_what_to_set():
    with pytest.raises(ValueError, match="eval.mode: unknown 'beam'"):
        EvalSettings(mode="beam")
    with pytest.raises(ValueError, match="set eval.mode=sample"):
        EvalSettings(mode="greedy", samples_per_task=4)
    with pytest.raises(ValueError, match="eval.samples_per_task: must be >= 1"):
        EvalSettings(mode="sample", samples_per_task=0)
    assert EvalSettings().describe() == "sampled, 4 per task"
    assert EvalSettings(mode="greedy", samples_per_task=1).describe() == "greedy"
