"""State keys: boxes' key of the world, and the agent loop recording each turn's key (robust to a bad env)."""

from __future__ import annotations

import logging

from coevo.core.agent.loop import AgentLoop, AgentSettings
from coevo.core.env.actions import format_action
from coevo.core.rollout.engine import Generation, RolloutEngine
from coevo.core.testing.boxes_env import BoxesConfig, BoxesEnv


def test_boxes_state_key_is_the_state_not_the_path():
    env = BoxesEnv(BoxesConfig(num_boxes=3, max_steps=6))
    task = env.task("train", 0)
    boxes = env._boxes(task.seed)
    env.reset(task)
    start = env.state_key()
    assert start is not None and hash(start) == hash(env.state_key())
    env.step(f"go to {boxes[0]} box")
    direct = env.state_key()
    assert direct != start  # moved: another state
    # the same place reached by another path (via a second box) is the same state
    env.reset(task)
    env.step(f"go to {boxes[1]} box")
    env.step(f"go to {boxes[0]} box")
    assert env.state_key() == direct
    env.reset(task)
    assert env.state_key() == start
    # an inadmissible action changes nothing (only the step count)
    env.step("dance")
    assert env.state_key() == start


class ExpertEngine(RolloutEngine):
    """Replies with the expert's action of each environment it drives (in order)."""

    def __init__(self, envs, tokenizer):
        self.envs, self.tokenizer = envs, tokenizer

    def generate(self, prompts, settings):
        live = [env for env in self.envs if not env._state["done"]]
        assert len(live) == len(prompts)
        out = []
        for env in live:
            ids = self.tokenizer.encode(format_action(env.expert_action()), add_special_tokens=False)
            out.append(Generation(ids + [self.tokenizer.eos_token_id], [-0.5] * (len(ids) + 1), True))
        return out

    def score(self, prompts, candidates):
        raise AssertionError("generate mode never scores")


def test_loop_records_the_state_key_before_each_action(tokenizer):
    envs = [BoxesEnv(BoxesConfig(num_boxes=3)) for _ in range(2)]
    tasks = [envs[0].task("train", i) for i in range(2)]
    loop = AgentLoop(ExpertEngine(envs, tokenizer), tokenizer, AgentSettings(mode="generate"))
    episodes = loop.run(tasks, envs, group_ids=[0, 1])
    for ep in episodes:
        assert ep.won and ep.num_turns == 2
        target = BoxesEnv(BoxesConfig(num_boxes=3))
        target.reset(ep.task)
        first = target.state_key()
        target.step(ep.turns[0].action)
        assert [t.state_key for t in ep.turns] == [first, target.state_key()]


class BrokenKeys(BoxesEnv):
    name = "broken_keys"

    def __init__(self, config, bad):
        super().__init__(config)
        self.bad = bad

    def state_key(self):
        if self.bad == "raise":
            raise RuntimeError("no key today")
        return ["unhashable"]


def test_a_failing_or_unhashable_state_key_is_none_and_logged_once(tokenizer, caplog):
    for bad in ("raise", "list"):
        envs = [BrokenKeys(BoxesConfig(num_boxes=3), bad) for _ in range(2)]
        tasks = [envs[0].task("train", i) for i in range(2)]
        loop = AgentLoop(ExpertEngine(envs, tokenizer), tokenizer, AgentSettings(mode="generate"))
        with caplog.at_level(logging.WARNING, logger="coevo.core.agent.loop"):
            episodes = loop.run(tasks, envs, group_ids=[0, 1])
        assert all(ep.won and ep.env_errors == 0 for ep in episodes)  # the episode is unharmed
        assert all(t.state_key is None for ep in episodes for t in ep.turns)
    warnings = [r.getMessage() for r in caplog.records if "state_key" in r.getMessage()]
    assert len(warnings) == 1 and "broken_keys" in warnings[0]
