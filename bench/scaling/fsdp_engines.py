"""FSDP1 (``FullyShardedDataParallel``, what ``trainer=fsdp`` uses) against FSDP2 (``fully_shard``,
what Lightning's ``ModelParallelStrategy`` expects), side by side over 2 gloo processes on the CPU.

Both engines shard the same tiny-but-not-trivial Qwen2 (built from a config, hidden 256, 4 layers,
vocabulary of a BPE tokenizer trained on the boxes corpus; no downloads), one unit per decoder
layer plus the root: FSDP1 with ``use_orig_params=True`` and auto-wrap per ``Qwen2DecoderLayer``,
FSDP2 with ``fully_shard`` on each decoder layer, then the model. Both live in the same two
processes and are timed interleaved (the order alternates every repeat; each time is the slowest
rank's), so the shared machine's load hits both alike. Measured per engine:

1. per-rank bytes of parameters + gradients + AdamW state (``coevo.core.policy.held_state``;
   FSDP2's DTensors counted by their local shards), against the full model's / 2;
2. one training step: forward + backward + AdamW step + ``zero_grad`` on a fixed batch per rank
   (``--batch`` sequences x ``--tokens`` tokens), min and median over ``--repeats``;
3. gathering the full weights into a plain replica, unit by unit: FSDP1 ``FullReplica.refresh``
   (``summon_full_params(unit, recurse=False)``), FSDP2 ``unshard()`` / ``reshard()`` per
   ``FSDPModule`` (and, for comparison, ``DTensor.full_tensor()`` per parameter);
4. what our code relies on: (a) snapshot/rollback writes into the rank's shards in place
   (``coevo.core.state.snapshot``'s take/restore + the AdamW state dict): the step retaken after
   a restore is bit-identical; (b) different numbers of no-grad forwards per rank, whether they
   hang (both engines all-gather in every forward; a hang is reported after the gloo timeout), and
   again with the full weights gathered once before the forwards (FSDP1: inside
   ``summon_full_params``; FSDP2: ``unshard()`` every unit with ``reshard_after_forward`` off), the
   logits compared with the unsharded model's; (c) grad-norm clipping over
   the shards (FSDP1 ``clip_grad_norm_``, FSDP2 ``torch.nn.utils.clip_grad_norm_`` on DTensors)
   equals the norm of the unsharded model's averaged gradients; (d) the first step of both engines
   from the same weights gives the same replica.

It also tries Lightning's ``ModelParallelStrategy`` with ``accelerator="cpu"`` and gloo: a
``Trainer.fit`` of 2 manual-optimisation steps with 2 ``manual_backward`` each over 2 processes
(as our algorithms step), the model sharded with ``fully_shard`` in ``configure_model``.

    python -m bench.scaling.fsdp_engines [--repeats 10] [--hidden 256] [--layers 4] [--batch 8] [--tokens 128]

Writes ``bench/scaling/fsdp_engines.json`` (``engines.fsdp1`` / ``engines.fsdp2``: ``per_rank_bytes``,
``step_seconds``, ``gather_seconds`` (min, median, all), ``checks``; ``lightning_model_parallel_cpu``;
``command``, ``date``, ``machine``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import statistics
import sys
import tempfile
import time
import traceback
from datetime import timedelta
from pathlib import Path

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

ROOT = Path(__file__).resolve().parents[2]
WORLD = 2
HANG_TIMEOUT_S = 10  # the gloo timeout of the unequal-forwards check


def _tokenizer():
    from coevo.core.policy.tokenizer import train_bpe_tokenizer
    from coevo.core.testing.fast_configs import boxes_corpus

    return train_bpe_tokenizer(boxes_corpus(), vocab_size=1024)


def _model(args, tokenizer):
    from coevo.core.policy.tiny import TinyModelConfig, build_tiny_model

    config = TinyModelConfig(hidden_size=args.hidden, num_layers=args.layers, num_heads=4, num_kv_heads=2,
                             intermediate_size=2 * args.hidden)
    return build_tiny_model(config, tokenizer)


def _batch(args, vocab: int, rank: int) -> torch.Tensor:
    return torch.randint(0, vocab, (args.batch, args.tokens), generator=torch.Generator().manual_seed(100 + rank))


def _fsdp1(model):
    from torch.distributed.fsdp import FullyShardedDataParallel
    from torch.distributed.fsdp.wrap import ModuleWrapPolicy
    from transformers.models.qwen2.modeling_qwen2 import Qwen2DecoderLayer

    return FullyShardedDataParallel(model, auto_wrap_policy=ModuleWrapPolicy({Qwen2DecoderLayer}),
                                    use_orig_params=True, device_id=torch.device("cpu"))


def _fsdp2(model, mesh):
    from torch.distributed.fsdp import fully_shard

    for layer in model.model.layers:
        fully_shard(layer, mesh=mesh)
    return fully_shard(model, mesh=mesh)


def _local(t):
    from torch.distributed.tensor import DTensor

    return t.to_local() if isinstance(t, DTensor) else t


def _held_bytes(model, optimizer) -> dict[str, int]:
    """``held_state_bytes`` of this rank; FSDP2's DTensors counted by their local shards."""
    from torch.distributed.tensor import DTensor

    from coevo.core.policy.held_state import held_state_bytes, tensor_bytes

    params = list(model.parameters())
    if not any(isinstance(p, DTensor) for p in params):
        return held_state_bytes(params, optimizer)
    state = [v for per_param in optimizer.state.values() for v in per_param.values()]
    return {"parameters": tensor_bytes(_local(p) for p in params),
            "gradients": tensor_bytes(_local(p.grad) for p in params if p.grad is not None),
            "optimizer": tensor_bytes(_local(v) for v in state if isinstance(v, torch.Tensor) and v.dim() > 0)}


