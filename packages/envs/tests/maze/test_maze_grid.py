"""Mazes: spanning trees, routes, distances and the drawn map."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from coevo.envs.maze.grid import Maze, farthest_cell, generate_maze
from coevo.envs.maze.render import draw, position

# 2x2, open: (0,0)-(0,1), (0,1)-(1,1), (1,1)-(1,0): a U from top-left round to bottom-left
U = Maze(2, frozenset({((0, 0), (0, 1)), ((0, 1), (1, 1)), ((1, 0), (1, 1))}))


def test_hand_built_maze():
    assert U.open_directions((0, 1)) == ["south", "west"]
    assert U.distances((0, 0)) == {(0, 0): 0, (0, 1): 1, (1, 1): 2, (1, 0): 3}
    assert U.route((0, 0), (1, 0)) == [(0, 0), (0, 1), (1, 1), (1, 0)]
    assert farthest_cell(U, (0, 0)) == (1, 0)
    assert draw(U, (0, 0), (1, 0)) == "#####\n#@..#\n###.#\n#X..#\n#####"
    assert position(U, (1, 1)) == "You are at (1, 1). Open: north, west."


@settings(deadline=None, max_examples=60)
@given(seed=st.integers(0, 10**9), size=st.integers(2, 12))
def test_generated_mazes_are_spanning_trees(seed, size):
    maze = generate_maze(random.Random(seed), size)
    assert len(maze.passages) == size * size - 1
    assert len(maze.distances((0, 0))) == size * size  # connected, so a tree
    for a, b in maze.passages:
        assert maze.contains(a) and maze.contains(b) and abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1
    start, goal = (0, 0), (size - 1, size - 1)
    route = maze.route(start, goal)
    assert len(route) - 1 == maze.distances(start)[goal]
    assert all(maze.is_open(x, y) for x, y in zip(route, route[1:]))
