"""The report's 1× base size: the largest task whose flat episodes fit the context window."""

import dataclasses
import functools

from rao_script import PROMPT
from rao_sums_env import SumsConfig, SumsEnv

from coevo.core.policy.conversation import render_prompt
from coevo.rao.context_window import base_size, fits_window


def _factory(length):
    return functools.partial(SumsEnv, SumsConfig(length=length))


def _prompt_tokens(tokenizer, length):
    env = SumsEnv(SumsConfig(length=length))
    first = env.reset(env.task("eval_in_distribution", 0))
    messages = [{"role": "user", "content": f"{first}\nMemory: partials: none\nBudget: 3 steps left"}]
    return len(render_prompt(tokenizer, messages))


def test_base_size_is_the_longest_input_whose_flat_prompts_fit(tokenizer):
    window = _prompt_tokens(tokenizer, 10) + 1  # the flat agent's only prompt at 10 digits fits, barely
    prompt = dataclasses.replace(PROMPT, max_prompt_tokens=window)
    assert fits_window(_factory(10), prompt, tokenizer, probe_tasks=1)
    base = base_size(_factory, prompt, tokenizer, limit=40)
    assert 10 <= base < 40
    assert _prompt_tokens(tokenizer, base) <= window < _prompt_tokens(tokenizer, base + 1) + 2
    tiny = dataclasses.replace(PROMPT, max_prompt_tokens=3)
    assert base_size(_factory, tiny, tokenizer, limit=5) == 0  # nothing fits: 0, never a crash
