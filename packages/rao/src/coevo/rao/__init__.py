"""coevo-rao: Recursive Agent Optimization — an agent that delegates sub-goals to copies of
itself on forked environments, trained with node-level credit and group-relative advantages."""

__version__ = "0.1.0"
