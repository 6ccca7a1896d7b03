"""The samples of RSIPO's combined update: what step 7 (teacher) and step 8 (objective) train on.

- ``teacher_values``: the skill-conditioned teacher's log-probs of the student's own turns (the
  teacher's prompt of a turn is the student's with the skill line, ``teacher.py``), for tasks that
  have a skill: all their turns, or ``opsd_turns`` of them drawn at random (an unbiased estimate);
- ``action_samples``: every student turn as one sample (``samples.py``) carrying its turn's RLVR
  advantage (``algo.advantage``: its episode's, or GiGPO's per-turn value), whether it is in the RLVR term, its task's ω and its teacher values;
- ``skill_samples``: one sample per policy-written skill with a non-zero reward (writing prompt
  masked, skill tokens trained with the skill reward as advantage).

``UpdateSamples`` is built by ``RSIPO`` (``module.py``) from the run's config, its algorithm context
(seed, tokenizer, agent settings) and the group size; what changes from step to step (the model
the teacher runs on, the batch index, the log-prob temperature) is passed to the teacher's methods.
"""

from __future__ import annotations

import torch

from coevo.core.agent.types import Episode
from coevo.core.algos.algorithm_context import AlgorithmContext
from coevo.core.algos.batching import Sample
from coevo.core.seeds import rank_seed, step_seed
from coevo.rsipo.config import RSIPOConfig
from coevo.rsipo.samples import turn_sample
from coevo.rsipo.skill_lifecycle import SkillStep
from coevo.rsipo.skill_plays import OPSD_TURNS_SALT, student_turns
from coevo.rsipo.teacher import FittedSkill, teacher_choice_logprobs, teacher_token_logprobs


class UpdateSamples:
    """The teacher's values and the samples of the combined update.

    Depends on ``config`` (``opsd_coef``, ``opsd_turns``, ``choice_loss``, ``micro_batch_tokens``,
    ``rlvr``, ``skip_zero_advantage``, ``skill_loss``), ``context`` (its ``seed``, the tokenizer's pad
    id, the agent's choice scoring) and ``group_size`` (G, episodes per task)."""

    def __init__(self, config: RSIPOConfig, context: AlgorithmContext, group_size: int):
        self.config = config
        self.context = context
        self.group_size = group_size

    def opsd_targets(self, groups: list[list[Episode]], step: SkillStep, policy: torch.nn.Module, batch_index: int,
                     temperature: float) -> dict[tuple[int, int], object]:
        """7. The teacher's values of the student turns, or none without the OPSD term or skills."""
        if not (self.config.opsd_coef > 0 and step.fitted is not None):
            return {}
        return self.teacher_values(groups, step.fitted, policy, batch_index, temperature)

    @torch.no_grad()
    def teacher_values(self, groups: list[list[Episode]], fitted: list[FittedSkill], policy: torch.nn.Module,
                       batch_index: int, temperature: float) -> dict[tuple[int, int], object]:
        """Teacher log-probs of the student turns of tasks that have a skill (all, or ``opsd_turns`` of
        them drawn at random, seeded by ``batch_index``), keyed by (episode, turn). ``policy``: the
        model for the teacher's no-grad forwards (the module's ``no_grad_policy()``); ``temperature``:
        the token log-probs' (the module's ``logprob_temperature``, generate mode)."""
        g = self.group_size
        keys, prompts, turns = [], [], []
        for f, task_keys in zip(fitted, student_turns(groups, g)):
            if not f.text:  # no skill: the teacher is the student (a = 0), no OPSD term for the task
                continue
            for (e, k), prompt in zip(task_keys, f.teacher_prompts):
                keys.append((e, k))
                prompts.append(prompt)
                turns.append(groups[e // g][e % g].turns[k])
        if 0 < self.config.opsd_turns < len(keys):  # a uniform random subset: an unbiased estimate of the mean
            generator = torch.Generator().manual_seed(rank_seed(step_seed(self.context.seed + OPSD_TURNS_SALT, batch_index)))
            keep = sorted(torch.randperm(len(keys), generator=generator)[: self.config.opsd_turns].tolist())
            keys, prompts, turns = [keys[i] for i in keep], [prompts[i] for i in keep], [turns[i] for i in keep]
        if not keys:
            return {}
        pad_id = self.context.tokenizer.pad_token_id
        budget = self.config.micro_batch_tokens
        choice = [t for t in turns if t.candidates is not None]
        if self.config.choice_loss == "softmax" and len(choice) == len(turns):
            agent = self.context.agent
            values = teacher_choice_logprobs(policy, prompts, turns, pad_id, agent.choice_score,
                                             agent.choice_temperature, budget)
        else:
            values = teacher_token_logprobs(policy, prompts, turns, pad_id, temperature, budget)
        return dict(zip(keys, values))

    def action_samples(self, episodes: list[Episode], advantages: list[list[float]], omega: list[float],
                       teacher: dict) -> list:
        """Every student turn with a response as one sample. ``advantages[e][k]``: turn k of episode e's
        RLVR advantage (the module's ``rlvr_advantages``); ``omega[i]``: task i's ω (episode e's task is
        its ``group_id``); ``teacher``: the teacher's values keyed by (e, k) (``teacher_values``)."""
        cfg = self.config
        samples = []
        for e, (episode, turn_values) in enumerate(zip(episodes, advantages)):
            for k, (turn, advantage) in enumerate(zip(episode.turns, turn_values)):
                if not turn.response_ids:
                    continue
                in_pg = cfg.rlvr and (advantage != 0.0 or not cfg.skip_zero_advantage)
                samples.append(turn_sample(turn, advantage, cfg.choice_loss, teacher.get((e, k)),
                                           omega[episode.group_id], in_pg))
        return samples

    def skill_samples(self, step: SkillStep) -> list[Sample]:
        """One sample per policy-written skill with a non-zero reward: writing prompt (masked) + skill
        tokens; none without the skill loss."""
        if not self.config.skill_loss or step.skills is None:
            return []
        out = []
        for skill, reward in zip(step.skills, step.rewards):
            if skill.source != "policy" or not skill.token_ids or reward == 0.0:
                continue
            n = len(skill.prompt_ids)
            out.append(Sample(skill.prompt_ids + skill.token_ids, [0] * n + [1] * len(skill.token_ids), reward,
                              [0.0] * n + skill.logprobs))
        return out
