"""An environment that raises (anything but ``ForkError``) on an agent's fork, step or parse does
not end the run: the goal is refused or the turn is invalid, and ``invalid/env_errors`` counts it."""

from __future__ import annotations

from rao_script import PROMPT, ScriptDecider
from rao_sums_env import SumsConfig, SumsEnv

from coevo.core.env.guard import ENV_ERRORS_METRIC
from coevo.rao.runner import TreeRunner
from coevo.rao.settings import RecursionSettings
from coevo.rao.treestats import tree_stats


class BuggySums(SumsEnv):
    """``fork`` raises ValueError on a goal with a digit run of 5+ characters (like maze's int()
    of 5,000 digits did), ``step`` raises on 'answer 0', and ``parse_action`` on 'boom'."""

    def fork(self, goal):
        if any(len(word) >= 5 and word.isdigit() for word in goal.split()):
            raise ValueError("Exceeds the limit (4300 digits) for integer string conversion")
        return super().fork(goal)

    def step(self, action):
        if action == "answer 0":
            raise RecursionError("maximum recursion depth exceeded")
        return super().step(action)

    def parse_action(self, text):
        if "boom" in text:
            raise TypeError("a parser bug")
        return super().parse_action(text)


def test_environment_exceptions_are_counted_refusals_and_invalid_turns():
    replies = iter(["<delegate>add " + "1" * 5000 + "</delegate>", "<action>answer 0</action>", "boom"])
    env = BuggySums(SumsConfig(length=4))
    runner = TreeRunner(PROMPT, RecursionSettings())
    (tree,) = runner.run([env.task("train", 0)], [env], ScriptDecider(lambda r: next(replies)))
    root = tree.nodes[0]
    first, second, third = root.episode.turns
    assert tree.refusals["fork"] == 1 and "ValueError in" in first.observation and not first.invalid
    assert second.invalid and second.observation == SumsEnv.invalid_observation
    assert third.invalid
    assert root.episode.env_errors == 3 and len(tree.nodes) == 1
    assert tree_stats([tree])[ENV_ERRORS_METRIC] == 3.0  # one tree, three errors
