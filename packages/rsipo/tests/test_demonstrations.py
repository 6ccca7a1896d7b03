"""Skill-writing demonstrations join core's warm start where the policy writes skills."""

import pytest

from coevo.core import registry
from coevo.core.agent.prompt import PromptSettings
from coevo.core.cli import train
from coevo.core.config import build_component
from coevo.core.expert_data import collect_expert_examples, corpus_texts
from coevo.core.testing.boxes_env import BoxesConfig, BoxesEnv
from coevo.envs.household.catalog import TASK_TYPES
from coevo.envs.household.env import HouseholdEnv
from coevo.rsipo.config import SkillSettings
from coevo.rsipo.demonstrations import SkillDemonstrations, chosen
from coevo.rsipo.hindsight import direct_path, expert_attempt, hindsight_skill
from coevo.rsipo.skills.library import static_skill
from coevo.rsipo.skills.parsing import format_skill

PROMPT = PromptSettings(system_prompt="", history_turns=1)


def test_share_spreads_the_writing_examples_evenly():
    assert [chosen(i, 0.5) for i in range(6)] == [False, True, False, True, False, True]
    assert sum(chosen(i, 0.25) for i in range(40)) == 10 and all(chosen(i, 1.0) for i in range(5))


def test_acting_examples_stay_and_writing_examples_answer_with_the_library_skill():
    env = BoxesEnv(BoxesConfig())
    acting = collect_expert_examples(env, PROMPT, 6, "train", 100)
    data = SkillDemonstrations(SkillSettings(), 0.5)(env, PROMPT, 6, "train", 100)
    assert data.examples[: len(acting.examples)] == acting.examples  # the env expert's, unchanged
    writing = data.examples[len(acting.examples):]
    assert len(writing) == 3 and (data.episodes, data.won) == (acting.episodes, acting.won)
    for index, conversation in zip((101, 103, 105), writing):  # episodes 1, 3, 5 of the six
        task = env.task("train", index)
        assert conversation[-1] == {"role": "assistant", "content": format_skill(static_skill("boxes", task.task_type))}
        assert conversation[0]["role"] == "user" and "Attempt 1" in conversation[0]["content"]
    # the skills' words reach the tokenizer's corpus
    assert any("<skill>" in text for text in corpus_texts(data.examples))


def test_in_context_examples_repeat_the_chosen_episodes_acting_with_the_library_skill_first():
    env = BoxesEnv(BoxesConfig())
    acting = collect_expert_examples(env, PROMPT, 4, "train", 100)
    skill = SkillSettings(context_prefix="Skill: ")
    data = SkillDemonstrations(skill, 0.5, in_context_share=0.5)(env, PROMPT, 4, "train", 100)
    # acting (all four episodes), writing (episodes 1 and 3), then acting with the skill (episodes 1 and 3)
    in_context = data.examples[len(acting.examples) + 2:]
    expected = [conversation for index in (101, 103)
                for conversation in collect_expert_examples(env, PROMPT, 1, "train", index).examples]
    assert len(in_context) == len(expected) > 0
    skills = {static_skill("boxes", env.task("train", i).task_type) for i in (101, 103)}
    for plain, shown in zip(expected, in_context):
        first_user = next(i for i, m in enumerate(plain) if m["role"] == "user")
        assert shown[-1] == plain[-1]  # the same expert action is the target
        assert any(shown[first_user]["content"] == f"Skill: {s}\n{plain[first_user]['content']}" for s in skills)
        # every other message (system, later turns) is unchanged
        assert [m for i, m in enumerate(shown) if i != first_user] == [m for i, m in enumerate(plain) if i != first_user]


def test_in_context_share_keeps_the_old_cache_key_at_zero_and_changes_it_above():
    base = SkillDemonstrations(SkillSettings(), 0.5).cache_key
    assert SkillDemonstrations(SkillSettings(), 0.5, 0.0).cache_key == base
    assert SkillDemonstrations(SkillSettings(), 0.5, 0.5).cache_key != base
    assert SkillDemonstrations(SkillSettings(), 0.5, 0.5).cache_key != SkillDemonstrations(SkillSettings(), 0.5, 1.0).cache_key


def test_hindsight_examples_write_the_direct_path_and_act_along_it_with_it_in_the_context():
    env = HouseholdEnv(HouseholdEnv.Config(scale="alfworld", task_types=list(TASK_TYPES)))
    acting = collect_expert_examples(env, PROMPT, 4, "train", 100)
    data = SkillDemonstrations(SkillSettings(context_prefix="Skill: "), 0.5, 0.5, kind="hindsight")(
        env, PROMPT, 4, "train", 100)
    assert data.examples[: len(acting.examples)] == acting.examples  # skill-free acting: the oracle's search, unchanged
    writing, in_context = data.examples[len(acting.examples): len(acting.examples) + 2], data.examples[len(acting.examples) + 2:]
    paths = {}
    for index in (101, 103):
        attempt, _ = expert_attempt(env, "train", index)
        paths[index] = direct_path(env, "train", index, attempt)
    for index, conversation in zip((101, 103), writing):
        assert conversation[-1]["content"] == format_skill(hindsight_skill(paths[index]))
    # acting with the skill: one example per command of each path, the command as the target
    expected = [(index, command) for index in (101, 103) for command in paths[index]]
    assert len(in_context) == len(expected)
    for (index, command), conversation in zip(expected, in_context):
        first_user = next(m for m in conversation if m["role"] == "user")
        assert first_user["content"].startswith(f"Skill: {hindsight_skill(paths[index])}\n")
        assert conversation[-1]["content"] == env.expert_reply(command)


def test_the_skill_kind_changes_the_cache_key_only_for_hindsight_and_is_checked():
    base = SkillDemonstrations(SkillSettings(), 0.5).cache_key
    assert SkillDemonstrations(SkillSettings(), 0.5, kind="library").cache_key == base
    assert SkillDemonstrations(SkillSettings(), 0.5, kind="hindsight").cache_key != base
    with pytest.raises(ValueError, match="algo.warmup.skill_kind"):
        SkillDemonstrations(SkillSettings(), 0.5, kind="oracle")


def test_share_out_of_range_is_refused():
    with pytest.raises(ValueError, match="warm_start_share"):
        SkillDemonstrations(SkillSettings(), 0.0)
    with pytest.raises(ValueError, match="in_context_share"):
        SkillDemonstrations(SkillSettings(), 0.5, 1.5)


@pytest.mark.parametrize(("algo", "extra", "expected"), [
    ("rsipo", [], True),
    ("rsipo", ["algo.warmup.warm_start_share=0"], False),
    ("grpo_opsd", [], False),  # library skills: the policy never writes
    ("skill_grpo", [], False),  # the preset puts library skills in the student's context
    ("rsipo", ["algo.skill.source=library"], False),
])
def test_expert_source_only_where_the_policy_writes(compose_train, algo, extra, expected):
    cfg = compose_train(algo, *extra)
    algo_cls, algo_cfg = build_component(registry.algorithms, cfg.algo, "algo")
    source = train.expert_source(algo_cls, algo_cfg)
    assert isinstance(source, SkillDemonstrations) == expected
