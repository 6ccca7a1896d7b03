"""The KL reference's frozen copy sharded over two real gloo processes (``shard_frozen``, as
``RolloutModule.configure_model`` does under ``trainer=fsdp_cpu``): each rank holds about half of
it, its log-probs equal the unsharded copy's on every rank, and ranks may ask for them with
different batches as long as they run the same number of forwards (the lockstep updates do)."""

from datetime import timedelta
from types import SimpleNamespace

import pytest
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from coevo.core.algos.fsdp_policy import shard_frozen
from coevo.core.policy.held_state import tensor_bytes
from coevo.core.policy.logprobs import sequence_token_logprobs
from coevo.core.policy.lora import ReferencePolicy
from coevo.core.policy.tiny import TinyModelConfig, build_tiny_model
from coevo.core.policy.tokenizer import train_bpe_tokenizer
from coevo.core.testing.fast_configs import boxes_corpus

pytestmark = pytest.mark.skipif(not dist.is_available(), reason="needs torch.distributed")


def _strategy():
    """The attributes of Lightning's FSDPStrategy that ``shard_frozen`` reads, as trainer=fsdp_cpu sets them."""
    from torch.distributed.fsdp import ShardingStrategy
    from torch.distributed.fsdp.wrap import ModuleWrapPolicy
    from transformers.models.qwen2.modeling_qwen2 import Qwen2DecoderLayer

    return SimpleNamespace(root_device=torch.device("cpu"), mixed_precision_config=None, cpu_offload=None,
                           sharding_strategy=ShardingStrategy.FULL_SHARD,
                           kwargs={"auto_wrap_policy": ModuleWrapPolicy({Qwen2DecoderLayer}), "use_orig_params": True})


def _rank(rank: int, store_path: str, results) -> None:
    torch.set_num_threads(1)
    dist.init_process_group("gloo", store=dist.FileStore(store_path, 2), rank=rank, world_size=2,
                            timeout=timedelta(seconds=60))
    try:
        tokenizer = train_bpe_tokenizer(boxes_corpus(), vocab_size=300)
        model = build_tiny_model(TinyModelConfig(hidden_size=32, num_layers=2, num_heads=2, num_kv_heads=1,
                                                 intermediate_size=64), tokenizer)
        reference = ReferencePolicy(model)
        full_bytes = tensor_bytes(reference.frozen.parameters())
        # this rank's batch: a different size and length on each rank
        ids = torch.randint(3, 300, (2 + rank, 7 + 3 * rank), generator=torch.Generator().manual_seed(rank))
        with reference.model() as frozen:
            expected = sequence_token_logprobs(frozen, ids, torch.ones_like(ids))  # [b, T] unsharded
        reference.shard(lambda frozen: shard_frozen(frozen, _strategy()))
        with reference.model() as sharded:
            got = sequence_token_logprobs(sharded, ids, torch.ones_like(ids))  # [b, T] collective forward
        results[rank] = (float((got - expected).abs().max()), tensor_bytes(reference.frozen.parameters()), full_bytes)
    finally:
        dist.destroy_process_group()


def test_the_sharded_reference_gives_the_full_copys_logprobs_with_half_of_it_per_rank(tmp_path):
    results = mp.Manager().dict()
    mp.spawn(_rank, args=(str(tmp_path / "store"), results), nprocs=2, join=True)
    for rank in (0, 1):
        largest, held, full = results[rank]
        assert largest < 1e-5  # float32 rounding only
        assert 0.45 * full <= held <= 0.55 * full
