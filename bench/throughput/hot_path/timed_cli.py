"""``coevo.core.cli.train`` with a step timer: ``python timed_cli.py OUT.json <hydra overrides...>``.

The CLI runs unchanged (same trainer, callbacks, logging and checkpoints); a Lightning callback
added to its trainer writes the wall time of every optimizer step, and the whole run's, to OUT.
"""

from __future__ import annotations

import json
import sys
import time

import lightning as L

import coevo.core.cli.train as cli


class StepTimes(L.Callback):
    def __init__(self, path: str):
        self.path, self.steps, self.started = path, [], time.perf_counter()

    def on_train_batch_start(self, trainer, module, batch, batch_idx):
        self._start = time.perf_counter()

    def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx):
        self.steps.append(time.perf_counter() - self._start)
        with open(self.path, "w") as handle:
            json.dump({"step_seconds": self.steps}, handle)


def main() -> None:
    out = sys.argv.pop(1)
    timer = StepTimes(out)
    make_trainer = cli.make_trainer

    def with_timer(settings, run_dir, tokenizer, extra_callbacks=()):
        return make_trainer(settings, run_dir, tokenizer, [*extra_callbacks, timer])

    cli.make_trainer = with_timer
    cli.main()


if __name__ == "__main__":
    main()
