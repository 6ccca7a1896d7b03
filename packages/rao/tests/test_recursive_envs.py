"""coevo-envs' forkable environments through the RAO machinery: the recursive oracle played by the
tree runner wins every task (forks, joins and the runner agree), and the flat agent never delegates."""

import pytest
from rao_script import PROMPT

from coevo.core import registry
from coevo.rao.deciders import OracleDecider
from coevo.rao.expert import flat_settings
from coevo.rao.runner import TreeRunner
from coevo.rao.settings import BudgetSettings, RecursionSettings
from coevo.rao.treestats import tree_stats

ENVS = {"longctx": {"num_chunks": 8}, "algebra": {"depth": 4}, "craft": {"depth": 3}, "maze": {"size": 6},
        "textcraft_synth": {"expert_leaf_depth": 3}}  # medium targets (depth 4-6) then always delegate


def _play(name, settings, n=6, split="eval_in_distribution", schedule="batched"):
    cls = registry.envs.get(name)
    envs = [cls(cls.Config(**ENVS[name])) for _ in range(n)]
    runner = TreeRunner(PROMPT, RecursionSettings(settings.delegation, settings.budget, schedule))
    return runner.run([envs[0].task(split, i) for i in range(n)], envs, OracleDecider(4))


@pytest.mark.parametrize("name", sorted(ENVS))
def test_the_recursive_oracle_wins_every_task_through_the_runner(name):
    trees = _play(name, RecursionSettings(budget=BudgetSettings(max_depth=8)))
    stats = tree_stats(trees)
    assert stats["success"] == 1.0 and stats["delegation/success"] == 1.0
    assert stats["tree/delegating"] == 1.0 and stats["refused/all"] == 0.0 and stats["malformed"] == 0.0
    sequential = _play(name, RecursionSettings(budget=BudgetSettings(max_depth=8)), schedule="sequential")
    assert [len(t.nodes) for t in sequential] == [len(t.nodes) for t in trees]


@pytest.mark.parametrize("name", sorted(ENVS))
def test_the_flat_oracle_wins_without_children(name):
    trees = _play(name, flat_settings(RecursionSettings()))
    assert all(t.won and len(t.nodes) == 1 for t in trees)
    assert "delegate" not in trees[0].root.first_message


def test_a_depth_cap_below_the_oracles_depth_still_ends_every_tree():
    trees = _play("algebra", RecursionSettings(budget=BudgetSettings(max_depth=1)), split="eval_out_of_distribution")
    assert all(t.done and t.depth <= 1 for t in trees)
    assert all(t.won for t in trees)  # the oracle answers itself where it may not delegate


@pytest.mark.parametrize("name", sorted(ENVS))
def test_fork_isolation_children_change_their_parent_only_through_join(name):
    cls = registry.envs.get(name)
    env = cls(cls.Config(**ENVS[name]))
    env.reset(env.task("eval_in_distribution", 1))
    goals = env.expert_delegations()
    while not goals and not env.done:  # textcraft_synth's oracle reads the recipes before it delegates
        env.step(env.expert_action())
        goals = env.expert_delegations()
    assert goals, f"the {name} oracle delegates at the root"
    before = env.snapshot()
    child, _ = env.fork(goals[0])
    while not child.done:
        child.step(child.expert_action())
    assert child.won and repr(env.snapshot()) == repr(before)  # playing the child left the parent as it was
    env.join(child)
    assert repr(env.snapshot()) != repr(before)  # the join carried the child's effect over
