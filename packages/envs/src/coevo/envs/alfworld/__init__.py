"""alfworld: the real ALFWorld text games (json_2.1.1, TextWorld engine) as a coevo environment.

``AlfworldEnv`` (registered as ``"alfworld"``) plays the games of ``$ALFWORLD_DATA`` with the
household protocol and wording, so a household-trained policy is evaluated on it unchanged
(``make eval ARGS="checkpoint=runs/<run> env=alfworld"``). Importing this package does not
import ``alfworld``: the ``alfworld`` extra (``pip install 'coevo-envs[alfworld]'``) is needed
only to build the environment.
"""

from coevo.envs.alfworld.engine import AlfworldNotInstalled
from coevo.envs.alfworld.env import AlfworldEnv

__all__ = ["AlfworldEnv", "AlfworldNotInstalled"]
