"""The RSIPO module's update: ω = 0 removes a task's OPSD gradient, the teacher sees the skill, and
with λ = 0 and no skill loss the update is GRPO's."""

import pytest
import torch

from coevo.core import registry
from coevo.core.agent.loop import AgentSettings
from coevo.core.algos.advantages import broadcast, turn_advantages
from coevo.core.algos.algorithm_context import AlgorithmContext
from coevo.core.algos.grpo import GRPO, GRPOConfig
from coevo.core.algos.micro_batches import loss_normalizer, split_micro_batches
from coevo.core.config import ConfigError
from coevo.core.testing.boxes_env import BoxesConfig, BoxesEnv
from coevo.rsipo.config import RSIPOConfig, SkillSettings
from coevo.rsipo.hindsight import expert_attempt
from coevo.rsipo.module import RSIPO
from coevo.rsipo.samples import DistilledChoiceSample
from coevo.rsipo.skills.template import template_for
from coevo.rsipo.skills.writing import SkillWriter

SKILL = "go to the box the task names, then open that box."


def _module(tiny_model, tokenizer, **overrides) -> RSIPO:
    context = AlgorithmContext(tiny_model, tokenizer, lambda: BoxesEnv(BoxesConfig()), BoxesEnv.task_types,
                               AgentSettings(mode="choose"))
    config = RSIPOConfig(group_size=4, kl_coef=0.0, **{"skill": SkillSettings(source="library"), **overrides})
    return RSIPO(config, context)


def _grads(module, samples, opsd_norm=10.0):
    module.policy.zero_grad(set_to_none=True)
    forward = [s for s in samples if s.in_pg or s.omega > 0]
    pg = [s for s in samples if s.in_pg]
    pg_norm = loss_normalizer(pg, module.config.loss_aggregation) if pg else 1.0
    for mb in split_micro_batches(forward, module.config.micro_batch_tokens, tokenizer_pad(module)):
        loss, _ = module.combined_update.action_loss(mb, pg_norm, opsd_norm)
        loss.backward()
    return {n: p.grad.clone() for n, p in module.policy.named_parameters() if p.grad is not None}


def _zeros(episodes) -> list[list[float]]:
    return broadcast(episodes, [0.0] * len(episodes))


def tokenizer_pad(module):
    return module.context.tokenizer.pad_token_id


def _rollout_with_teacher(module):
    tasks = [module.probe.task("train", i) for i in range(2)]
    module.batch_index = 0
    episodes = module.rollout(tasks)
    groups = [episodes[:4], episodes[4:]]
    skills = [SkillWriter(module.context.tokenizer, template_for("boxes"), module.config.skill).from_library(SKILL)] * 2
    fitted = module.fit_skills(skills, groups)
    teacher = module.teacher_values(groups, fitted)
    return episodes, teacher


def test_teacher_scores_every_student_turn_with_the_skill(tiny_model, tokenizer):
    module = _module(tiny_model, tokenizer)
    episodes, teacher = _rollout_with_teacher(module)
    assert len(teacher) == sum(ep.num_turns for ep in episodes)
    student = [t.choice_logprob for ep in episodes for t in ep.turns]
    assert list(teacher.values()) != pytest.approx(student)  # the skill changes the teacher's choice distribution


def test_omega_zero_task_contributes_no_gradient(tiny_model, tokenizer):
    # OPSD only (no RLVR term): task 0 gets ω = 0, task 1 ω = 1.5. The gradient equals the one
    # computed without task 0's samples at all (same normaliser): task 0's OPSD gradient is zero.
    module = _module(tiny_model, tokenizer, rlvr=False)
    episodes, teacher = _rollout_with_teacher(module)
    samples = module.update_samples.action_samples(episodes, _zeros(episodes), [0.0, 1.5], teacher)
    assert all(isinstance(s, DistilledChoiceSample) and not s.in_pg for s in samples)
    with_zero = _grads(module, samples)
    without = _grads(module, [s for s in samples if s.omega > 0])
    assert with_zero.keys() == without.keys() and with_zero
    for name in with_zero:
        assert torch.allclose(with_zero[name], without[name], atol=1e-7), name
    # and ω = 0 for both tasks: no gradient at all
    for s in samples:
        s.omega = 0.0
    assert _grads(module, samples) == {}


def test_without_opsd_and_skill_loss_the_update_is_grpo(tiny_model, tokenizer):
    module = _module(tiny_model, tokenizer, opsd_coef=0.0, skill_coef=0.0, dynamic_trust=False,
                     skip_zero_advantage=False)
    grpo = GRPO(GRPOConfig(group_size=4, kl_coef=0.0, skip_zero_advantage=False), module.context)
    tasks = [module.probe.task("train", i) for i in range(2)]
    module.batch_index = grpo.batch_index = 0
    episodes = module.rollout(tasks)
    rewards = torch.tensor([ep.reward for ep in episodes])
    advantages = module.advantage_fn(rewards, torch.tensor([ep.group_id for ep in episodes]))
    if not advantages.abs().sum():
        pytest.skip("all groups had equal returns under this seed")
    samples = module.update_samples.action_samples(episodes, broadcast(episodes, advantages.tolist()), [1.0, 1.0], {})
    mine = _grads(module, samples)
    from coevo.core.algos.grpo import episode_samples

    plain = episode_samples(episodes, advantages, "softmax")
    grpo.policy.zero_grad(set_to_none=True)
    norm = loss_normalizer(plain, grpo.config.loss_aggregation)
    for mb in split_micro_batches(plain, grpo.config.micro_batch_tokens, tokenizer.pad_token_id):
        loss, _ = grpo._micro_loss(mb, norm, on_policy=True)
        loss.backward()
    theirs = {n: p.grad.clone() for n, p in grpo.policy.named_parameters() if p.grad is not None}
    for name in theirs:
        assert torch.allclose(mine[name], theirs[name], atol=1e-6), name


