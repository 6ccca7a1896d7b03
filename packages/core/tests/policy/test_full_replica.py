"""``FullReplica`` over two real gloo processes: after an optimizer step of the FSDP-sharded tiny
model, the replica refreshed unit by unit equals the full weights FSDP itself gathers, on both
ranks, and it generates different numbers of tokens on each rank without any collective."""

import pytest
import torch
import torch.distributed as dist

from coevo.core.policy.full_replica import FullReplica, clean_name
from coevo.core.testing.gloo import run_on_ranks, tiny_model

pytestmark = pytest.mark.skipif(not dist.is_available(), reason="needs torch.distributed")


def _rank(rank: int) -> tuple:
    from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
    from torch.distributed.fsdp.wrap import ModuleWrapPolicy
    from transformers.models.qwen2.modeling_qwen2 import Qwen2DecoderLayer

    model = tiny_model()
    replica = FullReplica(model)
    sharded = FSDP(model, auto_wrap_policy=ModuleWrapPolicy({Qwen2DecoderLayer}), use_orig_params=True,
                   device_id=torch.device("cpu"))
    held = sum(p.numel() for p in sharded.parameters())
    optimizer = torch.optim.AdamW(sharded.parameters(), lr=1e-2)
    ids = torch.randint(0, 300, (2, 8 + rank), generator=torch.Generator().manual_seed(rank))
    sharded(input_ids=ids).logits.sum().backward()
    optimizer.step()
    before = {k: v.clone() for k, v in replica.model.named_parameters()}  # the weights before the step
    copy = replica.refresh(sharded)
    with FSDP.summon_full_params(sharded, writeback=False):
        gathered = {clean_name(n): p.clone() for n, p in sharded.named_parameters()}
    mine = dict(copy.named_parameters())
    equal = gathered.keys() == mine.keys() and all(torch.equal(mine[k], v) for k, v in gathered.items())
    changed = any(not torch.equal(before[k], v) for k, v in gathered.items())  # the step moved them
    # generation on the copy: each rank a different length, no collective involved
    out = copy.generate(input_ids=ids[:, :4], max_new_tokens=2 + 6 * rank, min_new_tokens=2 + 6 * rank,
                        do_sample=False, pad_token_id=model.config.pad_token_id)
    return (equal, held, sum(p.numel() for p in copy.parameters()), out.shape[1], changed)


def test_the_replica_holds_the_full_trained_weights_on_every_rank(tmp_path):
    results = run_on_ranks(_rank, tmp_path)
    for rank in (0, 1):
        equal, held, full, generated, changed = results[rank]
        assert equal and changed
        assert held < 0.6 * full  # the rank's shard; the replica holds everything
        assert generated == 4 + 2 + 6 * rank
