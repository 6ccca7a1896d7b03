"""Settings of the recursion machinery (``algo.recursion.*``): delegation, budgets, execution.

They are shared by the training rollouts, the evaluation, the oracle demonstrations of the warm
start and the benchmark; each class checks its own values and names the key on an error.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from coevo.core.fields import bounded, check_instance, choice

CONTEXTS = ("goal", "ancestors")
BUDGET_MODES = ("per_agent", "shared")
SCHEDULES = ("batched", "sequential")
OPTIONS = ("oracle", "none")


@dataclass
class DelegationSettings:
    enabled: bool = True  # false: the flat agent (every launch is refused, no delegate candidates)
    context: str = choice("goal", CONTEXTS)  # what a child sees: goal (its own goal and budget) | ancestors (+ the chain of ancestor goals)
    max_children: int = bounded(4, ge=1)  # sub-agents per launch; the goals beyond are refused
    hint: bool = True  # state the grammar in every agent's first message
    # choice mode: the delegation replies offered beside the env's commands. oracle: the sub-goals
    # the environment's oracle would launch now (all together, and each alone with ``singles``);
    # none: no delegate candidates (only free generation can delegate)
    options: str = choice("oracle", OPTIONS)
    singles: bool = True
    # list the oracle's suggested sub-goals in the prompt ("Sub-goals: … | …"), as core's
    # show_admissible lists commands: helps a small model write launches in generation mode
    show_options: bool = False

    def __post_init__(self):
        check_instance(self, "algo.recursion.delegation")


@dataclass
class BudgetSettings:
    # per_agent: every agent may take ``agent_steps`` turns (null: its environment's max_steps);
    # shared: the whole tree shares ``tree_steps`` turns. Both: depth cap and node cap.
    mode: str = choice("per_agent", BUDGET_MODES)
    agent_steps: int | None = bounded(None, ge=1)
    tree_steps: int = bounded(48, ge=1)
    max_depth: int = bounded(3, ge=0)  # deepest child (the root is depth 0; 0: no delegation); beyond: refused
    max_nodes: int = bounded(64, ge=1)  # agents per tree, root included; a launch beyond is refused

    def __post_init__(self):
        check_instance(self, "algo.recursion.budget")


@dataclass
class RecursionSettings:
    delegation: DelegationSettings = field(default_factory=DelegationSettings)
    budget: BudgetSettings = field(default_factory=BudgetSettings)
    # batched: every agent ready to act, across all trees, in one engine call per round;
    # sequential: one agent at a time (children of a parent one after another, tree after tree)
    schedule: str = choice("batched", SCHEDULES)

    def __post_init__(self):
        check_instance(self, "algo.recursion")

    @property
    def can_delegate(self) -> bool:
        return self.delegation.enabled and self.budget.max_depth > 0
