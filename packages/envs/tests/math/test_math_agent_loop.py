"""The core agent loop (mode "generate") and warm-start data collection over the math env: a tiny
random model's free text never crashes an episode, and replies carrying the expert's answers
win through the real tokenizer round trip."""

import pytest
import torch

from coevo.core.agent.loop import AgentLoop, AgentSettings, summarize
from coevo.core.agent.prompt import PromptSettings
from coevo.core.expert_data import collect_expert_examples, corpus_texts
from coevo.core.policy.tiny import TinyModelConfig, build_tiny_model
from coevo.core.policy.tokenizer import train_bpe_tokenizer
from coevo.core.rollout.engine import Generation, RolloutEngine, SamplingSettings
from coevo.core.rollout.hf_engine import HFEngine, HFEngineConfig
from coevo.envs.math.env import MathEnv

PROMPT = PromptSettings(system_prompt="Solve the problem; end with \\boxed{answer}.")


class ExpertEngine(RolloutEngine):
    """Replies with ``format_action(expert_action())`` of the environments it drives, in order."""

    def __init__(self, envs, tokenizer):
        self.envs, self.tokenizer = envs, tokenizer

    def generate(self, prompts, settings):
        live = [env for env in self.envs if env.expert_action() is not None][: len(prompts)]
        replies = []
        for env in live:
            ids = self.tokenizer.encode(env.format_action(env.expert_action()), add_special_tokens=False)
            replies.append(Generation(ids + [self.tokenizer.eos_token_id], [-0.5] * (len(ids) + 1), True))
        return replies

    def score(self, prompts, candidates):
        raise AssertionError("generate mode never scores")


@pytest.fixture(scope="module")
def tokenizer():
    env = MathEnv(MathEnv.Config(max_attempts=2))
    data = collect_expert_examples(env, PROMPT, num_episodes=12)
    assert data.won == 12 and len(data.examples) == 12  # the expert answers right the first time
    return train_bpe_tokenizer(corpus_texts(data.examples) + [env.invalid_observation], vocab_size=300)


def test_generate_mode_with_a_tiny_model_never_crashes(tokenizer):
    torch.manual_seed(0)
    model = build_tiny_model(
        TinyModelConfig(hidden_size=32, num_layers=1, num_heads=2, num_kv_heads=1, intermediate_size=64),
        tokenizer,
    ).eval()
    settings = AgentSettings(mode="auto", prompt=PROMPT, sampling=SamplingSettings(max_new_tokens=12))
    loop = AgentLoop(HFEngine(HFEngineConfig(), model, tokenizer), tokenizer, settings)
    envs = [MathEnv(MathEnv.Config(max_attempts=2)) for _ in range(2)]
    assert loop.mode_for(envs[0]) == "generate"
    episodes = loop.run(
        [envs[0].task("train", i) for i in range(2)], envs, generator=torch.Generator().manual_seed(0)
    )
    for ep in episodes:
        assert 1 <= ep.num_turns <= 2
        for turn in ep.turns:  # random text is (almost surely) unboxed: invalid, never an exception
            assert turn.invalid == (turn.action is None or turn.action == "")
    assert summarize(episodes, MathEnv.task_types)["success"] <= 1.0


def test_expert_replies_win_through_the_loop(tokenizer):
    envs = [MathEnv(MathEnv.Config(max_attempts=2)) for _ in range(4)]
    settings = AgentSettings(mode="generate", prompt=PROMPT)
    loop = AgentLoop(ExpertEngine(envs, tokenizer), tokenizer, settings)
    episodes = loop.run([envs[0].task("eval_in_distribution", i) for i in range(4)], envs)
    assert all(ep.won and ep.num_turns == 1 and ep.num_invalid == 0 for ep in episodes)
    assert all(ep.turns[0].response_text.startswith("The answer is \\boxed{") for ep in episodes)
