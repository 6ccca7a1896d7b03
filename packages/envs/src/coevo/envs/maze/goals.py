"""Sub-goals of ``maze``: ``reach (<row>, <column>)``, a waypoint for a child to walk to.

Grammar (case and spacing free; the parentheses are optional, ``go to`` means ``reach``)::

    reach (<row>, <column>)

The cell must lie in the maze, differ from where the agent stands, and not be the agent's own
goal (delegate a waypoint before it and make the last move yourself, so that the win is the
agent's own step). Otherwise ``ForkError`` says what is wrong.
"""

from __future__ import annotations

import re

from coevo.core.env.protocol import ForkError
from coevo.envs.maze.grid import Cell, Maze
from coevo.envs.maze.render import cell_text
from coevo.envs.recursive import goal_int

GRAMMAR = "'reach (<row>, <column>)', a waypoint on your way, e.g. 'reach (2, 3)'"

_GOAL = re.compile(r"^(?:reach|go\s+to)\s*\(?\s*(\d+)\s*,\s*(\d+)\s*\)?$")


def parse_goal(text: str) -> Cell:
    match = _GOAL.match(" ".join(text.lower().split()))
    if match is None:
        raise ForkError(f"malformed goal {text!r}; expected {GRAMMAR}")
    return goal_int(match.group(1), "the row"), goal_int(match.group(2), "the column")


def check_subgoal(maze: Maze, here: Cell, goal: Cell, waypoint: Cell) -> None:
    if not maze.contains(waypoint):
        last = maze.size - 1
        raise ForkError(f"{cell_text(waypoint)} is outside the maze (rows and columns 0-{last})")
    if waypoint == here:
        raise ForkError(f"you are already at {cell_text(waypoint)}")
    if waypoint == goal:
        raise ForkError(
            f"{cell_text(waypoint)} is your own goal; delegate a waypoint before it and make the last move yourself"
        )