def _step(model, optimizer, ids) -> None:
    model(input_ids=ids, labels=ids).loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)


def _gather_fsdp1(model, replica):
    replica.refresh(model)


def _gather_fsdp2(model, replica):
    """Each ``FSDPModule`` in module order: ``unshard()``, copy the parameters it owns (those still
    DTensors belong to a nested unit that is not unsharded), ``reshard()``."""
    from torch.distributed.fsdp import FSDPModule
    from torch.distributed.tensor import DTensor

    targets, seen = replica._parameters, set()
    with torch.no_grad():
        for unit_name, unit in model.named_modules():
            if not isinstance(unit, FSDPModule):
                continue
            unit.unshard()
            for name, value in unit.named_parameters():
                if isinstance(value, DTensor):
                    continue
                key = f"{unit_name}.{name}" if unit_name else name
                targets[key].copy_(value)
                seen.add(key)
            unit.reshard()
    if seen != targets.keys():
        raise KeyError(f"gathered {len(seen)} of the replica's {len(targets)} parameters")


def _gather_fsdp2_full_tensor(model, replica):
    with torch.no_grad():
        for name, value in model.named_parameters():
            replica._parameters[name].copy_(value.full_tensor())


def _timed(fn) -> float:
    """``fn()``'s seconds on the slowest rank (all ranks start together)."""
    dist.barrier()
    start = time.perf_counter()
    fn()
    seconds = torch.tensor([time.perf_counter() - start], dtype=torch.float64)
    dist.all_reduce(seconds, op=dist.ReduceOp.MAX)
    return float(seconds.item())


def _replica_weights(replica) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in replica.model.named_parameters()}


def _local_weights(model) -> list[torch.Tensor]:
    return [_local(p).detach().clone() for p in model.parameters()]


def _moments(model, optimizer) -> list[torch.Tensor]:
    """AdamW's moments in parameter order (an FSDP1 parameter with no elements on this rank has none)."""
    return [_local(optimizer.state[p][key]).clone() for p in model.parameters() if optimizer.state.get(p)
            for key in ("exp_avg", "exp_avg_sq")]


def _snapshot_check(model, optimizer, ids) -> dict:
    """Snapshot (coevo's take_snapshot + the AdamW state dict), step, restore, step again: the two
    steps' weights and AdamW moments equal bit for bit only if the restore wrote into the shards."""
    import copy

    from coevo.core.state.snapshot import _to_cpu, restore_snapshot, take_snapshot

    snapshot, opt_state = take_snapshot(model), _to_cpu(optimizer.state_dict())
    _step(model, optimizer, ids)
    first = _local_weights(model)
    first_moments = _moments(model, optimizer)
    moved = any(not torch.equal(a, b) for a, b in zip(first, (_local(v) for v in snapshot.weights.values())))
    restore_snapshot(snapshot, model)
    optimizer.load_state_dict(copy.deepcopy(opt_state))
    restored = all(torch.equal(_local(p), _local(v)) for p, v in zip(model.parameters(), snapshot.weights.values()))
    _step(model, optimizer, ids)
    second = _local_weights(model)
    second_moments = _moments(model, optimizer)
    same = all(torch.equal(a, b) for a, b in zip(first, second))
    same_moments = all(torch.equal(a, b) for a, b in zip(first_moments, second_moments))
    return {"step_moved_weights": moved, "restored_bit_for_bit": restored,
            "retaken_step_bit_identical": same and same_moments}


