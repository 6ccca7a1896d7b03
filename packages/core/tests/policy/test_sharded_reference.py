"""The KL reference's frozen copy sharded over two real gloo processes (``shard_frozen``, as
``RolloutModule.configure_model`` does under ``trainer=fsdp_cpu``): each rank holds about half of
it, its log-probs equal the unsharded copy's on every rank, and ranks may ask for them with
different batches as long as they run the same number of forwards (the lockstep updates do)."""

from types import SimpleNamespace

import pytest
import torch
import torch.distributed as dist

from coevo.core.policy.held_state import tensor_bytes
from coevo.core.policy.logprobs import sequence_token_logprobs
from coevo.core.policy.lora import ReferencePolicy
from coevo.core.policy.sharding import shard_frozen
from coevo.core.testing.gloo import run_on_ranks, tiny_model

pytestmark = pytest.mark.skipif(not dist.is_available(), reason="needs torch.distributed")


def _strategy():
    """The attributes of Lightning's FSDPStrategy that ``shard_frozen`` reads, as trainer=fsdp_cpu sets them."""
    from torch.distributed.fsdp import ShardingStrategy
    from torch.distributed.fsdp.wrap import ModuleWrapPolicy
    from transformers.models.qwen2.modeling_qwen2 import Qwen2DecoderLayer

    return SimpleNamespace(root_device=torch.device("cpu"), mixed_precision_config=None, cpu_offload=None,
                           sharding_strategy=ShardingStrategy.FULL_SHARD,
                           kwargs={"auto_wrap_policy": ModuleWrapPolicy({Qwen2DecoderLayer}), "use_orig_params": True})


def _rank(rank: int) -> tuple[float, int, int]:
    reference = ReferencePolicy(tiny_model())
    full_bytes = tensor_bytes(reference.frozen.parameters())
    # this rank's batch: a different size and length on each rank
    ids = torch.randint(3, 300, (2 + rank, 7 + 3 * rank), generator=torch.Generator().manual_seed(rank))
    with reference.model() as frozen:
        expected = sequence_token_logprobs(frozen, ids, torch.ones_like(ids))  # [b, T] unsharded
    reference.shard(lambda frozen: shard_frozen(frozen, _strategy()))
    with reference.model() as sharded:
        got = sequence_token_logprobs(sharded, ids, torch.ones_like(ids))  # [b, T] collective forward
    return float((got - expected).abs().max()), tensor_bytes(reference.frozen.parameters()), full_bytes


def test_the_sharded_reference_gives_the_full_copys_logprobs_with_half_of_it_per_rank(tmp_path):
    results = run_on_ranks(_rank, tmp_path)
    for rank in (0, 1):
        largest, held, full = results[rank]
        assert largest < 1e-5  # float32 rounding only
        assert 0.45 * full <= held <= 0.55 * full
