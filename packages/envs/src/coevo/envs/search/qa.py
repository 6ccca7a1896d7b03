"""Questions with gold answers, and loaders for the Search-R1 / FlashRAG QA formats.

Rows (JSONL or Parquet) carry ``question`` and ``golden_answers`` (a list; a single string is
accepted). Search-R1's Parquet files also work: their answers sit under
``reward_model.ground_truth.target`` and the dataset under ``data_source``. The dataset of a row
(its ``dataset`` or ``data_source`` field, else the file name) is matched to one of
``DATASETS`` and becomes the task type, so metrics are reported per dataset.
"""

from __future__ import annotations

import functools
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

#: recognised datasets (FlashRAG's directory names); task type "qa" for anything else
DATASETS = ("nq", "triviaqa", "popqa", "hotpotqa", "2wikimultihopqa", "musique", "bamboogle")
_ALIASES = (  # (pattern on the lower-cased alphanumeric name, dataset); order matters
    ("2wiki", "2wikimultihopqa"),
    ("hotpot", "hotpotqa"),
    ("musique", "musique"),
    ("bamboogle", "bamboogle"),
    ("popqa", "popqa"),
    ("trivia", "triviaqa"),
    ("nq", "nq"),
    ("naturalquestions", "nq"),
)


@dataclass(frozen=True)
class Question:
    question: str
    golden_answers: tuple[str, ...]
    dataset: str  # the task type: a DATASETS name, "qa", or "hop1".."hop3" for synthetic ones
    hop_queries: tuple[str, ...]  # the expert's searches, in order
    id: str = ""
    gold_passage_ids: tuple[str, ...] = ()


def dataset_name(name: str) -> str:
    """The DATASETS name that ``name`` (a field value or file name) refers to, else ``"qa"``."""
    lowered = name.strip().lower()
    key = re.sub(r"[^a-z0-9]", "", lowered)
    for pattern, dataset in _ALIASES:
        if pattern in key and (pattern != "nq" or re.match(r"nq(?![a-z])", lowered)):
            return dataset
    return "qa"


def _answers(row: dict) -> tuple[str, ...]:
    answers = row.get("golden_answers")
    if answers is None:
        target = ((row.get("reward_model") or {}).get("ground_truth") or {}).get("target")
        answers = target
    if isinstance(answers, str):
        answers = [answers]
    try:
        return tuple(str(a).strip() for a in answers if str(a).strip())
    except TypeError:
        return ()


def question_from_row(row: dict, default_dataset: str, fallback_id: str) -> Question:
    question = row.get("question")
    if not isinstance(question, str) or not question.strip():
        raise ValueError("no 'question' text")
    answers = _answers(row)
    if not answers:
        raise ValueError("no 'golden_answers'")
    source = row.get("dataset") or row.get("data_source")
    dataset = dataset_name(source) if isinstance(source, str) else default_dataset
    if dataset == "qa":
        dataset = default_dataset
    gold_ids = row.get("gold_passage_ids")
    gold_ids = tuple(str(g) for g in gold_ids) if isinstance(gold_ids, (list, tuple)) else ()
    question = " ".join(question.split())
    return Question(question, answers, dataset, (question,), str(row.get("id", fallback_id)), gold_ids)


def _rows(path: Path):
    if path.suffix == ".parquet":
        try:
            import pyarrow.parquet as pq
        except ImportError:  # pragma: no cover - depends on the environment
            raise ImportError(f"reading {path} needs pyarrow: pip install 'coevo-envs[parquet]'") from None
        for number, row in enumerate(pq.read_table(path).to_pylist(), start=1):
            yield number, row
        return
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if line.strip():
                try:
                    yield number, json.loads(line)
                except json.JSONDecodeError as exc:
                    raise ValueError(f"{path}:{number}: not valid JSON ({exc.msg})") from None


def load_questions(path: str | Path) -> tuple[Question, ...]:
    """Every question of a JSONL or Parquet QA file (cached per file version)."""
    stat = os.stat(path)
    return _load(str(Path(path).resolve()), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=8)
def _load(path: str, _mtime_ns: int, _size: int) -> tuple[Question, ...]:
    file = Path(path)
    default = dataset_name(file.stem)
    questions = []
    for number, row in _rows(file):
        if not isinstance(row, dict):
            raise ValueError(f"{path}:{number}: expected an object per row")
        try:
            questions.append(question_from_row(row, default, f"{file.stem}-{number}"))
        except ValueError as exc:
            raise ValueError(f"{path}:{number}: {exc}") from None
    if not questions:
        raise ValueError(f"{path}: no questions in the file")
    return tuple(questions)
