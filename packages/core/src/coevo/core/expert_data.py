"""Supervised examples from an environment's expert: the prompts the agent would see, answered
with the expert's action (the warm-start data)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from coevo.core.agent.prompt import PromptSettings, expert_messages, opening
from coevo.core.env.protocol import Environment
from coevo.core.progress import track

Message = dict[str, str]


@dataclass
class ExpertEpisodes:
    examples: list[list[Message]]  # one conversation per expert step; its last message is the target
    episodes: int
    won: int


#: ``(env, prompt settings, num_episodes, split, first_index) -> ExpertEpisodes``: where warm-start
#: demonstrations come from (``collect_expert_examples`` or an algorithm's own ``expert_source``)
ExpertSource = Callable[[Environment, PromptSettings, int, str, int], ExpertEpisodes]


def collect_expert_examples(
    env: Environment, settings: PromptSettings, num_episodes: int, split: str = "train", first_index: int = 0
) -> ExpertEpisodes:
    """Play ``num_episodes`` tasks with ``env.expert_action()`` and record every step's prompt."""
    examples: list[list[Message]] = []
    won = 0
    indices = range(first_index, first_index + num_episodes)
    for index in track(indices, f"{env.name}: playing expert episodes"):
        episode, episode_won = record_episode(env, settings, split, index, lambda: env.expert_action())
        examples += episode
        won += int(episode_won)
    return ExpertEpisodes(examples, num_episodes, won)


def record_episode(env: Environment, settings: PromptSettings, split: str, index: int,
                   next_action: Callable[[], str | None]) -> tuple[list[list[Message]], bool]:
    """Play task ``index`` of ``split`` with ``next_action()`` (the expert, or a scripted list) and
    record every step's prompt answered with the env's expert reply for that action; ``(examples, won)``."""
    first = opening(settings, env.reset(env.task(split, index)), env.goal)
    examples: list[list[Message]] = []
    history: list[tuple[str, str]] = []
    for _ in range(env.max_steps):
        action = next_action()
        if action is None:
            raise RuntimeError(
                f"env '{env.name}' has no expert; the warm start needs one (set warmstart.enabled=false)"
            )
        admissible = env.admissible_actions() if settings.show_admissible else None
        memory = env.memory() if settings.memory else None
        example = expert_messages(settings, first, history, memory, admissible, env.expert_reply(action),
                                  goal=env.goal)
        examples.append(example)
        result = env.step(action)
        history.append((example[-1]["content"], result.observation))
        if result.done:
            return examples, bool(result.won)
    return examples, False


def corpus_texts(examples: list[list[Message]]) -> list[str]:
    """Message contents, for training a tokenizer on the environment's language."""
    return [m["content"] for conversation in examples for m in conversation]
