"""The real multi-hop QA data of ../shared/qa (HotpotQA / MuSiQue questions, a 10k-passage
corpus), read in place: loaders, BM25 recall and the expert."""

import pytest

from coevo.envs.search.env import SearchEnv
from coevo.envs.search.metrics import exact_match


@pytest.fixture(scope="module")
def hotpot_env(shared_qa, index_dir):
    return SearchEnv(
        SearchEnv.Config(
            qa_file=str(shared_qa / "hotpotqa_train100.jsonl"),
            eval_qa_file=str(shared_qa / "hotpotqa_train100.jsonl"),
            ood_qa_file=str(shared_qa / "musique_train100.jsonl"),
            corpus_file=str(shared_qa / "corpus.jsonl"),
            top_k=5,
            index_dir=index_dir,
        )
    )


def test_loads_the_shared_data(hotpot_env):
    env = hotpot_env
    assert [env.num_tasks(s) for s in env.splits] == [100, 100, 100]
    assert len(env.passages()) == 10001
    assert {env.task("train", i).task_type for i in range(100)} == {"hotpotqa"}
    assert {env.task("eval_out_of_distribution", i).task_type for i in range(100)} == {"musique"}
    ids = {p.id for p in env.passages()}
    for split in ("train", "eval_out_of_distribution"):
        for i in range(100):
            q = env.question(env.task(split, i))
            assert q.golden_answers and set(q.gold_passage_ids) <= ids


def test_bm25_recall_on_the_question(hotpot_env):
    """The data's README: BM25 top-5 finds at least one gold passage for ~97% of HotpotQA and
    ~86% of MuSiQue questions."""
    env = hotpot_env
    for split, floor in (("train", 0.9), ("eval_out_of_distribution", 0.75)):
        hits = 0
        for i in range(100):
            q = env.question(env.task(split, i))
            hits += bool(set(q.gold_passage_ids) & {p.id for p in env.search(q.question)})
        assert hits / 100 >= floor, (split, hits)


def test_expert_wins_real_tasks(hotpot_env):
    env = hotpot_env
    for split in ("train", "eval_out_of_distribution"):
        for i in range(0, 100, 10):
            env.reset(env.task(split, i))
            search = env.step(env.parse_action(env.format_action(env.expert_action())))
            assert search.observation.startswith("<information>Doc 1(Title: ") and not search.done
            answer = env.step(env.parse_action(env.format_action(env.expert_action())))
            assert answer.won and answer.info["em"] == 1.0
            assert exact_match(answer.info["answer"], env.current_question.golden_answers) == 1.0
