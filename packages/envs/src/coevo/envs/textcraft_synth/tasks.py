"""TextCraft-Synth tasks: disjoint train and test targets, a target and count per band, the stock.

``split_targets`` divides each tier's crafted items once per world, seeded: ``test_fraction`` of
them (at least one, and never all) may only be targets of test tasks, the rest only of training
tasks; an item may still be an ingredient anywhere (that is how the authors split, too).

``make_task`` picks the target uniformly among its pool's items of the band's depths, a count
from 1 to the band's ``max_count``, and stocks the inventory: every base material the target
needs (``planner.base_need``) plus 0–50% extra of each (rounded down), plus 1–3 distractors,
base materials the target does not need, 1–5 of each. No base material can be got later, so
the stock is all there is; a crafted item is never in the stock.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from coevo.envs.textcraft_synth.bands import Band
from coevo.envs.textcraft_synth.planner import base_need
from coevo.envs.textcraft_synth.world import MAX_TIER, World


@dataclass(frozen=True)
class SynthTask:
    target: str
    count: int
    depth: int  # the target's crafting depth
    stock: dict[str, int]  # the starting inventory, base materials only
    need: dict[str, int]  # base materials the target consumes (all within the stock)
    distractors: tuple[str, ...]  # stocked base materials the target does not use


def split_targets(world: World, test_fraction: float, seed: int) -> tuple[dict[int, tuple[str, ...]],
                                                                          dict[int, tuple[str, ...]]]:
    """``(train, test)``: tier → the items that may be targets of that split (disjoint)."""
    rng = random.Random(f"textcraft_synth/split/{seed}/{test_fraction}")
    train: dict[int, tuple[str, ...]] = {}
    test: dict[int, tuple[str, ...]] = {}
    for tier in range(1, MAX_TIER + 1):
        items = sorted(world.tiers[tier])
        rng.shuffle(items)
        held = min(len(items) - 1, max(1, round(len(items) * test_fraction)))
        test[tier], train[tier] = tuple(sorted(items[:held])), tuple(sorted(items[held:]))
    return train, test


def make_task(world: World, pool: dict[int, tuple[str, ...]], band: Band, rng: random.Random) -> SynthTask:
    """One task of ``band`` whose target comes from ``pool``."""
    candidates = [item for tier in range(band.low, band.high + 1) for item in pool[tier]]
    target = rng.choice(candidates)
    count = rng.randint(1, band.max_count)
    need = base_need(world.recipes, target, count)
    stock = {name: n + rng.randint(0, n // 2) for name, n in sorted(need.items())}
    unused = [b for b in world.base if b not in need]
    distractors = tuple(sorted(rng.sample(unused, min(len(unused), rng.randint(1, 3)))))
    for name in distractors:
        stock[name] = rng.randint(1, 5)
    return SynthTask(target, count, world.depth(target), dict(sorted(stock.items())), need, distractors)
