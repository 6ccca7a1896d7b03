"""MazeEnv.state_key: goal and the agent's cell, whatever route led there."""

from coevo.envs.maze.env import MazeEnv
from coevo.envs.maze.grid import Maze

# 2x2 ring: (0,0)-(0,1), (0,0)-(1,0), (0,1)-(1,1), (1,0)-(1,1): two routes from (0,0) to (1,1)
RING = Maze(2, frozenset({((0, 0), (0, 1)), ((0, 0), (1, 0)), ((0, 1), (1, 1)), ((1, 0), (1, 1))}))


def _ring() -> MazeEnv:
    env = MazeEnv(MazeEnv.Config())
    env.reset(env.task("train", 0))
    env._begin(RING, (0, 0), (1, 1), max_steps=10)
    return env


def test_same_cell_by_two_routes_same_key():
    assert MazeEnv(MazeEnv.Config()).state_key() is None  # before any reset
    a, b = _ring(), _ring()
    start = a.state_key()
    a.step("go east")
    assert a.state_key() != start
    a.step("go west")
    assert a.state_key() == start  # back at the start: the same state
    a.step("go east")
    b.step("go south")
    assert a.state_key() != b.state_key()
    a.step("go south")
    b.step("go east")
    assert a.state_key() == b.state_key() == ((1, 1), (1, 1))
