"""Log-likelihoods of candidate replies to shared prompts, and the choice distribution over them.

Choice mode (``agent.mode=choose``) acts by scoring every admissible command as a reply to the
prompt and sampling from ``softmax(score / T)``. Two equivalent computations (tested equal):

- ``candidate_token_logprobs``: each prompt is encoded once and its KV cache is copied to every
  candidate row.
- ``packed_candidate_token_logprobs``: one sequence per prompt, ``prompt + cand_1 + … + cand_K``,
  with a 4-D attention mask that lets each candidate see the prompt and itself only, and
  position ids that restart at the prompt's end for every candidate. The trainer uses it (the
  backward pass goes through ``Tp + ΣC`` tokens per prompt instead of ``K`` copies of the cache),
  and so does the ``hf`` engine's scoring: without the cache copies it was 10-20% faster on
  household turns on the CPU.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from coevo.core.policy.logprobs import gather_token_logprobs

CHOICE_SCORES = ("sum", "mean")


@dataclass
class CandidateLogprobs:
    logprobs: torch.Tensor  # [R, C] log p of each candidate token given prompt + preceding tokens (0 on padding)
    mask: torch.Tensor  # [R, C] 1 on real candidate tokens
    owner: torch.Tensor  # [R] long: which prompt (index into the prompts passed) each row answers
    index: list[tuple[int, int]]  # (prompt, candidate) of each row; empty candidates are skipped


def _left_pad(rows: list[list[int]], pad_id: int, device) -> tuple[torch.Tensor, torch.Tensor]:
    width = max(len(r) for r in rows)
    ids = torch.full((len(rows), width), pad_id, dtype=torch.long)  # [B, T]
    mask = torch.zeros((len(rows), width), dtype=torch.long)  # [B, T]
    for i, r in enumerate(rows):
        ids[i, width - len(r) :] = torch.tensor(r)
        mask[i, width - len(r) :] = 1
    return ids.to(device), mask.to(device)


def candidate_token_logprobs(
    model: torch.nn.Module, prompts: list[list[int]], candidates: list[list[list[int]]], pad_id: int
) -> CandidateLogprobs | None:
    """Per-token log-probs of ``candidates[i][j]`` as a continuation of ``prompts[i]``.

    One forward over the left-padded prompts, then one over all candidate rows, each attending to
    its prompt's cached keys/values. Returns ``None`` when there is no non-empty candidate.
    """
    rows = [(i, j) for i in range(len(prompts)) for j in range(len(candidates[i])) if candidates[i][j]]
    if not rows:
        return None
    device = next(model.parameters()).device
    ids, mask = _left_pad(prompts, pad_id, device)  # [P, Tp]
    position_ids = (mask.cumsum(-1) - 1).clamp(min=0)  # [P, Tp]
    out = model(input_ids=ids, attention_mask=mask, position_ids=position_ids, use_cache=True,
                logits_to_keep=1)  # only the last position's logits are needed (they predict token 1)
    owner = torch.tensor([i for i, _ in rows], device=device)  # [R]
    cache = out.past_key_values if getattr(out, "cache", None) is None else out.cache
    cache.batch_select_indices(owner)  # [R, ...]: every candidate row gets its prompt's cache
    cands = [candidates[i][j] for i, j in rows]
    width = max(len(c) for c in cands)
    cand_ids = torch.full((len(rows), width), pad_id, dtype=torch.long, device=device)  # [R, C]
    cand_mask = torch.zeros((len(rows), width), dtype=torch.long, device=device)  # [R, C]
    for r, c in enumerate(cands):
        cand_ids[r, : len(c)] = torch.tensor(c)
        cand_mask[r, : len(c)] = 1
    prompt_len = mask.sum(-1)[owner]  # [R]
    cand_pos = prompt_len[:, None] + torch.arange(width, device=device)[None, :]  # [R, C]
    attn = torch.cat([mask[owner], cand_mask], dim=1)  # [R, Tp + C]
    logits = model(input_ids=cand_ids, attention_mask=attn, position_ids=cand_pos, cache=cache).logits  # [R, C, V]
    first = out.logits[:, -1][owner]  # [R, V]: predicts each candidate's first token
    full = torch.cat([first[:, None], logits[:, :-1]], dim=1)  # [R, C, V]
    lp = gather_token_logprobs(full, cand_ids) * cand_mask  # [R, C]
    return CandidateLogprobs(lp, cand_mask, owner, rows)


def packed_candidate_token_logprobs(
    model: torch.nn.Module, prompts: list[list[int]], candidates: list[list[list[int]]], pad_id: int
) -> CandidateLogprobs | None:
    """Same result as ``candidate_token_logprobs``, from one packed sequence per prompt."""
    rows = [(i, j) for i in range(len(prompts)) for j in range(len(candidates[i])) if candidates[i][j]]
    if not rows:
        return None
    device = next(model.parameters()).device
    lengths = [len(p) + sum(len(c) for c in cands) for p, cands in zip(prompts, candidates)]
    width = max(lengths)
    ids = torch.full((len(prompts), width), pad_id, dtype=torch.long)  # [P, T] right-padded
    positions = torch.zeros((len(prompts), width), dtype=torch.long)  # [P, T]
    allowed = torch.eye(width, dtype=torch.bool).repeat(len(prompts), 1, 1)  # [P, T, T] padding sees itself
    starts: dict[tuple[int, int], int] = {}  # (prompt, candidate) -> position of its first token
    for i, (prompt, cands) in enumerate(zip(prompts, candidates)):
        n = len(prompt)
        ids[i, :n] = torch.tensor(prompt)
        positions[i, :n] = torch.arange(n)
        allowed[i, :n, :n] = torch.tril(torch.ones(n, n, dtype=torch.bool))
        start = n
        for j, cand in enumerate(cands):
            c = len(cand)
            if c == 0:
                continue
            ids[i, start : start + c] = torch.tensor(cand)
            positions[i, start : start + c] = torch.arange(n, n + c)
            allowed[i, start : start + c, :n] = True
            allowed[i, start : start + c, start : start + c] = torch.tril(torch.ones(c, c, dtype=torch.bool))
            starts[(i, j)] = start
            start += c
    dtype = next(model.parameters()).dtype
    additive = torch.zeros(allowed.shape, dtype=dtype).masked_fill(~allowed, torch.finfo(dtype).min)  # [P, T, T]
    # only positions from the shortest prompt's last token on predict candidate tokens: project
    # just those through the LM head (the vocabulary projection is the costliest layer of a tiny model)
    first_kept = min(len(p) for p in prompts) - 1
    logits = model(
        input_ids=ids.to(device), attention_mask=additive[:, None].to(device), position_ids=positions.to(device),
        use_cache=False,  # one pass; a cache would also grow again when activation checkpointing recomputes
        logits_to_keep=torch.arange(first_kept, width, device=device),
    ).logits  # [P, T - first_kept, V]
    c_max = max(len(candidates[i][j]) for i, j in rows)
    gather_pos = torch.full((len(rows), c_max), first_kept, dtype=torch.long)  # [R, C] position predicting each token
    targets = torch.full((len(rows), c_max), pad_id, dtype=torch.long)  # [R, C]
    cand_mask = torch.zeros((len(rows), c_max), dtype=torch.long)  # [R, C]
    for r, (i, j) in enumerate(rows):
        cand, start = candidates[i][j], starts[(i, j)]
        c = len(cand)
        gather_pos[r, 0] = len(prompts[i]) - 1  # the prompt's last position predicts the first token
        gather_pos[r, 1:c] = torch.arange(start, start + c - 1)
        targets[r, :c] = torch.tensor(cand)
        cand_mask[r, :c] = 1
    owner = torch.tensor([i for i, _ in rows], device=device)  # [R]
    picked = logits[owner[:, None], gather_pos.to(device) - first_kept]  # [R, C, V]
    cand_mask = cand_mask.to(device)
    lp = gather_token_logprobs(picked, targets.to(device)) * cand_mask  # [R, C]
    return CandidateLogprobs(lp, cand_mask, owner, rows)


def candidate_scores(token_logprobs: torch.Tensor, mask: torch.Tensor, how: str) -> torch.Tensor:  # [R]
    """A candidate's score: the sum of its token log-probs, or their mean (length-normalised)."""
    if how not in CHOICE_SCORES:
        raise ValueError(f"agent.choice_score: unknown '{how}'; choose one of {list(CHOICE_SCORES)}")
    total = (token_logprobs * mask).sum(-1)  # [R]
    return total / mask.sum(-1).clamp(min=1) if how == "mean" else total


def choice_log_softmax(scores: torch.Tensor, owner: torch.Tensor, num_prompts: int, temperature: float) -> torch.Tensor:
    """log softmax(scores / T) within each prompt's candidates; ``[R]`` in, ``[R]`` out."""
    z = scores / temperature  # [R]
    max_per = torch.full((num_prompts,), float("-inf"), device=z.device, dtype=z.dtype)
    max_per = max_per.scatter_reduce(0, owner, z.detach(), reduce="amax")  # [P]
    shifted = z - max_per[owner]  # [R]
    sums = torch.zeros(num_prompts, device=z.device, dtype=z.dtype).index_add(0, owner, shifted.exp())  # [P]
    return shifted - sums.log()[owner]
