"""The ``hf`` rollout engine: transformers ``generate`` and batched forward scoring (CPU or GPU).

It shares the trainer's model object, so weight sync is free. Prompts are left-padded into one
batch; log-probs are recomputed from the raw logits at the sampling temperature (the same
definition the trainer uses), not from processed scores.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from coevo.core import registry
from coevo.core.policy.logprobs import gather_token_logprobs
from coevo.core.rollout.engine import Generation, RolloutEngine, SamplingSettings


@dataclass
class HFEngineConfig:
    name: str = "hf"
    max_batch_tokens: int = 16384  # padded tokens per forward pass when scoring candidates


@registry.rollout_engines.register("hf")
class HFEngine(RolloutEngine):
    Config = HFEngineConfig

    def __init__(self, config: HFEngineConfig, model: torch.nn.Module, tokenizer):
        self.config = config
        self.model = model
        self.tokenizer = tokenizer
        self.pad_id = tokenizer.pad_token_id
        self.stop_ids = [tokenizer.eos_token_id]

    def sync_weights(self, model: torch.nn.Module) -> None:
        self.model = model

    @property
    def device(self) -> torch.device:
        return next(self.model.parameters()).device

    def _left_pad(self, prompts: list[list[int]]) -> tuple[torch.Tensor, torch.Tensor]:
        width = max(len(p) for p in prompts)
        ids = torch.full((len(prompts), width), self.pad_id, dtype=torch.long)  # [B, T]
        mask = torch.zeros((len(prompts), width), dtype=torch.long)  # [B, T]
        for i, p in enumerate(prompts):
            ids[i, width - len(p) :] = torch.tensor(p)
            mask[i, width - len(p) :] = 1
        return ids.to(self.device), mask.to(self.device)

    @torch.no_grad()
    def generate(self, prompts: list[list[int]], settings: SamplingSettings) -> list[Generation]:
        if not prompts:
            return []
        was_training = self.model.training
        self.model.eval()
        ids, mask = self._left_pad(prompts)
        greedy = settings.temperature <= 0
        out = self.model.generate(
            input_ids=ids,
            attention_mask=mask,
            do_sample=not greedy,
            temperature=None if greedy else settings.temperature,
            top_p=None if greedy else settings.top_p,
            top_k=None,
            max_new_tokens=settings.max_new_tokens,
            eos_token_id=self.stop_ids,
            pad_token_id=self.pad_id,
            output_logits=True,
            return_dict_in_generate=True,
        )
        self.model.train(was_training)
        new_tokens = out.sequences[:, ids.shape[1] :]  # [B, N]
        logits = torch.stack(out.logits, dim=1)  # [B, N, V] raw logits
        logprobs = gather_token_logprobs(logits, new_tokens, 1.0 if greedy else settings.temperature)  # [B, N]
        results = []
        for row_ids, row_lp in zip(new_tokens.tolist(), logprobs.tolist()):
            stop = next((k for k, t in enumerate(row_ids) if t in self.stop_ids), None)
            end = len(row_ids) if stop is None else stop + 1
            results.append(Generation(row_ids[:end], row_lp[:end], finished=stop is not None))
        return results

    @torch.no_grad()
    def score(self, prompts: list[list[int]], candidates: list[list[list[int]]]) -> list[list[list[float]]]:
        was_training = self.model.training
        self.model.eval()
        flat = [(i, j, prompts[i], c) for i in range(len(prompts)) for j, c in enumerate(candidates[i])]
        scores: list[list[list[float]]] = [[[] for _ in cands] for cands in candidates]
        start = 0
        while start < len(flat):
            # pack rows until the padded batch reaches max_batch_tokens
            end, width = start, 0
            while end < len(flat):
                width_next = max(width, len(flat[end][2]) + len(flat[end][3]))
                if end > start and width_next * (end - start + 1) > self.config.max_batch_tokens:
                    break
                width, end = width_next, end + 1
            chunk = flat[start:end]
            seqs = [p + c for _, _, p, c in chunk]
            ids, mask = self._left_pad(seqs)  # [b, W]
            position_ids = (mask.cumsum(-1) - 1).clamp(min=0)
            logits = self.model(input_ids=ids, attention_mask=mask, position_ids=position_ids).logits
            lp = gather_token_logprobs(logits[:, :-1], ids[:, 1:])  # [b, W-1]
            for row, (i, j, _, cand) in enumerate(chunk):
                n = len(cand)
                scores[i][j] = lp[row, lp.shape[1] - n :].tolist() if n else []
            start = end
        self.model.train(was_training)
        return scores
