"""Run the workload with coevo's GRPO (the LightningModule ``make train`` uses) and time each step.

The module, agent loop and rollout engine are built exactly as ``coevo.core.cli.train`` builds
them; the Lightning trainer is the CLI's minus its extras (no evaluation, checkpoints, TensorBoard
or progress bar; TRL's side likewise saves and reports nothing). The tasks are fed in the
workload's order, ``tasks_per_step`` per step. With ``async_staleness`` (``--async-staleness``) the
batches are played by one Ray rollout worker beside training (``rollout.async``, the driver and
weight-push callback the CLI uses; the worker has ``threads`` torch threads of its own), and the
step's "generate" time is the trainer's wait for its batch.
"""

from __future__ import annotations

import time

import lightning as L
import torch
from torch.utils.data import DataLoader

from coevo.core import registry
from coevo.core.algos.algorithm_context import AlgorithmContext
from coevo.core.cli.components import engine_component, env_factory
from coevo.core.config import build_component
from coevo.core.policy.builders import load_pretrained

from .workload import Workload, make_env, settings, tasks, train_config


class StepTimer(L.Callback):
    """Wall time of every optimizer step (rollout, rewards, update) and what the module recorded."""

    def __init__(self):
        self.rows: list[dict] = []

    def on_train_batch_start(self, trainer, module, batch, batch_idx):
        self._start = time.perf_counter()

    def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx):
        seconds = time.perf_counter() - self._start
        m = module.step_metrics
        self.rows.append({
            "step_seconds": seconds,
            "generate_seconds": m["train/rollout_seconds"],
            "update_seconds": m["train/update_seconds"],
            "reward": m["train/reward"],
            "generated_tokens": m["train/agent_tokens"],
            "trained_tokens": module.bench_trained_tokens,
            "trained_tokens_sq": module.bench_trained_tokens_sq,
            "threads": torch.get_num_threads(),
        })


def run(w: Workload) -> dict:
    torch.set_num_threads(w.threads)
    cfg = train_config(w)
    train = settings(cfg)
    L.seed_everything(w.seed, workers=True, verbose=False)
    env_cls, _, make = env_factory(cfg.env)
    algo_cls, algo_cfg = build_component(registry.algorithms, cfg.algo, "algo")
    _, engine_cfg = engine_component(cfg.get("rollout"))
    model, tokenizer = load_pretrained(w.model_dir)
    context = AlgorithmContext(model, tokenizer, make, env_cls.task_types, train.agent, "hf", engine_cfg, w.seed)
    module = _counting(algo_cls)(algo_cfg, context)
    start_params = [p.detach().clone() for p in model.parameters()]
    steps = tasks(w, make_env(cfg))
    batches = [steps[i : i + w.tasks_per_step] for i in range(0, len(steps), w.tasks_per_step)]
    timer = StepTimer()
    callbacks = [timer, *beside_training(w, module, context, batches)]
    trainer = L.Trainer(max_steps=w.steps, accelerator="cpu", devices=1, precision="32-true", logger=False,
                        callbacks=callbacks, enable_checkpointing=False, enable_progress_bar=False,
                        enable_model_summary=False, num_sanity_val_steps=0)
    try:
        trainer.fit(module, train_dataloaders=DataLoader(batches, batch_size=None, collate_fn=lambda b: b))
    finally:
        if module.async_rollouts is not None:
            module.async_rollouts.close()
    changed = sum(not torch.equal(a, p.detach()) for a, p in zip(start_params, model.parameters()))
    return {"rows": timer.rows, "params_changed": changed, "params_total": len(start_params),
            "parameters": sum(p.numel() for p in model.parameters())}


def beside_training(w: Workload, module, context: AlgorithmContext, batches: list) -> list[L.Callback]:
    """With ``w.async_staleness``: one Ray worker plays the batches (in the workload's order) beside
    training, as ``rollout.async.enabled=true`` does in ``make train``; the callbacks that push weights."""
    if w.async_staleness is None:
        return []
    from coevo.core.callbacks.async_weight_push import AsyncWeightPush
    from coevo.core.cli.async_setup import async_driver
    from coevo.core.rollout.async_settings import AsyncRolloutSettings, RaySettings, RolloutPlacement
    from coevo.core.workers.async_rollouts import connect

    placement = RolloutPlacement(AsyncRolloutSettings(enabled=True, max_staleness=w.async_staleness, workers=1,
                                                      threads=w.threads), RaySettings())
    connect(placement.ray)
    module.use_async_rollouts(async_driver(placement, context, module,
                                           lambda i: batches[i % len(batches)],  # (played ahead past the end)
                                           w.threads))
    return [AsyncWeightPush()]


def _counting(algo_cls):
    """The algorithm class, counting the (non-padding) tokens its update trains on."""

    class Counting(algo_cls):
        def update(self, samples):
            self.bench_trained_tokens = float(sum(len(s.input_ids) for s in samples))
            self.bench_trained_tokens_sq = float(sum(len(s.input_ids) ** 2 for s in samples))
            return super().update(samples)

    return Counting
