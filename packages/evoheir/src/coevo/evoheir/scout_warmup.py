"""Scout warm-up: teach the policy the Scout's reply format before round 1.

Supervised fine-tuning (loss on the reply tokens only) on ``warmup_examples`` generator problems
written as Scout replies, mixed 1:1 with the env expert's solver examples so that the Learner's
answering skill from the core warm start is rehearsed, not overwritten. Sharded over ranks, every
rank fine-tunes on the same batches in the same order, so their forwards match one for one.
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
from coevo.evoheir.math_env import MathEnv
from coevo.evoheir.scout import scout_warmup_examples


def warm_up_scout(model, tokenizer, agent: AgentSettings, env: MathEnv, settings, seed: int) -> dict[str, float]:
    """Fine-tune ``model`` in place; returns the first and last epoch's mean loss and the token cost."""
    c = env.config
    n = settings.warmup_examples
    conversations = [[{"role": "user", "content": p}, {"role": "assistant", "content": r}]
                     for p, r in scout_warmup_examples(list(c.problem_types), n, settings.warmup_first_index, c.seed,
                                                       c.difficulty)]
    solver = collect_expert_examples(env, agent.prompt, n, "train", settings.warmup_first_index + n)
    conversations += solver.examples
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
