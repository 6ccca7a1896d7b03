"""The ``alfworld`` environment: the real ALFWorld games (TextWorld, json_2.1.1) behind coevo's protocol.

Tasks are the games of ``$ALFWORLD_DATA`` (or ``env.data_dir``): ``train`` (ALFWorld's train),
``eval_in_distribution`` (``valid_seen``) and ``eval_out_of_distribution`` (``valid_unseen``,
when present), indexed deterministically (see ``games``); a task's type comes from the game's
``traj_data.json``. The observations, the admissible commands, ``won`` (reward 1) and the
expert plan are the engine's own (see ``engine``); "Nothing happens." answers an inadmissible
command, as in ALFWorld, and the episode ends unsuccessfully after ``max_steps`` steps (50, as
in ALFWorld). The protocol is household's, so a policy trained there plays here unchanged:
``goal`` is the "Your task is to: ..." sentence, ``memory()`` is household's observation-only
memory line, and ``snapshot()``/``restore()`` replay the admissible commands played so far
(the engine cannot copy its state; resets of a game are memoised, so a replay costs ~0.1 s plus
~0.05 s per command).

Needs the ``alfworld`` extra (``pip install 'coevo-envs[alfworld]'``); without it, building the
environment raises ``AlfworldNotInstalled`` with that advice, and nothing else is affected.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from coevo.core import registry
from coevo.core.env.protocol import Environment, StepResult, Task
from coevo.core.fields import bounded, choice
from coevo.core.fields import path as path_field
from coevo.envs.alfworld.engine import AlfworldEngine, require_alfworld
from coevo.envs.alfworld.games import Game, resolve_data_dir, split_games
from coevo.envs.household.catalog import TASK_TYPES, task_type_label
from coevo.envs.household.observation_memory import ObservationMemory

_GOAL = re.compile(r"Your task is to: (.+?)\.?\s*$", re.M)


def _all_task_types() -> list[str]:
    return list(TASK_TYPES)


@dataclass(frozen=True)
class AlfworldSnapshot:
    """What ``restore`` needs: the task, the admissible commands played, and the episode counters."""

    task: Task
    commands: tuple[str, ...]
    steps: int
    done: bool
    won: bool
    observation: str
    memory: ObservationMemory


@registry.envs.register("alfworld")
class AlfworldEnv(Environment):
    """The real ALFWorld text games (json_2.1.1) played by ALFWorld's TextWorld engine."""

    name = "alfworld"
    task_types = TASK_TYPES

    @classmethod
    def task_type_label(cls, task_type: str) -> str:
        return task_type_label(task_type)

    @dataclass
    class Config:
        # folder holding json_2.1.1/ (ALFWorld's $ALFWORLD_DATA); empty: $ALFWORLD_DATA
        data_dir: str = path_field("", empty="$ALFWORLD_DATA")
        task_types: list[str] = choice(_all_task_types, TASK_TYPES, length=(1, None))  # games of these types only
        # the episode ends unsuccessfully after this many steps (ALFWorld: 50)
        max_steps: int = bounded(50, ge=1)

    def __init__(self, config: Config | None = None):
        self.config = config if config is not None else self.Config()
        unknown = [t for t in self.config.task_types if t not in TASK_TYPES]
        if unknown or not self.config.task_types:
            raise ValueError(f"task_types must be a non-empty subset of {list(TASK_TYPES)}; got {unknown}")
        if self.config.max_steps < 1:
            raise ValueError(f"max_steps must be at least 1; got {self.config.max_steps}")
        require_alfworld()
        self.root: Path = resolve_data_dir(self.config.data_dir)
        self.max_steps = self.config.max_steps
        self._engine: AlfworldEngine | None = None  # started on the first reset
        self._task: Task | None = None
        self._commands: list[str] = []  # the admissible commands played this episode, in order
        self._observation = ""
        self._goal = ""
        self._memory = ObservationMemory()
        self._steps = 0
        self._done = False
        self._won = False
        self._plan: tuple[int, list[str]] | None = None  # (len(commands) it was made at, plan)

    # -- tasks ----------------------------------------------------------------------------------
    def games(self, split: str) -> list[Game]:
        """The games of ``split``, in task-index order."""
        return split_games(self.root, split, self.config.task_types)

    def num_tasks(self, split: str) -> int | None:
        return len(self.games(split))

    def task(self, split: str, index: int) -> Task:
        games = self.games(split)
        if not 0 <= index < len(games):
            raise IndexError(f"task index {index} out of range for split {split!r} of size {len(games)}")
        return Task(env=self.name, split=split, index=index, task_type=games[index].task_type, seed=0)

    def game(self, task: Task) -> Game:
        """The game ``task`` plays."""
        game = self.games(task.split)[task.index]
        if game.task_type != task.task_type:
            raise ValueError(f"task {task.task_id} is a {task.task_type} task, but that game is a {game.task_type}")
        return game

    # -- episode --------------------------------------------------------------------------------
    def reset(self, task: Task) -> str:
        self._start(task)
        return self._observation

    def step(self, action: str) -> StepResult:
        engine = self._require_engine()
        if self._done:
            return StepResult(self.invalid_observation, 0.0, done=True, invalid=True, info={"steps": self._steps})
        self._steps += 1
        command = " ".join(action.lower().split())
        invalid = command not in engine.admissible_commands
        if invalid:
            observation = self.invalid_observation
        else:
            observation = engine.step(command)
            self._commands.append(command)
            self._memory.observe(observation)
            self._won = engine.won
        self._observation = observation
        won = not invalid and self._won
        self._done = won or self._steps >= self.max_steps
        return StepResult(
            observation, 1.0 if won else 0.0, done=self._done, won=won, invalid=invalid, info={"steps": self._steps}
        )

    def admissible_actions(self) -> list[str]:
        return self._require_engine().admissible_commands

    @property
    def goal(self) -> str:
        self._require_engine()
        return self._goal

    @property
    def done(self) -> bool:
        return self._done

    @property
    def steps_taken(self) -> int:
        return self._steps

    def snapshot(self) -> AlfworldSnapshot:
        self._require_engine()
        assert self._task is not None
        return AlfworldSnapshot(
            self._task, tuple(self._commands), self._steps, self._done, self._won, self._observation, self._memory.copy()
        )

    def restore(self, snapshot: Any) -> None:
        if not isinstance(snapshot, AlfworldSnapshot):
            raise TypeError(f"not an alfworld snapshot: {type(snapshot).__name__}")
        played = tuple(self._commands)
        if self._task != snapshot.task or played != snapshot.commands[: len(played)]:
            self._start(snapshot.task)  # replay from the initial state
            played = ()
        engine = self._require_engine()
        for command in snapshot.commands[len(played) :]:
            if command not in engine.admissible_commands:
                raise RuntimeError(f"replaying {snapshot.task.task_id} diverged at {command!r}")
            engine.step(command)
            self._commands.append(command)
        self._steps, self._done, self._won = snapshot.steps, snapshot.done, snapshot.won
        self._observation = snapshot.observation
        self._memory = snapshot.memory.copy()
        self._plan = None

    # -- helpers --------------------------------------------------------------------------------
    def state_key(self) -> None:
        """None: no key of the world's state. The engine is started without TextWorld's facts
        (``EnvInfos(facts=True)`` would build them on every step of every game), and the feedback
        text is not a state (it repeats for different worlds, e.g. "Nothing happens."). GiGPO then
        falls back to episode-level advantages here."""
        return None

    def memory(self) -> str | None:
        return self._memory.render()

    def expert_action(self) -> str | None:
        """The next command of ALFWorld's planner expert ("look" when it finds no plan)."""
        if self._engine is None or self._task is None or self._done:
            return None
        if self._plan is None or self._plan[0] != len(self._commands):
            self._plan = (len(self._commands), self._engine.plan())
        plan = self._plan[1]
        if plan and plan[0] in self._engine.admissible_commands:
            return plan[0]
        return "look"

    def close(self) -> None:
        if self._engine is not None:
            self._engine.close()
            self._engine = None
        self._task = None

    def _start(self, task: Task) -> None:
        game = self.game(task)
        if self._engine is None:
            self._engine = AlfworldEngine()
        self._observation = self._engine.reset(game.path)
        match = _GOAL.search(self._observation)
        self._goal = match.group(1) if match else ""
        self._task = task
        self._commands = []
        self._memory = ObservationMemory()
        self._memory.observe(self._observation)
        self._steps, self._done, self._won = 0, False, False
        self._plan = None

    def _require_engine(self) -> AlfworldEngine:
        if self._engine is None or self._task is None:
            raise RuntimeError("call reset(task) before stepping the alfworld environment")
        return self._engine
