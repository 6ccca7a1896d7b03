"""coevo-core: the registry, policies, rollout engines, agent loop and algorithms of coevo."""

__version__ = "0.1.0"
