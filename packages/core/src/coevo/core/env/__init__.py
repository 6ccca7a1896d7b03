"""Environment protocol shared by every coevo environment."""

from coevo.core.env.protocol import Environment, ForkError, StepResult, Task

__all__ = ["Environment", "ForkError", "StepResult", "Task"]
