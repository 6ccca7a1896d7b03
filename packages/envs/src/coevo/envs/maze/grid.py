"""Generated mazes: a square grid of cells joined by passages, with routes and distances.

Cells are ``(row, column)``, row 0 in the north and column 0 in the west. A maze is a uniform
random spanning tree of the grid (randomized Kruskal), so every two cells are joined by exactly
one route.
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass

Cell = tuple[int, int]
#: moves in the order they are listed everywhere
DIRECTIONS: dict[str, tuple[int, int]] = {"north": (-1, 0), "south": (1, 0), "east": (0, 1), "west": (0, -1)}


@dataclass(frozen=True)
class Maze:
    size: int
    passages: frozenset[tuple[Cell, Cell]]  # open walls, each as (lower cell, higher cell)

    def contains(self, cell: Cell) -> bool:
        return 0 <= cell[0] < self.size and 0 <= cell[1] < self.size

    def is_open(self, a: Cell, b: Cell) -> bool:
        return (min(a, b), max(a, b)) in self.passages

    def neighbour(self, cell: Cell, direction: str) -> Cell:
        dr, dc = DIRECTIONS[direction]
        return (cell[0] + dr, cell[1] + dc)

    def open_directions(self, cell: Cell) -> list[str]:
        return [d for d in DIRECTIONS if self.is_open(cell, self.neighbour(cell, d))]

    def distances(self, origin: Cell) -> dict[Cell, int]:
        """Steps from ``origin`` to every cell (breadth first)."""
        seen, queue = {origin: 0}, deque([origin])
        while queue:
            cell = queue.popleft()
            for direction in self.open_directions(cell):
                nxt = self.neighbour(cell, direction)
                if nxt not in seen:
                    seen[nxt] = seen[cell] + 1
                    queue.append(nxt)
        return seen

    def route(self, start: Cell, goal: Cell, to_goal: dict[Cell, int] | None = None) -> list[Cell]:
        """The cells from ``start`` to ``goal``, both included (``to_goal``: ``distances(goal)``)."""
        to_goal = to_goal if to_goal is not None else self.distances(goal)
        cells = [start]
        while cells[-1] != goal:
            here = cells[-1]
            cells.append(next(self.neighbour(here, d) for d in self.open_directions(here)
                              if to_goal[self.neighbour(here, d)] == to_goal[here] - 1))
        return cells


def generate_maze(rng: random.Random, size: int) -> Maze:
    """A random spanning tree of the ``size`` × ``size`` grid."""
    cells = [(r, c) for r in range(size) for c in range(size)]
    walls = [((r, c), (r + dr, c + dc)) for r, c in cells for dr, dc in ((1, 0), (0, 1))
             if r + dr < size and c + dc < size]
    rng.shuffle(walls)
    parent = {cell: cell for cell in cells}

    def root(cell: Cell) -> Cell:
        while parent[cell] != cell:
            parent[cell] = parent[parent[cell]]
            cell = parent[cell]
        return cell

    passages = set()
    for a, b in walls:
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[ra] = rb
            passages.add((a, b))
    return Maze(size, frozenset(passages))


def farthest_cell(maze: Maze, origin: Cell) -> Cell:
    """The cell farthest from ``origin`` (the first in reading order on a tie)."""
    distances = maze.distances(origin)
    return min(distances, key=lambda cell: (-distances[cell], cell))
