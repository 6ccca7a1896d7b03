"""Aggregation questions over a range of chunks, their canonical text and checkable answers.

Kinds and canonical phrases (``<field>`` is ``city`` or ``colour``):

- ``count records with <field>=<value>`` → the number of matching records
- ``sum amount of records with <field>=<value>`` → their total amount (0 if none)
- ``max amount of records with <field>=<value>`` → their largest amount (0 if none)
- ``most frequent <field>`` → the value seen most often (the alphabetically first on a tie)
- ``tally <field>`` → every value seen with its count, e.g. ``lima=5, oslo=3`` (A-Z)

A question's full text is ``<phrase> in chunks <first>-<last>``. Tallies combine into the most
frequent value, so a ``most frequent`` question decomposes into ``tally`` sub-questions; every
other kind decomposes into itself (count/sum add up, max takes the largest).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, replace

from coevo.envs.longctx.document import FIELDS, Document, Record

ROOT_KINDS = ("count", "sum", "max", "most_frequent")  # what a task asks; tally is for sub-goals
KINDS = (*ROOT_KINDS, "tally")
FILTERED_KINDS = ("count", "sum", "max")

_ANSWER_RULES = {
    "count": "Answer with the number of matching records, e.g. 'answer 12'.",
    "sum": "Answer with the total amount of the matching records (0 if none), e.g. 'answer 312'.",
    "max": "Answer with the largest amount among the matching records (0 if none), e.g. 'answer 47'.",
    "most_frequent": "Answer with the {field} that appears most often (the alphabetically first on a tie), "
    "e.g. 'answer {example}'.",
    "tally": "Answer with every {field} that appears and its count, A-Z, e.g. 'answer {example}=5, {other}=3'.",
}
_TALLY_ITEM = re.compile(r"^([a-z]+)\s*[=:]\s*(\d{1,9})$")  # int() of 5,000 digits would raise


@dataclass(frozen=True)
class Question:
    kind: str  # one of KINDS
    field: str  # the filter field (count/sum/max) or the counted field (most_frequent/tally)
    value: str  # the filter value (count/sum/max); "" otherwise
    first: int  # first chunk of the range
    last: int  # last chunk of the range (inclusive)

    @property
    def phrase(self) -> str:
        if self.kind == "count":
            return f"count records with {self.field}={self.value}"
        if self.kind in ("sum", "max"):
            return f"{self.kind} amount of records with {self.field}={self.value}"
        if self.kind == "most_frequent":
            return f"most frequent {self.field}"
        return f"tally {self.field}"

    @property
    def text(self) -> str:
        return f"{self.phrase} in chunks {self.first}-{self.last}"

    @property
    def num_chunks(self) -> int:
        return self.last - self.first + 1

    def over(self, first: int, last: int) -> Question:
        """The same question restricted to chunks ``first..last``."""
        return replace(self, first=first, last=last)

    def decomposed(self, first: int, last: int) -> Question:
        """The sub-question whose answers over a split of the range combine into this answer."""
        kind = "tally" if self.kind == "most_frequent" else self.kind
        return replace(self, kind=kind, first=first, last=last)

    def answer_rule(self) -> str:
        values = FIELDS[self.field]
        return _ANSWER_RULES[self.kind].format(field=self.field, example=values[2], other=values[3])

    # -- answers -------------------------------------------------------------------------------
    def truth(self, document: Document) -> str:
        """The canonical correct answer over ``document``."""
        records = document.records_in(self.first, self.last)
        if self.kind in FILTERED_KINDS:
            return str(_aggregate(self.kind, [r.amount for r in records if self._matches(r)]))
        counts = Counter(r.value(self.field) for r in records)
        if self.kind == "most_frequent":
            return min(counts, key=lambda v: (-counts[v], v))
        return format_tally(counts)

    def parse_answer(self, text: str) -> str | None:
        """The canonical form of an answer text; ``None`` when it is malformed for this kind."""
        text = " ".join(text.lower().split())
        if self.kind in FILTERED_KINDS:
            return str(int(text)) if re.fullmatch(r"\d{1,9}", text) else None
        if self.kind == "most_frequent":
            return text if text in FIELDS[self.field] else None
        counts: Counter[str] = Counter()
        for item in filter(None, (part.strip() for part in re.split(r"[,;]|\s(?=[a-z])", text))):
            match = _TALLY_ITEM.match(item)
            if match is None or match.group(1) not in FIELDS[self.field] or match.group(1) in counts:
                return None
            counts[match.group(1)] = int(match.group(2))
        return format_tally(counts) if counts else None

    def _matches(self, record: Record) -> bool:
        return record.value(self.field) == self.value


def format_tally(counts: Counter[str] | dict[str, int]) -> str:
    """``lima=5, oslo=3``: values A-Z, zero counts left out."""
    return ", ".join(f"{v}={n}" for v, n in sorted(counts.items()) if n > 0)


def _aggregate(kind: str, amounts: list[int]) -> int:
    if kind == "count":
        return len(amounts)
    if kind == "sum":
        return sum(amounts)
    return max(amounts, default=0)
