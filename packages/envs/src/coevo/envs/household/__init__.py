"""household: procedurally generated ALFWorld-like rooms with ALFWorld's grammar and wording.

``HouseholdEnv`` (registered as ``"household"``) is the environment; ``ObservableOracle`` is the
expert that acts only on observations; ``ObservationMemory`` is the compact memory line.
"""

from coevo.envs.household.env import HouseholdEnv
from coevo.envs.household.observation_memory import ObservationMemory
from coevo.envs.household.oracle import ObservableOracle

__all__ = ["HouseholdEnv", "ObservableOracle", "ObservationMemory"]
