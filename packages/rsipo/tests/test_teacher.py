"""The teacher's context differs from the student's only by the skill: token alignment, the
truncation rule, and teacher scores that reduce to the student's without a skill."""

import pytest
import torch

from coevo.core.agent.loop import AgentLoop, AgentSettings
from coevo.core.agent.prompt import PromptSettings, build_messages
from coevo.core.policy.conversation import render_prompt
from coevo.core.policy.logprobs import sequence_token_logprobs
from coevo.core.rollout.hf_engine import HFEngine
from coevo.core.testing.boxes_env import BoxesConfig, BoxesEnv
from coevo.rsipo.teacher import (
    fit_skill,
    skill_context,
    teacher_choice_logprobs,
    teacher_messages,
    teacher_token_logprobs,
)

SKILL = "go to the box the task names, then open that box."


def _messages():
    settings = PromptSettings(system_prompt="You are an agent.", history_turns=1)
    first = "Your task is to: open the red box."
    return build_messages(settings, first, [("<action>go to blue box</action>", "You arrive at the blue box.")],
                          "visited: blue", None)


def test_teacher_prompt_is_the_student_prompt_with_the_skill_inserted(tokenizer):
    messages = _messages()
    student = render_prompt(tokenizer, messages)
    teacher = render_prompt(tokenizer, teacher_messages(messages, skill_context(SKILL)))
    inserted = len(teacher) - len(student)
    p = next(i for i, (a, b) in enumerate(zip(student, teacher)) if a != b)
    # one contiguous span of tokens was inserted at p; everything before and after is identical
    assert teacher[:p] == student[:p]
    assert teacher[p + inserted :] == student[p:]
    assert tokenizer.decode(teacher[p : p + inserted]) == f"Skill: {SKILL}\n"
    assert messages[1]["content"].startswith("Your task")  # the student's messages are not modified
    assert teacher_messages(messages, None) == messages


def test_teacher_context_equals_the_replay_context_of_the_agent_loop(tokenizer, tiny_model):
    env_settings = AgentSettings(mode="choose", prompt=PromptSettings(history_turns=1))
    loop = AgentLoop(HFEngine(None, tiny_model, tokenizer), tokenizer, env_settings)
    env = BoxesEnv(BoxesConfig())
    task = env.task("train", 3)
    student = loop.run([task], [env], greedy=True)[0]
    replay = loop.run([task], [BoxesEnv(BoxesConfig())], greedy=True, contexts=[skill_context(SKILL)])[0]
    first = student.turns[0]
    assert render_prompt(tokenizer, teacher_messages(first.messages, skill_context(SKILL))) == replay.turns[0].prompt_ids
    assert render_prompt(tokenizer, first.messages) == first.prompt_ids


def test_truncation_rule_cuts_the_skill_to_fit_every_turn(tokenizer):
    messages = [_messages(), _messages()[:2]]
    longest = max(len(render_prompt(tokenizer, m)) for m in messages)
    long_skill = " ".join([SKILL] * 20)
    fitted = fit_skill(tokenizer, long_skill, "Skill: ", messages, max_tokens=longest + 12)
    assert fitted.truncated
    assert 0 < len(fitted.text) < len(long_skill) and long_skill.startswith(fitted.text)
    assert max(len(p) for p in fitted.teacher_prompts) <= longest + 12
    # a skill that fits is untouched; no room at all leaves no skill (the teacher is the student)
    assert fit_skill(tokenizer, SKILL, "Skill: ", messages, 10_000).text == SKILL
    nothing = fit_skill(tokenizer, SKILL, "Skill: ", messages, max_tokens=longest)
    assert nothing.text == "" and nothing.truncated
    assert nothing.teacher_prompts == [render_prompt(tokenizer, m) for m in messages]


def test_without_a_skill_the_teacher_scores_equal_the_student(tokenizer, tiny_model):
    settings = AgentSettings(mode="choose", choice_score="mean")
    loop = AgentLoop(HFEngine(None, tiny_model, tokenizer), tokenizer, settings)
    env = BoxesEnv(BoxesConfig())
    episode = loop.run([env.task("train", 5)], [env], generator=torch.Generator().manual_seed(0))[0]
    turns = episode.turns
    prompts = [render_prompt(tokenizer, teacher_messages(t.messages, None)) for t in turns]
    pad = tokenizer.pad_token_id
    choice = teacher_choice_logprobs(tiny_model, prompts, turns, pad, settings.choice_score, 1.0, 4096)
    assert choice == pytest.approx([t.choice_logprob for t in turns], abs=1e-5)
    tokens = teacher_token_logprobs(tiny_model, prompts, turns, pad, 1.0, 4096)
    for turn, values in zip(turns, tokens):
        ids = torch.tensor([turn.prompt_ids + turn.response_ids])
        direct = sequence_token_logprobs(tiny_model, ids, torch.ones_like(ids))[0, len(turn.prompt_ids) :]
        assert values == pytest.approx(direct.tolist(), abs=1e-5)
        assert values == pytest.approx(turn.response_logprobs, abs=1e-4)
    # with a skill in the context the teacher's scores differ
    skilled = [render_prompt(tokenizer, teacher_messages(t.messages, skill_context(SKILL))) for t in turns]
    assert teacher_choice_logprobs(tiny_model, skilled, turns, pad, "mean", 1.0, 4096) != pytest.approx(choice)
