"""Seeds and splits of the generated environments, and the out-of-distribution knob."""

import pytest

from coevo.envs.maze.env import MazeEnv
from coevo.envs.procedural import ood_knob, task_seed


def test_task_seeds_are_stable_and_unrelated_across_splits_and_envs():
    assert task_seed("maze", "train", 3, 0) == task_seed("maze", "train", 3, 0)
    seeds = {task_seed(env, split, i, base) for env in ("maze", "craft") for split in ("train", "eval_in_distribution")
             for i in range(20) for base in (0, 1)}
    assert len(seeds) == 2 * 2 * 20 * 2
    assert all(0 <= s < 2**63 for s in seeds)


def test_ood_knob_default_explicit_and_refused():
    assert ood_knob("size", 6, 0, 12) == 12
    assert ood_knob("size", 6, 9, 12) == 9
    with pytest.raises(ValueError, match="env.ood_size must be larger than env.size"):
        ood_knob("size", 6, 6, 12)


def test_splits_of_a_generated_env():
    env = MazeEnv(MazeEnv.Config(eval_in_distribution_size=2, eval_out_of_distribution_size=3))
    assert env.num_tasks("train") is None
    assert env.num_tasks("eval_in_distribution") == 2 and env.num_tasks("eval_out_of_distribution") == 3
    task = env.task("eval_out_of_distribution", 2)
    assert task.task_id == "maze/eval_out_of_distribution/2" and task.task_type == "navigate"
    with pytest.raises(IndexError):
        env.task("eval_out_of_distribution", 3)
    with pytest.raises(IndexError):
        env.task("train", -1)
    with pytest.raises(ValueError, match="unknown split 'test'"):
        env.task("test", 0)
