"""``coevo.core.env.guard`` and the agent loop: an environment that raises on model output costs
one invalid turn, counted in ``Episode.env_errors`` and ``invalid/env_errors``; the run goes on."""

from __future__ import annotations

from coevo.core.agent.loop import AgentLoop, AgentSettings, summarize
from coevo.core.env.guard import ENV_ERRORS_METRIC, guarded_parse, guarded_step
from coevo.core.rollout.engine import Generation, RolloutEngine, SamplingSettings
from coevo.core.testing.boxes_env import BoxesConfig, BoxesEnv


class RaisingBoxes(BoxesEnv):
    """Boxes whose ``step`` raises on every action naming the red box, and whose parser raises on 'boom'."""

    def step(self, action):
        if "red" in action:
            raise ValueError("int() of 5,000 digits")
        return super().step(action)

    def parse_action(self, text):
        if "boom" in text:
            raise RecursionError("maximum recursion depth exceeded")
        return super().parse_action(text)


class OneReply(RolloutEngine):
    def __init__(self, ids):
        self.ids = ids

    def generate(self, prompts, settings):
        return [Generation(list(self.ids), [-1.0] * len(self.ids), True) for _ in prompts]

    def score(self, prompts, candidates):
        raise AssertionError("generate mode never scores")


def _env():
    env = RaisingBoxes(BoxesConfig(num_boxes=3, max_steps=3))
    env.reset(env.task("train", 0))
    return env


def test_guarded_calls_turn_exceptions_into_invalid_results():
    env = _env()
    assert guarded_parse(env, "<action>boom</action>") == (None, True)
    result, failed = guarded_step(env, "go to red box")
    assert failed and result.invalid and not result.done and result.reward == 0.0
    assert result.observation == env.invalid_observation
    assert "ValueError" in result.info["error"]
    assert guarded_parse(env, "<action>look</action>") == ("look", False)


def test_the_agent_loop_counts_environment_errors_and_finishes(tokenizer):
    eos = tokenizer.eos_token_id
    for text, errors in (("<action>go to red box</action>", 3), ("<action>boom</action>", 3),
                         ("<action>look</action>", 0)):
        ids = tokenizer.encode(text, add_special_tokens=False) + [eos]
        settings = AgentSettings(mode="generate", sampling=SamplingSettings(max_new_tokens=len(ids)))
        envs = [_env() for _ in range(2)]
        tasks = [envs[0].task("train", i) for i in range(2)]
        episodes = AgentLoop(OneReply(ids), tokenizer, settings).run(tasks, envs)
        for ep in episodes:
            assert ep.num_turns == 3  # max_steps turns: the errors ended nothing early
            assert ep.env_errors == errors
            assert ep.num_invalid >= errors
        # 3 turns per episode, each raising for the first two replies
        assert summarize(episodes)[ENV_ERRORS_METRIC] == errors
