"""Build (or find) the cached retrieval index of a corpus, with a progress bar.

    python -m coevo.envs.search.build_index corpus=<corpus.jsonl> retriever=bm25|dense \
        [index_dir=.cache/coevo/search] [embedding_model=<sentence-transformers folder>]

The search environment then loads the index from ``index_dir`` instead of building it (the
folder name hashes the corpus file and the retriever settings). Prints the index folder.
"""

from __future__ import annotations

import sys
import time

from coevo.envs.search.corpus import cached_fingerprint, load_corpus, require_file
from coevo.envs.search.index import RETRIEVERS, IndexSpec, build_or_load

USAGE = "usage: python -m coevo.envs.search.build_index corpus=<path> retriever=bm25|dense [index_dir=...] [embedding_model=...]"
KEYS = ("corpus", "retriever", "index_dir", "embedding_model")


def parse_args(argv: list[str]) -> dict[str, str]:
    args = {"retriever": "bm25", "index_dir": ".cache/coevo/search", "embedding_model": ""}
    for arg in argv:
        key, sep, value = arg.partition("=")
        key = key.lstrip("-").replace("-", "_")
        if not sep or key not in KEYS:
            raise SystemExit(f"unknown argument {arg!r}; keys: {list(KEYS)}\n{USAGE}")
        args[key] = value
    if not args.get("corpus"):
        raise SystemExit(f"corpus=<path> is required\n{USAGE}")
    if args["retriever"] not in RETRIEVERS:
        raise SystemExit(f"retriever must be one of {list(RETRIEVERS)}, got {args['retriever']!r}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    from rich.console import Console
    from rich.progress import Progress

    console = Console(stderr=True)
    path = require_file(args["corpus"], "corpus")
    start = time.perf_counter()
    with Progress(console=console, transient=True) as progress:
        progress.add_task(f"reading and hashing {path}", total=None)
        passages = load_corpus(path)
        fingerprint = cached_fingerprint(path)
    console.print(f"{len(passages)} passages from {path}")
    spec = IndexSpec(args["retriever"], args["index_dir"], args["embedding_model"])
    _, folder, built = build_or_load(spec, passages, fingerprint, show_progress=True)
    verb = "built" if built else "found cached"
    console.print(f"{verb} {spec.retriever} index in {time.perf_counter() - start:.1f}s")
    print(folder)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
