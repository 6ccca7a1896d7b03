"""How many SFT steps does the tiny model need to learn a longctx leaf? (count the matching records
of one chunk of 3). Continues supervised training of a policy on leaf answer turns only and prints
the greedy held-out leaf accuracy every ``--every`` steps.

The turns are the recursive oracle's leaves of 4-chunk count trees (``RecursiveExpert``), their reply
as the longctx env writes it per ``--reply``:

- ``answer``: ``<action>answer 1</action>`` (the oracle without ``env.expert_think``);
- ``qmarks``: ``<think>rome: delhi 0 rome 1 lima 0</think><action>answer 1</action>``, the filter value,
  then each record's value of the question's field and whether it matches (``env.expert_think``, the
  preset's);
- ``compare``: ``<think>rome: delhi=rome 0 rome=rome 1 …</think>…``, each value written against the
  filter (``env.expert_marks=compare``);
- ``marks``: ``qmarks`` without the filter value first (``<think>delhi 0 rome 1 lima 0</think>…``).

``--scratch SEED`` trains a new tiny model (the preset's shape, ``model.seed=SEED``, its BPE trained on
the training turns) instead of continuing ``--policy``: the warm start's situation.

``--prompt env`` keeps the prompt the policy sees (``--first-observation``, ``--goal-reminder``);
``question`` cuts the first message to ``Question: count records with city=rome.`` (~130 tokens a
turn instead of ~280 with the instructions). ``--values-per-field 2`` draws the documents as the
longctx preset does (``env.values_per_field``). Example (2026-11-30, bench/notebook.md):

    python -m bench.methods.rao.rao_longctx_leaf_sft --policy .cache/coevo/warmstart/<key> --reply marks --prompt question
    python -m bench.methods.rao.rao_longctx_leaf_sft --scratch 1 --reply compare --prompt env --first-observation goal \
        --values-per-field 2 --steps 800
"""

from __future__ import annotations

import argparse
import random
import re
import time
from pathlib import Path

import torch

from coevo.core.agent.prompt import PromptSettings
from coevo.core.algos.batching import Sample
from coevo.core.algos.sft import sft_collate, sft_loss
from coevo.core.expert_data import corpus_texts
from coevo.core.policy.builders import TinyBuilder, TinyBuilderConfig, load_pretrained
from coevo.core.policy.conversation import encode_conversation
from coevo.envs.longctx.env import LongCtxEnv
from coevo.rao.expert import RecursiveExpert
from coevo.rao.settings import BudgetSettings, DelegationSettings, RecursionSettings

QUESTION = re.compile(r"count records with (\w+)=(\w+)")
ANSWER = re.compile(r"answer (\d+)")


def leaf_turn(conversation: list[dict], reply: str, prompt: str) -> tuple[list[dict], int]:
    """A leaf's answer turn as the env wrote it (``marks``: the filter value cut); ``(messages, count)``."""
    messages = [dict(m) for m in conversation if m["role"] != "system"]
    if prompt == "question":
        messages[0]["content"] = f"Question: {QUESTION.search(messages[0]['content']).group(0)}."
    if reply == "marks":
        messages[-1]["content"] = re.sub(r"<think>\w+: ", "<think>", messages[-1]["content"])
    return messages, int(ANSWER.search(messages[-1]["content"]).group(1))


def leaf_turns(env, prompt_settings, reply: str, prompt: str, first_index: int, n: int) -> list:
    expert, turns, index = RecursiveExpert(RecursionSettings(DelegationSettings(), BudgetSettings(max_depth=4)), 0.0), [], first_index
    while len(turns) < n:
        for conversation in expert(env, prompt_settings, 20, "train", index).examples:
            if "answer" in conversation[-1]["content"] and "Sub-agent" not in conversation[-2]["content"]:
                turns.append(leaf_turn(conversation, reply, prompt))
        index += 20
    return turns[:n]


