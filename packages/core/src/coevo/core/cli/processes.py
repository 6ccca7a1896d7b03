"""Start a run's training processes and join their process group *before* any work.

Lightning normally launches the extra processes inside ``trainer.fit``: each child re-runs the
script from the top, so it would redo (and race on) what the parent did before ``fit`` — claiming
the run folder, building the warm-start cache, the evaluation before training. Here the strategy's
own launcher starts them first (``python -m coevo.core.cli.train <same arguments>`` with
``LOCAL_RANK=1…``; under torchrun / SLURM the processes exist already and nothing is launched),
then every process joins the process group, so ``coevo.core.distributed`` can let rank 0 claim
the folder and fill caches while the others wait. The ``Trainer`` built later for ``fit`` finds
the processes launched and the group initialised, and reuses both.
"""

from __future__ import annotations

import logging
import os
from contextlib import contextmanager

import lightning as L
import torch.distributed

from coevo.core.cli.strategy import build_strategy


def multi_process(trainer_settings) -> bool:
    return trainer_settings.strategy != "auto"


@contextmanager
def _quiet_lightning():
    """The launch trainer's device banner would repeat the real trainer's."""
    logger = logging.getLogger("lightning.pytorch.utilities.rank_zero")
    level = logger.level
    logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        logger.setLevel(level)


def start_processes(trainer_settings) -> None:
    """Launch the other local processes (first process only) and initialise the process group."""
    t = trainer_settings
    if not multi_process(t):
        return
    if t.check_collectives:  # the launched ranks inherit it; this process reads it again now
        os.environ.setdefault("TORCH_DISTRIBUTED_DEBUG", "DETAIL")
        torch.distributed.set_debug_level_from_env()
    with _quiet_lightning():
        launch = L.Trainer(accelerator=t.accelerator, devices=t.devices, num_nodes=t.num_nodes,
                           strategy=build_strategy(t), logger=False, enable_checkpointing=False,
                           enable_progress_bar=False, enable_model_summary=False)
    strategy = launch.strategy
    if strategy.launcher is not None:
        strategy.launcher.launch(lambda: None)
    strategy.setup_environment()
