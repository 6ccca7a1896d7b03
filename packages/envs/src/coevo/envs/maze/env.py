"""The ``maze`` environment: walk a generated maze to a goal cell, with text observations.

A task is a ``size`` × ``size`` maze (``eval_out_of_distribution``: ``ood_size``, by default twice
``size``), a random start and the cell farthest from it as the goal. The first observation
describes the grid, draws the map (``show_map``; see ``render``), and states the goal
``reach (r, c)``; after each move the agent is told its cell and the open directions
(``You are at (2, 3). Open: north, west.``). Commands: ``go north|south|east|west``; the open
ones are admissible, a move into a wall is invalid and counts as a step. Reaching the goal wins.

Recursion. A parent delegates a waypoint, ``reach (r, c)`` (grammar in
``coevo.envs.maze.goals``); the child starts where the parent stands, with the parent's
remaining steps as its ``max_steps``, and is won when it reaches the waypoint. ``join(child)``
moves the parent to the child's final cell and adds the child's steps (its own children's
included) to the parent's, ending the parent's episode when that uses up its steps; it returns
``"moved to (r, c) in k steps ..."``. A child forked before the parent moved (two sub-routes
launched at once, joined one after the other) no longer starts where the parent stands: its
join changes nothing and says so. Joining never wins: the parent's own goal cannot be
delegated. The recursive oracle walks routes of at most ``expert_leaf_steps`` itself and
delegates the halfway cell of longer ones (``expert_delegations()``, one at a time);
``expert_action()`` is the next move of the shortest route.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from coevo.core import registry
from coevo.core.env.protocol import Task
from coevo.core.fields import bounded, random_seed
from coevo.envs.maze import render
from coevo.envs.maze.goals import GRAMMAR, check_subgoal, parse_goal
from coevo.envs.maze.grid import DIRECTIONS, Cell, Maze, farthest_cell, generate_maze
from coevo.envs.procedural import OOD_SPLIT, ood_knob
from coevo.envs.recursive import Outcome, RecursiveEnv


@registry.envs.register("maze")
class MazeEnv(RecursiveEnv):
    """Grid mazes walked with go north/south/east/west to a goal cell."""

    name = "maze"
    task_types = ("navigate",)
    invalid_observation = "Invalid action. Use 'go <direction>' with an open direction."
    goal_grammar = GRAMMAR

    @dataclass
    class Config:
        seed: int = random_seed(0)  # base seed; each task's seed derives from (split, index, seed)
        size: int = bounded(6, ge=2)  # cells per side in train and eval_in_distribution (a start and a goal)
        # cells per side in eval_out_of_distribution (more than size); 0: 2 x size
        ood_size: int = bounded(0, ge=0)
        show_map: bool = True  # draw the map in the first observation
        max_steps: int = bounded(0, ge=0)  # steps per episode; 0: twice the shortest route plus size
        expert_leaf_steps: int = bounded(4, ge=1)  # the recursive oracle walks routes at most this long itself
        eval_in_distribution_size: int = bounded(60, ge=1)  # tasks in split "eval_in_distribution"
        eval_out_of_distribution_size: int = bounded(60, ge=1)  # tasks in split "eval_out_of_distribution"

    def __init__(self, config: Config | None = None):
        super().__init__()
        self.config = c = config if config is not None else self.Config()
        if c.size < 2 or c.expert_leaf_steps < 1:
            raise ValueError("env.size must be at least 2 and env.expert_leaf_steps at least 1")
        self.ood_size = ood_knob("size", c.size, c.ood_size, 2 * c.size)
        self._maze: Maze | None = None
        self._start_cell: Cell = (0, 0)
        self._goal: Cell = (0, 0)
        self._at: Cell = (0, 0)
        self._to_goal: dict[Cell, int] = {}

    def size_of(self, split: str) -> int:
        """The difficulty knob's value for ``split``: cells per side."""
        return self.ood_size if split == OOD_SPLIT else self.config.size

    # -- episode --------------------------------------------------------------------------------
    def _start(self, task: Task) -> str:
        rng = random.Random(task.seed)
        size = self.size_of(task.split)
        maze = generate_maze(rng, size)
        start = (rng.randrange(size), rng.randrange(size))
        return self._begin(maze, start, farthest_cell(maze, start), max_steps=0)

    def _begin(self, maze: Maze, start: Cell, goal: Cell, max_steps: int) -> str:
        self._maze, self._start_cell, self._goal, self._at = maze, start, goal, start
        self._to_goal = maze.distances(goal)
        self.max_steps = max_steps or self.config.max_steps or 2 * self._to_goal[start] + maze.size
        last = maze.size - 1
        lines = [f"You are in a {maze.size}x{maze.size} maze: rows 0-{last} from north to south, "
                 f"columns 0-{last} from west to east."]
        if self.config.show_map:
            lines += ["Map (# wall, . floor, @ you, X goal):", render.draw(maze, start, goal)]
        lines += [f"Goal: {self.goal}.", render.position(maze, start),
                  "Actions: go north, go south, go east, go west."]
        return "\n".join(lines)

    def _apply(self, command: str) -> Outcome:
        verb, _, direction = command.lower().partition(" ")
        if verb != "go" or direction not in DIRECTIONS:
            return self.invalid(f"unknown command {command!r}")
        if direction not in self._maze.open_directions(self._at):
            return self.invalid(f"a wall blocks {direction} at {render.cell_text(self._at)}")
        self._at = self._maze.neighbour(self._at, direction)
        observation = render.position(self._maze, self._at)
        won = self._at == self._goal
        if won:
            observation += f" You reached {render.cell_text(self._goal)}."
        return Outcome(observation, won=won)

    def admissible_actions(self) -> list[str]:
        self._require_started()
        return [f"go {d}" for d in self._maze.open_directions(self._at)]

    @property
    def goal(self) -> str:
        return f"reach {render.cell_text(self._goal)}"

    @property
    def maze(self) -> Maze:
        self._require_started()
        return self._maze

    @property
    def position(self) -> Cell:
        return self._at

    @property
    def start(self) -> Cell:
        return self._start_cell

    @property
    def goal_cell(self) -> Cell:
        return self._goal

    def distance_to_goal(self) -> int:
        """Steps of the shortest route from the agent to its goal."""
        return self._to_goal[self._at]

    def _state(self) -> Any:
        return (self._maze, self._start_cell, self._goal, self._at, self._to_goal)

    def _set_state(self, state: Any) -> None:
        self._maze, self._start_cell, self._goal, self._at, self._to_goal = state

    def state_key(self) -> tuple | None:
        """(goal cell, the agent's cell): all that changes in a maze episode."""
        return (self._goal, self._at) if self._maze is not None else None

    def memory(self) -> str | None:
        if self._task is None:
            return None
        return f"at {render.cell_text(self._at)}; goal {render.cell_text(self._goal)}"

    # -- recursion ------------------------------------------------------------------------------
    def _fork(self, goal: str) -> tuple[MazeEnv, str]:
        waypoint = parse_goal(goal)
        check_subgoal(self.maze, self._at, self._goal, waypoint)
        child = self._new_child(self._task)
        return child, child._begin(self.maze, self._at, waypoint, max_steps=self.max_steps - self._steps)

    def _join(self, child: MazeEnv) -> str:
        if child.start != self._at:
            return (f"ignored: that sub-route started at {render.cell_text(child.start)}, "
                    f"but you are at {render.cell_text(self._at)} now")
        self._at = child.position
        self._steps += child.steps_taken
        reached = "reached" if child.won else f"{render.cell_text(child.goal_cell)} not reached"
        line = f"moved to {render.cell_text(self._at)} in {child.steps_taken} steps ({reached})"
        if self._steps >= self.max_steps:
            self._done = True
            line += "; no steps left"
        return line

    def expert_delegations(self) -> list[str]:
        if self._task is None or self._done:
            return []
        distance = self.distance_to_goal()
        if distance <= self.config.expert_leaf_steps:
            return []
        route = self._maze.route(self._at, self._goal, self._to_goal)
        return [f"reach {render.cell_text(route[(distance + 1) // 2])}"]

    def _expert_action(self) -> str:
        here = self._at
        if here == self._goal:  # put there by a join, which does not win: step off, then back
            return f"go {self._maze.open_directions(here)[0]}"
        return next(f"go {d}" for d in self._maze.open_directions(here)
                    if self._to_goal[self._maze.neighbour(here, d)] == self._to_goal[here] - 1)