def _clip_check(model, plain, replica, batches, engine: str) -> dict:
    """The sharded total gradient norm against the unsharded model's norm of the averaged gradients
    (``plain`` loaded with the current weights, gathered into ``replica``); then clipping to half of
    it leaves a norm of half."""
    rank = dist.get_rank()
    (_gather_fsdp1 if engine == "fsdp1" else _gather_fsdp2)(model, replica)
    plain.load_state_dict(replica.model.state_dict())
    model(input_ids=batches[rank], labels=batches[rank]).loss.backward()
    for ids in batches:  # the reference: FSDP averages the ranks' gradients
        (plain(input_ids=ids, labels=ids).loss / len(batches)).backward()
    reference = torch.nn.utils.get_total_norm([p.grad for p in plain.parameters()]).item()
    plain.zero_grad(set_to_none=True)
    if engine == "fsdp1":
        norm = model.clip_grad_norm_(reference / 2).item()
    else:
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), reference / 2).full_tensor().item()
    squares = torch.tensor([sum(float(_local(p.grad).double().pow(2).sum()) for p in model.parameters()
                                if p.grad is not None)], dtype=torch.float64)
    dist.all_reduce(squares)  # shards are disjoint: the squared norms add up
    after = squares.sqrt().item()
    model.zero_grad(set_to_none=True)
    return {"norm": norm, "reference_norm": reference, "relative_error": abs(norm - reference) / reference,
            "norm_after_clip_to_half": after, "clipped_to_half": abs(after - reference / 2) / (reference / 2) < 1e-4,
            "ok": abs(norm - reference) / reference < 1e-4}


def _engines_rank(rank: int, store: str, args, tokenizer, results) -> None:
    import copy

    from torch.distributed.device_mesh import init_device_mesh

    from coevo.core.policy.full_replica import FullReplica

    torch.set_num_threads(1)
    dist.init_process_group("gloo", store=dist.FileStore(store, WORLD), rank=rank, world_size=WORLD)
    try:
        base = _model(args, tokenizer)
        parameters = sum(p.numel() for p in base.parameters())
        plain = copy.deepcopy(base)
        replicas = {"fsdp1": FullReplica(base), "fsdp2": FullReplica(base), "fsdp2_full_tensor": FullReplica(base)}
        models = {"fsdp1": _fsdp1(copy.deepcopy(base)),
                  "fsdp2": _fsdp2(copy.deepcopy(base), init_device_mesh("cpu", (WORLD,)))}
        optimizers = {k: torch.optim.AdamW(m.parameters(), lr=1e-3) for k, m in models.items()}
        vocab = len(tokenizer)
        batches = [_batch(args, vocab, r) for r in range(WORLD)]
        ids = batches[rank]
        out: dict = {"parameters": parameters, "vocab": vocab}

        # (d) the same first step from the same weights, then held bytes (after a step: AdamW state exists)
        held = {}
        for name, model in models.items():
            model(input_ids=ids, labels=ids).loss.backward()
            optimizers[name].step()
            held[name] = _held_bytes(model, optimizers[name])  # gradients still there
            optimizers[name].zero_grad(set_to_none=True)
        _gather_fsdp1(models["fsdp1"], replicas["fsdp1"])
        _gather_fsdp2(models["fsdp2"], replicas["fsdp2"])
        _gather_fsdp2_full_tensor(models["fsdp2"], replicas["fsdp2_full_tensor"])
        one, two, three = (_replica_weights(replicas[k]) for k in ("fsdp1", "fsdp2", "fsdp2_full_tensor"))
        out["first_step_max_abs_diff_fsdp1_vs_fsdp2"] = max((one[k] - two[k]).abs().max().item() for k in one)
        out["fsdp2_gathers_agree"] = all(torch.equal(two[k], three[k]) for k in two)
        out["held"] = held

        # timing, interleaved: the order alternates every repeat
        steps = {k: [] for k in models}
        gathers = {"fsdp1": [], "fsdp2": [], "fsdp2_full_tensor": []}
        gather_fns = {"fsdp1": lambda: _gather_fsdp1(models["fsdp1"], replicas["fsdp1"]),
                      "fsdp2": lambda: _gather_fsdp2(models["fsdp2"], replicas["fsdp2"]),
                      "fsdp2_full_tensor": lambda: _gather_fsdp2_full_tensor(models["fsdp2"],
                                                                             replicas["fsdp2_full_tensor"])}
        for repeat in range(args.repeats):
            order = list(models) if repeat % 2 == 0 else list(reversed(models))
            for name in order:
                steps[name].append(_timed(lambda name=name: _step(models[name], optimizers[name], ids)))
            for name in (list(gathers) if repeat % 2 == 0 else list(reversed(gathers))):
                gathers[name].append(_timed(gather_fns[name]))
            if rank == 0:
                print(f"repeat {repeat + 1}/{args.repeats}: step " +
                      ", ".join(f"{k} {v[-1]:.3f}s" for k, v in steps.items()) + "; gather " +
                      ", ".join(f"{k} {v[-1]:.4f}s" for k, v in gathers.items()), flush=True)
        out["step_seconds"], out["gather_seconds"] = steps, gathers

        # (a) snapshot/rollback into the shards, (c) grad-norm clipping over the shards
        out["snapshot"] = {k: _snapshot_check(m, optimizers[k], ids) for k, m in models.items()}
        out["clip"] = {k: _clip_check(m, plain, replicas[k], batches, k) for k, m in models.items()}
        results[rank] = out
    except Exception:
        results[rank] = {"error": traceback.format_exc()}
        raise
    finally:
        dist.destroy_process_group()


