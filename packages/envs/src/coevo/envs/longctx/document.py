"""The generated document of ``longctx``: numbered records in fixed-size chunks.

A record is one line, ``record 17: city=oslo, colour=red, amount=42``. Records are numbered
from 0 across the whole document, and chunk ``i`` holds records ``i*R .. i*R+R-1`` (``R`` =
records per chunk). Each document draws its own skewed frequencies for the city and colour
values, so counts differ clearly between values. ``values_per_field=k`` (k ≥ 1) lets a document
use only k values of each categorical field (drawn per document), so that a question's value
matches a record often: a small model then sees many matches per chunk instead of mostly none.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

CITIES = ("cairo", "delhi", "lima", "oslo", "perth", "quito", "rome", "seoul")
COLOURS = ("amber", "black", "blue", "green", "red", "white")
#: the categorical fields and their values (the numeric field is ``amount``)
FIELDS: dict[str, tuple[str, ...]] = {"city": CITIES, "colour": COLOURS}
MAX_AMOUNT = 50  # amounts are 1..MAX_AMOUNT


@dataclass(frozen=True)
class Record:
    index: int
    city: str
    colour: str
    amount: int

    def value(self, field: str) -> str:
        return getattr(self, field)

    def text(self) -> str:
        return f"record {self.index}: city={self.city}, colour={self.colour}, amount={self.amount}"


@dataclass(frozen=True)
class Document:
    records: tuple[Record, ...]
    records_per_chunk: int

    @property
    def num_chunks(self) -> int:
        return len(self.records) // self.records_per_chunk

    def chunk(self, index: int) -> tuple[Record, ...]:
        start = index * self.records_per_chunk
        return self.records[start : start + self.records_per_chunk]

    def chunk_text(self, index: int) -> str:
        """What ``read <index>`` shows: a header line and one line per record."""
        records = self.chunk(index)
        header = f"chunk {index} (records {records[0].index}-{records[-1].index}):"
        return "\n".join([header] + [r.text() for r in records])

    def records_in(self, first: int, last: int) -> tuple[Record, ...]:
        """The records of chunks ``first..last`` (inclusive)."""
        return self.records[first * self.records_per_chunk : (last + 1) * self.records_per_chunk]

    def text(self) -> str:
        """The whole document as the chunks' texts, one after another."""
        return "\n".join(self.chunk_text(i) for i in range(self.num_chunks))


def generate_document(
    rng: random.Random, num_chunks: int, records_per_chunk: int, values_per_field: int = 0
) -> Document:
    """``num_chunks * records_per_chunk`` records with per-document skewed value frequencies;
    ``values_per_field`` > 0: each categorical field uses only that many of its values (0: all)."""
    if values_per_field < 0:
        raise ValueError(f"values_per_field must be 0 (all values) or positive, got {values_per_field}")
    weights = {name: [rng.random() ** 2 + 0.05 for _ in values] for name, values in FIELDS.items()}
    if values_per_field:
        for name, values in FIELDS.items():
            kept = set(rng.sample(range(len(values)), min(values_per_field, len(values))))
            weights[name] = [w if k in kept else 0.0 for k, w in enumerate(weights[name])]
    records = tuple(
        Record(
            index=i,
            city=rng.choices(CITIES, weights["city"])[0],
            colour=rng.choices(COLOURS, weights["colour"])[0],
            amount=rng.randint(1, MAX_AMOUNT),
        )
        for i in range(num_chunks * records_per_chunk)
    )
    return Document(records, records_per_chunk)
