"""Append the logged training metrics of every step to ``metrics.jsonl`` (for plots and tests).

On resume, rows after the resumed step are dropped first, so the file matches an uninterrupted run.
A line that does not parse (a kill -9 in the middle of a write leaves a torn last line) is dropped
with a message instead of stopping the resume; the repaired file replaces the old one atomically.
With several processes only rank 0 writes (the module's metrics are already reduced over ranks).
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import lightning as L

from coevo.core import registry
from coevo.core.algorithm_contract import StepMetrics

log = logging.getLogger(__name__)


def read_rows(path: Path) -> tuple[list[dict], int]:
    """``(rows that parse as JSON objects with a step, number of lines dropped)``."""
    rows, dropped = [], 0
    for line in path.read_text(errors="replace").splitlines():
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            dropped += 1
            continue
        if isinstance(row, dict) and isinstance(row.get("step"), int):
            rows.append(row)
        else:
            dropped += 1
    return rows, dropped


@registry.callbacks.register("metrics_history")
class MetricsHistory(L.Callback):
    def __init__(self, path: str | Path):
        self.path = Path(path)

    def on_train_start(self, trainer, pl_module) -> None:
        if not trainer.is_global_zero or not self.path.is_file():
            return
        rows, dropped = read_rows(self.path)
        if dropped:
            log.warning("%s: dropped %d unreadable line(s) (a write cut short by a kill)", self.path, dropped)
        keep = [row for row in rows if row["step"] <= trainer.global_step]
        tmp = self.path.with_name(self.path.name + f".tmp-{os.getpid()}")
        tmp.write_text("".join(json.dumps(row) + "\n" for row in keep))
        os.replace(tmp, self.path)

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx) -> None:
        if not trainer.is_global_zero:
            return
        # the module's own record of this step: trainer.callback_metrics would also hold stale
        # values of keys logged in earlier steps only (e.g. a task type absent from this batch)
        row = {"step": trainer.global_step, **(pl_module.step_metrics if isinstance(pl_module, StepMetrics) else {})}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a") as handle:
            handle.write(json.dumps(row) + "\n")  # one write: a kill leaves at most this line torn