def _unequal_rank(rank: int, store: str, args, tokenizer, engine: str, unsharded: bool, results) -> None:
    """Rank 0 runs 1 no-grad forward, rank 1 runs 2; rank 0 then waits without any collective."""
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.fsdp import FSDPModule, FullyShardedDataParallel

    torch.set_num_threads(1)
    dist.init_process_group("gloo", store=dist.FileStore(store, WORLD), rank=rank, world_size=WORLD,
                            timeout=timedelta(seconds=HANG_TIMEOUT_S))
    model = _model(args, tokenizer)
    with torch.no_grad():
        ids = _batch(args, len(tokenizer), rank)[:2, :32]
        expected = model(input_ids=ids).logits  # the unsharded model's
    model = _fsdp1(model) if engine == "fsdp1" else _fsdp2(model, init_device_mesh("cpu", (WORLD,)))
    start = time.perf_counter()
    try:
        with torch.no_grad():
            model(input_ids=ids)  # together: lazy initialisation
            gathered = contextlib.nullcontext()
            if unsharded and engine == "fsdp1":  # FSDP1: forwards inside summon_full_params
                gathered = FullyShardedDataParallel.summon_full_params(model, writeback=False)
            elif unsharded:  # FSDP2: gather every unit once and keep it gathered across forwards
                for unit in (m for m in model.modules() if isinstance(m, FSDPModule)):
                    unit.set_reshard_after_forward(False)
                    unit.unshard()
            with gathered:
                for _ in range(1 + rank):
                    logits = model(input_ids=ids).logits
        results[rank] = {"finished": True, "seconds": round(time.perf_counter() - start, 2),
                         "logits_equal_unsharded_model": torch.allclose(logits, expected, atol=1e-5)}
        if rank == 0:
            time.sleep(HANG_TIMEOUT_S + 5)  # no collective: the other rank's extra forward is alone
    except Exception as error:  # the gloo timeout
        results[rank] = {"finished": False, "seconds": round(time.perf_counter() - start, 2),
                         "error": f"{type(error).__name__}: {str(error).splitlines()[0][:300]}"}


