"""Change a policy's full weights in place, whether FSDP shards it over the ranks or not.

``add_to_weights(model, deltas)`` adds ``deltas[name]`` (full-shape tensors, named as in the
unsharded Hugging Face model, e.g. ``model.layers.0.self_attn.q_proj.weight``) to the model's
parameters. A plain model is changed directly. A sharded model is changed one FSDP unit at a time:
``summon_full_params(unit, recurse=False, writeback=True)`` gathers that unit's full parameters,
the deltas are added to them, and on leaving each rank keeps its own shard of the result; beside
the deltas, at most one unit's full parameters exist at any time. Collective when sharded: every
rank calls it with the same names, in the same order (module order).

EVOHEIR's recovery uses it: a LoRA student trained on the full weights gives per-layer deltas
(``coevo.core.rollout.weight_export.lora_deltas``), which are merged into the sharded policy this way.
"""

from __future__ import annotations

import torch

from coevo.core.policy.full_replica import gathered_units
from coevo.core.policy.sharding import is_sharded


@torch.no_grad()
def add_to_weights(model: torch.nn.Module, deltas: dict[str, torch.Tensor]) -> None:
    """``parameter += deltas[name]`` for every name in ``deltas`` (each must name a parameter)."""
    used: set[str] = set()
    if is_sharded(model):
        for _, _, parameters in gathered_units(model, writeback=True):
            for key, value in parameters:
                if key in deltas:
                    value.add_(deltas[key].to(value.device, value.dtype).reshape(value.shape))
                    used.add(key)
    else:
        for name, value in model.named_parameters():
            if name in deltas:
                value.add_(deltas[name].to(value.device, value.dtype))
                used.add(name)
    unknown = deltas.keys() - used
    if unknown:
        raise KeyError(f"the policy has no parameters named {sorted(unknown)[:5]}")