def test_tasks_without_a_type_share_the_default_type(tiny_model, tokenizer, caplog):
    from coevo.core.env.protocol import Task

    module = _module(tiny_model, tokenizer)
    tasks = [Task("boxes", "train", 0, "", 1), Task("boxes", "train", 1, "near", 2), Task("boxes", "train", 2, "", 3)]
    with caplog.at_level("WARNING"):
        assert module.task_types_of(tasks) == ["default", "near", "default"]
    assert sum("has no type" in r.message for r in caplog.records) == 1  # warned once


def test_opsd_turns_scores_a_seeded_random_subset(tiny_model, tokenizer):
    module = _module(tiny_model, tokenizer, opsd_turns=5)
    episodes, teacher = _rollout_with_teacher(module)
    assert len(teacher) == 5 < sum(ep.num_turns for ep in episodes)
    assert _rollout_with_teacher(module)[1].keys() == teacher.keys()  # same step, same subset
    samples = module.update_samples.action_samples(episodes, _zeros(episodes), [1.0, 1.0], teacher)
    assert sum(s.teacher_logprob is not None for s in samples) == 5


def test_rlvr_advantages_come_from_algo_advantage(tiny_model, tokenizer):
    # a spy estimator registered for the test: RSIPO's RLVR branch calls the one algo.advantage names
    calls = []

    def spy(rewards, group_ids, eps=1e-6, scale_by_std=True):
        calls.append(scale_by_std)
        return rewards - 0.25

    registry.advantages.register("spy_rsipo_adv", spy)
    try:
        module = _module(tiny_model, tokenizer, advantage="spy_rsipo_adv", scale_by_std=False)
        tasks = [module.probe.task("train", i) for i in range(2)]
        module.batch_index = 0
        episodes = module.rollout(tasks)
        advantages = module.rlvr_advantages(episodes)
    finally:
        registry.advantages.unregister("spy_rsipo_adv")
    assert calls == [False]
    assert advantages == broadcast(episodes, [ep.reward - 0.25 for ep in episodes])


def test_rlvr_advantages_default_and_gigpo_per_turn(tiny_model, tokenizer):
    module = _module(tiny_model, tokenizer)
    tasks = [module.probe.task("train", i) for i in range(2)]
    module.batch_index = 0
    episodes = module.rollout(tasks)
    # default grpo: each episode's group-normalised advantage on every turn (as before the registry choice)
    rewards = torch.tensor([ep.reward for ep in episodes])
    before = module.advantage_fn(rewards, torch.tensor([ep.group_id for ep in episodes]), scale_by_std=True)
    assert module.rlvr_advantages(episodes) == broadcast(episodes, before.tolist())
    # gigpo: core's per-turn values (episode part + step part from the boxes anchor states)
    gigpo = _module(tiny_model, tokenizer, advantage="gigpo")
    expected = turn_advantages(registry.advantages.get("gigpo"), episodes, True, gigpo.config.gigpo)
    assert gigpo.rlvr_advantages(episodes) == expected
    samples = gigpo.update_samples.action_samples(episodes, expected, [1.0, 1.0], {})
    in_pg = [a for row, ep in zip(expected, episodes) for a, t in zip(row, ep.turns) if t.response_ids and a != 0.0]
    assert [s.advantage for s in samples if s.in_pg] == in_pg  # each turn carries its own value
    # without the RLVR term: all 0
    assert _module(tiny_model, tokenizer, rlvr=False).rlvr_advantages(episodes) == _zeros(episodes)


def test_hindsight_source_gives_each_task_the_experts_direct_path_and_no_skill_loss(tiny_model, tokenizer):
    module = _module(tiny_model, tokenizer, skill=SkillSettings(source="hindsight"))
    tasks = [module.probe.task("train", i) for i in range(4)]
    skills = module.skills_for(tasks, [[] for _ in tasks])
    env = BoxesEnv(BoxesConfig())
    for task, skill in zip(tasks, skills):
        path, won = expert_attempt(env, "train", task.index)  # boxes' expert: go to the box, open it
        assert won and len(path) == 2
        assert skill.parsed.text == f"{path[0]}, {path[1]}." and skill.source == "hindsight"
        assert skill.token_ids == []  # nothing sampled: no skill loss


def test_hindsight_source_is_refused_where_the_env_has_no_expert(tiny_model, tokenizer, no_expert_boxes):
    context = AlgorithmContext(tiny_model, tokenizer, lambda: no_expert_boxes(BoxesConfig()), BoxesEnv.task_types,
                               AgentSettings(mode="choose"))
    with pytest.raises(ConfigError, match="algo.skill.source.*no"):
        RSIPO(RSIPOConfig(group_size=4, skill=SkillSettings(source="hindsight")), context)
