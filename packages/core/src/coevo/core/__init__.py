"""coevo-core: the registry, policies, rollout engines, agent loop and algorithms of coevo."""

from coevo.core.openmp import prefer_sleeping_threads

prefer_sleeping_threads()  # before torch loads OpenMP: waiting threads sleep instead of spinning

__version__ = "0.1.0"
