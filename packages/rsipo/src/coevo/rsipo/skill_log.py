"""``skills.jsonl``: every skill written during a run, one JSON object per line, so a person can
read how skills evolved (task, type, step, the text, its replay gain and category, its trust ω).

On resume, rows of steps after the resumed step are dropped first (as ``metrics.jsonl``).
"""

from __future__ import annotations

import json
from pathlib import Path


class SkillLog:
    def __init__(self, path: Path | None):
        self.path = path

    def truncate_after(self, step: int) -> None:
        if self.path is None or not self.path.is_file():
            return
        keep = [line for line in self.path.read_text().splitlines() if line.strip() and json.loads(line)["step"] <= step]
        self.path.write_text("".join(line + "\n" for line in keep))

    def write(self, rows: list[dict]) -> None:
        if self.path is None or not rows:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a") as handle:
            for row in rows:
                handle.write(json.dumps(row) + "\n")


def read_skills(path: Path) -> list[dict]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
