"""The skill reward: replay gain centred by its task type's mean.

    r_skill(x) = Δ_x − mean of Δ over the batch's tasks of type k(x)

Our choice (the paper does not pin it down): when a type has fewer than ``min_count`` (2) tasks in
the batch, its batch mean would equal Δ_x itself and the reward would always be 0, so the running
per-type mean from earlier steps is subtracted instead; a type never seen before falls back to the
mean Δ of the whole batch.

Ties are exact: a gain equal to its baseline (within core's ``TIE_TOLERANCE``, e.g. three equal
gains of 0.1 whose float mean is 0.10000000000000002) gets a reward of exactly 0.
"""

from __future__ import annotations

from collections.abc import Mapping

from coevo.core.algos.advantages import is_tie, tie_exact_mean


def centred_skill_rewards(
    gains: list[float],  # Δ_x of each task of the batch
    types: list[str],  # k(x) of each task
    running_means: Mapping[str, float],  # per-type running mean of Δ from earlier steps
    min_count: int = 2,
) -> list[float]:
    if len(gains) != len(types):
        raise ValueError(f"{len(gains)} gains for {len(types)} task types")
    if not gains:
        return []
    by_type: dict[str, list[float]] = {}
    for gain, task_type in zip(gains, types):
        by_type.setdefault(task_type, []).append(gain)
    batch_mean = tie_exact_mean(gains)
    baselines = {}
    for task_type, values in by_type.items():
        if len(values) >= min_count:
            baselines[task_type] = tie_exact_mean(values)
        elif task_type in running_means:
            baselines[task_type] = running_means[task_type]
        else:
            baselines[task_type] = batch_mean
    rewards = []
    for gain, task_type in zip(gains, types):
        baseline = baselines[task_type]
        rewards.append(0.0 if is_tie(gain, baseline) else gain - baseline)
    return rewards
