"""The longctx environment: tasks, knobs, actions, the oracle, fork and join."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coevo.core.env.protocol import ForkError
from coevo.envs.expert_play import play_expert
from coevo.envs.longctx.env import LongCtxEnv, split_range
from coevo.envs.longctx.questions import Question

SPLITS = ("train", "eval_in_distribution", "eval_out_of_distribution")


def _env(**knobs) -> LongCtxEnv:
    return LongCtxEnv(LongCtxEnv.Config(**knobs))


def test_same_task_same_document_and_question():
    a, b = _env(), _env()
    for split in SPLITS:
        task = a.task(split, 5)
        assert a.reset(task) == b.reset(b.task(split, 5))
        assert a.document == b.document and a.question == b.question
    a.reset(a.task("train", 0))
    b.reset(b.task("train", 1))
    assert a.document != b.document


def test_task_types_round_robin_and_splits_sized_by_config():
    env = _env(question_kinds=["sum", "max"], eval_in_distribution_size=3)
    assert [env.task("train", i).task_type for i in range(4)] == ["sum", "max", "sum", "max"]
    assert env.num_tasks("train") is None and env.num_tasks("eval_in_distribution") == 3
    with pytest.raises(IndexError):
        env.task("eval_in_distribution", 3)
    with pytest.raises(ValueError, match="question_kinds"):
        _env(question_kinds=["median"])


def test_num_chunks_knob_and_its_out_of_distribution_value():
    env = _env(num_chunks=6, records_per_chunk=3)
    env.reset(env.task("train", 0))
    assert env.document.num_chunks == 6 and len(env.document.records) == 18
    assert env.question.first == 0 and env.question.last == 5
    env.reset(env.task("eval_out_of_distribution", 0))
    assert env.document.num_chunks == 24  # default: 4 x num_chunks
    env = _env(num_chunks=6, ood_num_chunks=9)
    env.reset(env.task("eval_out_of_distribution", 0))
    assert env.document.num_chunks == 9
    with pytest.raises(ValueError, match="ood_num_chunks must be larger"):
        _env(num_chunks=6, ood_num_chunks=6)


@pytest.mark.parametrize("recursive", [True, False], ids=["recursive", "flat"])
def test_oracle_wins_every_task(recursive):
    env = _env()
    tasks = [env.task("train", i) for i in range(40)]
    tasks += [env.task(s, i) for s in SPLITS[1:] for i in range(12)]
    plays = [play_expert(env, t, recursive=recursive) for t in tasks]
    assert [t.task_id for t, p in zip(tasks, plays) if not p.won] == []
    if recursive:
        assert all(p.children_won == p.children > 0 for p in plays)
    else:
        assert all(p.nodes == 1 for p in plays)


def test_recursive_oracle_shape_follows_leaf_and_fanout():
    env = _env(num_chunks=8, expert_leaf_chunks=2, expert_fanout=2)
    env.reset(env.task("train", 0))
    assert env.expert_delegations() == [
        f"count records with {env.question.field}={env.question.value} in chunks 0-3",
        f"count records with {env.question.field}={env.question.value} in chunks 4-7",
    ]
    play = play_expert(env, env.task("train", 0))
    # 8 → 4 + 4 → each 2 + 2: 1 + 2 + 4 agents, the leaves read 2 chunks each, every agent answers
    assert (play.nodes, play.depth, play.steps) == (7, 2, 8 + 7)
    assert split_range(0, 9, 4) == [(0, 1), (2, 4), (5, 6), (7, 9)]
    assert split_range(3, 4, 3) == [(3, 3), (4, 4)]


def test_reading_and_answering():
    env = _env(num_chunks=4)
    env.reset(env.task("train", 0))
    assert env.admissible_actions() == ["read 0", "read 1", "read 2", "read 3"]
    result = env.step("read 2")
    assert result.observation == env.document.chunk_text(2)
    assert result.observation.startswith("chunk 2 (records 20-29):\nrecord 20: city=")
    assert not result.done and env.memory() == "read chunks: 2"
    result = env.step(f"answer {env.question.truth(env.document)}")
    assert result.won and result.done and result.reward == 1.0 and result.observation == "Correct."
    after = env.step("read 1")
    assert after.invalid and after.done and not after.won


def test_a_wrong_answer_ends_the_episode():
    env = _env(question_kinds=["count"])
    env.reset(env.task("train", 0))
    wrong = int(env.question.truth(env.document)) + 1
    result = env.step(f"answer {wrong}")
    assert result.done and not result.won and result.reward == 0.0 and result.observation == "Wrong answer."


@pytest.mark.parametrize(
    ("action", "reason"),
    [("read 8", "'read' takes a chunk number in 0-7"), ("read two", "chunk number"), ("jump", "unknown command"),
     ("answer many", "malformed answer"), ("", "unknown command")],
)
def test_invalid_actions_change_nothing_but_count(action, reason):
    env = _env(question_kinds=["count"])
    env.reset(env.task("train", 0))
    before = env.snapshot()[-1]
    result = env.step(action)
    assert result.invalid and not result.done and result.observation == env.invalid_observation
    assert reason in result.info["error"] and result.info["steps"] == 1
    assert env.snapshot()[-1] == before


def test_max_steps_default_and_fixed():
    env = _env(num_chunks=4)
    env.reset(env.task("train", 0))
    assert env.max_steps == 4 + 5
    for _ in range(8):
        assert not env.step("read 0").done
    assert env.step("read 0").done
    env = _env(num_chunks=4, max_steps=2)
    env.reset(env.task("train", 0))
    assert env.max_steps == 2


def test_fork_gives_a_child_over_its_chunks_only():
    env = _env(num_chunks=8, question_kinds=["most_frequent"])
    env.reset(env.task("train", 0))
    field = env.question.field
    child, first = env.fork(f"tally {field} in chunks 2-3")
    assert child.goal == f"tally {field} in chunks 2-3" and "Your chunks: 2-3" in first
    assert child.admissible_actions() == ["read 2", "read 3"]
    assert child.step("read 4").invalid
    child.step("read 2")
    child.step("read 3")
    result = child.step(f"answer {child.question.truth(child.document)}")
    assert result.won
    assert env.memory() is None  # nothing reached the parent yet
    line = env.join(child)
    assert line == f"tally {field} in chunks 2-3: {child.answer_given}"
    assert env.known_chunks() == {2, 3}
    assert f"sub-agents: tally {field} in chunks 2-3 = " in env.memory()


def test_a_child_is_won_only_by_the_right_answer():
    env = _env(num_chunks=8)
    for index in range(8):
        env.reset(env.task("train", index))
        goal = env.expert_delegations()[0]
        right, _ = env.fork(goal)
        wrong, _ = env.fork(goal)
        assert right.step(f"answer {right.question.truth(right.document)}").won
        truth = wrong.question.truth(wrong.document)
        bad = str(int(truth) + 1) if truth.isdigit() else "oslo=99"
        assert not wrong.step(f"answer {bad}").won


def test_join_of_a_child_without_answer_and_join_errors():
    env = _env()
    env.reset(env.task("train", 0))
    child, _ = env.fork(env.expert_delegations()[0])
    child.step("read 0")
    assert env.join(child).endswith(": no answer")
    assert env.known_chunks() == set()
    with pytest.raises(ValueError, match="already joined"):
        env.join(child)
    other = _env()
    other.reset(other.task("train", 0))
    stranger, _ = other.fork(other.expert_delegations()[0])
    with pytest.raises(ValueError, match="not forked from"):
        env.join(stranger)


@pytest.mark.parametrize("goal", ["", "   ", None])
def test_empty_goals_are_refused(goal):
    env = _env()
    env.reset(env.task("train", 0))
    with pytest.raises(ForkError, match="empty goal; expected '<question> in chunks"):
        env.fork(goal)


def test_no_fork_after_the_end():
    env = _env()
    env.reset(env.task("train", 0))
    env.step("answer 0")
    with pytest.raises(ForkError, match="episode is over"):
        env.fork(env.question.over(0, 1).text)


@settings(deadline=None, max_examples=60)
@given(actions=st.lists(st.one_of(st.sampled_from(["read 0", "read 1", "read 5", "answer 3", "answer oslo",
                                                      "answer lima=1", "dance"]),
                                  st.text(max_size=12)), max_size=8),
       index=st.integers(0, 20))
def test_stepping_a_child_never_changes_the_parent(actions, index):
    env = _env(num_chunks=6)
    env.reset(env.task("train", index))
    env.step("read 4")
    before = env.snapshot()
    child, _ = env.fork(env.question.decomposed(0, 2).text)
    grandchild, _ = child.fork(env.question.decomposed(0, 0).text)
    for action in actions:
        child.step(action)
        grandchild.step(action)
    assert env.snapshot() == before
    child.join(grandchild)
    assert env.snapshot() == before


def test_snapshot_and_restore():
    env = _env()
    env.reset(env.task("train", 2))
    env.step("read 1")
    saved = env.snapshot()
    env.step("read 2")
    env.step("answer 1")
    env.restore(saved)
    assert not env.done and env.memory() == "read chunks: 1" and env.steps_taken == 1


def test_expert_think_marks_every_record_read(small_document):
    env = _env(records_per_chunk=2, expert_think=True)
    env.reset(env.task("train", 0))
    env._begin(small_document, Question("count", "colour", "red", 0, 2))  # the hand-built document
    assert env.expert_reply("read 0") == "<action>read 0</action>"
    assert env.expert_reply("answer 0") == "<action>answer 0</action>"  # nothing read: nothing to show
    for chunk in (2, 0, 1):
        env.step(f"read {chunk}")
    # chunk 0: red, red; chunk 1: blue, red; chunk 2: blue, red (in chunk order, whatever the reading order)
    reply = env.expert_reply("answer 4")
    assert reply == "<think>red: red 1 red 1 blue 0 red 1 blue 0 red 1</think><action>answer 4</action>"
    assert env.parse_action(reply) == "answer 4" and env.step("answer 4").won
    env.reset(env.task("train", 1))
    env._begin(small_document, Question("most_frequent", "city", "", 1, 2))
    env.step("read 1")
    assert env.expert_reply("answer oslo") == "<think>oslo oslo</think><action>answer oslo</action>"
    plain = _env(records_per_chunk=2)
    plain.reset(plain.task("train", 0))
    plain._begin(small_document, Question("count", "colour", "red", 0, 2))
    plain.step("read 0")
    assert plain.expert_reply("answer 2") == "<action>answer 2</action>"


def test_expert_marks_compare_writes_each_value_against_the_filter(small_document):
    env = _env(records_per_chunk=2, expert_think=True, expert_marks="compare")
    env.reset(env.task("train", 0))
    env._begin(small_document, Question("count", "colour", "red", 1, 2))
    for chunk in (1, 2):
        env.step(f"read {chunk}")
    # chunk 1: blue, red; chunk 2: blue, red: each mark follows the value and the filter it compares
    reply = env.expert_reply("answer 2")
    assert reply == "<think>red: blue=red 0 red=red 1 blue=red 0 red=red 1</think><action>answer 2</action>"
    assert env.parse_action(reply) == "answer 2" and env.step("answer 2").won
    env.reset(env.task("train", 1))  # a question without a filter value writes the values alone
    env._begin(small_document, Question("most_frequent", "city", "", 1, 2))
    env.step("read 1")
    assert env.expert_reply("answer oslo") == "<think>oslo oslo</think><action>answer oslo</action>"
    with pytest.raises(ValueError, match="env.expert_marks must be one of"):
        _env(expert_marks="tally")


def test_expert_think_adds_the_reports_of_a_count_or_sum(small_document):
    env = _env(records_per_chunk=2, expert_think=True)
    env.reset(env.task("train", 0))
    env._begin(small_document, Question("count", "colour", "blue", 0, 2))
    (later, _), (first, _) = env.fork("count records with colour=blue in chunks 1-2"), env.fork(
        "count records with colour=blue in chunks 0-0")
    later.step("answer 2")  # chunks 1-2: records 2 and 4 are blue
    first.step("answer 0")
    env.join(later)
    env.join(first)
    # the terms in chunk order (chunk 0's report first), whatever the joining order
    assert env.expert_reply("answer 2") == "<think>0 + 2 = 2</think><action>answer 2</action>"
    assert env.step("answer 2").won
    # a parent that read chunk 0 itself (red 10 + red 20) and has one report: its own total first
    env.reset(env.task("train", 1))
    env._begin(small_document, Question("sum", "colour", "red", 0, 2))
    child, _ = env.fork("sum amount of records with colour=red in chunks 1-2")
    child.step("answer 31")
    env.join(child)
    env.step("read 0")
    reply = env.expert_reply("answer 61")
    assert reply == "<think>red: red 1 red 1; 30 + 31 = 61</think><action>answer 61</action>"
    assert env.parse_action(reply) == "answer 61"
    # a max after reports shows no addition
    env.reset(env.task("train", 2))
    env._begin(small_document, Question("max", "colour", "red", 0, 2))
    child, _ = env.fork("max amount of records with colour=red in chunks 1-2")
    child.step("answer 30")
    env.join(child)
    assert env.expert_reply("answer 30") == "<action>answer 30</action>"
