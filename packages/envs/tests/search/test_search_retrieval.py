"""BM25 retrieval finds the gold passage of every synthetic hop, and the on-disk index cache is
built once, then loaded; a different corpus or setting gets a different index."""

import json

from coevo.envs.search import index as index_module
from coevo.envs.search.bm25 import BM25Index
from coevo.envs.search.corpus import Passage, fingerprint_passages
from coevo.envs.search.index import META_FILE, IndexSpec, build_or_load, shared_index
from coevo.envs.search.synthetic import build_knowledge_base

SPLITS = ("train", "eval_in_distribution", "eval_out_of_distribution")


def test_bm25_top_k_holds_every_gold_hop_passage(make_env):
    env = make_env(top_k=3)
    for split in SPLITS:
        for index in range(30):
            env.reset(env.task(split, index))
            q = env.current_question
            for query, gold_id in zip(q.hop_queries, q.gold_passage_ids):
                retrieved = [p.id for p in env.search(query)]
                assert gold_id in retrieved, (query, retrieved)
                assert retrieved[0] == gold_id  # the entity's own passage ranks first


def test_bm25_ranks_by_term_overlap_and_drops_non_matches():
    passages = [
        Passage("a", "Alpha", "zorvan quimsby quimsby"),
        Passage("b", "Beta", "zorvan"),
        Passage("c", "Gamma", "unrelated words only"),
    ]
    index = BM25Index.build(passages)
    assert [i for i, _ in index.search("quimsby zorvan", 3)] == [0, 1]  # c shares no term
    assert index.search("the of and", 3) == []  # stop words only
    assert index.search("nothingmatches", 3) == []
    assert len(index.search("zorvan", 1)) == 1


def test_index_cache_is_built_once_then_loaded(tmp_path, monkeypatch):
    passages = build_knowledge_base(0, 20).passages
    fingerprint = fingerprint_passages(passages)
    spec = IndexSpec("bm25", str(tmp_path))
    first, folder, built = build_or_load(spec, passages, fingerprint)
    assert built and (folder / META_FILE).is_file() and folder.parent == tmp_path
    assert json.loads((folder / META_FILE).read_text())["num_passages"] == len(passages)
    mtime = (folder / META_FILE).stat().st_mtime_ns

    def no_build(*args, **kwargs):
        raise AssertionError("the cached index should have been loaded, not rebuilt")

    monkeypatch.setattr(index_module, "_build", no_build)
    second, folder2, built2 = build_or_load(spec, passages, fingerprint)
    assert (folder2, built2) == (folder, False) and (folder / META_FILE).stat().st_mtime_ns == mtime
    assert second.search(passages[5].title, 3) == first.search(passages[5].title, 3)
    # another corpus, or another retriever, is another folder
    assert spec.folder(fingerprint_passages(passages[:-1])) != folder
    assert IndexSpec("dense", str(tmp_path)).folder(fingerprint) != folder
    assert [p.name for p in tmp_path.iterdir()] == [folder.name]  # no temporary folder left behind


def test_an_incomplete_index_folder_is_rebuilt(tmp_path):
    passages = build_knowledge_base(0, 20).passages
    fingerprint = fingerprint_passages(passages)
    spec = IndexSpec("bm25", str(tmp_path))
    folder = spec.folder(fingerprint)
    folder.mkdir(parents=True)
    (folder / "junk").write_text("half-written")  # no meta.json: not a finished index
    _, folder2, built = build_or_load(spec, passages, fingerprint)
    assert built and folder2 == folder and not (folder / "junk").exists()


def test_environments_share_one_loaded_index(make_env):
    a, b = make_env(), make_env()
    assert a.retriever() is b.retriever()
    passages = a.passages()
    spec = IndexSpec("bm25", a.config.index_dir)
    assert shared_index(spec, passages, fingerprint_passages(passages)) is a.retriever()
