"""SearchEnv end to end on the synthetic knowledge base: the expert wins every task, search
results are rendered like Search-R1, invalid and repeated actions, max_turns, EM/F1 info,
snapshot/restore, registry discovery and config checks."""

import dataclasses

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coevo.core import registry
from coevo.envs.search.corpus import Passage
from coevo.envs.search.env import SearchEnv, format_information

SPLITS = ("train", "eval_in_distribution", "eval_out_of_distribution")


def _play_expert(env):
    turns = []
    while True:
        reply = env.format_action(env.expert_action())
        result = env.step(env.parse_action(reply))
        turns.append((reply, result))
        if result.done:
            return turns


def test_registered_and_surface(make_env):
    assert registry.envs.get("search") is SearchEnv
    env = make_env()
    assert env.free_form_actions and env.max_steps == 5
    assert {"hop1", "hop2", "hop3", "hotpotqa", "nq"} <= set(env.task_types)
    assert env.num_tasks("train") is None and env.num_tasks("eval_out_of_distribution") == 60
    assert [env.task("train", i).task_type for i in range(4)] == ["hop1", "hop2", "hop3", "hop1"]
    first = env.reset(env.task("train", 0))
    assert "<search>" in first and first.endswith(f"Question: {env.goal}")
    assert env.admissible_actions() == [] and env.memory() is None


def test_expert_wins_every_synthetic_task(make_env):
    env = make_env()
    for split in SPLITS:
        for index in range(30):
            task = env.task(split, index)
            env.reset(task)
            turns = _play_expert(env)
            hops = int(task.task_type[-1])
            assert len(turns) == hops + 1  # one search per hop, then the answer
            reply, last = turns[-1]
            assert last.won and last.reward == 1.0 and last.info["em"] == 1.0 and last.info["f1"] == 1.0
            assert all(r.reward == 0.0 and not r.invalid and not r.done for _, r in turns[:-1])
            assert reply == f"<answer>{env.current_question.golden_answers[0]}</answer>"


def test_search_observation_lists_passages_like_search_r1(make_env):
    env = make_env(top_k=2)
    env.reset(env.task("train", 0))
    name = env.current_question.hop_queries[0]
    result = env.step(f"search: {name}")
    assert result.observation.startswith(f"<information>Doc 1(Title: {name}) {name} is ")
    assert "\nDoc 2(Title: " in result.observation and result.observation.endswith("</information>")
    assert "Doc 3(" not in result.observation
    assert len(result.info["retrieved"]) == 2
    assert env.memory() == f"searched: {name.lower()}"


def test_format_information_truncates_and_handles_no_results():
    p = Passage("1", "T", "one two three four")
    assert format_information([p]) == "<information>Doc 1(Title: T) one two three four</information>"
    assert format_information([p], max_words=2) == "<information>Doc 1(Title: T) one two ...</information>"
    assert format_information([]) == "<information>No results found.</information>"


def test_repeated_query_is_invalid(make_env):
    env = make_env()
    env.reset(env.task("train", 1))
    name = env.current_question.hop_queries[0]
    assert not env.step(f"search: {name}").invalid
    again = env.step(f"search:   {name.upper()} ")  # the same query, other case and spacing
    assert again.invalid and again.observation == env.invalid_observation and not again.done
    assert again.info["repeated_query"] and again.info["turns"] == 2


def test_wrong_answer_scores_em_zero_and_partial_f1(make_env):
    env = make_env()
    env.reset(env.task("train", 1))  # a hop2 question
    gold = env.current_question.golden_answers[0]
    result = env.step(f"answer: {gold} and something else")
    assert result.done and not result.won and result.reward == 0.0
    assert result.info["em"] == 0.0 and 0.0 < result.info["f1"] < 1.0
    assert env.step("answer: x").invalid  # after the end


def test_max_turns_ends_the_episode_unsuccessfully(make_env):
    env = make_env(max_turns=2)
    env.reset(env.task("train", 2))
    assert not env.step("search: first").done
    last = env.step("search: second")
    assert last.done and not last.won and last.info["em"] == 0.0
    env.reset(env.task("train", 2))
    env.step("nonsense")
    malformed_last = env.step("search: first")  # invalid steps count as turns too
    assert malformed_last.done


def test_malformed_action_is_invalid_but_whole_replies_work(make_env):
    env = make_env()
    env.reset(env.task("train", 0))
    bad = env.step("what is this")
    assert bad.invalid and bad.info["malformed"] and not bad.done
    good = env.step(f"<think>x</think><answer>{env.current_question.golden_answers[0]}</answer>")
    assert good.won


def test_snapshot_restore(make_env):
    env = make_env()
    env.reset(env.task("train", 2))  # hop3
    expert = [env.expert_action()]
    env.step(expert[0])
    snap = env.snapshot()
    memory, next_action = env.memory(), env.expert_action()
    env.step(next_action)
    env.step("answer: wrong")
    assert env.done
    env.restore(snap)
    assert env.snapshot() == snap and env.memory() == memory and env.expert_action() == next_action
    assert not env.done
    turns = _play_expert(env)
    assert turns[-1][1].won and turns[-1][1].info["turns"] == 4


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(max_size=80))
def test_parse_action_and_step_never_raise(make_env, text):
    env = make_env(max_turns=3)
    env.reset(env.task("train", 0))
    action = env.parse_action(text)
    result = env.step(action if action is not None else text)
    assert isinstance(result.invalid, bool)


@pytest.mark.parametrize(
    "overrides,message",
    [
        ({"hops": [4]}, "hops"),
        ({"hops": []}, "hops"),
        ({"retriever": "tfidf"}, "retriever"),
        ({"top_k": 0}, "top_k"),
        ({"corpus_file": "corpus.jsonl"}, "needs env.qa_file"),
    ],
)
def test_bad_config_raises(make_env, overrides, message):
    with pytest.raises(ValueError, match=message):
        make_env(**overrides)


def test_config_fields_are_simple_types():
    types = {f.type for f in dataclasses.fields(SearchEnv.Config)}
    assert types <= {"int", "float", "bool", "str", "list[str]", "list[int]"}