def greedy_accuracy(model, tokenizer, turns) -> float:
    model.eval()
    right = 0
    with torch.no_grad():
        for start in range(0, len(turns), 40):
            chunk = turns[start:start + 40]
            texts = [tokenizer.apply_chat_template(m[:-1], tokenize=False, add_generation_prompt=True) for m, _ in chunk]
            batch = tokenizer(texts, return_tensors="pt", padding=True)
            out = model.generate(**batch, max_new_tokens=48, do_sample=False, pad_token_id=tokenizer.pad_token_id)
            for ids, (_, count) in zip(out[:, batch["input_ids"].shape[1]:], chunk):
                answer = re.search(r"answer (\d+)", tokenizer.decode(ids, skip_special_tokens=True))
                right += answer is not None and int(answer.group(1)) == count
    model.train()
    return right / len(turns)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--policy", help="a policy folder, e.g. a longctx warm start")
    source.add_argument("--scratch", type=int, metavar="SEED", help="a new tiny model with this model.seed")
    parser.add_argument("--reply", choices=["answer", "qmarks", "compare", "marks"], default="marks")
    parser.add_argument("--prompt", choices=["env", "question"], default="question")
    parser.add_argument("--first-observation", choices=["full", "goal"], default="full")
    parser.add_argument("--goal-reminder", action="store_true")
    parser.add_argument("--values-per-field", type=int, default=0, help="env.values_per_field (0: all values)")
    parser.add_argument("--train-leaves", type=int, default=20_000)
    parser.add_argument("--test-leaves", type=int, default=120)
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--every", type=int, default=100)
    args = parser.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    random.seed(0)
    prompt = PromptSettings(system_prompt="", history_turns=8, memory=False, max_prompt_tokens=4096,
                            first_observation=args.first_observation, goal_reminder=args.goal_reminder)
    env = LongCtxEnv(LongCtxEnv.Config(num_chunks=4, records_per_chunk=3, question_kinds=["count"], expert_leaf_chunks=1,
                                      values_per_field=args.values_per_field, expert_think=args.reply != "answer",
                                      expert_marks="compare" if args.reply == "compare" else "match"))
    train = leaf_turns(env, prompt, args.reply, args.prompt, 2_000_000, args.train_leaves)
    test = leaf_turns(env, prompt, args.reply, args.prompt, 3_000_000, args.test_leaves)
    if args.scratch is None:
        model, tokenizer = load_pretrained(Path(args.policy))
    else:  # as the warm start builds it: the BPE trained on the demonstrations' text
        model, tokenizer = TinyBuilder(TinyBuilderConfig(seed=args.scratch)).build(
            lambda: corpus_texts([messages for messages, _ in train]))
    samples = []
    for messages, _ in train:
        encoded = encode_conversation(tokenizer, messages, [i == len(messages) - 1 for i in range(len(messages))])
        samples.append(Sample(encoded.input_ids, encoded.agent_mask))
    print(f"{len(samples)} leaf turns, {sum(len(s.input_ids) for s in samples) / len(samples):.0f} tokens each; "
          f"reply: {test[0][0][-1]['content']}", flush=True)
    collate, optimizer = sft_collate(tokenizer.pad_token_id), torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.0)
    print(f"step 0: held-out leaf accuracy {greedy_accuracy(model, tokenizer, test):.3f}", flush=True)
    start, step = time.perf_counter(), 0
    while step < args.steps:
        random.shuffle(samples)
        for first in range(0, len(samples) - args.batch + 1, args.batch):
            batch = collate(samples[first:first + args.batch])
            loss = sft_loss(model, batch)  # the warm start's SFT loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            step += 1
            if step % args.every == 0 or step == args.steps:
                print(f"step {step} ({time.perf_counter() - start:.0f} s training): loss {loss.item():.3f}, "
                      f"held-out leaf accuracy {greedy_accuracy(model, tokenizer, test):.3f}", flush=True)
            if step >= args.steps:
                break


if __name__ == "__main__":
    main()
