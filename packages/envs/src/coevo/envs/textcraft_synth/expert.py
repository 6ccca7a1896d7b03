"""The TextCraft-Synth expert: a planner that knows only what an agent has read.

It sees what the agent sees: its goal (targets to craft beyond its starting inventory), the
inventory, and the recipes returned by ``info`` so far; base materials are the task's stock
items. Each step it either

- asks ``info`` about every item it is short of and has not read (the whole frontier in one
  step, ``MAX_INFO_ITEMS`` a command), or, once what is short is read,
- crafts what ``planner.needs`` says is missing, shallowest item first (its ingredients are
  then held), ``most`` commands a step, and appends ``finish`` when the last craft fits.

On a fresh task that is ``R + ceil((C + 1) / most)`` steps, ``R`` the reading rounds (at most the
target's depth) and ``C`` the distinct crafted items of its tree; ``expert_steps`` counts it.

Recursively (``delegation``), a node whose deepest target is deeper than ``leaf_depth`` hands
each crafted ingredient of its targets' recipes that it lacks to a child, one at a time,
deepest first (so no child uses up what a later sibling's target is made of), and crafts its
targets from what they bring back; a node at or under ``leaf_depth`` plays flat.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from math import ceil

from coevo.envs.textcraft_synth.commands import MAX_INFO_ITEMS
from coevo.envs.textcraft_synth.planner import needs
from coevo.envs.textcraft_synth.world import Recipe


def wanted_of(targets: Mapping[str, int], start: Mapping[str, int]) -> dict[str, int]:
    """What the inventory must hold: each target's count beyond the starting inventory."""
    return {item: start.get(item, 0) + n for item, n in targets.items()}


def expert_step(targets: Mapping[str, int], start: Mapping[str, int], read: Mapping[str, Recipe],
                base: frozenset[str] | set[str], inventory: Mapping[str, int], most: int) -> str:
    """The expert's next step: up to ``most`` commands joined by ``'; '``."""
    crafts, short = needs(read, wanted_of(targets, start), inventory)
    unknown = sorted(name for name in short if name not in base)
    if unknown:
        chunks = [unknown[i:i + MAX_INFO_ITEMS] for i in range(0, len(unknown), MAX_INFO_ITEMS)]
        return "; ".join("info " + ", ".join(chunk) for chunk in chunks[:most])
    order = sorted(crafts, key=lambda n: (read[n].depth, n))
    commands = [craft_command(read[name], crafts[name]) for name in order[:most]]
    if len(order) < most:
        commands.append("finish")
    return "; ".join(commands)


def craft_command(recipe: Recipe, crafts: int) -> str:
    """``craft`` making ``crafts`` × the recipe's yield, naming what those crafts consume."""
    uses = ", ".join(f"{n * crafts} {name}" for name, n in recipe.ingredients)
    return f"craft {recipe.makes * crafts} {recipe.item} from {uses}"


def delegation(targets: Mapping[str, int], start: Mapping[str, int], read: Mapping[str, Recipe],
               base: frozenset[str] | set[str], inventory: Mapping[str, int], leaf_depth: int) -> str | None:
    """The next sub-goal the recursive expert launches (``craft <n> <item>``), or ``None`` when it
    acts itself: its targets are shallow enough, or it has not read them and the crafted
    ingredients it lacks yet (the flat expert's next ``info`` does), or it lacks none of them."""
    if any(item not in read for item in targets) or max(read[i].depth for i in targets) <= leaf_depth:
        return None
    lacking: Counter[str] = Counter()
    for item, n in wanted_of(targets, start).items():
        short = n - inventory.get(item, 0)
        if short > 0:
            recipe = read[item]
            for name, k in recipe.ingredients:
                lacking[name] += ceil(short / recipe.makes) * k
    missing = {name: n - inventory.get(name, 0) for name, n in lacking.items()
               if name not in base and n > inventory.get(name, 0)}
    if not missing or any(name not in read for name in missing):
        return None
    name = max(missing, key=lambda n: (read[n].depth, n))  # deepest first
    return f"craft {missing[name]} {name}"


def expert_steps(recipes: Mapping[str, Recipe], target: str, count: int, stock: Mapping[str, int],
                 most: int) -> int:
    """Steps the flat expert takes on a fresh task (reading rounds, then crafting steps)."""
    read: dict[str, Recipe] = {}
    rounds = 0
    while True:
        _, short = needs(read, {target: count}, stock)
        unknown = [name for name in short if name not in stock]
        if not unknown:
            break
        rounds += ceil(len(unknown) / (MAX_INFO_ITEMS * most))
        read.update((name, recipes[name]) for name in unknown)
    crafts, _ = needs(read, {target: count}, stock)
    return rounds + ceil((len(crafts) + 1) / most)
