"""The multi-turn agent loop on the boxes env: choose mode, scripted generate mode, overflow, summary."""

from __future__ import annotations

import pytest
import torch

from coevo.core.agent.loop import AgentLoop, AgentSettings, summarize
from coevo.core.agent.prompt import PromptSettings, build_messages
from coevo.core.agent.types import Episode, Turn
from coevo.core.env.actions import format_action
from coevo.core.env.protocol import Task
from coevo.core.policy.conversation import render_prompt
from coevo.core.policy.logprobs import sequence_token_logprobs
from coevo.core.rollout.engine import Generation, RolloutEngine, SamplingSettings
from coevo.core.rollout.hf_engine import HFEngine, HFEngineConfig
from coevo.core.testing.boxes_env import BoxesConfig, BoxesEnv


def _envs_and_tasks(n: int, max_steps: int = 4):
    envs = [BoxesEnv(BoxesConfig(num_boxes=3, max_steps=max_steps)) for _ in range(n)]
    tasks = [envs[0].task("train", i) for i in range(n)]
    return envs, tasks


class ScriptedEngine(RolloutEngine):
    """Returns the same reply for every prompt; records the prompt batches it was given."""

    def __init__(self, reply: list[int], finished: bool):
        self.reply, self.finished, self.calls = reply, finished, []

    def generate(self, prompts, settings):
        self.calls.append((len(prompts), settings))
        return [Generation(list(self.reply), [-1.0] * len(self.reply), self.finished) for _ in prompts]

    def score(self, prompts, candidates):
        raise AssertionError("generate mode never scores")


class ExpertEngine(RolloutEngine):
    """Replies with the expert's action of the single environment it drives."""

    def __init__(self, env, tokenizer):
        self.env, self.tokenizer = env, tokenizer

    def generate(self, prompts, settings):
        assert len(prompts) == 1
        ids = self.tokenizer.encode(format_action(self.env.expert_action()), add_special_tokens=False)
        return [Generation(ids + [self.tokenizer.eos_token_id], [-0.5] * (len(ids) + 1), True)]

    def score(self, prompts, candidates):
        raise AssertionError("generate mode never scores")


def test_choose_mode_plays_only_admissible_actions(tiny_model, tokenizer):
    envs, tasks = _envs_and_tasks(6)
    loop = AgentLoop(HFEngine(HFEngineConfig(), tiny_model, tokenizer), tokenizer, AgentSettings(mode="choose"))
    episodes = loop.run(tasks, envs, group_ids=[0, 0, 0, 1, 1, 1], generator=torch.Generator().manual_seed(0))
    assert [ep.group_id for ep in episodes] == [0, 0, 0, 1, 1, 1]
    assert [ep.task for ep in episodes] == tasks
    replay = BoxesEnv(BoxesConfig(num_boxes=3, max_steps=4))
    for ep in episodes:
        assert ep.num_invalid == 0
        assert 1 <= ep.num_turns <= 4
        replay.reset(ep.task)
        done = False
        for turn in ep.turns:
            assert not done
            assert turn.action in replay.admissible_actions()
            result = replay.step(turn.action)
            assert (turn.observation, turn.reward, turn.invalid) == (result.observation, result.reward, False)
            done = result.done
            assert tokenizer.decode(turn.response_ids) == f"<action>{turn.action}</action><|im_end|>"
            assert turn.response_text == f"<action>{turn.action}</action>"
            assert len(turn.response_logprobs) == len(turn.response_ids)
            assert tokenizer.decode(turn.prompt_ids).endswith("<|im_start|>assistant\n")
        # an episode ends when the env says done or after max_steps turns
        assert done or ep.num_turns == 4
        assert ep.won == result.won
        assert ep.reward == sum(t.reward for t in ep.turns)  # no invalid penalty


def test_choose_mode_records_the_trainers_logprobs(tiny_model, tokenizer):
    envs, tasks = _envs_and_tasks(2)
    loop = AgentLoop(HFEngine(HFEngineConfig(), tiny_model, tokenizer), tokenizer, AgentSettings(mode="choose"))
    episodes = loop.run(tasks, envs, generator=torch.Generator().manual_seed(3))
    assert [ep.group_id for ep in episodes] == [0, 1]  # default group ids: one per task
    for ep in episodes:
        for turn in ep.turns:
            ids = turn.prompt_ids + turn.response_ids
            with torch.no_grad():
                lp = sequence_token_logprobs(tiny_model, torch.tensor([ids]), torch.ones(1, len(ids), dtype=torch.long))
            assert turn.response_logprobs == pytest.approx(lp[0, len(turn.prompt_ids):].tolist(), abs=1e-4)


