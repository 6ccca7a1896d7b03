"""Skill-writing examples, and the optional fine-tune on them after the warm start.

``writing_conversation`` builds one writing prompt (the expert's full attempt as a success and its
first half as a failure, in the template the policy writes from) answered with the static library
skill of the task's type, or with the attempt's hindsight skill (``algo.warmup.skill_kind``);
``coevo.rsipo.demonstrations`` puts such examples into core's warm start (the default).
``run_warmup`` is the separate fine-tune (``warmup.steps`` > 0; off by default: 40 steps at lr 3e-3
eroded acting), once at the start of a fresh run (never on resume), with its own
optimizer, skipped with a warning where the environment has no expert or no library. A share
``acting_fraction`` of every batch are the expert's acting examples (as in core's warm start), so
that learning to write does not erode how the shared weights act.
"""

from __future__ import annotations

import logging

import torch

from coevo.core.agent.prompt import PromptSettings
from coevo.core.algos.batching import Sample, collate_samples
from coevo.core.algos.sft import masked_nll
from coevo.core.env.protocol import Environment
from coevo.core.expert_data import collect_expert_examples
from coevo.core.policy.conversation import encode_conversation
from coevo.core.policy.logprobs import sequence_token_logprobs
from coevo.core.progress import track
from coevo.rsipo.config import SkillSettings, WarmupSettings
from coevo.rsipo.hindsight import direct_path, expert_attempt, hindsight_skill
from coevo.rsipo.skills.library import static_skill
from coevo.rsipo.skills.parsing import format_skill
from coevo.rsipo.skills.template import Attempt, SkillTemplate, skill_messages

log = logging.getLogger(__name__)


def writing_conversation(env: Environment, template: SkillTemplate, skill: SkillSettings, split: str,
                         index: int, kind: str = "library") -> list[dict[str, str]] | None:
    """Writing prompt → skill for task ``index`` of ``split`` (``None`` without an expert).

    The prompt shows the expert's full attempt as a success and its first half as a failure, in
    the template the policy writes from; the answer is the static library skill of the task's type
    (``kind="library"``) or the expert's attempt with its search cut out (``"hindsight"``,
    :mod:`coevo.rsipo.hindsight`).
    """
    attempt = expert_attempt(env, split, index)
    if attempt is None:
        return None
    actions, won = attempt
    attempts = [Attempt(actions, won), Attempt(actions[: max(1, len(actions) // 2)], False)]
    messages = skill_messages(template, env.goal, attempts, skill.trajectories, skill.max_actions)
    if kind == "hindsight":
        text = hindsight_skill(direct_path(env, split, index, actions))
    else:
        text = static_skill(env.name, env.task(split, index).task_type)
    return messages + [{"role": "assistant", "content": format_skill(text)}]


def warmup_samples(env: Environment, tokenizer, template: SkillTemplate, skill: SkillSettings,
                   settings: WarmupSettings) -> list[Sample]:
    """Writing prompt → library skill examples from ``settings.episodes`` expert episodes ([] without an expert)."""
    samples = []
    indices = range(settings.first_index, settings.first_index + settings.episodes)
    for index in track(indices, f"{env.name}: skill-writing warm-up examples"):
        conversation = writing_conversation(env, template, skill, "train", index)
        if conversation is None:
            return []
        encoded = encode_conversation(tokenizer, conversation)
        samples.append(Sample(encoded.input_ids, encoded.agent_mask))
    return samples


def acting_samples(env: Environment, tokenizer, prompt: PromptSettings, settings: WarmupSettings) -> list[Sample]:
    """The expert's acting examples (prompt → expert action) from the same episodes."""
    data = collect_expert_examples(env, prompt, settings.episodes, "train", settings.first_index)
    samples = []
    for conversation in data.examples:
        trainable = [i == len(conversation) - 1 for i in range(len(conversation))]
        encoded = encode_conversation(tokenizer, conversation, trainable)
        samples.append(Sample(encoded.input_ids, encoded.agent_mask))
    return samples


def run_warmup(model: torch.nn.Module, samples: list[Sample], settings: WarmupSettings, pad_id: int,
               seed: int, acting: list[Sample] | None = None) -> float:
    """``settings.steps`` AdamW steps of masked NLL on random mini-batches (a share
    ``acting_fraction`` of each drawn from ``acting``); returns the last loss on the writing examples."""
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=settings.lr)
    generator = torch.Generator().manual_seed(seed)
    device = next(model.parameters()).device
    model.train()
    loss_value = float("nan")
    n_acting = round(settings.batch_size * settings.acting_fraction) if acting else 0
    n_writing = max(1, settings.batch_size - n_acting)
    for _ in range(settings.steps):
        batches = [(samples, n_writing)] + ([(acting, n_acting)] if n_acting else [])
        losses = []
        for pool, count in batches:
            picked = torch.randint(len(pool), (count,), generator=generator).tolist()
            mb = collate_samples([pool[i] for i in picked], picked, pad_id)
            logprobs = sequence_token_logprobs(model, mb.input_ids.to(device), mb.attention_mask.to(device))
            losses.append(masked_nll(logprobs, mb.agent_mask.to(device)))
        loss = sum(loss_part * count for loss_part, (_, count) in zip(losses, batches)) / sum(c for _, c in batches)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        loss_value = float(losses[0].detach())
    return loss_value
