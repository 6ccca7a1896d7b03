"""The unit-by-unit weight stream of an FSDP-sharded policy over two real gloo processes
(``coevo.core.rollout.sharded_export``): after an optimizer step, on both ranks, the streamed
``(name, tensor)`` pairs equal ``export_weights`` of the same weights unsharded (full fine-tuning
with tied embeddings, and LoRA merged), at most one FSDP unit is unsharded while a pair is
consumed, and the per-unit safetensors folder reloads into the same weights."""

import pytest
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from coevo.core.policy.full_replica import clean_name, fsdp_units
from coevo.core.policy.tiny import TinyModelConfig, build_tiny_model
from coevo.core.policy.tokenizer import train_bpe_tokenizer
from coevo.core.testing.fast_configs import boxes_corpus

pytestmark = pytest.mark.skipif(not dist.is_available(), reason="needs torch.distributed")


def _unsharded_units(sharded) -> int:
    """How many FSDP units hold their full (gathered) parameters right now."""
    count = 0
    for _, unit in fsdp_units(sharded):
        handle = unit._handle
        if handle is not None and handle.flat_param.numel() != handle.flat_param._local_shard.numel():
            count += 1
    return count


def _model(tokenizer, lora: bool):
    torch.manual_seed(0)
    model = build_tiny_model(TinyModelConfig(hidden_size=32, num_layers=3, num_heads=2, num_kv_heads=1,
                                             intermediate_size=64), tokenizer)
    if lora:
        from peft import LoraConfig, get_peft_model

        model = get_peft_model(model, LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"]))
        with torch.no_grad():
            for name, p in model.named_parameters():
                if "lora_B" in name:  # peft starts B at 0: give the merge something to add
                    p.normal_(0, 0.1)
    return model


def _rank(rank: int, store_path: str, folder: str, results) -> None:
    from safetensors.torch import load_file
    from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
    from torch.distributed.fsdp.wrap import ModuleWrapPolicy
    from transformers.models.qwen2.modeling_qwen2 import Qwen2DecoderLayer

    from coevo.core.rollout.sharded_export import save_sharded_folder, stream_full_weights
    from coevo.core.rollout.weight_export import export_weights

    torch.set_num_threads(1)
    dist.init_process_group("gloo", store=dist.FileStore(store_path, 2), rank=rank, world_size=2)
    try:
        tokenizer = train_bpe_tokenizer(boxes_corpus(), vocab_size=300)
        for lora in (False, True):
            model = _model(tokenizer, lora)
            sharded = FSDP(model, auto_wrap_policy=ModuleWrapPolicy({Qwen2DecoderLayer}), use_orig_params=True,
                           device_id=torch.device("cpu"))
            optimizer = torch.optim.AdamW([p for p in sharded.parameters() if p.requires_grad], lr=1e-2)
            ids = torch.randint(0, 300, (2, 8 + rank), generator=torch.Generator().manual_seed(rank))
            sharded(input_ids=ids).logits.sum().backward()
            optimizer.step()
            streamed, most_unsharded = {}, 0
            for name, tensor in stream_full_weights(sharded):
                most_unsharded = max(most_unsharded, _unsharded_units(sharded))
                streamed[name] = tensor.clone()
            after = _unsharded_units(sharded)
            # the reference: the same trained weights gathered by FSDP, loaded into an unsharded copy
            with FSDP.summon_full_params(sharded, writeback=False):
                full = {clean_name(n): p.detach().clone() for n, p in sharded.named_parameters()}
            plain = _model(tokenizer, lora)
            missing = plain.load_state_dict(full, strict=False)
            expected = dict(export_weights(plain))
            equal = streamed.keys() == expected.keys() and all(torch.equal(streamed[k], v) for k, v in expected.items())
            out = f"{folder}/rank{rank}-lora{int(lora)}"
            save_sharded_folder(sharded, tokenizer, out)
            import json
            import pathlib
            index = json.loads((pathlib.Path(out) / "model.safetensors.index.json").read_text())["weight_map"]
            reloaded = {}
            for file in sorted(set(index.values())):
                reloaded.update(load_file(f"{out}/{file}"))
            same_folder = reloaded.keys() == expected.keys() and all(torch.equal(reloaded[k], v)
                                                                      for k, v in expected.items())
            results[(rank, lora)] = (equal, most_unsharded, after, len(set(index.values())),
                                     len(missing.unexpected_keys), "lm_head.weight" in streamed, same_folder)
    finally:
        dist.destroy_process_group()


def test_the_stream_equals_export_weights_one_unit_at_a_time(tmp_path):
    results = mp.Manager().dict()
    mp.spawn(_rank, args=(str(tmp_path / "store"), str(tmp_path), results), nprocs=2, join=True)
    for rank in (0, 1):
        for lora in (False, True):
            equal, most, after, files, unexpected, head, same_folder = results[(rank, lora)]
            assert unexpected == 0
            assert equal, (rank, lora)
            assert head  # untied: the tied embedding is also sent as the LM head
            assert most == 1 and after == 0  # one unit gathered at a time, none left gathered
            assert files == 4  # the root unit and 3 decoder layers, one file each
            assert same_folder
