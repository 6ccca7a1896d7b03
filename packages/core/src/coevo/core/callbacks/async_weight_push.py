"""``AsyncWeightPush``: after every training step, the new weights go to the rollout workers.

Added by the train CLI when ``rollout.async.enabled=true``, before the checkpoint callback (so a
checkpoint holds the batches that these weights started). The module's ``push_weights`` sends them
with their version (batches trained on) and lets the driver start the batches they may play.
"""

from __future__ import annotations

import lightning as L


class AsyncWeightPush(L.Callback):
    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx) -> None:
        pl_module.push_weights()
