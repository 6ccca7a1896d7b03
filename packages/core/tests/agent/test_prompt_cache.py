"""The agent loop renders a prompt once per distinct message list within a run (a group's episodes
start from the same prompt); the turns still get their own, equal, prompt ids."""

from __future__ import annotations

import torch

import coevo.core.agent.loop as loop_module
from coevo.core.agent.loop import AgentLoop, AgentSettings
from coevo.core.rollout.hf_engine import HFEngine
from coevo.core.testing.boxes_env import BoxesConfig, BoxesEnv


def test_group_prompts_are_rendered_once(tiny_model, tokenizer, monkeypatch):
    calls = []
    real = loop_module.render_prompt

    def counting(tok, messages):
        calls.append(tuple((m["role"], m["content"]) for m in messages))
        return real(tok, messages)

    monkeypatch.setattr(loop_module, "render_prompt", counting)
    env = BoxesEnv(BoxesConfig(num_boxes=3, max_steps=1))
    task = env.task("train", 0)
    loop = AgentLoop(HFEngine(None, tiny_model, tokenizer), tokenizer, AgentSettings(mode="choose"))
    episodes = loop.run([task] * 4, [BoxesEnv(BoxesConfig(num_boxes=3, max_steps=1)) for _ in range(4)],
                        generator=torch.Generator().manual_seed(0))
    assert len(calls) == len(set(calls)) == 1  # four identical first prompts, one rendering
    first = [ep.turns[0].prompt_ids for ep in episodes]
    assert all(ids == first[0] for ids in first)
    assert first[0] is not first[1]  # each turn owns its list
