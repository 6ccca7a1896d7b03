"""Append the logged training metrics of every step to ``metrics.jsonl`` (for plots and tests).

On resume, rows after the resumed step are dropped first, so the file matches an uninterrupted run.
With several processes only rank 0 writes (the module's metrics are already reduced over ranks).
"""

from __future__ import annotations

import json
from pathlib import Path

import lightning as L

from coevo.core import registry


@registry.callbacks.register("metrics_history")
class MetricsHistory(L.Callback):
    def __init__(self, path: str | Path):
        self.path = Path(path)

    def on_train_start(self, trainer, pl_module) -> None:
        if not trainer.is_global_zero or not self.path.is_file():
            return
        keep = [
            line for line in self.path.read_text().splitlines()
            if line.strip() and json.loads(line)["step"] <= trainer.global_step
        ]
        self.path.write_text("".join(line + "\n" for line in keep))

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx) -> None:
        if not trainer.is_global_zero:
            return
        # the module's own record of this step: trainer.callback_metrics would also hold stale
        # values of keys logged in earlier steps only (e.g. a task type absent from this batch)
        row = {"step": trainer.global_step, **getattr(pl_module, "step_metrics", {})}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a") as handle:
            handle.write(json.dumps(row) + "\n")