def test_choose_mode_greedy_is_deterministic(tiny_model, tokenizer):
    loop = AgentLoop(HFEngine(HFEngineConfig(), tiny_model, tokenizer), tokenizer, AgentSettings(mode="choose"))
    runs = []
    for seed in (0, 1):
        envs, tasks = _envs_and_tasks(3)
        episodes = loop.run(tasks, envs, greedy=True, generator=torch.Generator().manual_seed(seed))
        runs.append([[t.action for t in ep.turns] for ep in episodes])
    assert runs[0] == runs[1]


@pytest.mark.parametrize("with_eos", [True, False])
def test_generate_mode_malformed_replies_are_invalid_turns(tokenizer, with_eos):
    eos = tokenizer.eos_token_id
    hello = tokenizer.encode("hello", add_special_tokens=False)
    engine = ScriptedEngine(hello + [eos] if with_eos else hello, finished=with_eos)
    settings = AgentSettings(mode="generate", invalid_penalty=0.25, sampling=SamplingSettings(max_new_tokens=9))
    envs, tasks = _envs_and_tasks(3, max_steps=4)
    episodes = AgentLoop(engine, tokenizer, settings).run(tasks, envs)
    for ep, env in zip(episodes, envs):
        assert ep.num_turns == 4 and ep.num_invalid == 4 and not ep.won
        assert ep.reward == pytest.approx(-0.25 * 4)  # -invalid_penalty x turns
        for turn in ep.turns:
            assert turn.action is None and turn.invalid
            assert turn.observation == env.invalid_observation == "Nothing happens."
            assert turn.response_text == "hello"
            assert turn.reward == 0.0
        assert env.snapshot()["steps"] == 0  # a malformed reply never reaches the environment
    # one batched call per turn, all three episodes alive throughout
    assert [n for n, _ in engine.calls] == [3, 3, 3, 3]
    assert engine.calls[0][1].max_new_tokens == 9


def test_generate_mode_greedy_uses_temperature_zero(tokenizer):
    engine = ScriptedEngine(tokenizer.encode("hello", add_special_tokens=False), finished=False)
    settings = AgentSettings(mode="generate", sampling=SamplingSettings(temperature=0.9, max_new_tokens=5), max_turns=2)
    envs, tasks = _envs_and_tasks(1)
    (ep,) = AgentLoop(engine, tokenizer, settings).run(tasks, envs, greedy=True)
    assert ep.num_turns == 2  # max_turns overrides the env's max_steps
    assert [(s.temperature, s.max_new_tokens) for _, s in engine.calls] == [(0.0, 5), (0.0, 5)]


def test_expert_replies_win(tokenizer):
    env = BoxesEnv(BoxesConfig(num_boxes=4, max_steps=4))
    loop = AgentLoop(ExpertEngine(env, tokenizer), tokenizer, AgentSettings(mode="generate"))
    for index in range(4):
        task = env.task("train", index)
        (ep,) = loop.run([task], [env])
        assert ep.won and ep.num_invalid == 0 and not ep.context_overflow
        target = env.reset(task).rsplit("open the ", 1)[1].removesuffix(" box.")
        # go to the target box, then open it
        assert [t.action for t in ep.turns] == [f"go to {target} box", f"open {target} box"]
        assert [t.reward for t in ep.turns] == [0.0, 1.0]
        assert ep.reward == 1.0
        assert ep.turns[-1].observation == "You open it. You win!"


def test_context_overflow_ends_the_episode(tokenizer):
    engine = ScriptedEngine([tokenizer.eos_token_id], finished=True)
    settings = AgentSettings(mode="generate", prompt=PromptSettings(max_prompt_tokens=10))
    envs, tasks = _envs_and_tasks(2)
    episodes = AgentLoop(engine, tokenizer, settings).run(tasks, envs)
    for ep in episodes:
        assert ep.context_overflow and ep.num_turns == 0 and not ep.won and ep.reward == 0.0
    assert engine.calls == []  # nothing to generate for


