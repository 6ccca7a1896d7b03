"""Document length in tokens, and the number of chunks that makes a document ``k`` context windows
long (so success can be reported against input length as a multiple of the window).

``tokenizer`` is anything with ``encode(text) -> list`` (a Hugging Face tokenizer) or a callable
``text -> int`` that counts tokens. The length counts the chunks' texts as ``read`` shows them.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from coevo.envs.longctx.document import Document, generate_document


def count_tokens(text: str, tokenizer: Any) -> int:
    """Tokens of ``text`` under ``tokenizer`` (an object with ``encode`` or a counting callable)."""
    encode: Callable | None = getattr(tokenizer, "encode", None)
    if encode is not None:
        return len(encode(text))
    if callable(tokenizer):
        return int(tokenizer(text))
    raise TypeError(f"tokenizer must have encode(text) or count tokens when called, got {tokenizer!r}")


def document_tokens(document: Document, tokenizer: Any) -> int:
    """Tokens of the whole document (every chunk as ``read`` shows it)."""
    return count_tokens(document.text(), tokenizer)


def chunks_for_context(
    multiple: float, context_tokens: int, tokenizer: Any, *, records_per_chunk: int = 10, seed: int = 0
) -> int:
    """The ``num_chunks`` whose documents are about ``multiple`` × ``context_tokens`` long.

    Measured on a document generated from ``seed`` and refined until it is at least that long;
    documents of other tasks differ by a few per cent (their values and record numbers differ).
    """
    if multiple <= 0 or context_tokens <= 0:
        raise ValueError(f"multiple and context_tokens must be positive, got {multiple} and {context_tokens}")
    target = multiple * context_tokens

    def tokens(num_chunks: int) -> int:
        return document_tokens(generate_document(random.Random(seed), num_chunks, records_per_chunk), tokenizer)

    num_chunks = 4
    for _ in range(4):  # proportional refinement: per-chunk cost grows slowly with record numbers
        num_chunks = max(1, math.ceil(num_chunks * target / tokens(num_chunks)))
    while num_chunks > 1 and tokens(num_chunks - 1) >= target:
        num_chunks -= 1
    while tokens(num_chunks) < target:
        num_chunks += 1
    return num_chunks
