"""Skill-writing demonstrations in core's warm start (an ``ExpertSource``, core's ``expert_source`` hook).

A tiny policy built from scratch has never seen skill text: its tokenizer, trained on the
environment's acting text, lacks the skills' words, and a short fine-tune on writing prompts
after the warm start either leaves skills garbled (small lr) or erodes acting (large lr; measured:
sampled success 37% → 3% at the first RL step with lr 3e-3). So where the policy writes skills,
its warm start learns both at once: the environment expert's acting examples plus, for a share of
the same expert episodes, one writing prompt → library skill conversation
(:func:`coevo.rsipo.warmup.writing_conversation`). The skills' words then enter the tokenizer
corpus, and SFT teaches the ``<skill>…</skill>`` format beside acting.

A policy that only ever acted without a skill does not know what to do with one: the replay and
the teacher put a skill before the first message, a context the warm start never showed, and the
replay gains came out negative (bench/notebook.md). With ``in_context_share`` > 0, that
share of the expert episodes also gives its acting steps a second time with the library skill of
the task's type before the first message (:func:`with_skill`), so SFT teaches acting with a skill
in the context too. With ``skill_kind=hindsight`` both kinds of example carry the expert attempt's
hindsight skill instead (:mod:`coevo.rsipo.hindsight`): writing it from the attempt, and acting with it
in the context along the direct path it names.
"""

from __future__ import annotations

import logging

from coevo.core.agent.prompt import PromptSettings
from coevo.core.env.protocol import Environment
from coevo.core.expert_data import ExpertEpisodes, Message, collect_expert_examples, record_episode
from coevo.core.progress import track
from coevo.rsipo.config import SKILL_KINDS, SkillSettings
from coevo.rsipo.hindsight import expert_direct_path, hindsight_skill
from coevo.rsipo.skills.library import library, static_skill
from coevo.rsipo.skills.template import template_for
from coevo.rsipo.teacher import skill_context, teacher_messages
from coevo.rsipo.warmup import writing_conversation

log = logging.getLogger(__name__)


def chosen(i: int, share: float) -> bool:
    """Whether episode ``i`` is one of ``share`` of all episodes, evenly spread."""
    return int((i + 1) * share) > int(i * share)


def with_skill(examples: list[list[Message]], skill: str, prefix: str) -> list[list[Message]]:
    """Each acting example with ``skill`` (after ``prefix``) before its first user message, as the
    replay and the teacher see it; the target (last message) is unchanged."""
    return [teacher_messages(conversation, skill_context(skill, prefix)) for conversation in examples]


class SkillDemonstrations:
    """The environment's acting demonstrations plus writing examples for ``share`` of the episodes,
    and acting steps with a skill in the context for ``in_context_share`` of them (``kind``: the library
    skill of the task's type, or the expert attempt's hindsight skill)."""

    def __init__(self, skill: SkillSettings, share: float, in_context_share: float = 0.0, kind: str = "library"):
        if not 0 < share <= 1:
            raise ValueError(f"algo.warmup.warm_start_share must be in (0, 1], got {share}")
        if not 0 <= in_context_share <= 1:
            raise ValueError(f"algo.warmup.in_context_share must be in [0, 1], got {in_context_share}")
        if kind not in SKILL_KINDS:
            raise ValueError(f"algo.warmup.skill_kind must be one of {list(SKILL_KINDS)}, got {kind!r}")
        self.skill, self.share, self.in_context_share, self.kind = skill, share, in_context_share, kind
        self.cache_key = {"rsipo_skill_demonstrations": 1, "share": share, "trajectories": skill.trajectories,
                          "max_actions": skill.max_actions}
        if in_context_share > 0:  # (absent at 0: warm starts built before the option keep their key)
            self.cache_key |= {"in_context_share": in_context_share, "context_prefix": skill.context_prefix}
        if kind != "library":  # (absent for library, likewise)
            self.cache_key |= {"skill_kind": kind, "hindsight": 1}

    def __call__(self, env: Environment, prompt: PromptSettings, num_episodes: int, split: str = "train",
                 first_index: int = 0) -> ExpertEpisodes:
        acting = collect_expert_examples(env, prompt, num_episodes, split, first_index)
        try:
            library(env.name)
        except ValueError as exc:
            log.warning("no skill-writing examples in the warm start: %s", exc)
            return acting
        template, writing, in_context = template_for(env.name), [], []
        indices = range(first_index, first_index + num_episodes)
        for i, index in enumerate(track(indices, f"{env.name}: skill-writing demonstrations")):
            if chosen(i, self.in_context_share):
                in_context += self.acting_with_skill(env, prompt, split, index)
            if not chosen(i, self.share):
                continue
            conversation = writing_conversation(env, template, self.skill, split, index, self.kind)
            if conversation is None:  # no expert: nothing to write from
                return acting
            writing.append(conversation)
        return ExpertEpisodes(acting.examples + writing + in_context, acting.episodes, acting.won)

    def acting_with_skill(self, env: Environment, prompt: PromptSettings, split: str, index: int) -> list[list[Message]]:
        """Task ``index``'s acting steps with a skill before the first message: the expert's steps under
        the library skill, or the direct path's steps under its own hindsight skill."""
        if self.kind == "library":
            episode = collect_expert_examples(env, prompt, 1, split, index).examples
            return with_skill(episode, static_skill(env.name, env.task(split, index).task_type), self.skill.context_prefix)
        path = expert_direct_path(env, split, index)
        if path is None:  # no expert, or it lost: no path to name
            return []
        commands = iter(path)
        episode, _ = record_episode(env, prompt, split, index, lambda: next(commands, None))
        return with_skill(episode, hindsight_skill(path), self.skill.context_prefix)
