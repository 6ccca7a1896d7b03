"""Choice-mode training samples: the trainer's log-probability of a pick equals the one the
rollout sampled it with, and micro-batching respects the token budget."""

from __future__ import annotations

import torch

from coevo.core.agent.loop import AgentLoop, AgentSettings
from coevo.core.algos.choice_batching import ChoiceSample, chosen_logprobs
from coevo.core.algos.grpo import episode_samples
from coevo.core.algos.micro_batches import split_micro_batches
from coevo.core.rollout.hf_engine import HFEngine, HFEngineConfig
from coevo.core.testing.boxes_env import BoxesConfig, BoxesEnv


def _episodes(model, tokenizer, settings):
    envs = [BoxesEnv(BoxesConfig(num_boxes=3, max_steps=4)) for _ in range(4)]
    tasks = [envs[0].task("train", i) for i in range(4)]
    loop = AgentLoop(HFEngine(HFEngineConfig(), model, tokenizer), tokenizer, settings)
    return loop.run(tasks, envs, generator=torch.Generator().manual_seed(0))


def test_trainer_choice_logprobs_equal_the_rollouts(tiny_model, tokenizer):
    settings = AgentSettings(mode="choose", choice_temperature=0.5, choice_score="mean")
    episodes = _episodes(tiny_model, tokenizer, settings)
    samples = episode_samples(episodes, torch.ones(len(episodes)), choice_loss="softmax")
    assert samples and all(isinstance(s, ChoiceSample) for s in samples)
    assert len(samples) == sum(ep.num_turns for ep in episodes)
    with torch.no_grad():
        trained = chosen_logprobs(tiny_model, samples, tokenizer.pad_token_id, "mean", 0.5)  # [n]
    rollout = torch.tensor([s.rollout_logprob for s in samples])
    assert torch.allclose(trained, rollout, atol=1e-4)
    assert (rollout < 0).all() and (rollout > -5).all()


def test_tokens_choice_loss_keeps_sequences(tiny_model, tokenizer):
    episodes = _episodes(tiny_model, tokenizer, AgentSettings(mode="choose"))
    samples = episode_samples(episodes, torch.ones(len(episodes)), choice_loss="tokens")
    assert all(hasattr(s, "input_ids") for s in samples)


def test_choice_micro_batches_respect_the_budget():
    samples = [ChoiceSample([1] * n, [[2, 3]] * k, 0) for n, k in [(10, 3), (4, 2), (30, 5), (8, 1)]]
    costs = [s.cost for s in samples]
    assert costs == [10 + 3 * 2, 4 + 2 * 2, 30 + 5 * 2, 8 + 2]
    groups = [mb.indices for mb in split_micro_batches(samples, max_tokens=20, pad_id=0)]
    assert sorted(i for g in groups for i in g) == [0, 1, 2, 3]
    for group in groups:
        assert len(group) == 1 or len(group) * max(costs[i] for i in group) <= 20  # padded tokens
    assert groups == [[1, 3], [0], [2]]  # cheapest first: 2 x 10 = 20 <= 20; 16 and 40 go alone
