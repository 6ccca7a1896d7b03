"""``python -m coevo.envs.search.build_index``: builds the cached index, then finds it; the
environment then loads that index instead of building one."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from coevo.envs.search import build_index
from coevo.envs.search.corpus import cached_fingerprint, load_corpus
from coevo.envs.search.index import META_FILE, IndexSpec


def _corpus(tmp_path) -> Path:
    rows = [{"id": f"d{i}", "contents": f'"Entity {i}"\nEntity {i} likes color{i}.'} for i in range(30)]
    path = tmp_path / "corpus.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_build_then_reuse(tmp_path, capsys):
    corpus, index_dir = _corpus(tmp_path), tmp_path / "idx"
    assert build_index.main([f"corpus={corpus}", "retriever=bm25", f"index_dir={index_dir}"]) == 0
    captured = capsys.readouterr()
    folder = Path(captured.out.strip())
    assert (folder / META_FILE).is_file() and "built bm25 index" in captured.err
    assert folder == IndexSpec("bm25", str(index_dir)).folder(cached_fingerprint(corpus))
    assert len(load_corpus(corpus)) == 30
    build_index.main([f"corpus={corpus}", f"index_dir={index_dir}"])
    again = capsys.readouterr()
    assert Path(again.out.strip()) == folder and "found cached bm25 index" in again.err


@pytest.mark.parametrize(
    "argv,message",
    [
        ([], "corpus=<path> is required"),
        (["corpus=x", "retriever=tfidf"], "retriever must be"),
        (["bogus"], "unknown argument"),
    ],
)
def test_bad_arguments(argv, message):
    with pytest.raises(SystemExit, match=message):
        build_index.main(argv)


def test_missing_corpus_names_it(tmp_path):
    with pytest.raises(FileNotFoundError, match="corpus: file not found"):
        build_index.main([f"corpus={tmp_path / 'none.jsonl'}"])


def test_runs_as_a_module(tmp_path):
    corpus = _corpus(tmp_path)
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "coevo.envs.search.build_index",
            f"corpus={corpus}",
            f"index_dir={tmp_path / 'i'}",
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert Path(out.stdout.strip()).parent == tmp_path / "i"
