"""Sparse retrieval with BM25 (the ``bm25s`` package): build, save, load, search.

Passages are indexed as ``title + text``, lower-cased, English stop words removed, no stemming.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import bm25s

from coevo.envs.search.corpus import Passage

SETTINGS = {"retriever": "bm25", "k1": 1.5, "b": 0.75, "method": "lucene", "stopwords": "en", "version": 1}


def _tokenize(texts: list[str], show_progress: bool) -> list[list[str]]:
    return bm25s.tokenize(
        texts, stopwords=SETTINGS["stopwords"], return_ids=False, show_progress=show_progress
    )


class BM25Index:
    def __init__(self, model: bm25s.BM25, size: int):
        self.model, self.size = model, size

    @classmethod
    def build(cls, passages: Sequence[Passage], show_progress: bool = False) -> BM25Index:
        tokens = _tokenize([f"{p.title} {p.text}" for p in passages], show_progress)
        model = bm25s.BM25(k1=SETTINGS["k1"], b=SETTINGS["b"], method=SETTINGS["method"])
        model.index(tokens, show_progress=show_progress)
        return cls(model, len(passages))

    def save(self, directory: Path) -> None:
        self.model.save(str(directory), show_progress=False)

    @classmethod
    def load(cls, directory: Path, size: int) -> BM25Index:
        return cls(bm25s.BM25.load(str(directory), show_progress=False), size)

    def search(self, query: str, k: int) -> list[tuple[int, float]]:
        """Up to ``k`` ``(passage index, score)`` pairs, best first; passages sharing no term are left out."""
        tokens = _tokenize([query], False)
        if not tokens[0] or k < 1:
            return []
        documents, scores = self.model.retrieve(tokens, k=min(k, self.size), show_progress=False)
        return [(int(d), float(s)) for d, s in zip(documents[0], scores[0]) if s > 0]
