"""The policy as decider: one engine call per round for every ready agent; choice mode offers the
env's commands and the oracle's delegations; sampled replies record what training needs."""

import torch
from rao_script import PROMPT
from rao_sums_env import SumsConfig, SumsEnv

from coevo.core.agent.loop import AgentSettings
from coevo.core.rollout.hf_engine import HFEngine
from coevo.rao.deciders import ModelDecider
from coevo.rao.protocol import Delegation, parse_reply
from coevo.rao.runner import TreeRunner
from coevo.rao.settings import RecursionSettings


class CountingEngine(HFEngine):
    def __init__(self, *args):
        super().__init__(None, *args)
        self.calls = []

    def generate(self, prompts, settings):
        self.calls.append(("generate", len(prompts)))
        return super().generate(prompts, settings)

    def score(self, prompts, candidates):
        self.calls.append(("score", len(prompts)))
        return super().score(prompts, candidates)


def _play(tiny_model, tokenizer, mode, n=3, greedy=False):
    engine = CountingEngine(tiny_model, tokenizer)
    agent = AgentSettings(prompt=PROMPT, choice_temperature=1.0, choice_score="mean")  # long launches stay likely
    agent.sampling.max_new_tokens = 8
    envs = [SumsEnv(SumsConfig(length=8)) for _ in range(n)]
    decider = ModelDecider(engine, tokenizer, agent, greedy=greedy, generator=torch.Generator().manual_seed(0))
    runner = TreeRunner(PROMPT, RecursionSettings(), tokenizer)
    trees = runner.run([envs[0].task("train", i) for i in range(n)], envs, decider, mode=mode)
    return trees, engine.calls


def test_choice_mode_picks_among_commands_and_delegations(tiny_model, tokenizer):
    torch.manual_seed(0)
    trees, calls = _play(tiny_model, tokenizer, "choose", n=6)
    rounds = [size for kind, size in calls]
    assert all(kind == "score" for kind, _ in calls) and rounds[0] == 6  # every root in the first round
    first = trees[0].nodes[0].episode.turns[0]
    options = [tokenizer.decode(c[:-1]) for c in first.candidates]
    assert options[:3] == ["<action>answer 0</action>", "<action>answer 1</action>", "<action>answer 2</action>"]
    assert sum(isinstance(parse_reply(o), Delegation) for o in options) == 3  # both halves, and each alone
    assert first.response_ids == first.candidates[first.choice] and first.choice_logprob <= 0.0
    assert any(len(t.nodes) > 1 for t in trees)  # a random policy delegates some of the time
    turns = sum(t.turns for t in trees)
    assert sum(rounds) == turns and len(rounds) < turns  # one call per round serves every ready agent


def test_generate_mode_batches_every_ready_agent(tiny_model, tokenizer):
    trees, calls = _play(tiny_model, tokenizer, "generate", n=4)
    assert calls[0] == ("generate", 4)
    assert sum(size for _, size in calls) == sum(t.turns for t in trees)
    for tree in trees:
        for node in tree.nodes:
            for turn in node.episode.turns:
                assert len(turn.response_logprobs) == len(turn.response_ids) <= 8
                assert turn.invalid or turn.action is not None
