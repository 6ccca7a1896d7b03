"""Experience records and their qualification (EVOHEIR's E_t ∪ M_t → qualified references).

A record is a problem with a label (gold, pseudo-label or exactly checked answer) and a
reference solution (a reply that reached that label), tagged with the round and the source that
produced it. Qualification keeps records that are complete (question, label and a reference
whose ``\\boxed{}`` answer matches the label), with a valid label (``check_problem``), one per
normalised question; a question that appears with two different labels is a conflict and is
dropped entirely (a consensus label may be wrong; two disagreeing ones certainly include one).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

from coevo.evoheir.math_env import answers_match, check_problem, extract_boxed


@dataclass(frozen=True)
class Record:
    question: str
    answer: str  # the label the reference reaches
    reference: str  # a reply carrying the answer as \boxed{answer}
    problem_type: str
    round: int  # the round that produced it
    source: str  # e.g. "b1" (branch 1), "b2", "scout"

    def as_dict(self) -> dict:
        return asdict(self)


def normalise_question(text: str) -> str:
    """Lower case, whitespace collapsed, trailing punctuation dropped: the dedupe key."""
    return re.sub(r"\s+", " ", text.strip().lower()).rstrip(" .?!")


def is_complete(record: Record) -> tuple[bool, str]:
    if not record.question.strip() or not record.answer.strip() or not record.reference.strip():
        return False, "incomplete"
    boxed = extract_boxed(record.reference)
    if boxed is None or not answers_match(record.answer, boxed):
        return False, "reference does not reach the label"
    ok, reason = check_problem(record.question, record.answer)
    return ok, ("ok" if ok else f"invalid: {reason}")


def qualify(records: list[Record]) -> tuple[list[Record], dict[str, int]]:
    """``(qualified records, counts of why the others were dropped)``; keeps the first of duplicates."""
    dropped: dict[str, int] = {}
    complete = []
    for record in records:
        ok, reason = is_complete(record)
        if ok:
            complete.append(record)
        else:
            key = reason.split(":")[0]
            dropped[key] = dropped.get(key, 0) + 1
    by_question: dict[str, list[Record]] = {}
    for record in complete:
        by_question.setdefault(normalise_question(record.question), []).append(record)
    qualified = []
    for group in by_question.values():
        if any(not answers_match(group[0].answer, other.answer) for other in group[1:]):
            dropped["conflicting labels"] = dropped.get("conflicting labels", 0) + len(group)
            continue
        qualified.append(group[0])
        if len(group) > 1:
            dropped["duplicate"] = dropped.get("duplicate", 0) + len(group) - 1
    return qualified, dropped
