"""Skill-writing demonstrations in core's warm start (an ``ExpertSource``, core's ``expert_source`` hook).

A tiny policy built from scratch has never seen skill text: its tokenizer, trained on the
environment's acting text, lacks the skills' words, and a short fine-tune on writing prompts
after the warm start either leaves skills garbled (small lr) or erodes acting (large lr; measured:
sampled success 37% → 3% at the first RL step with lr 3e-3). So where the policy writes skills,
its warm start learns both at once: the environment expert's acting examples plus, for a share of
the same expert episodes, one writing prompt → library skill conversation
(:func:`coevo.rsipo.warmup.writing_conversation`). The skills' words then enter the tokenizer
corpus, and SFT teaches the ``<skill>…</skill>`` format beside acting.
"""

from __future__ import annotations

import logging

from coevo.core.agent.prompt import PromptSettings
from coevo.core.env.protocol import Environment
from coevo.core.expert_data import ExpertEpisodes, collect_expert_examples
from coevo.rsipo.config import SkillSettings
from coevo.rsipo.skills.library import library
from coevo.rsipo.skills.template import template_for
from coevo.rsipo.warmup import writing_conversation

log = logging.getLogger(__name__)


def chosen(i: int, share: float) -> bool:
    """Whether episode ``i`` gives a writing example: evenly spread, ``share`` of all episodes."""
    return int((i + 1) * share) > int(i * share)


class SkillDemonstrations:
    """The environment's acting demonstrations plus writing examples for ``share`` of the episodes."""

    def __init__(self, skill: SkillSettings, share: float):
        if not 0 < share <= 1:
            raise ValueError(f"algo.warmup.warm_start_share must be in (0, 1], got {share}")
        self.skill, self.share = skill, share
        self.cache_key = {"rsipo_skill_demonstrations": 1, "share": share, "trajectories": skill.trajectories,
                          "max_actions": skill.max_actions}

    def __call__(self, env: Environment, prompt: PromptSettings, num_episodes: int, split: str = "train",
                 first_index: int = 0) -> ExpertEpisodes:
        acting = collect_expert_examples(env, prompt, num_episodes, split, first_index)
        try:
            library(env.name)
        except ValueError as exc:
            log.warning("no skill-writing examples in the warm start: %s", exc)
            return acting
        template, writing = template_for(env.name), []
        for i, index in enumerate(range(first_index, first_index + num_episodes)):
            if not chosen(i, self.share):
                continue
            conversation = writing_conversation(env, template, self.skill, split, index)
            if conversation is None:  # no expert: nothing to write from
                return acting
            writing.append(conversation)
        return ExpertEpisodes(acting.examples + writing, acting.episodes, acting.won)
