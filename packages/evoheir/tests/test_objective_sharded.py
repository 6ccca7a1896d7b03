"""The explore hosts' policy-gradient step on a policy sharded by FSDP over two real gloo processes.

1. Both ranks hold the same samples (EVOHEIR's rounds are replicated): the step gives the weights a
   single process gets from the same samples with a plain AdamW (FSDP averages two equal gradients;
   the clipping norm is the global one).
2. Only rank 0 has samples: rank 1 runs as many padding forwards as rank 0 runs micro-batches
   (``lockstep``), so the step ends instead of waiting for a collective that never comes.
"""

import copy

import pytest
import torch
import torch.distributed as dist

from coevo.core.algos.batching import Sample
from coevo.core.policy.full_replica import clean_name
from coevo.core.testing.gloo import run_on_ranks, tiny_model
from coevo.evoheir.hosts.objective import policy_gradient_step

pytestmark = pytest.mark.skipif(not dist.is_available(), reason="needs torch.distributed")


def _samples(n: int) -> list[Sample]:
    g = torch.Generator().manual_seed(3)
    out = []
    for i in range(n):
        ids = torch.randint(3, 300, (6 + i,), generator=g).tolist()
        out.append(Sample(ids, [0] * 3 + [1] * (3 + i), 1.0 if i % 2 else -0.5))
    return out


def _lockstep(count: int) -> int:
    value = torch.tensor([count])
    dist.all_reduce(value, op=dist.ReduceOp.MAX)
    return int(value)


def _rank(rank: int) -> tuple[float, float, int, int]:
    from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
    from torch.distributed.fsdp.wrap import ModuleWrapPolicy
    from transformers.models.qwen2.modeling_qwen2 import Qwen2DecoderLayer

    model = tiny_model()
    single = copy.deepcopy(model)
    initial = {k: v.detach().clone() for k, v in single.named_parameters()}
    sharded = FSDP(model, auto_wrap_policy=ModuleWrapPolicy({Qwen2DecoderLayer}), use_orig_params=True,
                   device_id=torch.device("cpu"))
    forwards = []
    sharded.register_forward_hook(lambda *_: forwards.append(1))
    pad = model.config.pad_token_id

    # 1. the same samples on both ranks = one process
    policy_gradient_step(sharded, _samples(4), torch.optim.AdamW(sharded.parameters(), lr=1e-2), pad,
                         grad_clip=0.5, max_tokens=16, lockstep=_lockstep)
    policy_gradient_step(single, _samples(4), torch.optim.AdamW(single.parameters(), lr=1e-2), pad,
                         grad_clip=0.5, max_tokens=16)
    with FSDP.summon_full_params(sharded, writeback=False):
        gathered = {clean_name(n): p.detach().clone() for n, p in sharded.named_parameters()}
    reference = dict(single.named_parameters())
    largest = max(float((gathered[k] - reference[k]).abs().max()) for k in reference)
    moved = max(float((reference[k].detach() - initial[k]).abs().max()) for k in reference)
    first = len(forwards)

    # 2. samples on rank 0 only: rank 1 pads in lockstep
    mine = _samples(5) if rank == 0 else []
    policy_gradient_step(sharded, mine, torch.optim.AdamW(sharded.parameters(), lr=1e-2), pad,
                         max_tokens=16, lockstep=_lockstep)
    return largest, moved, first, len(forwards) - first


def test_sharded_step_equals_one_process_and_pads_a_rank_without_samples(tmp_path):
    results = run_on_ranks(_rank, tmp_path)
    (largest0, moved, first0, second0), (largest1, _, first1, second1) = results[0], results[1]
    assert moved > 1e-3  # the step changed the weights (AdamW at lr 1e-2)
    assert largest0 < 1e-5 and largest1 < 1e-5  # float32 rounding of the averaged gradients only
    assert first0 == first1 >= 2  # 4 samples in micro-batches of <= 16 tokens: several forwards
    assert second0 == second1 >= 2  # rank 1 had nothing and ran as many (padding) forwards
