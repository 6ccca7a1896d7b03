"""The training step's hot kernels on recorded samples, timed with whichever coevo is importable.

``update``: GRPO's forward + backward over a step's samples, micro-batched as the GRPO module does
(``split_micro_batches`` + ``sequence_token_logprobs`` for generated turns, ``split_micro_batches`` +
``chosen_logprobs`` for choice turns; an older checkout's own splitters where it has no
``split_micro_batches``); ``score``: the ``hf`` engine scoring every turn's candidates, one agent-loop
turn (32 prompts) per call. The code under test is whatever
``coevo.core`` the interpreter imports, so ``bench/throughput/hot_path_kernels.py`` can run this file with an
older checkout first on ``PYTHONPATH`` and compare.
"""

from __future__ import annotations

import inspect
import json
import pickle
import sys
import time

import torch

from coevo.core.algos import batching, choice_batching
from coevo.core.algos.choice_batching import chosen_logprobs
from coevo.core.algos.losses import clipped_policy_gradient_loss
from coevo.core.policy.builders import load_pretrained
from coevo.core.policy.logprobs import sequence_token_logprobs
from coevo.core.rollout.hf_engine import HFEngine


def _first_position(mb) -> int:
    """The after-code's response column, or 1 (every position) where the code has none."""
    first = getattr(batching, "first_response_position", None)
    if first is None or "first_position" not in inspect.signature(sequence_token_logprobs).parameters:
        return 1
    return first(mb)


try:  # the importable code's splitter; before it existed, batching's and choice_batching's own
    from coevo.core.algos.micro_batches import split_micro_batches
except ImportError:
    split_micro_batches = None


def _groups(samples, budget, pad_id) -> list[list]:
    """The samples of each micro-batch, split as the importable code splits them (``split_micro_batches``;
    before it existed, ``batching.micro_batches`` and ``choice_batching.choice_micro_batches``)."""
    if not samples:
        return []
    if split_micro_batches is None:
        if hasattr(samples[0], "input_ids"):
            return batching.micro_batches(samples, budget, pad_id)
        return [[samples[i] for i in group] for group in choice_batching.choice_micro_batches(samples, budget)]
    batches = split_micro_batches(samples, budget, pad_id)
    return batches if hasattr(samples[0], "input_ids") else [mb.samples for mb in batches]


def update_tokens(model, samples, pad_id, budget=8192) -> None:
    normalizer = float(sum(sum(s.agent_mask) for s in samples))
    for mb in _groups(samples, budget, pad_id):
        first = _first_position(mb)
        kwargs = {"first_position": first} if first != 1 else {}
        lp = sequence_token_logprobs(model, mb.input_ids, mb.attention_mask, 1.0, **kwargs)  # [b, T]
        loss, _ = clipped_policy_gradient_loss(lp, lp.detach(), mb.advantages, mb.agent_mask, 0.2, 0.2,
                                               "token_mean", normalizer)
        loss.backward()


def update_choices(model, samples, pad_id, budget=8192) -> None:
    for chosen in _groups(samples, budget, pad_id):
        lp = chosen_logprobs(model, chosen, pad_id, "sum", 1.0)  # [g]
        adv = torch.tensor([s.advantage for s in chosen])
        (-(lp * adv).sum() / len(samples)).backward()


def score(engine, samples) -> None:
    for start in range(0, len(samples), 32):
        turn = samples[start : start + 32]
        engine.score([s.prompt_ids for s in turn], [s.candidates for s in turn])


def main() -> None:
    model_dir, samples_path, kind, repeats, out = sys.argv[1:6]
    torch.set_num_threads(1)
    model, tokenizer = load_pretrained(model_dir)
    with open(samples_path, "rb") as handle:
        samples = pickle.load(handle)
    pad = tokenizer.pad_token_id
    if kind == "score":
        model.eval()
        engine = HFEngine(None, model, tokenizer)
        fn = lambda: score(engine, samples)  # noqa: E731
    else:
        model.train()
        update = update_choices if kind == "update_choices" else update_tokens
        fn = lambda: update(model, samples, pad)  # noqa: E731
    fn()  # warm-up
    times = []
    for _ in range(int(repeats)):
        model.zero_grad(set_to_none=True)
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    with open(out, "w") as handle:
        json.dump(times, handle)


if __name__ == "__main__":
    main()
