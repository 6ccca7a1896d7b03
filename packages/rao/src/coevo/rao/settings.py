"""Settings of the recursion machinery (``algo.recursion.*``): delegation, budgets, execution.

They are shared by the training rollouts, the evaluation, the oracle demonstrations of the warm
start and the benchmark; each class checks its own values and names the key on an error.
"""

from __future__ import annotations

from dataclasses import dataclass, field

CONTEXTS = ("goal", "ancestors")
BUDGET_MODES = ("per_agent", "shared")
SCHEDULES = ("batched", "sequential")
OPTIONS = ("oracle", "none")


@dataclass
class DelegationSettings:
    enabled: bool = True  # false: the flat agent (every launch is refused, no delegate candidates)
    context: str = "goal"  # what a child sees: goal (its own goal and budget) | ancestors (+ the chain of ancestor goals)
    max_children: int = 4  # sub-agents per launch; the goals beyond are refused
    hint: bool = True  # state the grammar in every agent's first message
    # choice mode: the delegation replies offered beside the env's commands. oracle: the sub-goals
    # the environment's oracle would launch now (all together, and each alone with ``singles``);
    # none: no delegate candidates (only free generation can delegate)
    options: str = "oracle"
    singles: bool = True
    # list the oracle's suggested sub-goals in the prompt ("Sub-goals: … | …"), as core's
    # show_admissible lists commands: helps a small model write launches in generation mode
    show_options: bool = False

    def __post_init__(self):
        if self.context not in CONTEXTS:
            raise ValueError(f"algo.recursion.delegation.context: unknown '{self.context}'; choose one of {list(CONTEXTS)}")
        if self.options not in OPTIONS:
            raise ValueError(f"algo.recursion.delegation.options: unknown '{self.options}'; choose one of {list(OPTIONS)}")
        if self.max_children < 1:
            raise ValueError("algo.recursion.delegation.max_children: must be at least 1")


@dataclass
class BudgetSettings:
    # per_agent: every agent may take ``agent_steps`` turns (null: its environment's max_steps);
    # shared: the whole tree shares ``tree_steps`` turns. Both: depth cap and node cap.
    mode: str = "per_agent"
    agent_steps: int | None = None
    tree_steps: int = 48
    max_depth: int = 3  # deepest child (the root is depth 0); a launch beyond is refused
    max_nodes: int = 64  # agents per tree, root included; a launch beyond is refused

    def __post_init__(self):
        if self.mode not in BUDGET_MODES:
            raise ValueError(f"algo.recursion.budget.mode: unknown '{self.mode}'; choose one of {list(BUDGET_MODES)}")
        if self.agent_steps is not None and self.agent_steps < 1:
            raise ValueError("algo.recursion.budget.agent_steps: must be at least 1 (or null)")
        if self.tree_steps < 1 or self.max_nodes < 1 or self.max_depth < 0:
            raise ValueError("algo.recursion.budget: tree_steps and max_nodes must be >= 1, max_depth >= 0")


@dataclass
class RecursionSettings:
    delegation: DelegationSettings = field(default_factory=DelegationSettings)
    budget: BudgetSettings = field(default_factory=BudgetSettings)
    # batched: every agent ready to act, across all trees, in one engine call per round;
    # sequential: one agent at a time (children of a parent one after another, tree after tree)
    schedule: str = "batched"

    def __post_init__(self):
        if self.schedule not in SCHEDULES:
            raise ValueError(f"algo.recursion.schedule: unknown '{self.schedule}'; choose one of {list(SCHEDULES)}")

    @property
    def can_delegate(self) -> bool:
        return self.delegation.enabled and self.budget.max_depth > 0
