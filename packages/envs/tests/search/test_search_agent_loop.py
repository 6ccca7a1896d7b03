"""The core agent loop (mode "generate") and warm-start data collection over the search env:
a tiny random model never crashes an episode, and the expert's replies win through the real
tokenizer round trip, one search per hop then the answer."""

import pytest
import torch

from coevo.core.agent.loop import AgentLoop, AgentSettings
from coevo.core.agent.prompt import PromptSettings
from coevo.core.expert_data import collect_expert_examples, corpus_texts
from coevo.core.policy.tiny import TinyModelConfig, build_tiny_model
from coevo.core.policy.tokenizer import train_bpe_tokenizer
from coevo.core.rollout.engine import Generation, RolloutEngine, SamplingSettings
from coevo.core.rollout.hf_engine import HFEngine, HFEngineConfig

PROMPT = PromptSettings(system_prompt="Search, then answer.", max_prompt_tokens=4096)


class ExpertEngine(RolloutEngine):
    """Replies with ``format_action(expert_action())`` of the unfinished environments, in order."""

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
def tokenizer(index_dir):
    from coevo.envs.search.env import SearchEnv

    env = SearchEnv(SearchEnv.Config(index_dir=index_dir))
    data = collect_expert_examples(env, PROMPT, num_episodes=6)
    assert data.won == 6 and len(data.examples) == 2 + 3 + 4 + 2 + 3 + 4  # hops 1,2,3,1,2,3 + answers
    return train_bpe_tokenizer(corpus_texts(data.examples) + [env.invalid_observation], vocab_size=400)


def test_generate_mode_with_a_tiny_model_never_crashes(tokenizer, make_env):
    torch.manual_seed(0)
    model = build_tiny_model(
        TinyModelConfig(hidden_size=32, num_layers=1, num_heads=2, num_kv_heads=1, intermediate_size=64),
        tokenizer,
    ).eval()
    settings = AgentSettings(
        mode="auto", prompt=PROMPT, sampling=SamplingSettings(max_new_tokens=12), max_turns=2
    )
    loop = AgentLoop(HFEngine(HFEngineConfig(), model, tokenizer), tokenizer, settings)
    envs = [make_env() for _ in range(2)]
    episodes = loop.run(
        [envs[0].task("train", i) for i in range(2)], envs, generator=torch.Generator().manual_seed(0)
    )
    assert all(1 <= ep.num_turns <= 2 for ep in episodes)
    assert all(turn.invalid for ep in episodes for turn in ep.turns if turn.action is None)


def test_expert_replies_win_through_the_loop(tokenizer, make_env):
    envs = [make_env() for _ in range(3)]
    loop = AgentLoop(ExpertEngine(envs, tokenizer), tokenizer, AgentSettings(mode="generate", prompt=PROMPT))
    episodes = loop.run([envs[0].task("eval_in_distribution", i) for i in range(3)], envs)
    assert [ep.num_turns for ep in episodes] == [2, 3, 4]
    assert all(ep.won and ep.num_invalid == 0 and ep.reward == 1.0 for ep in episodes)
    assert episodes[2].turns[0].response_text.startswith("<search>")
    assert episodes[2].turns[0].observation.startswith("<information>Doc 1(Title: ")