def _lightning_rank(rank: int, port: int, args, tokenizer, results) -> None:
    """Lightning's ModelParallelStrategy on the CPU over gloo: 2 steps of manual optimisation."""
    os.environ.update({"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port), "LOCAL_RANK": str(rank),
                       "NODE_RANK": "0", "WORLD_SIZE": str(WORLD), "RANK": str(rank)})
    torch.set_num_threads(1)
    try:
        import lightning.pytorch as pl
        from lightning.pytorch.strategies import ModelParallelStrategy
        from torch.distributed.tensor import DTensor

        class Module(pl.LightningModule):
            def __init__(self):
                super().__init__()
                self.automatic_optimization = False
                self.policy = _model(args, tokenizer)
                self.norms: list[float] = []

            def configure_model(self):
                _fsdp2(self.policy, self.device_mesh["data_parallel"])

            def configure_optimizers(self):
                return torch.optim.AdamW(self.policy.parameters(), lr=1e-3)

            def training_step(self, batch, index):
                optimizer = self.optimizers()
                for micro in batch.chunk(2):  # a backward per micro-batch, as our algorithms do
                    self.manual_backward(self.policy(input_ids=micro, labels=micro).loss / 2)
                norm = torch.nn.utils.clip_grad_norm_(self.policy.parameters(), 1.0)
                self.norms.append(float(norm.full_tensor()) if isinstance(norm, DTensor) else float(norm))
                optimizer.step()
                optimizer.zero_grad()

        data = torch.utils.data.DataLoader([_batch(args, len(tokenizer), r)[0, :32] for r in range(8)], batch_size=4)
        strategy = ModelParallelStrategy(data_parallel_size=WORLD, tensor_parallel_size=1)
        trainer = pl.Trainer(accelerator="cpu", devices=WORLD, strategy=strategy, max_steps=2, logger=False,
                             enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False)
        module = Module()
        trainer.fit(module, data)
        shard = next(module.policy.parameters())
        results[rank] = {"works": True, "backend": torch.distributed.get_backend() if dist.is_initialized() else None,
                         "global_step": trainer.global_step, "norms": module.norms,
                         "sharded": isinstance(shard, DTensor) and _local(shard).numel() < shard.numel()}
    except Exception as error:
        results[rank] = {"works": False, "error": f"{type(error).__name__}: {error}"[:1000],
                         "traceback": traceback.format_exc()[-3000:]}


def _spawn(fn, args, timeout: float) -> None:
    context = mp.spawn(fn, args=args, nprocs=WORLD, join=False)
    deadline = time.monotonic() + timeout
    while not context.join(timeout=1):
        if time.monotonic() > deadline:
            for process in context.processes:
                if process.is_alive():
                    process.kill()
            raise TimeoutError(f"{fn.__name__}: still running after {timeout} s")


def _stats(values: list[float], digits: int) -> dict:
    return {"min": round(min(values), digits), "median": round(statistics.median(values), digits),
            "all": [round(v, digits) for v in values]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--tokens", type=int, default=128)
    parser.add_argument("--out", default=str(Path(__file__).with_name("fsdp_engines.json")))
    args = parser.parse_args()
    tokenizer = _tokenizer()
    manager = mp.Manager()
    with tempfile.TemporaryDirectory(prefix="coevo-fsdp-engines-") as tmp:
        results = manager.dict()
        _spawn(_engines_rank, (f"{tmp}/engines", args, tokenizer, results), timeout=1800)
        ranks = [dict(results[r]) for r in range(WORLD)]
        unequal = {}
        for engine, unsharded in (("fsdp1", False), ("fsdp2", False), ("fsdp1", True), ("fsdp2", True)):
            found = manager.dict()
            key = engine + ("_after_unshard" if unsharded else "")
            try:
                _spawn(_unequal_rank, (f"{tmp}/{key}", args, tokenizer, engine, unsharded, found),
                       timeout=4 * HANG_TIMEOUT_S + 60)
            except Exception as error:  # a rank that died or hung past the deadline
                found["spawn"] = f"{type(error).__name__}: {str(error).splitlines()[0][:300]}"
            unequal[key] = {str(k): v for k, v in found.items()}
            print(f"unequal forwards, {key}: {unequal[key]}", flush=True)
        found = manager.dict()
        try:
            _spawn(_lightning_rank, (29500 + os.getpid() % 1000, args, tokenizer, found), timeout=600)
        except Exception as error:
            found["spawn"] = f"{type(error).__name__}: {str(error).splitlines()[0][:300]}"
        lightning = {str(k): v for k, v in found.items()}
    print(f"Lightning ModelParallelStrategy on cpu/gloo: {lightning}", flush=True)

    first = ranks[0]
    parameters = first["parameters"]
    full_bytes = parameters * (4 + 4 + 8)
    engines = {}
    for name in ("fsdp1", "fsdp2"):
        held = [r["held"][name] for r in ranks]
        per_rank = max(sum(h.values()) for h in held)
        no_hang = unequal[name].get("1", {}).get("finished", False)
        engines[name] = {
            "per_rank_bytes": per_rank,
            "per_rank": max(held, key=lambda h: sum(h.values())),
            "ratio_to_full_over_2": round(per_rank / (full_bytes / WORLD), 4),
            "step_seconds": _stats(first["step_seconds"][name], 3),
            "gather_seconds": _stats(first["gather_seconds"][name], 4),
            "checks": {
                "shard_writes_in_place": all(r["snapshot"][name]["restored_bit_for_bit"]
                                             and r["snapshot"][name]["retaken_step_bit_identical"] for r in ranks),
                "unequal_no_grad_forwards_without_hang": no_hang,
                "grad_norm_clip_over_shards": all(r["clip"][name]["ok"] and r["clip"][name]["clipped_to_half"]
                                                  for r in ranks),
            },
            "snapshot": [r["snapshot"][name] for r in ranks],
            "clip": [r["clip"][name] for r in ranks],
            "unequal_forwards": unequal[name],
        }
    # per repeat, FSDP2's time over FSDP1's of the same repeat (the pair ran back to back)
    result_ratios = {key: round(statistics.median(b / a for a, b in zip(first[key]["fsdp1"], first[key]["fsdp2"])), 3)
                     for key in ("step_seconds", "gather_seconds")}
    engines["fsdp2"]["gather_full_tensor_seconds"] = _stats(first["gather_seconds"]["fsdp2_full_tensor"], 4)
    for name in ("fsdp1", "fsdp2"):  # FSDP1: inside summon_full_params; FSDP2: unshard() kept across forwards
        after = unequal[f"{name}_after_unshard"]
        engines[name]["checks"]["unequal_no_grad_forwards_while_gathered_without_hang"] = all(
            after.get(str(r), {}).get("finished", False) and after[str(r)].get("logits_equal_unsharded_model")
            for r in range(WORLD))
        engines[name]["unequal_forwards_after_unshard"] = after
    result = {
        "command": "python -m bench.scaling.fsdp_engines " + " ".join(sys.argv[1:]),
        "date": time.strftime("%Y-%m-%d"),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "torch": torch.__version__,
                    "loadavg_at_end": os.getloadavg(),
                    "note": "2 gloo processes, 1 torch thread each, on a shared 2-core CPU machine; times are the "
                            "slowest rank's, the engines interleaved in the same processes"},
        "model": {"hidden": args.hidden, "layers": args.layers, "heads": 4, "kv_heads": 2,
                  "intermediate": 2 * args.hidden, "vocab": first["vocab"], "parameters": parameters,
                  "tied_embeddings": True},
        "batch": {"sequences_per_rank": args.batch, "tokens": args.tokens},
        "full_bytes": full_bytes,
        "median_paired_ratio_fsdp2_over_fsdp1": result_ratios,
        "first_step_max_abs_diff_fsdp1_vs_fsdp2": first["first_step_max_abs_diff_fsdp1_vs_fsdp2"],
        "fsdp2_unshard_and_full_tensor_gathers_equal": all(r["fsdp2_gathers_agree"] for r in ranks),
        "engines": engines,
        "lightning_model_parallel_cpu": lightning,
    }
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    _print_table(result)
    print(f"({args.out})")


