"""Retrieval indexes cached on disk and shared within a process.

An index lives in ``<index_dir>/<retriever>-<key>/``, where ``key`` hashes the corpus (its file's
bytes, or an in-memory corpus's passages) with the retriever's settings, so a changed corpus or
setting gets a new index and an unchanged one is loaded instead of rebuilt. A build is written to
a temporary folder and renamed into place with its ``meta.json``, so a half-written index is
never loaded, and concurrent builders do not clash. Within a process every environment instance
with the same key shares one loaded index.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from coevo.core.progress import activity
from coevo.envs.search import bm25, dense
from coevo.envs.search.corpus import Passage

RETRIEVERS = ("bm25", "dense")
META_FILE = "meta.json"
_LOADED: dict[str, object] = {}
_LOCK = threading.Lock()


@dataclass(frozen=True)
class IndexSpec:
    retriever: str  # "bm25" | "dense"
    index_dir: str
    embedding_model: str = ""  # dense only: "" is the packaged all-MiniLM-L6-v2

    def settings(self) -> dict:
        if self.retriever == "bm25":
            return dict(bm25.SETTINGS)
        if self.retriever == "dense":
            return dense.settings(self.embedding_model)
        raise ValueError(f"retriever must be one of {list(RETRIEVERS)}, got {self.retriever!r}")

    def folder(self, corpus_fingerprint: str) -> Path:
        blob = json.dumps({"corpus": corpus_fingerprint, "settings": self.settings()}, sort_keys=True)
        key = hashlib.sha256(blob.encode()).hexdigest()[:16]
        return Path(self.index_dir).expanduser() / f"{self.retriever}-{key}"


def _build(spec: IndexSpec, passages: Sequence[Passage], show_progress: bool):
    if spec.retriever == "bm25":
        return bm25.BM25Index.build(passages, show_progress)
    return dense.DenseIndex.build(passages, spec.embedding_model, show_progress)


def _load(spec: IndexSpec, folder: Path, size: int):
    if spec.retriever == "bm25":
        return bm25.BM25Index.load(folder, size)
    return dense.DenseIndex.load(folder, spec.embedding_model)


def build_or_load(
    spec: IndexSpec, passages: Sequence[Passage], corpus_fingerprint: str, show_progress: bool = False
) -> tuple[object, Path, bool]:
    """``(index, folder, built)``: the cached index for this corpus and spec, built if absent."""
    folder = spec.folder(corpus_fingerprint)
    meta = folder / META_FILE
    if meta.is_file():
        stored = json.loads(meta.read_text())
        if stored.get("num_passages") == len(passages):
            return _load(spec, folder, len(passages)), folder, False
    with activity(f"building the {spec.retriever} search index of {len(passages):,} passages (cached in {folder})"):
        index = _build(spec, passages, show_progress)
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = folder.parent / f".{folder.name}.tmp-{os.getpid()}-{threading.get_ident()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    index.save(tmp)
    info = {"corpus": corpus_fingerprint, "settings": spec.settings(), "num_passages": len(passages)}
    (tmp / META_FILE).write_text(json.dumps(info, indent=1))
    shutil.rmtree(folder, ignore_errors=True)  # a stale or incomplete one
    try:
        os.replace(tmp, folder)
    except OSError:  # another process renamed its build into place first: use theirs
        shutil.rmtree(tmp, ignore_errors=True)
    return index, folder, True


def shared_index(spec: IndexSpec, passages: Sequence[Passage], corpus_fingerprint: str):
    """The index for this corpus and spec, loaded (or built) once per process."""
    key = f"{spec.folder(corpus_fingerprint)}"
    with _LOCK:
        if key not in _LOADED:
            _LOADED[key] = build_or_load(spec, passages, corpus_fingerprint)[0]
        return _LOADED[key]
