"""Input length as a multiple of the agent's context window (the report's 1×, 2×, 4×, 8×).

The context window W is the agent's prompt budget, ``agent.prompt.max_prompt_tokens``. The *base
size* is the largest value of the size knob (e.g. longctx's ``num_chunks``) at which the flat
oracle's every prompt — instructions, question, every observation it read so far (within
``agent.prompt.history_turns``) and its replies — fits W on a few probe tasks: the longest input
a flat agent can still hold whole. A task of size ``k × base`` has an input ``k`` windows long,
which a flat agent can only see a window at a time.
"""

from __future__ import annotations

from collections.abc import Callable

from coevo.core.agent.prompt import PromptSettings
from coevo.core.env.protocol import Environment
from coevo.core.policy.conversation import render_prompt
from coevo.rao.deciders import OracleDecider
from coevo.rao.runner import TreeRunner
from coevo.rao.settings import DelegationSettings, RecursionSettings


def fits_window(make_env: Callable[[], Environment], prompt: PromptSettings, tokenizer, probe_tasks: int = 3,
                split: str = "eval_in_distribution") -> bool:
    """Every prompt of the flat oracle's episodes on ``probe_tasks`` tasks fits ``max_prompt_tokens``."""
    env = make_env()
    flat = RecursionSettings(DelegationSettings(enabled=False, hint=False))
    trees = TreeRunner(prompt, flat).run([env.task(split, i) for i in range(probe_tasks)],
                                         [make_env() for _ in range(probe_tasks)], OracleDecider(1))
    return all(len(render_prompt(tokenizer, turn.messages)) <= prompt.max_prompt_tokens
               for tree in trees for turn in tree.root.episode.turns)


def base_size(factory: Callable[[int], Callable[[], Environment]], prompt: PromptSettings, tokenizer,
              limit: int = 256) -> int:
    """The largest size ``v`` (1..limit) whose flat episodes fit the window; 0 if even 1 does not."""
    best = 0
    for value in range(1, limit + 1):
        if not fits_window(factory(value), prompt, tokenizer):
            break
        best = value
    return best
