"""Data files are opened and checked when the environment is built (before any work): each problem
is one DataFileError naming the config key and the line; a file's train split is cycled."""

import importlib.util
import json

import pytest

from coevo.envs.data_files import DataFileError
from coevo.envs.math.env import MathEnv
from coevo.envs.search.env import SearchEnv

QA = [json.dumps({"question": f"Who is {i}?", "golden_answers": [f"p{i}"]}) for i in range(6)]
CORPUS = [json.dumps({"id": str(i), "contents": f'"T{i}"\ntext {i}'}) for i in range(6)]
MATH = [json.dumps({"problem": f"{i} + 1 = ?", "answer": str(i + 1)}) for i in range(6)]


def _file(tmp_path, name, lines):
    path = tmp_path / name
    path.write_text("".join(f"{line}\n" for line in lines))
    return str(path)


def _search(tmp_path, qa=QA, corpus=CORPUS, **kw):
    config = SearchEnv.Config(qa_file=_file(tmp_path, "qa.jsonl", qa), corpus_file=_file(tmp_path, "c.jsonl", corpus),
                              index_dir=str(tmp_path / "index"), **kw)
    return SearchEnv(config)


@pytest.mark.parametrize(
    ("qa", "corpus", "expected"),
    [
        ([], CORPUS, r"env\.qa_file: .*no questions in the file"),
        ([QA[0], QA[1], "{not json"], CORPUS, r"env\.qa_file: .*qa\.jsonl:3: not valid JSON"),
        ([json.dumps({"question": "q?"})], CORPUS, r"env\.qa_file: .*:1: no 'golden_answers'"),
        (["[1, 2]"], CORPUS, r"env\.qa_file: .*:1: expected an object per row"),
        ([QA[0]], CORPUS, r"env\.qa_file: .* holds 1 question; at least 2"),
        (QA, [], r"env\.corpus_file: .*the corpus is empty"),
        (QA, [CORPUS[0], json.dumps({"id": "x"})], r"env\.corpus_file: .*c\.jsonl:2: bad corpus row"),
    ],
)
def test_bad_search_files_name_the_key_and_line(tmp_path, qa, corpus, expected):
    with pytest.raises(DataFileError, match=expected):
        _search(tmp_path, qa, corpus)


def test_a_binary_corpus_is_not_utf8_text(tmp_path):
    corpus = tmp_path / "c.bin"
    corpus.write_bytes(bytes(range(256)))
    config = SearchEnv.Config(qa_file=_file(tmp_path, "qa.jsonl", QA), corpus_file=str(corpus))
    with pytest.raises(DataFileError, match=r"env\.corpus_file: .*is not UTF-8 text \(expected one JSON object"):
        SearchEnv(config)


@pytest.mark.skipif(importlib.util.find_spec("faiss") is not None, reason="faiss is installed here")
def test_dense_without_faiss_is_refused_when_built(tmp_path):
    with pytest.raises(ImportError, match=r"env\.retriever=dense needs faiss.*pip install 'coevo-envs\[dense\]'"):
        _search(tmp_path, retriever="dense")


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        ([], r"env\.data_file: .*no problems in the file"),
        ([MATH[0], "{oops", MATH[1]], r"env\.data_file: .*:2: not valid JSON"),
        ([json.dumps({"problem": "1+1"})], r"env\.data_file: .*:1: no 'answer'"),
        ([MATH[0]], r"env\.data_file: .* holds 1 problem; at least 2"),
    ],
)
def test_bad_math_files_name_the_key_and_line(tmp_path, lines, expected):
    with pytest.raises(DataFileError, match=expected):
        MathEnv(MathEnv.Config(data_file=_file(tmp_path, "m.jsonl", lines)))


def test_a_folder_is_not_a_data_file(tmp_path):
    with pytest.raises(DataFileError, match=r"env\.data_file: file not found"):
        MathEnv(MathEnv.Config(data_file=str(tmp_path)))


def test_a_files_train_split_is_cycled(tmp_path):
    # warmstart.first_index=1000000 is past the end of any file: it plays row 1000000 mod size
    math = MathEnv(MathEnv.Config(data_file=_file(tmp_path, "m.jsonl", MATH)))
    size = math.num_tasks("train")  # 6 rows, the last 3 held out for evaluation
    assert size == 3
    task = math.task("train", 1_000_000)
    assert task.index == 1_000_000 % size and task == math.task("train", 1_000_000 % size)
    search = _search(tmp_path)
    assert search.task("train", 1_000_001).index == 1_000_001 % search.num_tasks("train")
    with pytest.raises(IndexError):  # held-out splits are not cycled: evaluation plays each task once
        math.task("eval_in_distribution", size)
