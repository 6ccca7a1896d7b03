"""The prompt of one agent of a tree: core's prompt layout plus the recursion's lines.

First user message: the environment's opening observation (or its task sentence, per
``agent.prompt.first_observation``), then the ancestor chain (``delegation.context=ancestors``)
and the delegation grammar (when the agent may delegate). Latest user message: core's reminder,
memory and admissible lines, then the suggested sub-goals (``delegation.show_options``) and the
budget line. At the context limit the oldest history
pairs are dropped first, exactly as core's agent loop does; when even the shortest prompt is too
long the agent ends with ``context_overflow``.
"""

from __future__ import annotations

from coevo.core.agent.prompt import PromptSettings, build_messages, opening
from coevo.core.env.protocol import Environment
from coevo.core.policy.conversation import render_prompt
from coevo.rao import messages as text
from coevo.rao.tree import Node

Message = dict[str, str]


def first_message(prompt: PromptSettings, observation: str, env: Environment, ancestors: list[str] | None,
                  hint: bool) -> str:
    """The first user message of an agent whose environment opened with ``observation``."""
    lines = [opening(prompt, observation, env.goal)]
    if ancestors:
        lines.append(text.ancestors_line(ancestors))
    if hint:
        lines.append(text.HINT)
    return "\n".join(lines)


def node_messages(prompt: PromptSettings, node: Node, keep: int, extra: str) -> list[Message]:
    env = node.env
    admissible = env.admissible_actions() if prompt.show_admissible else None
    memory = env.memory() if prompt.memory else None
    messages = build_messages(prompt, node.first_message, node.history, memory, admissible, keep, goal=env.goal)
    messages[-1] = {"role": "user", "content": messages[-1]["content"] + "\n" + extra}
    return messages


def fit_prompt(prompt: PromptSettings, node: Node, extra: str, tokenizer) -> tuple[list[int], list[Message]] | None:
    """``(token ids, messages)`` of the longest history that fits ``max_prompt_tokens``; ``None`` if
    nothing fits. Without a tokenizer (oracle demonstrations before one exists) nothing is cut."""
    if tokenizer is None:
        return [], node_messages(prompt, node, prompt.history_turns, extra)
    for keep in range(min(prompt.history_turns, len(node.history)), -1, -1):
        messages = node_messages(prompt, node, keep, extra)
        ids = render_prompt(tokenizer, messages)
        if len(ids) <= prompt.max_prompt_tokens:
            return ids, messages
    return None
