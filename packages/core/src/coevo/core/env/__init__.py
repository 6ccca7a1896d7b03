"""Environment protocol shared by every coevo environment."""

from coevo.core.env.protocol import Environment, StepResult, Task

__all__ = ["Environment", "StepResult", "Task"]
