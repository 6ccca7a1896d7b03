"""Loaders of the Search-R1 / FlashRAG formats (QA JSONL and Parquet, corpus JSONL), dataset
names, and missing-file errors, on small files written here."""

import json

import pytest

from coevo.envs.search.corpus import DataFileError, fingerprint_file, load_corpus, split_contents
from coevo.envs.search.env import SearchEnv
from coevo.envs.search.qa import dataset_name, load_questions

CORPUS = [
    {"id": "p1", "contents": '"Quimsby"\nQuimsby is a town on the river Vel.'},
    {"id": "p2", "contents": '"Vel (river)"\nThe Vel flows through Quimsby and Tarn.\nIt is 40 km long.'},
    {"id": "p3", "title": "Tarn", "text": "Tarn is a village."},
]
QA = [
    {
        "id": "q1",
        "question": "Which river flows through Quimsby?",
        "golden_answers": ["Vel", "the Vel"],
        "dataset": "hotpotqa_train",
    },
    {"id": "q2", "question": "What is Tarn?", "golden_answers": "a village"},
]


def _jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


@pytest.mark.parametrize(
    "name,dataset",
    [
        ("nq", "nq"),
        ("NQ", "nq"),
        ("nq_train", "nq"),
        ("natural_questions", "nq"),
        ("triviaqa", "triviaqa"),
        ("TriviaQA", "triviaqa"),
        ("popqa", "popqa"),
        ("PopQA", "popqa"),
        ("hotpotqa_train", "hotpotqa"),
        ("HotpotQA", "hotpotqa"),
        ("2wikimultihopqa", "2wikimultihopqa"),
        ("2WikiMultiHopQA", "2wikimultihopqa"),
        ("musique_ans_train", "musique"),
        ("MuSiQue", "musique"),
        ("bamboogle", "bamboogle"),
        ("squad", "qa"),
        ("unknowns", "qa"),
    ],
)
def test_dataset_names(name, dataset):
    assert dataset_name(name) == dataset


def test_corpus_rows():
    assert split_contents('"A Title"\nline one\nline two') == ("A Title", "line one\nline two")
    assert split_contents("no title here") == ("", "no title here")


def test_load_corpus_and_qa_jsonl(tmp_path):
    passages = load_corpus(_jsonl(tmp_path / "corpus.jsonl", CORPUS))
    assert [(p.id, p.title) for p in passages] == [("p1", "Quimsby"), ("p2", "Vel (river)"), ("p3", "Tarn")]
    assert passages[1].text == "The Vel flows through Quimsby and Tarn.\nIt is 40 km long."
    assert passages[0].contents == CORPUS[0]["contents"]
    questions = load_questions(_jsonl(tmp_path / "bamboogle_dev.jsonl", QA))
    assert questions[0].golden_answers == ("Vel", "the Vel") and questions[0].dataset == "hotpotqa"
    assert questions[1].golden_answers == ("a village",)
    assert questions[1].dataset == "bamboogle"  # no dataset field: from the file name
    assert questions[0].hop_queries == (QA[0]["question"],)


def test_load_search_r1_parquet(tmp_path):
    pa = pytest.importorskip("pyarrow", reason="Parquet QA files need pyarrow (coevo-envs[parquet])")
    import pyarrow.parquet as pq

    rows = [  # Search-R1's layout: answers under reward_model.ground_truth.target
        {
            "id": "train_0",
            "question": "who wrote x?",
            "data_source": "nq",
            "reward_model": {"style": "rule", "ground_truth": {"target": ["Ann Lee"]}},
        },
        {
            "id": "train_1",
            "question": "where is y?",
            "golden_answers": ["Tarn"],
            "data_source": "triviaqa",
            "reward_model": {"style": "rule", "ground_truth": {"target": ["Tarn"]}},
        },
    ]
    path = tmp_path / "train.parquet"
    pq.write_table(pa.Table.from_pylist(rows), path)
    questions = load_questions(path)
    assert [(q.question, q.golden_answers, q.dataset) for q in questions] == [
        ("who wrote x?", ("Ann Lee",), "nq"),
        ("where is y?", ("Tarn",), "triviaqa"),
    ]


def test_bad_rows_name_the_line(tmp_path):
    with pytest.raises(ValueError, match=r"qa.jsonl:2: no 'golden_answers'"):
        load_questions(_jsonl(tmp_path / "qa.jsonl", [QA[0], {"question": "q?"}]))
    with pytest.raises(ValueError, match=r"c.jsonl:1: bad corpus row"):
        load_corpus(_jsonl(tmp_path / "c.jsonl", [{"id": "x"}]))


def test_missing_files_name_the_key(tmp_path):
    qa = _jsonl(tmp_path / "qa.jsonl", QA)
    with pytest.raises(DataFileError, match=r"env\.qa_file: file not found: .*missing\.jsonl"):
        SearchEnv(SearchEnv.Config(qa_file=str(tmp_path / "missing.jsonl"), corpus_file=qa))
    with pytest.raises(DataFileError, match=r"env\.corpus_file: file not found"):
        SearchEnv(SearchEnv.Config(qa_file=qa, corpus_file=str(tmp_path / "nope.jsonl")))
    with pytest.raises(ValueError, match=r"env\.corpus_file: required"):
        SearchEnv(SearchEnv.Config(qa_file=qa))


def test_real_mode_on_a_small_corpus(tmp_path, index_dir):
    corpus = _jsonl(tmp_path / "corpus.jsonl", CORPUS)
    qa = _jsonl(tmp_path / "qa.jsonl", QA)
    env = SearchEnv(
        SearchEnv.Config(qa_file=qa, corpus_file=corpus, eval_in_distribution_size=1, index_dir=index_dir)
    )
    assert [env.num_tasks(s) for s in env.splits] == [1, 1, 0]
    env.reset(env.task("train", 0))
    assert env.task("train", 0).task_type == "hotpotqa"
    assert env.expert_action() == f"search: {QA[0]['question']}"
    result = env.step(env.expert_action())
    # "river", "flows" and "Quimsby" all occur in p2 (title included), only "Quimsby" and "river" in p1
    assert result.info["retrieved"] == ["p2", "p1"]
    assert result.observation.startswith(
        "<information>Doc 1(Title: Vel (river)) The Vel flows through Quimsby"
    )
    assert "\nDoc 2(Title: Quimsby) Quimsby is a town on the river Vel.</information>" in result.observation
    final = env.step(env.expert_action())
    assert final.won and env.expert_action() is None
    assert len(fingerprint_file(corpus)) == 64
