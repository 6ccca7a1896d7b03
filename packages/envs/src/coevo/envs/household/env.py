"""The ``household`` environment: ALFWorld-like rooms, generated procedurally, in pure Python.

Each task is a room with numbered receptacles and objects and one of ALFWorld's six task types,
played with ALFWorld's command grammar and wording (json_2.1.1: ``put X in/on Y``), so that a
policy trained here can be evaluated on real ALFWorld. Steps take microseconds
(``python -m coevo.envs.household`` measures them). Difficulty is set by ``HouseholdEnv.Config``;
the defaults are small enough for a ~3M-parameter model to learn in minutes on a CPU.

With the oracle's search, a task needs at most about ``2 * num_receptacles + 7`` steps; keep
``max_steps`` at least that when raising ``num_receptacles``.

``scale=alfworld`` plays rooms of ALFWorld's size and vocabulary instead (``alfworld_rooms``): the
real games' object and receptacle kinds, room types and room sizes, every openable closed, and
ALFWorld's 50-step limit; the room knobs and ``max_steps`` then keep their defaults (a changed one
is refused, naming it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from coevo.core import registry
from coevo.core.env.protocol import StepResult, Task
from coevo.core.fields import bounded, choice, random_seed
from coevo.envs.household import vocabulary, wording
from coevo.envs.household.alfworld_rooms import generate_alfworld_world
from coevo.envs.household.catalog import TASK_TYPES, task_type_label
from coevo.envs.household.commands import admissible_commands, apply_command
from coevo.envs.household.common_sense import SCALES
from coevo.envs.household.generation import generate_world
from coevo.envs.household.goals import is_goal_met
from coevo.envs.household.oracle import ObservableOracle
from coevo.envs.household.world import World
from coevo.envs.procedural import ProceduralEnv

EVAL_SPLITS = ("eval_in_distribution", "eval_out_of_distribution")
SCALE_NAMES = tuple(SCALES)  # ("small", "alfworld")
# the knobs that shape a small-scale room; at scale alfworld a changed one is refused, not ignored
SMALL_SCALE_KNOBS = ("num_receptacles", "max_per_kind", "num_objects", "closed_fraction", "usual_place_prob",
                     "max_steps")


def _default_task_types() -> list[str]:
    return ["pick_and_place_simple", "pick_clean_then_place_in_recep", "pick_heat_then_place_in_recep"]


@registry.envs.register("household")
class HouseholdEnv(ProceduralEnv):
    """Procedurally generated ALFWorld-like household tasks with an observable oracle."""

    name = "household"
    task_types = TASK_TYPES

    @classmethod
    def task_type_label(cls, task_type: str) -> str:
        return task_type_label(task_type)

    @dataclass
    class Config:
        seed: int = random_seed(0)  # base seed; each task's seed is derived from (split, index, seed)
        # "small": rooms set by the knobs below; "alfworld": ALFWorld's vocabulary, room types and
        # sizes (6-54 receptacles, as the real games), all openables closed, 50 steps (the room knobs
        # below and max_steps must then keep their defaults)
        scale: str = choice("small", SCALE_NAMES)
        task_types: list[str] = choice(_default_task_types, TASK_TYPES, length=(1, None))  # round-robin by index
        # receptacles per room (the task's needs included: target, appliance, lamp holder, hideout)
        num_receptacles: int = bounded(6, ge=4)
        max_per_kind: int = bounded(2, ge=1)  # at most this many receptacles of one kind (cabinet 1, cabinet 2)
        num_objects: int = bounded(2, ge=0)  # distractor objects besides the goal object(s)
        closed_fraction: float = bounded(0.5, ge=0, le=1)  # chance an openable receptacle starts closed (ALFWorld: 1.0)
        usual_place_prob: float = bounded(0.75, ge=0, le=1)  # chance an object starts where its kind is usually kept
        goal_variants: bool = True  # use both of ALFWorld's phrasings per task type (else the first)
        max_steps: int = bounded(20, ge=1)  # episode ends unsuccessfully after this many steps (scale alfworld: 50)
        eval_in_distribution_size: int = bounded(60, ge=1)  # tasks in split "eval_in_distribution"
        eval_out_of_distribution_size: int = bounded(60, ge=1)  # tasks in split "eval_out_of_distribution"

    def __init__(self, config: Config | None = None):
        self.config = config if config is not None else self.Config()
        unknown = [t for t in self.config.task_types if t not in TASK_TYPES]
        if unknown or not self.config.task_types:
            raise ValueError(f"task_types must be a non-empty subset of {list(TASK_TYPES)}; got {unknown}")
        if self.config.num_receptacles < 4:
            raise ValueError("num_receptacles must be at least 4 (target, appliance, lamp holder, hideout)")
        self._alfworld = self.config.scale == "alfworld"
        if self._alfworld:  # the real games' rooms and step limit: the small scale's knobs would be ignored
            defaults = self.Config()
            changed = [k for k in SMALL_SCALE_KNOBS if getattr(self.config, k) != getattr(defaults, k)]
            if changed:
                raise ValueError(f"env.{changed[0]}={getattr(self.config, changed[0])}: not used at env.scale=alfworld "
                                 f"(rooms follow the real games' sizes and kinds, {vocabulary.MAX_STEPS} steps); "
                                 f"remove it, or use env.scale=small")
        self.max_steps = vocabulary.MAX_STEPS if self._alfworld else self.config.max_steps
        self._common_sense = SCALES[self.config.scale]
        self._world: World | None = None
        self._oracle = ObservableOracle(common_sense=self._common_sense)
        self._admissible: list[str] | None = None  # cache for the current state
        self._steps = 0
        self._done = False
        self._task: Task | None = None

    # -- tasks (splits and seeds: ProceduralEnv) -------------------------------------------------
    def task_type_at(self, index: int) -> str:
        """Round-robin over the configured task types, so consecutive tasks cover every type."""
        return self.config.task_types[index % len(self.config.task_types)]

    # -- episode --------------------------------------------------------------------------------
    def reset(self, task: Task) -> str:
        c = self.config
        if self._alfworld:
            self._world = generate_alfworld_world(
                task.task_type, task.split, task.seed, max_steps=self.max_steps, goal_variants=c.goal_variants
            )
        else:
            self._world = self._generate_small(task)
        self._task = task
        self._steps = 0
        self._done = False
        self._admissible = None
        observation = wording.intro(self._world)
        self._oracle.observe(observation)
        return observation

    def _generate_small(self, task: Task) -> World:
        c = self.config
        return generate_world(
            task.task_type,
            task.split,
            task.seed,
            num_receptacles=c.num_receptacles,
            max_per_kind=c.max_per_kind,
            num_objects=c.num_objects,
            closed_fraction=c.closed_fraction,
            usual_place_prob=c.usual_place_prob,
            goal_variants=c.goal_variants,
        )

    def step(self, action: str) -> StepResult:
        world = self._require_world()
        if self._done:
            return StepResult(
                self.invalid_observation, 0.0, done=True, invalid=True, info={"steps": self._steps}
            )
        self._steps += 1
        command = " ".join(action.lower().split())
        invalid = command not in self.admissible_actions()
        if invalid:
            observation = self.invalid_observation
        else:
            observation = apply_command(world, command)
            self._admissible = None
            self._oracle.observe(observation)
        won = not invalid and is_goal_met(world)
        self._done = won or self._steps >= self.max_steps
        info = {"steps": self._steps}
        return StepResult(
            observation, 1.0 if won else 0.0, done=self._done, won=won, invalid=invalid, info=info
        )

    def admissible_actions(self) -> list[str]:
        if self._admissible is None:
            self._admissible = admissible_commands(self._require_world())
        return list(self._admissible)

    @property
    def goal(self) -> str:
        return self._require_world().layout.goal.sentence

    @property
    def done(self) -> bool:
        return self._done

    @property
    def steps_taken(self) -> int:
        return self._steps

    def snapshot(self) -> Any:
        world = self._require_world()
        return (
            world.layout,
            world.snapshot(),
            self._oracle.memory.copy(),
            self._steps,
            self._done,
            self._task,
        )

    def restore(self, snapshot: Any) -> None:
        layout, world_state, memory, self._steps, self._done, self._task = snapshot
        if self._world is None or self._world.layout is not layout:
            self._world = World(layout=layout, contents={}, opened=set())
        self._world.restore(world_state)
        self._oracle = ObservableOracle(memory.copy(), common_sense=self._common_sense)
        self._admissible = None

    # -- helpers --------------------------------------------------------------------------------
    def state_key(self) -> tuple | None:
        """The world's state (``World.key``: contents, open receptacles, object states, the agent's
        place and hand, the lamp); the step count and what the agent has seen are not part of it."""
        return self._world.key() if self._world is not None else None

    def memory(self) -> str | None:
        return self._oracle.memory.render()

    def expert_action(self) -> str | None:
        if self._world is None or self._done:
            return None
        return self._oracle.act(self.admissible_actions())

    def _require_world(self) -> World:
        if self._world is None:
            raise RuntimeError("call reset(task) before stepping the household environment")
        return self._world
