"""Warm-start demonstrations of a recursive agent: the environment's oracle played as a tree.

Core's warm start fine-tunes on (prompt, expert reply) pairs of flat expert episodes. RAO's
``RecursiveExpert`` (``RAO.expert_source``) instead plays each demonstration task with the tree
runner and ``OracleDecider``: where the oracle would delegate (``env.expert_delegations()``)
the reply is a ``<delegate>`` launch, each child plays its forked sub-task with the oracle, and
the parent reads the children's reports before it acts. Every turn of every node is one
example, with exactly the prompt the policy will see (grammar hint, ancestor chain, budget line,
children's reports). A share of the episodes (``warmstart_flat_share``) is played with
delegation disabled, so the policy also acts directly where it cannot delegate (the flat agent).
With a size mixture (``algo.sizes``) the recursive episodes cycle through the training sizes and the
flat ones are played at the smallest: a flat agent holds only a context window of a bigger task,
and must not be taught to answer from what it cannot see.

Answer turns. The skills that decide a tree's outcome sit in one turn per node: a leaf's answer
after reading its input, a parent's answer after reading its children's reports (longctx: count
the matching records of one chunk; add the reported counts). A tree holds far more launches and
reads than answers, so ``answer_episodes`` more episodes (the next task indices, flat and
recursive as above) contribute only their nodes' final environment actions: many more examples
of the two skills for little more fine-tuning time.
"""

from __future__ import annotations

import dataclasses
from dataclasses import asdict, replace

from coevo.core.agent.prompt import PromptSettings
from coevo.core.agent.types import Turn
from coevo.core.config import ConfigError
from coevo.core.env.protocol import Environment
from coevo.core.expert_data import ExpertEpisodes
from coevo.rao.deciders import OracleDecider
from coevo.rao.protocol import Delegation, parse_reply
from coevo.rao.runner import TreeRunner
from coevo.rao.settings import RecursionSettings
from coevo.rao.tree import Tree


def flat_settings(recursion: RecursionSettings) -> RecursionSettings:
    """The same settings with delegation disabled (the flat agent)."""
    return replace(recursion, delegation=replace(recursion.delegation, enabled=False))


def is_flat_episode(i: int, share: float) -> bool:
    """Spread ``share`` of the episodes evenly: episode i is flat when ⌊(i+1)·share⌋ > ⌊i·share⌋."""
    return int((i + 1) * share) > int(i * share)


def recursive_rank(i: int, share: float) -> int:
    """How many recursive episodes come before episode i (⌊i·share⌋ of the i before it are flat).

    The recursive episodes cycle through the sizes by this rank, not by i: cycling by i, sizes
    [1, 2, 4, 8] with a flat share of 1/4 put every episode meant for size 8 (i = 3, 7, …) among the
    flat ones, and the warm start never showed an 8x tree."""
    return i - int(i * share)


class RecursiveExpert:
    """An ``ExpertSource`` for core's warm start (see the module docstring)."""

    def __init__(self, recursion: RecursionSettings, flat_share: float, knob: str = "", sizes: list[int] | None = None,
                 answer_episodes: int = 0):
        if answer_episodes < 0:
            raise ConfigError(f"algo.warmstart_answer_episodes: must be >= 0, got {answer_episodes}")
        self.recursion = recursion
        self.flat_share = flat_share
        self.knob, self.sizes = knob, list(sizes or [])
        self.answer_episodes = answer_episodes
        self.cache_key = {"rao_expert": 3,  # 3: sizes cycle over the recursive episodes (recursive_rank)
                          "recursion": asdict(recursion), "flat_share": flat_share,
                          "knob": knob, "sizes": self.sizes}
        if answer_episodes:  # only when set, so that earlier cache entries keep their keys
            self.cache_key["answer_episodes"] = answer_episodes

    def _envs(self, env: Environment) -> list[Environment]:
        """One environment per training size (``env`` itself without a size mixture)."""
        if not self.sizes:
            return [env]
        return [type(env)(dataclasses.replace(env.config, **{self.knob: v})) for v in sorted(self.sizes)]

    def _play(self, runners: dict, oracle: OracleDecider, envs: list[Environment], i: int, split: str,
              index: int) -> Tree:
        """Episode ``i`` of a stream: flat at the smallest size (a ``flat_share``), else recursive, sizes cycling."""
        flat = is_flat_episode(i, self.flat_share)
        sized = envs[0] if flat else envs[recursive_rank(i, self.flat_share) % len(envs)]
        return runners[flat].run([sized.task(split, index)], [sized], oracle)[0]

    def __call__(self, env: Environment, prompt: PromptSettings, num_episodes: int, split: str = "train",
                 first_index: int = 0) -> ExpertEpisodes:
        if self.recursion.can_delegate and not env.forkable:
            raise ConfigError(f"algo=rao: env '{env.name}' cannot fork sub-tasks; choose a forkable env "
                              f"(longctx, craft, algebra, maze, textcraft_synth) or set algo.recursion.delegation.enabled=false")
        runners = {flat: TreeRunner(prompt, flat_settings(self.recursion) if flat else self.recursion)
                   for flat in (False, True)}
        oracle = OracleDecider(self.recursion.delegation.max_children)
        envs = self._envs(env)
        examples, won = [], 0
        for i, index in enumerate(range(first_index, first_index + num_episodes)):
            tree = self._play(runners, oracle, envs, i, split, index)
            won += int(tree.won)
            for node in tree.nodes:
                examples += [_example(turn) for turn in node.episode.turns]
        for j in range(self.answer_episodes if num_episodes else 0):
            tree = self._play(runners, oracle, envs, j, split, first_index + num_episodes + j)
            examples += [_example(turn) for turn in answer_turns(tree)]
        return ExpertEpisodes(examples, num_episodes, won)


def answer_turns(tree: Tree) -> list[Turn]:
    """The last turn of every node that ended by acting in its environment (its answer), not by a launch."""
    last = [node.episode.turns[-1] for node in tree.nodes if node.episode.turns]
    return [turn for turn in last if not isinstance(parse_reply(turn.response_text), Delegation)]


def _example(turn: Turn) -> list[dict[str, str]]:
    return turn.messages + [{"role": "assistant", "content": turn.response_text}]
