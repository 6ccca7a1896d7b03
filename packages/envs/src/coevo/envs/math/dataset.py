"""Problems from a user's JSONL file (GSM8K / MATH style rows).

One JSON object per line with the problem under ``problem`` (or ``question``) and the answer
under ``answer``. A GSM8K answer is a worked solution ending in ``#### 42``: the text after the
last ``####`` is the gold answer (thousands commas dropped). A row without ``answer`` but with a
MATH-style ``solution`` takes the last ``\\boxed{}`` of the solution. The task type is the row's
``type`` (MATH's subject) when present, else ``"data"``. Blank lines are skipped; anything else
malformed raises a ValueError naming the file and line.
"""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path

from coevo.envs.data_files import DataFileError, require_file  # noqa: F401 (re-exported)
from coevo.envs.math.answers import extract_boxed
from coevo.envs.math.problem import Problem


def gold_answer(row: dict) -> str | None:
    """The gold answer of a row: GSM8K's ``#### 42``, a plain ``answer``, or MATH's boxed solution."""
    answer = row.get("answer")
    if isinstance(answer, (int, float)) and not isinstance(answer, bool):
        return str(answer)
    if isinstance(answer, str) and answer.strip():
        if "####" in answer:
            answer = answer.rsplit("####", 1)[1].strip().replace(",", "")
        return answer.strip() or None
    solution = row.get("solution")
    if isinstance(solution, str):
        return extract_boxed(solution)
    return None


def load_problems(path: str | Path) -> tuple[Problem, ...]:
    """Every problem of the JSONL file at ``path`` (cached per file version)."""
    path = Path(path)
    stat = os.stat(path)
    return _load(str(path.resolve()), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=16)
def _load(path: str, _mtime_ns: int, _size: int) -> tuple[Problem, ...]:
    problems = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{number}: not valid JSON ({exc.msg})") from None
            if not isinstance(row, dict):
                raise ValueError(f"{path}:{number}: expected a JSON object per line")
            text = row.get("problem", row.get("question"))
            if not isinstance(text, str) or not text.strip():
                raise ValueError(f"{path}:{number}: no 'problem' (or 'question') text")
            answer = gold_answer(row)
            if answer is None:
                raise ValueError(f"{path}:{number}: no 'answer' (or boxed 'solution')")
            problem_type = row.get("type") if isinstance(row.get("type"), str) else "data"
            problems.append(Problem(text.strip(), answer, problem_type))
    if not problems:
        raise ValueError(f"{path}: no problems in the file")
    return tuple(problems)
