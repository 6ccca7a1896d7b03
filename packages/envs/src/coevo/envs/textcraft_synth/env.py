"""The ``textcraft_synth`` environment: TextCraft-Synth as the RAO paper's authors run it.

A task (``tasks.make_task``) asks for 1–3 of one target of its split's band (``train`` and
``eval_in_distribution``: ``band``, medium by default; ``eval_out_of_distribution``:
``ood_band``, hard by default). Training targets and test targets (both eval splits) are
disjoint item sets. The recipes are hidden: the first observation states the goal and the
stock (base materials only: every one the target needs, 0–50% extra, 1–3 distractors); the
agent reads recipes with ``info`` and crafts with named ingredients and counts (``commands``).
Nothing can be got: crafting a wrong item wastes stock for good. The episode ends at ``finish``
(won iff the inventory holds the goal's counts beyond what it started with) or after
``max_steps`` steps (lost: the authors reward only an explicit ``finish``).

One step and platoon's step. The authors' agent writes a Python cell per step that calls
``get_info``, ``craft``, ``view_inventory``, ``finish`` and ``launch_subagent``. Here a step is
the text of up to ``commands_per_step`` commands separated by ``;``: a cell of straight-line
calls without loops, variables or branches on results, which it sees only at the next step. The
commands run in order; if one is malformed or breaks a rule (an unknown item, a count that is
not a multiple of the yield, an ingredient missing, extra or in the wrong count, too little in
the inventory) nothing of the step happens and it is an invalid action (``info["error"]`` says
which command and why), as the protocol asks. The observation is each command's answer, one
per line. ``launch_subagent`` is RAO's ``<delegate>`` reply (coevo-rao), whose goal this
environment parses (``delegation``): targets and counts, a budget, a context.

Sub-agents share the stock. A child starts with its parent's inventory as it is at the launch,
and at ``join`` the parent's inventory becomes the child's: what the child used is gone, what
it made is there. Races are impossible because a parent has one child at a time: a second
launch before the first child is joined is refused (``ForkError``; launch the next after the
report), and the parent does not act while its child runs. Budgets: ``per_agent`` (the paper's
depth-aware setting) gives the child the steps it asks for, at most ``max_steps``, on top of the
parent's; ``shared`` reserves them from the parent (at most its steps left minus one), and the
steps the child's subtree took are charged to the parent at the join. The depth cap is RAO's
``algo.recursion.budget.max_depth``.

A child's ``finish <message>`` is its report: the join returns it with the change of the stock.

The expert (``expert``) reads recipes with ``info`` like an agent, then crafts; the recursive
expert (``expert_delegations``) hands the crafted ingredients of targets deeper than
``expert_leaf_depth`` to children, one at a time. Flat, it wins every task within ``max_steps``
when the budget covers its count (``expert_steps``; see the env docs for each band).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from coevo.core import registry
from coevo.core.env.protocol import ForkError, Task
from coevo.core.fields import bounded, check_instance, choice, random_seed
from coevo.envs.procedural import OOD_SPLIT
from coevo.envs.recursive import Outcome, RecursiveEnv
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
from coevo.envs.textcraft_synth.delegation import GRAMMAR, SubGoal, parse_subgoal
from coevo.envs.textcraft_synth.expert import delegation, expert_step
from coevo.envs.textcraft_synth.tasks import SynthTask, make_task, split_targets
from coevo.envs.textcraft_synth.world import Recipe, World, generate_world

BUDGET_MODES = ("per_agent", "shared")


@lru_cache(maxsize=4)
def _world(seed: int, items_per_tier: int, test_fraction: float) -> tuple[World, dict, dict]:
    world = generate_world(seed, items_per_tier)
    return (world, *split_targets(world, test_fraction, seed))


@registry.envs.register("textcraft_synth")
class TextCraftSynthEnv(RecursiveEnv):
    """Crafting a deep target from a finite stock, reading hidden recipes on the way."""

    name = "textcraft_synth"
    task_types = ("craft",)
    free_form_actions = True
    goal_grammar = GRAMMAR
    invalid_observation = ("Invalid step. Use 'info <item>, ...', 'craft <n> <item> from <k> <ingredient>, ...', "
                           "'inventory' or 'finish', several separated by ';'.")

    @dataclass
    class Config:
        seed: int = random_seed(0)  # the world's recipes, the train/test split and each task's seed derive from it
        band: str = choice("medium", tuple(BANDS))  # target depths of train and eval_in_distribution
        ood_band: str = choice("hard", tuple(BANDS))  # target depths of eval_out_of_distribution (deeper than band)
        # steps per episode (each agent; the paper: 25). The shallowest plan of any task is 3 steps: every target
        # is 2 crafts deep at least, so an agent reads its recipe, then reads or launches its crafted
        # ingredients, then crafts and finishes (a child given the whole goal needs the same 3)
        max_steps: int = bounded(25, ge=3, le=1000)
        commands_per_step: int = bounded(8, ge=1, le=64)  # commands one step may carry (one platoon cell)
        items_per_tier: int = bounded(25, ge=6, le=100)  # base materials per domain; crafted items per domain and tier
        test_fraction: float = bounded(0.2, gt=0, lt=1)  # share of each tier's items that only test tasks target
        # per_agent: a child's steps are its own (at most max_steps) | shared: reserved from its parent's
        budget_mode: str = choice("per_agent", BUDGET_MODES)
        expert_leaf_depth: int = bounded(4, ge=1, le=12)  # the recursive expert crafts targets this deep itself
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
        super().__init__()
        self.config = c = config if config is not None else self.Config()
        self.world, self._train_targets, self._test_targets = _world(c.seed, c.items_per_tier, c.test_fraction)
        self.max_steps = c.max_steps
        self._spec: SynthTask | None = None
        self._targets: dict[str, int] = {}  # this agent's goal: item -> count to craft beyond its start
        self._origin: Counter[str] = Counter()  # the inventory this agent started with
        self._inventory: Counter[str] = Counter()
        self._read: dict[str, Recipe] = {}
        self._child: TextCraftSynthEnv | None = None  # the launched child, until it is joined
        self._report = ""  # the finish message (a sub-agent's report to its parent)

    def band_of(self, split: str) -> Band:
        return BANDS[self.config.ood_band if split == OOD_SPLIT else self.config.band]

    def targets_of(self, split: str) -> dict[int, tuple[str, ...]]:
        """Tier → the items that may be targets of ``split`` (train, or test for both eval splits)."""
        return self._train_targets if split == "train" else self._test_targets

    # -- episode --------------------------------------------------------------------------------
    def _start(self, task: Task) -> str:
        spec = make_task(self.world, self.targets_of(task.split), self.band_of(task.split), random.Random(task.seed))
        self._spec = spec
        self._begin({spec.target: spec.count}, Counter(spec.stock), self.config.max_steps)
        return (f"Goal: {self.goal}.\n"
                f"Your stock (base materials; nothing more can be got): {_describe(spec.stock)}.\n"
                + self._rules())

    def _begin(self, targets: dict[str, int], start: Counter[str], steps: int) -> None:
        self._targets, self._origin, self._inventory = dict(targets), Counter(start), Counter(start)
        self._read, self._child, self._report, self.max_steps = {}, None, "", steps

    def _rules(self) -> str:
        c = self.config
        wins = ", ".join(f"{n} {item}" for item, n in self._targets.items())
        return ("Recipes are hidden: 'info <item>, ...' gives each item's recipe and crafting depth.\n"
                f"Commands, up to {c.commands_per_step} a step separated by ';': info <item>, ...; "
                "craft <n> <item> from <k> <ingredient>, ... (n a multiple of the recipe's yield, each k what "
                "n/yield crafts use); inventory; finish.\n"
                f"You win by finishing with {wins} crafted. Steps: {self.max_steps}.")

    def _apply(self, command: str) -> Outcome:
        try:
            commands = parse_step(command, self.config.commands_per_step)
            inventory, lines, finished = self._run(commands)
        except CommandError as error:
            return self.invalid(str(error))
        self._inventory = inventory
        for step in commands:
            if isinstance(step, Info):
                self._read.update((n, self.world.recipes[n]) for n in step.items if n in self.world.recipes)
        won = finished and all(self.crafted(item) >= n for item, n in self._targets.items())
        return Outcome("\n".join(lines), won=won, finished=finished)

    def _run(self, commands: list[Command]) -> tuple[Counter[str], list[str], bool]:
        """Run ``commands`` on a copy of the inventory: ``(inventory, answers, finished)``, or
        ``CommandError`` naming the first command that fails (the step then changes nothing)."""
        inventory, lines = Counter(self._inventory), []
        for number, command in enumerate(commands, 1):
            try:
                if isinstance(command, Finish):
                    made = ", ".join(f"{max(0, inventory[i] - self._origin[i])} {i}" for i in self._targets)
                    lines.append(f"Finished with {made} crafted.")
                    self._report = command.message  # the step cannot fail after a finish
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

    def crafted(self, item: str | None = None) -> int:
        """How many of ``item`` (default: the task's target) the inventory holds beyond this agent's start."""
        self._require_started()
        item = item if item is not None else self._spec.target
        return self._inventory[item] - self._origin[item]

    # -- protocol ---------------------------------------------------------------------------------
    def admissible_actions(self) -> list[str]:
        return []  # free text: no finite list of commands

    @property
    def goal(self) -> str:
        self._require_started()
        return SubGoal(tuple(self._targets.items()), None, "").text

    @property
    def spec(self) -> SynthTask:
        """The task being played (for a child: its root's): target, count, depth, stock."""
        self._require_started()
        return self._spec

    @property
    def inventory(self) -> dict[str, int]:
        return {k: v for k, v in self._inventory.items() if v > 0}

    def _state(self) -> Any:
        # the open child is bookkeeping of the fork, like RecursiveEnv's own, not state of the world
        return (self._spec, dict(self._targets), Counter(self._origin), Counter(self._inventory), dict(self._read),
                self._report)

    def _set_state(self, state: Any) -> None:
        self._spec, targets, origin, inventory, read, self._report = state
        self._targets, self._origin, self._read = dict(targets), Counter(origin), dict(read)
        self._inventory = Counter(inventory)

    def state_key(self) -> tuple | None:
        """(goal, the inventory's non-zero counts): what crafting changes (recipes read are knowledge)."""
        if self._task is None:
            return None
        return (self.goal, tuple(sorted((k, v) for k, v in self._inventory.items() if v > 0)))

    def memory(self) -> str | None:
        """The inventory and every recipe this agent has read: the paper's agent keeps its whole history in
        context, so a prompt that keeps fewer turns (``agent.prompt.history_turns``) still holds what it read."""
        if self._task is None:
            return None
        read = "; ".join(self._read[name].line() for name in sorted(self._read))
        return f"inventory: {_describe(self._inventory) or 'empty'}" + (f"; recipes read: {read}" if read else "")

    def _expert_action(self) -> str:
        return expert_step(self._targets, self._origin, self._read, frozenset(self._spec.stock), self._inventory,
                           self.config.commands_per_step)

    # -- recursion ------------------------------------------------------------------------------
    def expert_delegations(self) -> list[str]:
        if self._task is None or self._done or self._child is not None:
            return []
        goal = delegation(self._targets, self._origin, self._read, frozenset(self._spec.stock), self._inventory,
                          self.config.expert_leaf_depth)
        return [goal] if goal is not None else []

    def _fork(self, goal: str) -> tuple[TextCraftSynthEnv, str]:
        if self._child is not None:
            raise ForkError("one sub-agent at a time (it shares your stock): launch the next after its report")
        sub = parse_subgoal(goal, self.world)
        most = self.config.max_steps
        if self.config.budget_mode == "shared":
            most = min(most, self.max_steps - self._steps - 1)
            if most < 1:
                raise ForkError("no steps left to give a sub-agent: you need your last step to finish")
        steps = sub.steps if sub.steps is not None else most
        if steps > most:
            raise ForkError(f"a sub-agent may get at most {most} steps, not {steps}")
        child = self._new_child(self._task)
        child._spec = self._spec
        child._begin(dict(sub.targets), Counter(self._inventory), steps)
        self._child = child
        context = f"Context from your parent: {sub.context}\n" if sub.context else ""
        return child, (f"Goal: {child.goal}.\n{context}"
                       f"Your stock (shared with your parent: what you use is gone for it too): "
                       f"{_describe(child._inventory) or 'empty'}.\n" + child._rules())

    def _join(self, child: TextCraftSynthEnv) -> str:
        before, after = self._inventory, Counter(child._inventory)
        self._inventory, self._child = after, None
        if self.config.budget_mode == "shared":
            self._steps += child._steps  # the child's subtree spent the parent's reserved steps
            self._done = self._done or self._steps >= self.max_steps
        change = {k: after[k] - before[k] for k in sorted(set(before) | set(after)) if after[k] != before[k]}
        parts = [f"{n:+d} {k}" for k, n in sorted(change.items(), key=lambda kv: (kv[1] < 0, kv[0]))]
        shown = ", ".join(parts[:12]) + (f", … ({len(parts) - 12} more)" if len(parts) > 12 else "")
        stock = f"stock changed: {shown}" if parts else "stock unchanged"
        return f"report: {child._report}; {stock}" if child._report else stock


def _describe(items: dict[str, int]) -> str:
    return ", ".join(f"{n} {name}" for name, n in sorted(items.items()) if n > 0)
