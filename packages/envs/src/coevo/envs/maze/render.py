"""Text of the ``maze`` environment: the map and the position lines.

The map has ``2 * size + 1`` lines of ``2 * size + 1`` characters: cell ``(r, c)`` is character
``2c + 1`` of line ``2r + 1``; ``#`` is a wall, ``.`` open floor, ``@`` the agent, ``X`` its goal.
"""

from __future__ import annotations

from coevo.envs.maze.grid import Cell, Maze


def draw(maze: Maze, you: Cell, goal: Cell) -> str:
    width = 2 * maze.size + 1
    grid = [["#"] * width for _ in range(width)]
    for r in range(maze.size):
        for c in range(maze.size):
            grid[2 * r + 1][2 * c + 1] = "."
    for (r1, c1), (r2, c2) in maze.passages:
        grid[r1 + r2 + 1][c1 + c2 + 1] = "."
    grid[2 * you[0] + 1][2 * you[1] + 1] = "@"
    grid[2 * goal[0] + 1][2 * goal[1] + 1] = "X"
    return "\n".join("".join(line) for line in grid)


def cell_text(cell: Cell) -> str:
    return f"({cell[0]}, {cell[1]})"


def position(maze: Maze, cell: Cell) -> str:
    """``You are at (2, 3). Open: north, west.``"""
    return f"You are at {cell_text(cell)}. Open: {', '.join(maze.open_directions(cell))}."
