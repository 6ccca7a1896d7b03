"""Every text the recursion adds to an agent's prompt: grammar hint, ancestor chain, budget line,
refusals and the report a parent receives when its children finish.

Kept in one place so the prompts of training, evaluation and the oracle demonstrations are the
same strings, and short, because every character costs the tiny model context.
"""

from __future__ import annotations

from coevo.rao.protocol import GRAMMAR

HINT = "You may delegate: <delegate>sub-goal</delegate>, repeatable."
ENDINGS = {
    "env_done": "finished",
    "out_of_steps": "stopped: out of steps",
    "context_overflow": "stopped: context full",
    "no_actions": "stopped: nothing to do",
}
REFUSALS = {
    "disabled": "delegation is disabled",
    "empty": "empty goal",
    "loop": "an ancestor already has this goal",
    "depth": "depth limit reached",
    "breadth": "too many sub-agents in one launch",
    "nodes": "agent limit of the tree reached",
    "budget": "no steps left in the budget",
    "fork": "cannot fork",
    "reference": "no such sub-goal number",
}


def ancestors_line(goals: list[str]) -> str:
    return "Ancestors: " + " > ".join(goals)


def options_line(goals: list[str]) -> str:
    """The environment's suggested sub-goals, numbered for ``<delegate>#k</delegate>`` (``delegation.show_options``)."""
    return "Sub-goals: " + " | ".join(f"#{k} {g}" for k, g in enumerate(goals, 1))


def budget_line(left: int, shared: bool) -> str:
    return f"Budget: {left} steps left" + (" (shared)" if shared else "")


def refusal(goal: str, kind: str, detail: str = "") -> str:
    reason = REFUSALS[kind] + (f" ({detail})" if detail else "")
    return f"Refused '{goal}': {reason}."


def malformed(reason: str) -> str:
    return f"Malformed delegation: {reason}. Use {GRAMMAR}."


def child_report(number: int, goal: str, end: str, result: str, used: int, left: int) -> str:
    """One finished child, as its parent reads it: how it ended, the steps its subtree used and the
    budget left (the child's own, or the tree's when shared), its finish message (the goal is
    quoted unless the finish message already states it)."""
    named = f" '{goal}'" if goal not in result else ""
    text = f"Sub-agent {number}{named} {ENDINGS[end]} after {used} steps ({left} left)"
    return text + (f": {result}" if result else ".")
