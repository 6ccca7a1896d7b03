"""Pre-round warm-up: teach the policy the Scout's reply format and the repair teacher's prompt before round 1.

Supervised fine-tuning (loss on the reply tokens only) on ``warmup_examples`` generator problems
written as Scout replies, mixed 1:1 with the env expert's solver examples so that the Learner's
answering skill from the core warm start is rehearsed, not overwritten; and on
``reference_examples`` problems shown with a reference solution (Recovery's repair-teacher prompt,
``recovery.repair_question``) answered as the reference does, so that the teacher can read the
reference it is given. Sharded over ranks, every rank fine-tunes on the same batches in the same
order, so their forwards match one for one.
"""

from __future__ import annotations

import random

import torch

from coevo.core.agent.loop import AgentSettings
from coevo.core.algos.batching import Sample, collate_samples
from coevo.core.algos.sft import masked_nll
from coevo.core.expert_data import collect_expert_examples
from coevo.core.policy.conversation import encode_conversation
from coevo.core.policy.logprobs import sequence_token_logprobs
from coevo.core.policy.sharding import clip_grad_norm
from coevo.evoheir.math_env import MathEnv, Problem
from coevo.evoheir.proposed_env import PROPOSED, ProposedMathEnv
from coevo.evoheir.recovery import repair_question
from coevo.evoheir.scout import scout_warmup_examples


def with_expert_reference(env: MathEnv, problems: list[Problem]) -> list[Problem]:
    """``problems`` as Recovery's repair teacher reads them, the env expert's reply as each one's reference."""
    return [Problem(repair_question(p.text, env.expert_reply(p.answer)), p.answer, p.problem_type) for p in problems]


def reference_reading_examples(env: MathEnv, agent: AgentSettings, n: int, first_index: int) -> list:
    """``n`` conversations: the train problem at ``first_index + i`` with the expert's reply as its reference
    (what Recovery's repair teacher reads), answered with that reply."""
    problems = [env.problem(env.task("train", i)) for i in range(first_index, first_index + n)]
    shown = with_expert_reference(env, problems)
    return collect_expert_examples(ProposedMathEnv(env.config, shown), agent.prompt, n, PROPOSED, 0).examples


def pre_round_warm_up(model, tokenizer, agent: AgentSettings, env: MathEnv, settings, seed: int,
                      scout_examples: int | None = None, reference_examples: int = 0) -> dict[str, float]:
    """Fine-tune ``model`` in place on ``scout_examples`` (default ``settings.warmup_examples``) Scout replies,
    as many solver examples and ``reference_examples`` reference-reading ones, drawn from the train split
    from ``settings.warmup_first_index`` on in that order; returns the first and last epoch's mean loss, the
    example count and the token cost."""
    c = env.config
    n = settings.warmup_examples if scout_examples is None else scout_examples
    conversations = [[{"role": "user", "content": p}, {"role": "assistant", "content": r}]
                     for p, r in scout_warmup_examples(list(c.problem_types), n, settings.warmup_first_index, c.seed,
                                                       c.difficulty)]
    conversations += collect_expert_examples(env, agent.prompt, n, "train", settings.warmup_first_index + n).examples
    conversations += reference_reading_examples(env, agent, reference_examples, settings.warmup_first_index + 2 * n)
    samples = []
    for conversation in conversations:
        encoded = encode_conversation(tokenizer, conversation, [i == len(conversation) - 1 for i in range(len(conversation))])
        samples.append(Sample(encoded.input_ids, encoded.agent_mask))
    rng = random.Random(seed)
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=settings.warmup_lr)
    model.train()
    losses, tokens = [], 0
    for _ in range(settings.warmup_epochs):
        order = list(range(len(samples)))
        rng.shuffle(order)
        epoch = []
        for start in range(0, len(order), 16):
            idx = order[start : start + 16]
            mb = collate_samples([samples[i] for i in idx], idx, tokenizer.pad_token_id)
            loss = masked_nll(sequence_token_logprobs(model, mb.input_ids, mb.attention_mask), mb.agent_mask)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            clip_grad_norm(model, 1.0)  # sharded: the norm over every rank's shards
            optimizer.step()
            epoch.append(float(loss.detach()))
            tokens += 3 * int(mb.attention_mask.sum())
        losses.append(sum(epoch) / len(epoch))
    optimizer.zero_grad(set_to_none=True)
    return {"first_loss": losses[0] if losses else float("nan"), "last_loss": losses[-1] if losses else float("nan"),
            "examples": float(len(samples)), "tokens": float(tokens)}
