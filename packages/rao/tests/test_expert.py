"""Warm-start demonstrations: the recursive oracle's trees, with the policy's own prompts."""

import re

import pytest
from rao_script import PROMPT
from rao_sums_env import SumsConfig, SumsEnv

from coevo.core.config import ConfigError
from coevo.envs.longctx.env import LongCtxEnv
from coevo.rao.expert import RecursiveExpert, is_flat_episode, recursive_rank
from coevo.rao.settings import RecursionSettings


def test_demonstrations_hold_launches_children_and_reports():
    data = RecursiveExpert(RecursionSettings(), flat_share=0.0)(SumsEnv(SumsConfig(length=8)), PROMPT, 3)
    assert data.episodes == 3 and data.won == 3
    replies = [conversation[-1]["content"] for conversation in data.examples]
    assert len(replies) == 3 * 10  # 7 agents per tree: 3 launches + 3 answers after reports + 4 leaves
    assert sum(r.startswith("<delegate>") for r in replies) == 3 * 3
    children = [c for c in data.examples if c[0]["content"].startswith("Your task is to: add ")
                and len(c[0]["content"].split("\n")[0].split()) < 12]
    assert children, "child episodes are demonstrations too"
    after_reports = [c for c in data.examples if "Sub-agent 1" in c[-2]["content"]]
    assert len(after_reports) == 3 * 3 and all(c[-1]["content"].startswith("<action>answer") for c in after_reports)


def test_a_share_of_flat_episodes_at_the_smallest_size():
    expert = RecursiveExpert(RecursionSettings(), flat_share=0.5, knob="length", sizes=[8, 2])
    data = expert(SumsEnv(SumsConfig(length=8)), PROMPT, 4)
    firsts = [c[0]["content"] for c in data.examples if len(c) == 2]  # first turns: user, reply
    # episodes 0, 2 recursive (sizes cycle 2, 8 by index); 1, 3 flat at the smallest size (2 digits)
    assert [is_flat_episode(i, 0.5) for i in range(4)] == [False, True, False, True]
    flat = [f for f in firsts if "You may delegate" not in f]
    assert len(flat) == 2 and all(len(f.split("\n")[0].split()) == 7 for f in flat)  # "Your task is to: add d d."
    assert data.won == 4
    assert expert.cache_key["sizes"] == [8, 2] and expert.cache_key["flat_share"] == 0.5


def test_every_training_size_gets_recursive_episodes_whatever_the_flat_share():
    # flat share 1/4 with four sizes: episodes 3 and 7 are flat; cycling by the episode index gave
    # sizes 1, 2, 4, 1, 2, 4 to the six recursive ones and never 8
    assert [recursive_rank(i, 0.25) for i in range(8)] == [0, 1, 2, 3, 3, 4, 5, 6]
    env = LongCtxEnv(LongCtxEnv.Config(num_chunks=1, records_per_chunk=3, question_kinds=["count"],
                                       expert_leaf_chunks=1))
    expert = RecursiveExpert(RecursionSettings(), flat_share=0.25, knob="num_chunks", sizes=[1, 2, 4, 8])
    data = expert(env, PROMPT, 8)
    assert data.won == 8
    answers = [c for c in data.examples if "answer" in c[-1]["content"]]
    leaves = [c for c in answers if "Sub-agent 1" not in c[-2]["content"]]
    # one leaf per chunk: recursive trees of 1, 2, 4, 8, 1, 2 chunks, and the two flat agents at 1 chunk
    assert len(leaves) == (1 + 2 + 4 + 8 + 1 + 2) + 2
    assert len(answers) - len(leaves) == (0 + 1 + 3 + 7 + 0 + 1)  # parents: one answer each


def test_answer_episodes_add_only_the_final_actions():
    # length 8 (leaf 2): 7 agents, 3 launches, 3 answers after reports, 4 leaf answers -> 7 answer turns a tree
    plain = RecursiveExpert(RecursionSettings(), flat_share=0.0)
    base = plain(SumsEnv(SumsConfig(length=8)), PROMPT, 2)
    expert = RecursiveExpert(RecursionSettings(), flat_share=0.0, answer_episodes=3)
    data = expert(SumsEnv(SumsConfig(length=8)), PROMPT, 2)
    assert data.episodes == 2 and data.won == 2  # the extra episodes are not counted as demonstrations
    assert data.examples[: len(base.examples)] == base.examples
    extra = data.examples[len(base.examples):]
    assert len(extra) == 3 * 7
    assert all(c[-1]["content"].startswith("<action>answer") for c in extra)
    assert sum("Sub-agent 1" in c[-2]["content"] for c in extra) == 3 * 3  # parents answering after reports
    assert expert.cache_key["answer_episodes"] == 3 and "answer_episodes" not in plain.cache_key  # old keys kept


def test_answer_episodes_must_not_be_negative():
    with pytest.raises(ConfigError, match="algo.warmstart_answer_episodes"):
        RecursiveExpert(RecursionSettings(), flat_share=0.0, answer_episodes=-1)


def test_leaves_and_parents_show_their_work_when_the_environment_says_so():
    # longctx with expert_think: a leaf's answer after reading one chunk of 3 records marks each record
    env = LongCtxEnv(LongCtxEnv.Config(num_chunks=4, records_per_chunk=3, question_kinds=["count"],
                                       expert_leaf_chunks=1, expert_think=True))
    data = RecursiveExpert(RecursionSettings(), flat_share=0.0)(env, PROMPT, 3)
    assert data.won == 3  # the replies with a <think> still parse to the oracle's actions
    answers = [c for c in data.examples if "answer" in c[-1]["content"]]
    leaves = [c for c in answers if "Sub-agent 1" not in c[-2]["content"]]
    assert len(leaves) == 3 * 4 and len(answers) == 3 * 7
    for conversation in leaves:
        think = re.fullmatch(r"<think>\w+: (.*)</think><action>answer (\d)</action>", conversation[-1]["content"])
        marks = think.group(1).split()
        assert len(marks) == 2 * 3 and int(think.group(2)) == sum(int(m) for m in marks[1::2])
    # a parent adds its two children's reports: "<think>a + b = a+b</think>", each term a child's answer
    for conversation in (c for c in answers if c not in leaves):
        think = re.fullmatch(r"<think>(\d+) \+ (\d+) = (\d+)</think><action>answer (\d+)</action>",
                             conversation[-1]["content"])
        reports = [int(n) for n in re.findall(r": (\d+)$", conversation[-2]["content"], re.MULTILINE)]
        a, b, total, answer = map(int, think.groups())
        assert [a, b] == reports and a + b == total == answer
