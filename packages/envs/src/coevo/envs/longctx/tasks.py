"""One ``longctx`` task from its seed: the document and the question over all of it.

The question's filter value is drawn among the values present in the document. A ``most
frequent`` question over the whole document never has a tie: when the draw gives one, the first
record holding another value takes the alphabetically first tied value instead.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

from coevo.envs.longctx.document import FIELDS, Document, generate_document
from coevo.envs.longctx.questions import FILTERED_KINDS, Question


def generate_task(
    seed: int, kind: str, num_chunks: int, records_per_chunk: int, values_per_field: int = 0
) -> tuple[Document, Question]:
    rng = random.Random(seed)
    document = generate_document(rng, num_chunks, records_per_chunk, values_per_field)
    field = rng.choice(sorted(FIELDS))
    if kind in FILTERED_KINDS:
        present = sorted({r.value(field) for r in document.records})
        return document, Question(kind, field, rng.choice(present), 0, num_chunks - 1)
    return _without_tie(document, field), Question(kind, field, "", 0, num_chunks - 1)


def _without_tie(document: Document, field: str) -> Document:
    counts = Counter(r.value(field) for r in document.records)
    top = max(counts.values())
    tied = sorted(v for v, n in counts.items() if n == top)
    if len(tied) == 1:
        return document
    winner = tied[0]
    records = list(document.records)
    position = next(i for i, r in enumerate(records) if r.value(field) != winner)
    records[position] = replace(records[position], **{field: winner})
    return replace(document, records=tuple(records))