def test_history_is_dropped_before_overflowing(tokenizer):
    hello = tokenizer.encode("hello", add_special_tokens=False) + [tokenizer.eos_token_id]
    engine = ScriptedEngine(hello, finished=True)
    envs, tasks = _envs_and_tasks(1)
    first = envs[0].reset(tasks[0])
    memory = envs[0].memory()  # "visited: nothing": malformed replies never change the state
    prompt = PromptSettings(history_turns=2, memory=True)
    no_history = render_prompt(tokenizer, build_messages(prompt, first, [], memory, None, 0))
    one_pair = render_prompt(tokenizer, build_messages(prompt, first, [("hello", "Nothing happens.")], memory, None, 1))
    assert len(one_pair) > len(no_history)
    # the limit fits the prompt without history but not with one past turn
    settings = AgentSettings(mode="generate", prompt=PromptSettings(history_turns=2, memory=True,
                                                                   max_prompt_tokens=len(no_history)))
    (ep,) = AgentLoop(engine, tokenizer, settings).run(tasks, envs)
    assert not ep.context_overflow and ep.num_turns == 4
    assert all(t.prompt_ids == no_history for t in ep.turns)
    # with room for one pair, turn 2 keeps it
    settings.prompt.max_prompt_tokens = len(one_pair)
    envs, tasks = _envs_and_tasks(1)
    (ep,) = AgentLoop(engine, tokenizer, settings).run(tasks, envs)
    assert ep.turns[0].prompt_ids == no_history and ep.turns[1].prompt_ids == one_pair


def test_mismatched_tasks_and_envs_raise(tokenizer):
    envs, tasks = _envs_and_tasks(2)
    loop = AgentLoop(ScriptedEngine([], False), tokenizer, AgentSettings(mode="generate"))
    with pytest.raises(ValueError, match="2 tasks for 1 environments"):
        loop.run(tasks, envs[:1])


def test_agent_settings_reject_unknown_mode():
    with pytest.raises(ValueError, match="agent.mode"):
        AgentSettings(mode="xyz")


def _turn(reward: float = 0.0, invalid: bool = False) -> Turn:
    return Turn([1], [2], [-0.1], "t", None if invalid else "a", "o", reward, invalid)


def test_summarize_hand_built_episodes():
    near0, far1, near2 = (Task("boxes", "train", i, tt, i) for i, tt in enumerate(("near", "far", "near")))
    episodes = [
        Episode(near0, 0, [_turn(), _turn(1.0)], won=True, reward=1.0),
        Episode(far1, 1, [_turn(), _turn(invalid=True), _turn(invalid=True), _turn()], num_invalid=2, reward=-0.2),
        Episode(near2, 2, [], context_overflow=True, reward=0.0),
    ]
    stats = summarize(episodes, task_types=("far", "near", "unused"))
    assert stats == pytest.approx({
        "success": 1 / 3,
        "reward": (1.0 - 0.2 + 0.0) / 3,  # 0.26667
        "turns": (2 + 4 + 0) / 3,  # 2.0
        "invalid_rate": 2 / 6,  # invalid turns / all turns
        "context_overflow": 1 / 3,
        "invalid/env_errors": 0.0,  # no environment raised
        "success/far": 0.0,
        "success/near": 0.5,
    })
    # per-type keys follow the environment's order, types it does not list come after, sorted
    assert [k for k in stats if k.startswith("success/")] == ["success/far", "success/near"]
    other = Episode(Task("boxes", "train", 9, "extra", 9), 3, [_turn()], won=True, reward=1.0)
    keys = [k for k in summarize(episodes + [other], ("near",)) if k.startswith("success/")]
    assert keys == ["success/near", "success/extra", "success/far"]


def test_summarize_empty():
    assert summarize([]) == {}
    ep = Episode(Task("boxes", "train", 0, "near", 0), 0)
    assert summarize([ep])["invalid_rate"] == 0.0  # no turns: no division by zero


class ExpertScorer(RolloutEngine):
    """Scores the expert's candidate with log-prob 0 per token and every other one with -2 per token."""

    def __init__(self, env, tokenizer):
        self.env, self.tokenizer, self.calls = env, tokenizer, []

    def generate(self, prompts, settings):
        raise AssertionError("choose mode never generates")

    def score(self, prompts, candidates):
        self.calls.append([len(c) for c in candidates])
        expert = self.tokenizer.encode(format_action(self.env.expert_action()), add_special_tokens=False)
        expert.append(self.tokenizer.eos_token_id)
        return [[[0.0 if c == expert else -2.0] * len(c) for c in cands] for cands in candidates]


