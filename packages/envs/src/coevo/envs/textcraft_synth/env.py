"""The ``textcraft_synth`` environment: TextCraft-Synth as the RAO paper's authors run it.

A task (``tasks.make_task``) asks for 1–3 of one target of its split's band (``train`` and
``eval_in_distribution``: ``band``, medium by default; ``eval_out_of_distribution``:
``ood_band``, hard by default). Training targets and test targets (both eval splits) are
disjoint item sets. The recipes are hidden: the first observation states the goal and the
stock (base materials only: every one the target needs, 0–50% extra, 1–3 distractors); the
agent reads recipes with ``info`` and crafts with named ingredients and counts (``commands``).
Nothing can be got: crafting a wrong item wastes stock for good. The episode ends at ``finish``
(won iff the inventory holds ``count`` more of the target than the stock did) or after
``max_steps`` steps (lost: the authors reward only an explicit ``finish``).

One step and platoon's step. The authors' agent writes a Python cell per step that calls
``get_info``, ``craft``, ``view_inventory`` and ``finish``. Here a step is the text of up to
``commands_per_step`` commands separated by ``;``: a cell of straight-line calls without loops,
variables or branches on results, which it sees only at the next step. The commands run in
order; if one is malformed or breaks a rule (an unknown item, a count that is not a multiple of
the yield, an ingredient missing, extra or in the wrong count, too little in the inventory)
nothing of the step happens and it is an invalid action (``info["error"]`` says which command
and why), as the protocol asks. The observation is each command's answer, one per line.

The expert (``expert``) reads recipes with ``info`` like an agent, then crafts; it wins every
task within ``max_steps`` when the budget covers its count (``expert_steps``; see the env docs
for what it takes per band).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from coevo.core import registry
from coevo.core.env.protocol import StepResult, Task
from coevo.core.fields import bounded, check_instance, choice, random_seed
from coevo.envs.procedural import OOD_SPLIT, ProceduralEnv
from coevo.envs.textcraft_synth.bands import BANDS, Band
from coevo.envs.textcraft_synth.commands import (
    Command,
    CommandError,
    Craft,
    Finish,
    Info,
    ShowInventory,
    parse_step,
)
from coevo.envs.textcraft_synth.expert import expert_step
from coevo.envs.textcraft_synth.tasks import SynthTask, make_task, split_targets
from coevo.envs.textcraft_synth.world import Recipe, World, generate_world


@lru_cache(maxsize=4)
def _world(seed: int, items_per_tier: int, test_fraction: float) -> tuple[World, dict, dict]:
    world = generate_world(seed, items_per_tier)
    return (world, *split_targets(world, test_fraction, seed))


@registry.envs.register("textcraft_synth")
class TextCraftSynthEnv(ProceduralEnv):
    """Crafting a deep target from a finite stock, reading hidden recipes on the way."""

    name = "textcraft_synth"
    task_types = ("craft",)
    free_form_actions = True
    invalid_observation = ("Invalid step. Use 'info <item>, ...', 'craft <n> <item> from <k> <ingredient>, ...', "
                           "'inventory' or 'finish', several separated by ';'.")

    @dataclass
    class Config:
        seed: int = random_seed(0)  # the world's recipes, the train/test split and each task's seed derive from it
        band: str = choice("medium", tuple(BANDS))  # target depths of train and eval_in_distribution
        ood_band: str = choice("hard", tuple(BANDS))  # target depths of eval_out_of_distribution (deeper than band)
        max_steps: int = bounded(25, ge=1, le=1000)  # steps per episode (each agent); the paper: 25
        commands_per_step: int = bounded(8, ge=1, le=64)  # commands one step may carry (one platoon cell)
        items_per_tier: int = bounded(25, ge=6, le=100)  # base materials per domain; crafted items per domain and tier
        test_fraction: float = bounded(0.2, gt=0, lt=1)  # share of each tier's items that only test tasks target
        eval_in_distribution_size: int = bounded(60, ge=1)  # tasks in split "eval_in_distribution"
        eval_out_of_distribution_size: int = bounded(60, ge=1)  # tasks in split "eval_out_of_distribution"

        def __post_init__(self):
            check_instance(self, "env")
            if BANDS[self.ood_band].low <= BANDS[self.band].high:
                deeper = [name for name, b in BANDS.items() if b.low > BANDS[self.band].high]
                allowed = f"one of {deeper}" if deeper else "none is: choose a shallower env.band"
                raise ValueError(f"env.ood_band must be deeper than env.band={self.band!r} (depths "
                                 f"{BANDS[self.band].low}-{BANDS[self.band].high}), {allowed}; "
                                 f"got {self.ood_band!r}")

    def __init__(self, config: Config | None = None):
        self.config = c = config if config is not None else self.Config()
        self.world, self._train_targets, self._test_targets = _world(c.seed, c.items_per_tier, c.test_fraction)
        self.max_steps = c.max_steps
        self._task: Task | None = None
        self._spec: SynthTask | None = None
        self._inventory: Counter[str] = Counter()
        self._read: dict[str, Recipe] = {}
        self._steps, self._done, self._won = 0, False, False

    def band_of(self, split: str) -> Band:
        return BANDS[self.config.ood_band if split == OOD_SPLIT else self.config.band]

    def targets_of(self, split: str) -> dict[int, tuple[str, ...]]:
        """Tier → the items that may be targets of ``split`` (train, or test for both eval splits)."""
        return self._train_targets if split == "train" else self._test_targets

    # -- episode --------------------------------------------------------------------------------
    def reset(self, task: Task) -> str:
        spec = make_task(self.world, self.targets_of(task.split), self.band_of(task.split), random.Random(task.seed))
        self._task, self._spec = task, spec
        self._inventory, self._read = Counter(spec.stock), {}
        self._steps, self._done, self._won = 0, False, False
        c = self.config
        return (
            f"Goal: {self.goal}.\n"
            f"Your stock (base materials; nothing more can be got): {_describe(spec.stock)}.\n"
            "Recipes are hidden: 'info <item>, ...' gives each item's recipe and crafting depth.\n"
            f"Commands, up to {c.commands_per_step} a step separated by ';': info <item>, ...; "
            "craft <n> <item> from <k> <ingredient>, ... (n a multiple of the recipe's yield, each k what "
            "n/yield crafts use); inventory; finish.\n"
            f"You win by finishing with {spec.count} {spec.target} crafted. Steps: {c.max_steps}."
        )

    def step(self, action: str) -> StepResult:
        self._require_started()
        if self._done:
            return StepResult(self.invalid_observation, 0.0, done=True, invalid=True, info=self._info())
        self._steps += 1
        try:
            commands = parse_step(action, self.config.commands_per_step)
            inventory, lines, finished = self._run(commands)
        except CommandError as error:
            self._done = self._steps >= self.max_steps
            return StepResult(self.invalid_observation, 0.0, self._done, invalid=True,
                              info=self._info() | {"error": str(error)})
        self._inventory = inventory
        for command in commands:
            if isinstance(command, Info):
                self._read.update((n, self.world.recipes[n]) for n in command.items if n in self.world.recipes)
        self._won = finished and self.crafted() >= self._spec.count
        self._done = finished or self._steps >= self.max_steps
        return StepResult("\n".join(lines), 1.0 if self._won else 0.0, self._done, self._won, False, self._info())

    def _run(self, commands: list[Command]) -> tuple[Counter[str], list[str], bool]:
        """Run ``commands`` on a copy of the inventory: ``(inventory, answers, finished)``, or
        ``CommandError`` naming the first command that fails (the step then changes nothing)."""
        inventory, lines = Counter(self._inventory), []
        for number, command in enumerate(commands, 1):
            try:
                if isinstance(command, Finish):
                    crafted = inventory[self._spec.target] - self._spec.stock.get(self._spec.target, 0)
                    lines.append(f"Finished with {max(0, crafted)} {self._spec.target} crafted.")
                    return inventory, lines, True
                lines.append(self._answer(command, inventory))
            except CommandError as error:
                raise CommandError(f"command {number}: {error}") from None
        return inventory, lines, False

    def _answer(self, command: Command, inventory: Counter[str]) -> str:
        world = self.world
        if isinstance(command, ShowInventory):
            return f"Inventory: {_describe(inventory) or 'empty'}."
        if isinstance(command, Info):
            return "\n".join(self._info_line(name, inventory) for name in command.items)
        assert isinstance(command, Craft)
        recipe = world.recipes.get(command.item)
        if recipe is None:
            why = "a base material" if world.is_base(command.item) else "no item"
            raise CommandError(f"{command.item} is {why}; nothing crafts it")
        if command.count % recipe.makes:
            raise CommandError(f"{command.item} comes {recipe.makes} a craft; {command.count} is not a multiple")
        crafts = command.count // recipe.makes
        given, wanted = dict(command.ingredients), {n: k * crafts for n, k in recipe.ingredients}
        for name in given.keys() - wanted.keys():
            raise CommandError(f"{name} is not an ingredient of {command.item}")
        for name, k in wanted.items():
            if name not in given:
                raise CommandError(f"{name} is missing: {command.count} {command.item} use {k} {name}")
            if given[name] != k:
                raise CommandError(f"{command.count} {command.item} use {k} {name}, not {given[name]}")
        for name, k in wanted.items():
            if inventory[name] < k:
                raise CommandError(f"{command.count} {command.item} use {k} {name}; you hold {inventory[name]}")
        inventory.subtract(wanted)
        inventory[command.item] += command.count
        return f"Crafted {command.count} {command.item}."

    def _info_line(self, name: str, inventory: Counter[str]) -> str:
        world = self.world
        if world.is_base(name):
            return f"{name}: base material, depth 0, no recipe; held {inventory[name]}."
        recipe = world.recipes.get(name)
        if recipe is None:
            raise CommandError(f"unknown item {name}")
        return f"{name}: depth {recipe.depth}, recipe {recipe.line()}; held {inventory[name]}."

    def crafted(self) -> int:
        """How many of the target the inventory holds beyond the starting stock."""
        spec = self._require_spec()
        return self._inventory[spec.target] - spec.stock.get(spec.target, 0)

    # -- protocol ---------------------------------------------------------------------------------
    def admissible_actions(self) -> list[str]:
        return []  # free text: no finite list of commands

    @property
    def goal(self) -> str:
        spec = self._require_spec()
        return f"craft {spec.count} {spec.target}"

    @property
    def spec(self) -> SynthTask:
        """The task being played: target, count, depth, stock."""
        return self._require_spec()

    @property
    def inventory(self) -> dict[str, int]:
        return {k: v for k, v in self._inventory.items() if v > 0}

    @property
    def done(self) -> bool:
        return self._done

    @property
    def won(self) -> bool:
        return self._won

    @property
    def steps_taken(self) -> int:
        return self._steps

    def snapshot(self) -> Any:
        self._require_started()
        return (self._task, self._spec, Counter(self._inventory), dict(self._read), self._steps, self._done,
                self._won)

    def restore(self, snapshot: Any) -> None:
        self._task, self._spec, inventory, read, self._steps, self._done, self._won = snapshot
        self._inventory, self._read = Counter(inventory), dict(read)

    def state_key(self) -> tuple | None:
        """(goal, the inventory's non-zero counts): what crafting changes (recipes read are knowledge)."""
        if self._task is None:
            return None
        return (self.goal, tuple(sorted((k, v) for k, v in self._inventory.items() if v > 0)))

    def memory(self) -> str | None:
        return f"inventory: {_describe(self._inventory) or 'empty'}" if self._task is not None else None

    def expert_action(self) -> str | None:
        if self._task is None or self._done:
            return None
        spec = self._spec
        return expert_step(spec.target, spec.count, self._read, spec.stock, self._inventory,
                           self.config.commands_per_step)

    # -- helpers ----------------------------------------------------------------------------------
    def _info(self) -> dict[str, Any]:
        return {"steps": self._steps}

    def _require_started(self) -> None:
        if self._task is None:
            raise RuntimeError(f"call reset(task) before using the {self.name} environment")

    def _require_spec(self) -> SynthTask:
        self._require_started()
        return self._spec


def _describe(items: dict[str, int]) -> str:
    return ", ".join(f"{n} {name}" for name, n in sorted(items.items()) if n > 0)
