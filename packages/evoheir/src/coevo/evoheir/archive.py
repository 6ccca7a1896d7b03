"""The experience archive M_t: qualified records kept across rounds, capped, rotated, persisted.

- Eligibility: a record enters only if it qualifies (complete, valid label, reference reaches it;
  see ``records.qualify``) and does not conflict with a record already held (same normalised
  question, another label: both are dropped). Duplicates of held questions are ignored.
- Cap (default 256): when full, rotation evicts from the largest (round, source) stratum, its
  oldest record first, so every round and source keeps a share instead of the newest round
  pushing out all older experience.
- Persistence: ``save`` writes JSON to a temporary file in the same folder and renames it over
  the old one (``os.replace`` is atomic), so a crash leaves the previous archive or the new one,
  never a half-written file.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

from coevo.evoheir.experience import Record, normalise_question, qualify
from coevo.evoheir.math_env import answers_match


class Archive:
    def __init__(self, cap: int = 256):
        if cap < 1:
            raise ValueError(f"archive cap must be >= 1, got {cap}")
        self.cap = cap
        self.records: list[Record] = []  # in arrival order
        self.rejected: Counter = Counter()

    def __len__(self) -> int:
        return len(self.records)

    def add(self, records: list[Record]) -> int:
        """Admit the eligible ``records``; returns how many entered (before rotation)."""
        qualified, dropped = qualify(records)
        self.rejected.update(dropped)
        held = {normalise_question(r.question): r for r in self.records}
        admitted = 0
        for record in qualified:
            key = normalise_question(record.question)
            old = held.get(key)
            if old is None:
                self.records.append(record)
                held[key] = record
                admitted += 1
            elif not answers_match(old.answer, record.answer):  # conflicting labels: neither stays
                self.records.remove(old)
                del held[key]
                self.rejected["conflicting labels"] += 2
            else:
                self.rejected["duplicate"] += 1
        self.rotate()
        return admitted

    def rotate(self) -> None:
        """Evict until within the cap: the oldest record of the largest (round, source) stratum."""
        while len(self.records) > self.cap:
            sizes = Counter((r.round, r.source) for r in self.records)
            largest = max(sizes.values())
            # among equally large strata, evict from the oldest round first
            stratum = min(s for s, n in sizes.items() if n == largest)
            victim = next(r for r in self.records if (r.round, r.source) == stratum)
            self.records.remove(victim)

    def strata(self) -> dict[str, int]:
        """Records per round and per source, e.g. {"r1": 10, "r2": 4, "b1": 8, "b2": 6}."""
        out: Counter = Counter()
        for r in self.records:
            out[f"r{r.round}"] += 1
            out[r.source] += 1
        return dict(sorted(out.items()))

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + f".tmp-{os.getpid()}")  # left by a kill: removed by the next run's claim
        payload = {"cap": self.cap, "records": [r.as_dict() for r in self.records], "rejected": dict(self.rejected)}
        with tmp.open("w") as handle:
            json.dump(payload, handle, indent=1)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
        return path

    @classmethod
    def load(cls, path: str | Path, cap: int | None = None) -> Archive:
        """An archive saved by ``save`` (its records re-checked for eligibility; ``cap`` overrides)."""
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"archive file {path} does not exist")
        payload = json.loads(path.read_text())
        archive = cls(cap if cap is not None else payload["cap"])
        archive.add([Record(**row) for row in payload["records"]])
        return archive
