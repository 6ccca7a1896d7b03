"""maze: walk generated grid mazes to a goal cell, delegating waypoints.

``MazeEnv`` (registered as ``"maze"``) is the environment; ``grid`` generates mazes and finds
routes, ``render`` writes the map, ``goals`` the sub-goal grammar.
"""

from coevo.envs.maze.env import MazeEnv

__all__ = ["MazeEnv"]
