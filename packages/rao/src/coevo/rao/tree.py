"""A recursion tree: one root agent and the sub-agents it (and they) launched.

Every node is an agent with its own environment (the root's, or a fork of its parent's), its
own history and its own trajectory, kept as a core ``Episode`` (turns in token ids, ready for
training). A node is ``acting`` (it takes a turn in the next round), ``waiting`` (for the
children of its last launch), ``pending`` (sequential schedule: a launched child whose earlier
siblings still run) or ``done`` (with an ``end`` reason).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from coevo.core.agent.types import Episode
from coevo.core.env.protocol import Environment, Task

ACTING, WAITING, PENDING, DONE = "acting", "waiting", "pending", "done"
# why a node stopped: its environment ended the episode | its step budget ran out | its prompt
# no longer fits agent.prompt.max_prompt_tokens | it had no command and could not delegate
ENDS = ("env_done", "out_of_steps", "context_overflow", "no_actions")


@dataclass
class Node:
    index: int  # position in ``Tree.nodes``
    parent: int | None
    depth: int  # root 0
    goal: str  # the environment's task sentence for the root; the launched goal for a child
    env: Environment
    first_message: str  # the first user message (the opening observation, context lines, grammar)
    episode: Episode  # this agent's own trajectory
    history: list[tuple[str, str]] = field(default_factory=list)  # (reply text, observation)
    status: str = ACTING
    end: str | None = None  # one of ENDS once done
    children: list[int] = field(default_factory=list)  # every child ever launched, in order
    waiting_on: list[int] = field(default_factory=list)  # the children of the pending launch
    notes: list[str] = field(default_factory=list)  # refusal lines that join the pending launch's report
    shown: list[str] = field(default_factory=list)  # sub-goals listed in the latest prompt (#1, #2, ...)
    turns_taken: int = 0  # turns this agent took (actions, delegations, malformed replies)
    env_steps: int = 0  # of those, the ones that stepped the environment
    verifiable: bool = True  # the environment can check this node's (sub-)goal

    @property
    def won(self) -> bool:
        return self.episode.won

    @property
    def last_observation(self) -> str:
        return self.history[-1][1] if self.history else ""


@dataclass
class Tree:
    task: Task
    group_id: int  # trees of the same task in one batch share it (the GRPO group)
    nodes: list[Node] = field(default_factory=list)
    shared_left: int | None = None  # shared budget: turns the tree has left (None: per-agent budgets)
    refusals: Counter = field(default_factory=Counter)  # refused launches by reason
    malformed: int = 0  # replies that misused the delegation grammar
    seconds: float = 0.0  # wall-clock from the first to the last turn of the tree

    @property
    def root(self) -> Node:
        return self.nodes[0]

    @property
    def won(self) -> bool:
        return self.root.won

    @property
    def done(self) -> bool:
        return all(n.status == DONE for n in self.nodes)

    def ancestors(self, node: Node) -> list[Node]:
        """From the root down to ``node``'s parent."""
        chain = []
        while node.parent is not None:
            node = self.nodes[node.parent]
            chain.append(node)
        return chain[::-1]

    def subtree_turns(self, node: Node) -> int:
        """Turns taken by ``node`` and all its descendants."""
        return node.turns_taken + sum(self.subtree_turns(self.nodes[c]) for c in node.children)

    @property
    def depth(self) -> int:
        return max(n.depth for n in self.nodes)

    @property
    def env_steps(self) -> int:
        return sum(n.env_steps for n in self.nodes)

    @property
    def turns(self) -> int:
        return sum(n.turns_taken for n in self.nodes)
