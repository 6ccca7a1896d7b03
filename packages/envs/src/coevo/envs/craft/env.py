"""The ``craft`` environment: TextCraft-like hierarchical crafting from a generated recipe book.

A task is a recipe book whose target is ``depth`` crafts deep (``eval_out_of_distribution``:
``ood_depth``, by default twice ``depth``), and the goal ``craft 1 <target>``. The first
observation lists the recipes (``2 copper gear = 1 copper ingot + 1 coal``: one craft uses the
right-hand side and makes two) and the base items. Commands (all admissible ones are listed):

- ``get <n> <base item>`` with ``n`` from 1 to ``max_get``;
- ``craft <item>``: one craft of its recipe, admissible when the ingredients are held;
- ``inventory``.

The episode is won as soon as the inventory holds the goal's count of its item. Anything else
is invalid (``info["error"]`` says why) and counts as a step.

Recursion. A parent delegates a crafted ingredient, ``craft <n> <item>`` (grammar in
``coevo.envs.craft.goals``); the child starts with an empty inventory and the recipes of that
item only, and is won once it holds ``n`` of it. ``join(child)`` moves the child's whole
inventory (what it crafted and any leftovers) into the parent's and returns ``"received 2
copper gear, 1 coal"``. The recursive oracle delegates every crafted ingredient of its goal's
recipe that it lacks (``expert_delegations()``), then gets the base items and crafts;
``expert_action()`` is the flat oracle's next command from the current inventory.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import Any

from coevo.core import registry
from coevo.core.env.protocol import Task
from coevo.core.fields import bounded, random_seed
from coevo.envs.craft.goals import GRAMMAR, check_subgoal, parse_goal
from coevo.envs.craft.planner import delegations, next_action, plan_length
from coevo.envs.craft.recipes import RecipeBook, generate_book
from coevo.envs.procedural import OOD_SPLIT, ood_knob
from coevo.envs.recursive import Outcome, RecursiveEnv, small_int


@registry.envs.register("craft")
class CraftEnv(RecursiveEnv):
    """Crafting an item from a generated recipe book, getting base items and crafting upwards."""

    name = "craft"
    task_types = ("craft",)
    invalid_observation = "Invalid action. Use 'get <n> <base item>', 'craft <item>' or 'inventory'."
    goal_grammar = GRAMMAR

    @dataclass
    class Config:
        seed: int = random_seed(0)  # base seed; each task's seed derives from (split, index, seed)
        depth: int = bounded(3, ge=1)  # crafts from base items to the target in train and eval_in_distribution
        ood_depth: int = bounded(0, ge=0)  # depth in eval_out_of_distribution (more than depth); 0: 2 x depth
        max_get: int = bounded(5, ge=1)  # most base items one 'get' takes
        max_steps: int = bounded(0, ge=0)  # steps per episode (each agent); 0: twice the flat oracle's, plus 5
        eval_in_distribution_size: int = bounded(60, ge=1)  # tasks in split "eval_in_distribution"
        eval_out_of_distribution_size: int = bounded(60, ge=1)  # tasks in split "eval_out_of_distribution"

    def __init__(self, config: Config | None = None):
        super().__init__()
        self.config = c = config if config is not None else self.Config()
        if c.depth < 1 or c.max_get < 1:
            raise ValueError("env.depth and env.max_get must be at least 1")
        self.ood_depth = ood_knob("depth", c.depth, c.ood_depth, 2 * c.depth)
        self._book: RecipeBook | None = None
        self._goal: tuple[int, str] = (1, "")
        self._inventory: Counter[str] = Counter()

    def depth_of(self, split: str) -> int:
        """The difficulty knob's value for ``split``: crafts from base items to the target."""
        return self.ood_depth if split == OOD_SPLIT else self.config.depth

    # -- episode --------------------------------------------------------------------------------
    def _start(self, task: Task) -> str:
        book, target = generate_book(random.Random(task.seed), self.depth_of(task.split))
        return self._begin(book, 1, target)

    def _begin(self, book: RecipeBook, count: int, item: str) -> str:
        self._book, self._goal, self._inventory = book, (count, item), Counter()
        steps = plan_length(book, item, count, self._inventory, self.config.max_get)
        self.max_steps = self.config.max_steps or 2 * steps + 5
        return (
            f"Goal: {self.goal}.\nRecipes (one craft uses the right side and makes the left):\n{book.describe()}\n"
            f"Base items (get up to {self.config.max_get} at a time): {', '.join(book.base)}.\n"
            "Actions: get <n> <base item>, craft <item>, inventory."
        )

    def _apply(self, command: str) -> Outcome:
        book, command = self.book, command.lower()
        verb, _, rest = command.partition(" ")
        if command == "inventory":
            return self._outcome(f"Inventory: {self._describe(self._inventory) or 'empty'}.")
        if verb == "get":
            count, _, item = rest.partition(" ")
            if not book.is_base(item):
                why = "crafted; craft it" if item in book.levels else "not an item of your recipes"
                return self.invalid(f"{item!r} is not a base item ({why})")
            number = small_int(count)
            if number is None or not 1 <= number <= self.config.max_get:
                return self.invalid(f"get takes a count from 1 to {self.config.max_get}")
            self._inventory[item] += number
            return self._outcome(f"Got {count} {item}.")
        if verb == "craft":
            recipe = book.by_item.get(rest)
            if recipe is None:
                return self.invalid(f"no recipe makes {rest!r}")
            lacking = {n: c - self._inventory[n] for n, c in recipe.ingredients if self._inventory[n] < c}
            if lacking:
                return self.invalid(f"crafting {rest} needs {self._describe(lacking)} more")
            for name, n in recipe.ingredients:
                self._inventory[name] -= n
            self._inventory[rest] += recipe.makes
            return self._outcome(f"Crafted {recipe.makes} {rest}.")
        return self.invalid(f"unknown command {command!r}")

    def _outcome(self, observation: str) -> Outcome:
        count, item = self._goal
        return Outcome(observation, won=self._inventory[item] >= count)

    def admissible_actions(self) -> list[str]:
        book = self.book
        gets = [f"get {n} {b}" for b in book.base for n in range(1, self.config.max_get + 1)]
        crafts = [
            f"craft {r.item}" for r in book.recipes if all(self._inventory[n] >= c for n, c in r.ingredients)
        ]
        return ["inventory", *gets, *crafts]

    @property
    def goal(self) -> str:
        count, item = self._goal
        return f"craft {count} {item}"

    @property
    def book(self) -> RecipeBook:
        self._require_started()
        return self._book

    @property
    def inventory(self) -> dict[str, int]:
        """A copy of what the agent holds."""
        return {k: v for k, v in self._inventory.items() if v > 0}

    def _state(self) -> Any:
        return (self._book, self._goal, Counter(self._inventory))

    def _set_state(self, state: Any) -> None:
        self._book, self._goal, inventory = state
        self._inventory = Counter(inventory)

    def state_key(self) -> tuple | None:
        """(goal, the inventory's non-zero counts, sorted): all that changes in a craft episode."""
        if self._task is None:
            return None
        return (self._goal, tuple(sorted((k, v) for k, v in self._inventory.items() if v > 0)))

    def memory(self) -> str | None:
        return f"inventory: {self._describe(self._inventory) or 'empty'}" if self._task is not None else None

    @staticmethod
    def _describe(items: dict[str, int]) -> str:
        return ", ".join(f"{n} {name}" for name, n in sorted(items.items()) if n > 0)

    # -- recursion ------------------------------------------------------------------------------
    def _fork(self, goal: str) -> tuple[CraftEnv, str]:
        count, item = parse_goal(goal, self.book)
        check_subgoal(self.book, self._goal[1], self._goal[0], count, item)
        child = self._new_child(self._task)
        return child, child._begin(self.book.closure(item), count, item)

    def _join(self, child: CraftEnv) -> str:
        received = child.inventory
        self._inventory.update(received)
        child._inventory.clear()
        return f"received {self._describe(received)}" if received else "received nothing"

    def expert_delegations(self) -> list[str]:
        if self._task is None or self._done:
            return []
        count, item = self._goal
        return [f"craft {n} {name}" for n, name in delegations(self.book, item, count, self._inventory)]

    def _expert_action(self) -> str:
        count, item = self._goal
        action = next_action(self.book, item, count, self._inventory, self.config.max_get)
        return action if action is not None else "inventory"
