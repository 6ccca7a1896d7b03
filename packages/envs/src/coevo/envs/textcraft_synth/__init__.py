"""textcraft_synth: TextCraft-Synth (the RAO paper's benchmark) with hidden recipes and a finite stock.

``TextCraftSynthEnv`` (registered as ``"textcraft_synth"``) is the environment; ``world``
generates the recipe database, ``bands`` the difficulty bands, ``tasks`` the disjoint target
splits and the stocked tasks, ``planner`` what a target still needs, ``commands`` the text
commands, ``expert`` the planner that reads recipes like an agent.
"""

from coevo.envs.textcraft_synth.env import TextCraftSynthEnv

__all__ = ["TextCraftSynthEnv"]
