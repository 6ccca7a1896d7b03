"""Paired comparison of two policies on the same items with fresh samples for each.

``item_success`` plays every item ``samples`` times with sampling under a seed of its own (or, with
``greedy``, once with argmax decoding: the answer the greedy held-out accuracy counts) and returns
the per-item success rate; ``paired_gain`` turns the two per-item vectors
into the mean paired difference v = (1/m) Σ_i (s_new,i − s_old,i) and its spread.
``swapped_weights`` evaluates the root inside a running training without disturbing it: it
loads the root's trainable weights, and on exit puts the proposal's weights, the RNG states and
the train/eval mode back (the optimizer and scheduler are never touched by evaluation).
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass

import torch

from coevo.core.agent.groups import play_groups, seeded_generator
from coevo.core.agent.loop import AgentLoop
from coevo.core.agent.types import Episode
from coevo.core.env.protocol import Environment, Task
from coevo.core.state.snapshot import capture_rng, restore_rng, trainable_weights

METRICS = ("greedy", "sampled")  # how a judge plays an item: one argmax answer | ``samples`` sampled answers


def check_metric(key: str, metric: str, samples: dict[str, int]) -> None:
    """Refuse ``key=greedy`` with more than one answer per item (``samples``: each samples key → value)."""
    several = {k: n for k, n in samples.items() if n != 1}
    if metric == "greedy" and several:
        raise ValueError(f"{key}=greedy plays each item once (every replay gives the same answer), but "
                         f"{', '.join(f'{k}={n}' for k, n in several.items())}: set "
                         f"{' '.join(f'{k}=1' for k in several)}, or {key}=sampled")


@dataclass
class PairedResult:
    gain: float  # v: mean paired difference of per-item success (new − old)
    std: float  # sample standard deviation of the paired differences
    new_success: float
    old_success: float
    m: int  # items
    wins: int = 0  # items where the new policy did better
    losses: int = 0  # items where it did worse


def paired_gain(
    new: torch.Tensor,  # [m] per-item success of the proposal
    old: torch.Tensor,  # [m] per-item success of the root on the same items
) -> PairedResult:
    if new.shape != old.shape or new.dim() != 1 or new.numel() == 0:
        raise ValueError(f"paired scores need two equal-length non-empty vectors, got {tuple(new.shape)} and {tuple(old.shape)}")
    diff = new.double() - old.double()  # [m]
    std = float(diff.std(unbiased=True)) if diff.numel() > 1 else 0.0
    return PairedResult(float(diff.mean()), std, float(new.double().mean()), float(old.double().mean()), diff.numel(),
                        int((diff > 0).sum()), int((diff < 0).sum()))


def play_items(
    loop: AgentLoop,
    envs: list[Environment],
    tasks: list[Task],
    samples: int,
    seed: int,
    greedy: bool = False,
) -> list[Episode]:  # len(tasks) * samples episodes, item-major
    """Play each task ``samples`` times with the loop's sampling settings, seeded by ``seed``; with
    ``greedy``, once each with argmax decoding (``samples`` must be 1: every replay is the same)."""
    if greedy and samples != 1:
        raise ValueError(f"greedy scoring plays each item once, got samples={samples}")
    with torch.no_grad():
        if greedy:
            return loop.run(tasks, envs[: len(tasks)], greedy=True, generator=seeded_generator(seed))
        return play_groups(loop, tasks, samples, envs, seed)


def success_per_item(episodes: list[Episode], samples: int) -> torch.Tensor:  # [len(episodes) / samples]
    won = torch.tensor([float(ep.won) for ep in episodes]).view(-1, samples)  # [m, samples]
    return won.mean(dim=1)


def item_success(
    loop: AgentLoop,
    envs: list[Environment],
    tasks: list[Task],
    samples: int,
    seed: int,
    greedy: bool = False,
) -> torch.Tensor:  # [len(tasks)] fraction of the ``samples`` episodes of each item that were won
    return success_per_item(play_items(loop, envs, tasks, samples, seed, greedy), samples)


def load_weights(model: torch.nn.Module, weights: dict[str, torch.Tensor]) -> None:
    """Copy ``weights`` (trainable parameter name → tensor) into ``model`` in place."""
    params = dict(model.named_parameters())
    with torch.no_grad():
        for name, value in weights.items():
            params[name].copy_(value.to(params[name].device))


@contextmanager
def evaluation_guard(model: torch.nn.Module):
    """Evaluation inside a training run: eval mode, and on exit the trainable weights, the RNG
    states and the mode exactly as before."""
    weights = trainable_weights(model)
    rng = capture_rng()
    was_training = model.training
    model.eval()
    try:
        yield
    finally:
        load_weights(model, weights)
        restore_rng(rng)
        model.train(was_training)


def derived_seed(*parts: int) -> int:
    """A reproducible seed from integers (decision number, role, run seed)."""
    value = 17
    for part in parts:
        value = (value * 1_000_003 + int(part) * 7_919 + 1) % (2**31 - 1)
    return value


# The streams of derived_seed(run seed, round t, STREAM, side, ...) in one EVOHEIR round, and of
# derived_seed(run seed, round, branch, step, STREAM) in an exploration step. Each names a stage so
# no two stages share seeds; the values are fixed (renumbering one changes every seeded run's numbers).
SCREEN_STREAM = 1  # step 2: root and candidates play the screening items
CONFIRM_STREAM = 2  # step 4: HEIRCOMMIT's paired comparison on the confirmation items
AUDIT_STREAM = 3  # the audit's true gain on its own items
GRPO_EXPLORE_STREAM = 11  # a GRPO host's exploration groups (hosts/grpo_host.py)
R_ZERO_EXPLORE_STREAM = 13  # R-Zero's scout proposals and solver groups (hosts/r_zero.py)