def _print_table(result: dict) -> None:
    fsdp1, fsdp2 = result["engines"]["fsdp1"], result["engines"]["fsdp2"]
    rows = [("per-rank bytes (params+grads+AdamW)", f"{fsdp1['per_rank_bytes']:,}", f"{fsdp2['per_rank_bytes']:,}"),
            ("  x of full/2", fsdp1["ratio_to_full_over_2"], fsdp2["ratio_to_full_over_2"])]
    for key, label in (("step_seconds", "train step s (min / median)"), ("gather_seconds", "gather to replica s")):
        rows.append((label, f"{fsdp1[key]['min']} / {fsdp1[key]['median']}",
                     f"{fsdp2[key]['min']} / {fsdp2[key]['median']}"))
    full = fsdp2["gather_full_tensor_seconds"]
    rows.append(("  FSDP2 full_tensor() per parameter", "-", f"{full['min']} / {full['median']}"))
    for check in fsdp1["checks"]:
        rows.append((check, fsdp1["checks"][check], fsdp2["checks"][check]))
    ratios = result["median_paired_ratio_fsdp2_over_fsdp1"]
    rows.append(("FSDP2/FSDP1 step time, median of pairs", "", ratios["step_seconds"]))
    rows.append(("FSDP2/FSDP1 gather time, median of pairs", "", ratios["gather_seconds"]))
    width = max(len(r[0]) for r in rows)
    print(f"{'':{width}}  {'FSDP1':>22}  {'FSDP2':>22}")
    for label, a, b in rows:
        print(f"{label:{width}}  {str(a):>22}  {str(b):>22}")
    print(f"Lightning ModelParallelStrategy on cpu/gloo works: "
          f"{all(v.get('works') for v in result['lightning_model_parallel_cpu'].values() if isinstance(v, dict))}")


if __name__ == "__main__":
    main()