@pytest.mark.parametrize("greedy", [True, False])
def test_choose_mode_picks_the_best_scored_candidate(tokenizer, greedy):
    env = BoxesEnv(BoxesConfig(num_boxes=3, max_steps=4))
    engine = ExpertScorer(env, tokenizer)
    # choice temperature 0.01: the expert's softmax weight is ~ 1 - 2 exp(-200) even when sampling
    settings = AgentSettings(mode="choose", choice_temperature=0.01)
    (ep,) = AgentLoop(engine, tokenizer, settings).run([env.task("train", 0)], [env],
                                                       greedy=greedy, generator=torch.Generator().manual_seed(0))
    assert ep.won and ep.reward == 1.0 and ep.num_turns == 2
    # turn 1: 3 "go to" candidates; turn 2: 2 "go to" + "open"
    assert engine.calls == [[3], [3]]
    for turn in ep.turns:
        assert turn.response_logprobs == [0.0] * len(turn.response_ids)  # the chosen candidate's scores
        assert tokenizer.decode(turn.response_ids) == f"<action>{turn.action}</action><|im_end|>"


class ShoutingBoxesEnv(BoxesEnv):
    """The boxes env with its own reply grammar (``<cmd>…</cmd>``) and free-form actions."""

    free_form_actions = True

    def parse_action(self, text):
        if text.startswith("<cmd>") and text.endswith("</cmd>"):
            return text[len("<cmd>"):-len("</cmd>")].strip() or None
        return None

    def format_action(self, action):
        return f"<cmd>{action}</cmd>"


def test_auto_mode_generates_for_free_form_envs_and_the_env_parses_the_reply(tokenizer):
    env = ShoutingBoxesEnv(BoxesConfig(num_boxes=3, max_steps=4))
    task = env.task("train", 0)
    env.reset(task)
    first_action = env.expert_action()
    reply = tokenizer.encode(f"<cmd>{first_action}</cmd>", add_special_tokens=False) + [tokenizer.eos_token_id]
    engine = ScriptedEngine(reply, finished=True)
    loop = AgentLoop(engine, tokenizer, AgentSettings(mode="auto"))
    assert loop.mode_for(env) == "generate"
    episode = loop.run([task], [env])[0]
    assert engine.calls, "auto mode generated"
    assert episode.turns[0].action == first_action and not episode.turns[0].invalid
    # the default <action> grammar is malformed for this env
    engine = ScriptedEngine(tokenizer.encode(format_action(first_action), add_special_tokens=False)
                            + [tokenizer.eos_token_id], finished=True)
    episode = AgentLoop(engine, tokenizer, AgentSettings(mode="auto")).run([task], [env])[0]
    assert all(turn.invalid and turn.action is None for turn in episode.turns)


def test_auto_mode_chooses_for_envs_with_commands_and_choose_refuses_free_form_envs(tokenizer):
    loop = AgentLoop(ScriptedEngine([], True), tokenizer, AgentSettings(mode="auto"))
    assert loop.mode_for(BoxesEnv(BoxesConfig())) == "choose"
    loop = AgentLoop(ScriptedEngine([], True), tokenizer, AgentSettings(mode="choose"))
    with pytest.raises(ValueError, match="agent.mode=generate"):
        loop.mode_for(ShoutingBoxesEnv(BoxesConfig()))


def test_context_precedes_the_first_message_for_the_whole_episode_and_turns_keep_their_messages(tokenizer):
    env = BoxesEnv(BoxesConfig(num_boxes=3, max_steps=3))
    task = env.task("train", 0)
    engine = ScriptedEngine(tokenizer.encode("no tags", add_special_tokens=False) + [tokenizer.eos_token_id], True)
    settings = AgentSettings(mode="generate", prompt=PromptSettings(system_prompt="", history_turns=1, memory=False))
    plain = AgentLoop(engine, tokenizer, settings).run([task], [env])[0]
    skilled = AgentLoop(engine, tokenizer, settings).run([task], [env], contexts=["Skill: open boxes first."])[0]
    assert len(plain.turns) == len(skilled.turns) == 3
    for a, b in zip(plain.turns, skilled.turns):
        assert b.messages[0]["content"] == "Skill: open boxes first.\n" + a.messages[0]["content"]
        assert a.messages[1:] == b.messages[1:]
        assert a.prompt_ids == render_prompt(tokenizer, a.messages)
        assert b.prompt_ids == render_prompt(tokenizer, b.messages)
    with pytest.raises(ValueError, match="contexts"):
        AgentLoop(engine, tokenizer, settings).run([task], [env], contexts=[None, None])
