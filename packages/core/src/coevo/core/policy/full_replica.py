"""A plain (unsharded) copy of an FSDP-sharded policy on every rank, refreshed unit by unit, for rollouts.

Under FSDP over several processes each rank holds 1/N of every parameter, and a forward pass
all-gathers each decoder layer's unit: every rank must run the same forwards at the same time.
Rollouts cannot promise that: each rank's episodes end after different numbers of turns and tokens
(and choice mode scores different numbers of candidates). So the ``hf`` engine samples and scores
from a full copy of the weights that runs with no collective at all, and ``refresh`` brings the
copy up to date before every rollout: one ``summon_full_params`` per FSDP unit, in the same order
on every rank, whose full parameters are copied into the replica and released before the next
unit is gathered. Beside the replica, at most one unit's full parameters exist at any time.

Cost per rank: one copy of the weights in ``dtype`` (bf16 under ``bf16-mixed``: 2 bytes per
parameter), no gradients, no optimizer state. Full fine-tuning with AdamW holds ~16 bytes per
parameter unsharded; FSDP over N ranks brings that to 16/N, the replica adds 2.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator

import torch

WRAPPER_PREFIXES = ("_fsdp_wrapped_module.", "_checkpoint_wrapped_module.")


def clean_name(name: str) -> str:
    """A parameter's name in the unwrapped model (FSDP's and activation checkpointing's wrappers removed)."""
    for prefix in WRAPPER_PREFIXES:
        name = name.replace(prefix, "")
    return name


def fsdp_units(root: torch.nn.Module) -> list[tuple[str, torch.nn.Module]]:
    """``(name, unit)`` of every FSDP unit under ``root`` (``root`` first), in module order."""
    from torch.distributed.fsdp import FullyShardedDataParallel

    return [(name, m) for name, m in root.named_modules() if isinstance(m, FullyShardedDataParallel)]


def own_parameters(unit: torch.nn.Module) -> list[tuple[str, torch.nn.Parameter]]:
    """The parameters ``unit`` shards itself (not those of an FSDP unit nested in it), by clean name.

    Names are compared cleaned: inside ``summon_full_params`` FSDP's ``named_parameters`` drops its
    own prefix, ``named_modules`` does not.
    """
    from torch.distributed.fsdp import FullyShardedDataParallel

    nested = tuple(clean_name(name + ".") for name, m in unit.named_modules()
                   if name and isinstance(m, FullyShardedDataParallel))
    named = ((clean_name(name), p) for name, p in unit.named_parameters())
    return [(name, p) for name, p in named if not name.startswith(nested)]


def gathered_units(sharded: torch.nn.Module, writeback: bool = False
                   ) -> Iterator[tuple[str, torch.nn.Module, list[tuple[str, torch.nn.Parameter]]]]:
    """For each FSDP unit of ``sharded`` in module order, while it (and only it) is gathered:
    ``(unit name, unit, [(parameter name in the unwrapped model, full parameter)])`` of the
    parameters it shards itself. The unit is released when the next one is asked for;
    ``writeback=True`` keeps in-place changes to its full parameters (each rank its own shard).

    Collective: every rank consumes the whole iteration at the same point.
    """
    from torch.distributed.fsdp import FullyShardedDataParallel

    for unit_name, unit in fsdp_units(sharded):
        with FullyShardedDataParallel.summon_full_params(unit, recurse=False, writeback=writeback):
            yield unit_name, unit, [(clean_name(f"{unit_name}.{name}") if unit_name else name, value)
                                    for name, value in own_parameters(unit)]


class FullReplica:
    """A full-weight copy of ``model`` (taken before it is sharded), on ``device`` in ``dtype``."""

    def __init__(self, model: torch.nn.Module, device: torch.device | None = None,
                 dtype: torch.dtype | None = None):
        self.model = copy.deepcopy(model).eval()
        for p in self.model.parameters():
            p.requires_grad_(False)
        if dtype is not None:
            self.model.to(dtype)
        if device is not None:
            self.model.to(device)
        self._parameters = dict(self.model.named_parameters())

    @torch.no_grad()
    def refresh(self, sharded: torch.nn.Module) -> torch.nn.Module:
        """Copy ``sharded``'s current full weights into the replica, one FSDP unit at a time.

        Collective: every rank calls it at the same point (the units are gathered in module order).
        """
        seen: set[str] = set()
        for _, _, parameters in gathered_units(sharded):
            for key, value in parameters:
                target = self._parameters.get(key)
                if target is None:
                    raise KeyError(f"the sharded policy's parameter '{key}' has no counterpart in its replica")
                target.copy_(value.reshape(target.shape))
                seen.add(key)
        missing = self._parameters.keys() - seen
        if missing:
            raise KeyError(f"the replica's parameters {sorted(missing)[:5]} were not found in the sharded policy")
        return self.model
