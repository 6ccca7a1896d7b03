"""The TextCraft-Synth expert: a planner that knows only what an agent has read.

It sees what the agent sees: the goal, the starting stock (all base materials: anything not in
it has a recipe) and the recipes returned by ``info`` so far. Each step it either

- asks ``info`` about every item of the target's recipe tree it has not read yet (the whole
  frontier in one step, ``MAX_INFO_ITEMS`` a command), or, once the tree is read,
- crafts what ``planner.shortfall`` says is missing, shallowest item first (its ingredients are
  then held), ``most`` commands a step, and appends ``finish`` when the last craft fits.

So it takes ``R + ceil((C + 1) / most)`` steps, ``R`` the reading rounds (at most the target's
depth) and ``C`` the distinct crafted items of the tree. ``expert_steps`` counts that on a fresh
task without playing it.
"""

from __future__ import annotations

from collections.abc import Mapping
from math import ceil

from coevo.envs.textcraft_synth.commands import MAX_INFO_ITEMS
from coevo.envs.textcraft_synth.planner import shortfall
from coevo.envs.textcraft_synth.world import Recipe


def unread(target: str, read: Mapping[str, Recipe], stock: Mapping[str, int]) -> list[str]:
    """Items of ``target``'s tree whose recipe is not read yet (base materials are the stock's)."""
    if target not in read:
        return [target]
    seen, stack, missing = {target}, [target], set()
    while stack:
        for name, _ in read[stack.pop()].ingredients:
            if name in seen or name in stock:
                continue
            seen.add(name)
            if name in read:
                stack.append(name)
            else:
                missing.add(name)
    return sorted(missing)


def expert_step(target: str, count: int, read: Mapping[str, Recipe], stock: Mapping[str, int],
                inventory: Mapping[str, int], most: int) -> str:
    """The expert's next step: up to ``most`` commands joined by ``'; '``."""
    missing = unread(target, read, stock)
    if missing:
        chunks = [missing[i:i + MAX_INFO_ITEMS] for i in range(0, len(missing), MAX_INFO_ITEMS)]
        return "; ".join("info " + ", ".join(chunk) for chunk in chunks[:most])
    crafts, _ = shortfall(read, target, count, inventory)
    order = sorted(crafts, key=lambda n: (read[n].depth, n))
    commands = [craft_command(read[name], crafts[name]) for name in order[:most]]
    if len(order) < most:
        commands.append("finish")
    return "; ".join(commands)


def craft_command(recipe: Recipe, crafts: int) -> str:
    """``craft`` making ``crafts`` × the recipe's yield, naming what those crafts consume."""
    uses = ", ".join(f"{n * crafts} {name}" for name, n in recipe.ingredients)
    return f"craft {recipe.makes * crafts} {recipe.item} from {uses}"


def expert_steps(recipes: Mapping[str, Recipe], target: str, count: int, stock: Mapping[str, int],
                 most: int) -> int:
    """Steps the expert takes on a fresh task (reading rounds, then crafting steps)."""
    read: dict[str, Recipe] = {}
    rounds = 0
    while missing := unread(target, read, stock):
        rounds += ceil(len(missing) / (MAX_INFO_ITEMS * most))
        read.update((name, recipes[name]) for name in missing)
    crafts, _ = shortfall(read, target, count, stock)
    return rounds + ceil((len(crafts) + 1) / most)
