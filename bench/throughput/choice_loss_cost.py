"""Cost of GRPO's two choice-mode losses on the same household turns, measured side by side.

Choice-mode episodes of the household env are played once with a tiny model; the same turns are
then trained (forward + backward, one micro-batch budget) as ``choice_loss=tokens`` samples
(prompt + chosen candidate) and as ``choice_loss=softmax`` samples (prompt + every candidate,
packed), alternating A/B over several repetitions. Printed: seconds per update of each and the
ratio softmax / tokens.

    python -m bench.throughput.choice_loss_cost [--episodes 16] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path

import torch

from coevo.core import registry
from coevo.core.agent.loop import AgentLoop, AgentSettings
from coevo.core.agent.prompt import PromptSettings
from coevo.core.algos.choice_batching import chosen_logprobs
from coevo.core.algos.grpo import episode_samples
from coevo.core.algos.micro_batches import split_micro_batches
from coevo.core.expert_data import collect_expert_examples, corpus_texts
from coevo.core.policy.builders import TinyBuilder, TinyBuilderConfig
from coevo.core.policy.logprobs import sequence_token_logprobs
from coevo.core.rollout.hf_engine import HFEngine

BUDGET = 8192  # algo.micro_batch_tokens default


def tokens_update(model, samples, pad_id) -> None:
    for mb in split_micro_batches(samples, BUDGET, pad_id):
        lp = sequence_token_logprobs(model, mb.input_ids, mb.attention_mask)  # [b, T]
        (-(lp * mb.agent_mask * mb.advantages).sum() / mb.agent_mask.sum()).backward()


def softmax_update(model, samples, pad_id) -> None:
    for mb in split_micro_batches(samples, BUDGET, pad_id):
        chosen = mb.samples
        lp = chosen_logprobs(model, chosen, pad_id, "mean", 0.25)  # [b]
        adv = torch.tensor([s.advantage for s in chosen])
        (-(lp * adv).sum() / len(chosen)).backward()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=16)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", default=str(Path(__file__).with_name("choice_loss_cost.json")))
    args = parser.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    env_cls = registry.envs.get("household")
    prompt = PromptSettings(system_prompt="", history_turns=1, memory=True, first_observation="goal",
                            goal_reminder=True)
    data = collect_expert_examples(env_cls(env_cls.Config()), prompt, 40)
    model, tokenizer = TinyBuilder(TinyBuilderConfig(hidden_size=128, num_layers=4, num_heads=2, num_kv_heads=1,
                                                     intermediate_size=256, vocab_size=1024)).build(
        lambda: corpus_texts(data.examples))
    envs = [env_cls(env_cls.Config()) for _ in range(args.episodes)]
    tasks = [envs[0].task("train", i) for i in range(args.episodes)]
    loop = AgentLoop(HFEngine(None, model, tokenizer), tokenizer,
                     AgentSettings(mode="choose", prompt=prompt, choice_temperature=0.25))
    episodes = loop.run(tasks, envs, generator=torch.Generator().manual_seed(0))
    advantages = torch.linspace(-1, 1, len(episodes))
    as_tokens = episode_samples(episodes, advantages, "tokens")
    as_choices = episode_samples(episodes, advantages, "softmax")
    pad = tokenizer.pad_token_id
    times = {"tokens": [], "softmax": []}
    for _ in range(args.repeats):
        for name, fn, samples in (("tokens", tokens_update, as_tokens), ("softmax", softmax_update, as_choices)):
            model.zero_grad()
            start = time.perf_counter()
            fn(model, samples, pad)
            times[name].append(time.perf_counter() - start)
    tok, soft = statistics.median(times["tokens"]), statistics.median(times["softmax"])
    result = {
        "command": " ".join([Path(sys.argv[0]).as_posix(), *sys.argv[1:]]),
        "machine": f"{platform.processor() or platform.machine()}, {torch.get_num_threads()} torch thread(s)",
        "date": time.strftime("%Y-%m-%d"),
        "turns": len(as_choices),
        "mean_candidates": sum(len(s.candidates) for s in as_choices) / len(as_choices),
        "tokens_seconds": tok,
        "softmax_seconds": soft,
        "ratio_softmax_over_tokens": soft / tok,
    }
    print(f"{len(as_choices)} turns, {result['mean_candidates']:.1f} candidates each: "
          f"tokens {tok:.2f} s, softmax {soft:.2f} s per update -> x{soft / tok:.2f}")
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
