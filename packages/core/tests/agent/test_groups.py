"""``play_groups``: copies of a task are adjacent and share its index as ``group_id``; a task's
context reaches every episode of its group; the same seed replays the same episodes, whatever
torch's global RNG went through in between; too few environments is an error, not a shorter batch."""

import pytest
import torch

from coevo.core.agent.groups import expand_groups, play_groups
from coevo.core.agent.loop import AgentLoop, AgentSettings
from coevo.core.rollout.hf_engine import HFEngine, HFEngineConfig
from coevo.core.testing.boxes_env import BoxesConfig, BoxesEnv


def _setup(tiny_model, tokenizer, n: int):
    loop = AgentLoop(HFEngine(HFEngineConfig(), tiny_model, tokenizer), tokenizer, AgentSettings(mode="choose"))
    envs = [BoxesEnv(BoxesConfig(num_boxes=3, max_steps=4)) for _ in range(n)]
    return loop, envs, [envs[0].task("train", i) for i in range(2)]


def test_groups_are_adjacent_copies_with_their_task_index():
    expanded, group_ids = expand_groups(["a", "b", "c"], 2)
    assert expanded == ["a", "a", "b", "b", "c", "c"] and group_ids == [0, 0, 1, 1, 2, 2]
    assert expand_groups([], 4) == ([], [])


def test_the_same_seed_replays_the_same_groups(tiny_model, tokenizer):
    loop, envs, tasks = _setup(tiny_model, tokenizer, 6)
    first = play_groups(loop, tasks, 3, envs, seed=11, contexts=["hint A", None])
    torch.rand(5)  # whatever happened in between
    again = play_groups(loop, tasks, 3, envs, seed=11, contexts=["hint A", None])
    assert [ep.group_id for ep in first] == [0, 0, 0, 1, 1, 1]
    assert [ep.task for ep in first] == [tasks[0]] * 3 + [tasks[1]] * 3
    assert [[t.response_ids for t in ep.turns] for ep in first] == [[t.response_ids for t in ep.turns] for ep in again]
    assert all("hint A" in tokenizer.decode(ep.turns[0].prompt_ids) for ep in first[:3])
    assert not any("hint A" in tokenizer.decode(ep.turns[0].prompt_ids) for ep in first[3:])


def test_too_few_environments_is_an_error(tiny_model, tokenizer):
    loop, envs, tasks = _setup(tiny_model, tokenizer, 3)
    with pytest.raises(ValueError, match="4 episodes need as many environments, got 3"):
        play_groups(loop, tasks, 2, envs, seed=0)
