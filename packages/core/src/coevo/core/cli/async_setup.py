"""The train CLI's side of ``rollout.async``: what may run asynchronously (refused by name, before any
work, otherwise), the stale-policy correction it turns on, and the driver it hands the algorithm.

What runs asynchronously now: algorithms whose step plays are one batch player's
(``plays_async``; ``coevo.core.agent.batch_player``): GRPO and the policy-gradient family (every
``algo.advantage`` and ``algo.loss``), the RSIPO family (students, written skills and replays) and
RAO (its recursion trees; without the trained flat baseline), without dynamic sampling, one trainer
process, the ``hf`` engine in the workers, no callback that judges the current weights (HEIRCOMMIT).
EVOHEIR plays synchronously (``async_refusal``: its screening and confirmation judge the round's own
weights). The rest is refused with the key to change.
"""

from __future__ import annotations

from omegaconf import DictConfig

from coevo.core.config import ConfigError
from coevo.core.data.rollout_datamodule import RolloutDataModule, task_batch
from coevo.core.rollout.async_settings import RolloutPlacement, require_ray

#: ``algo.off_policy.tis_cap`` when ``max_staleness`` > 0 and the user set none (truncated IS weights
#: correct the gap between the weights a sample was played with and the weights it trains)
ASYNC_TIS_CAP = 2.0
SYNC_ONLY_CALLBACKS = ("heircommit",)  # their judge plays with the weights of this very step


def check_async(placement: RolloutPlacement, trainer, algo_cls, algo_cfg, engine_name: str,
                callbacks: DictConfig | None) -> None:
    """Refuse, naming the key, a run that cannot play asynchronously (``rollout.async.enabled=true``)."""
    if not placement.asynchronous.enabled:
        return
    fix = "or set rollout.async.enabled=false"
    refusal = algo_cls.async_refusal(algo_cfg)
    if refusal is not None and refusal[0] == "rollout.async.enabled":  # the algorithm as a whole
        raise ConfigError(f"config error at 'rollout.async.enabled': algo={algo_cfg.name} plays synchronously: "
                          f"{refusal[1]}; set rollout.async.enabled=false")
    if not algo_cls.plays_async:  # a member of every algorithm (coevo.core.algorithm_contract)
        raise ConfigError(f"config error at 'rollout.async.enabled': algo={algo_cfg.name} does not play its batches "
                          f"beside training yet (no batch player: its step plays with the weights of that very step); "
                          f"use algo=grpo, the RSIPO family or algo=rao, {fix}")
    if refusal is not None:
        raise ConfigError(f"config error at '{refusal[0]}': {refusal[1]}, which asynchronous rollouts do not; "
                          f"change {refusal[0]}, {fix}")
    if getattr(getattr(algo_cfg, "dynamic_sampling", None), "enabled", False):
        raise ConfigError(f"config error at 'algo.dynamic_sampling.enabled': its refill rounds play with this step's "
                          f"weights in the trainer; set algo.dynamic_sampling.enabled=false, {fix}")
    if getattr(algo_cfg, "updates_per_batch", 1) != 1:
        raise ConfigError(f"config error at 'algo.updates_per_batch': asynchronous rollouts version the weights by "
                          f"batch; set algo.updates_per_batch=1, {fix}")
    if trainer.devices * trainer.num_nodes != 1 or trainer.strategy not in ("auto", "single_device"):
        raise ConfigError(f"config error at 'trainer': asynchronous rollouts run beside one trainer process for now; "
                          f"set trainer=cpu (one device), {fix}")
    if engine_name != "hf":
        raise ConfigError(f"config error at 'rollout.name': the rollout workers run the hf engine for now; set "
                          f"rollout=hf, {fix}")
    judged = [name for name in (callbacks or {}) if name in SYNC_ONLY_CALLBACKS]
    if judged:
        raise ConfigError(f"config error at 'callbacks.{judged[0]}': its judge compares the weights of this very "
                          f"step, which asynchronous rollouts do not play with; drop +callbacks={judged[0]}, {fix}")
    require_ray(placement)


def stale_policy_correction(placement: RolloutPlacement, algo_cfg, say) -> None:
    """``max_staleness`` > 0 with no ``algo.off_policy.tis_cap``: turn truncated IS on (``ASYNC_TIS_CAP``)."""
    off_policy = getattr(algo_cfg, "off_policy", None)
    a = placement.asynchronous
    if a.enabled and a.max_staleness > 0 and off_policy is not None and off_policy.tis_cap is None:
        off_policy.tis_cap = ASYNC_TIS_CAP
        say(f"rollout.async: samples up to {a.max_staleness} step(s) stale; truncated importance sampling on "
            f"(algo.off_policy.tis_cap={ASYNC_TIS_CAP}; set it to change the cap)")


def async_driver(placement: RolloutPlacement, context, module, tasks_for, threads: int):
    """The Ray workers' driver for this run: batch ``k`` is ``tasks_for(k)``, played by ``module``'s
    batch player (the object that plays it in this process when rollouts are synchronous)."""
    from coevo.core.workers.async_rollouts import AsyncRollouts

    return AsyncRollouts(placement, context.model, context.tokenizer, module.player, context.agent,
                         context.engine_name, context.engine_config, tasks_for, threads)


def datamodule_batches(datamodule: RolloutDataModule):
    """``index -> tasks`` of the data module's stream (batch ``k`` as ``RolloutDataModule`` serves it)."""

    def tasks_for(index: int):
        return task_batch(datamodule.env, datamodule.split, datamodule.batch_size, index, datamodule.seed)

    return tasks_for
