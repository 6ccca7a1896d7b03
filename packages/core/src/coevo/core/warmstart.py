"""Warm start: fine-tune the policy on expert trajectories so RL starts from non-zero success.

For ``model=tiny`` this also trains the tokenizer on the expert prompts and builds the model.
The result is a Hugging Face model folder cached under ``warmstart.cache_dir/<key>``, where the
key hashes everything that affects it (env, model, prompt and warm-start settings), so a second
``make train`` skips the work. The folder is written to a temporary name and renamed into place.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import lightning as L
import torch
from torch.utils.data import DataLoader

import coevo.core
from coevo.core.agent.prompt import PromptSettings
from coevo.core.algos.batching import Sample
from coevo.core.algos.optim import OptimSettings
from coevo.core.algos.sft import SFTModule, SFTSettings, sft_collate
from coevo.core.config import ConfigError
from coevo.core.data.length_grouped import LengthGroupedBatches
from coevo.core.env.protocol import Environment
from coevo.core.expert_data import ExpertSource, collect_expert_examples, corpus_texts
from coevo.core.fields import bounded, choice, path, random_seed
from coevo.core.policy.conversation import encode_conversation
from coevo.core.policy.saving import save_policy_folder
from coevo.core.policy.tokenizer import TOKENIZER_VERSION

log = logging.getLogger(__name__)

# Lightning's precision strings (lightning.fabric.connector._PRECISION_INPUT_STR and the legacy aliases)
PRECISIONS = ("64-true", "64", "32-true", "32", "16-mixed", "16", "bf16-mixed", "bf16", "16-true", "bf16-true",
              "transformer-engine", "transformer-engine-float16")


@dataclass
class WarmStartSettings:
    enabled: bool = True
    episodes: int = bounded(200, ge=1)  # expert episodes (train split, indices disjoint from RL's first batches)
    first_index: int = bounded(1_000_000, ge=0)  # train-split index of the first expert episode
    sft: SFTSettings = field(default_factory=SFTSettings)
    cache_dir: str = path(".cache/coevo/warmstart")  # built models are cached here, one folder per key
    # Lightning precision of the SFT run (bf16-mixed was 10x slower on this CPU)
    precision: str = choice("32-true", PRECISIONS)
    seed: int = random_seed(0)


def check_compiler(settings: WarmStartSettings) -> None:
    """``warmstart.sft.compile=true`` needs a C++ compiler for inductor's CPU kernels: refuse before any work."""
    if not (settings.enabled and settings.sft.compile) or torch.cuda.is_available():
        return
    names = [os.environ.get("CXX", ""), "g++", "c++", "clang++"]
    if not any(name and shutil.which(name) for name in names):
        raise ConfigError("config error at 'warmstart.sft.compile': torch.compile on CPU needs a C++ compiler "
                          "(g++, c++, clang++ or $CXX) and none is on PATH; install one or set "
                          "warmstart.sft.compile=false")


def cache_key(parts: dict) -> str:
    versions = {"coevo_core": coevo.core.__version__, "tokenizer": TOKENIZER_VERSION}
    blob = json.dumps({**parts, **versions}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def sft_samples(examples: list[list[dict]], tokenizer) -> list[Sample]:
    """Expert conversations as SFT samples: each trains on its last message (the expert's reply)."""
    samples = []
    for conversation in examples:
        trainable = [i == len(conversation) - 1 for i in range(len(conversation))]
        encoded = encode_conversation(tokenizer, conversation, trainable)
        samples.append(Sample(encoded.input_ids, encoded.agent_mask))
    return samples


def sft_loader(samples: list[Sample], settings: WarmStartSettings, pad_id: int) -> DataLoader:
    """The SFT's batches, shuffled from ``settings.seed`` (or grouped by length, ``sft.group_by_length``)."""
    generator = torch.Generator().manual_seed(settings.seed)
    collate = sft_collate(pad_id)
    if settings.sft.group_by_length:
        batches = LengthGroupedBatches([len(s.input_ids) for s in samples], settings.sft.batch_size, generator)
        return DataLoader(samples, batch_sampler=batches, collate_fn=collate)
    return DataLoader(samples, batch_size=settings.sft.batch_size, shuffle=True, collate_fn=collate,
                      generator=generator)


def sft_optim(sft: SFTSettings, batches_per_epoch: int) -> OptimSettings:
    """The SFT's optimizer settings, ``decay_steps`` 0 meaning: decay over the whole warm start."""
    if sft.optim.decay_steps <= 0:
        return replace(sft.optim, decay_steps=sft.epochs * batches_per_epoch)
    return sft.optim


def warm_start(
    env: Environment,
    builder,  # a registry.models builder instance with .build(corpus)
    model_config: dict,
    env_config: dict,
    prompt: PromptSettings,
    settings: WarmStartSettings,
    expert: ExpertSource | None = None,
    announce: Callable[[bool], None] | None = None,
) -> Path:
    """The folder of the warm-started model (built and cached on first use).

    ``announce(cached)`` is called once the cache has been looked up, before any work: ``True``
    when the folder is read from the cache, ``False`` when it is about to be built.

    The cache key covers the settings and a fingerprint of the expert data itself (the first two
    expert episodes, as the model would be trained on them), so a change to an environment's
    wording or expert invalidates the cache even without a version bump. ``expert`` replaces the
    environment's flat expert (an algorithm's own demonstrations, e.g. RAO's recursive oracle);
    its ``cache_key`` attribute joins the key.
    """
    collect = expert or collect_expert_examples
    fingerprint = collect(env, prompt, 2, "train", settings.first_index).examples
    # where the cache lives is not part of what is built: the same settings under another (or an
    # absolute) cache_dir find the same key
    built_from = {k: v for k, v in asdict(settings).items() if k != "cache_dir"}
    if not settings.sft.compile:  # eager, as every warm start before the field existed: their keys stay
        del built_from["sft"]["compile"]
    parts = {"env": env_config, "model": model_config, "prompt": asdict(prompt), "warmstart": built_from,
             "expert_data": fingerprint}
    if expert is not None:
        parts["expert"] = getattr(expert, "cache_key", type(expert).__name__)
    key = cache_key(parts)
    folder = Path(settings.cache_dir) / key
    cached = (folder / "warmstart.json").is_file()
    if announce is not None:
        announce(cached)
    if cached:
        log.info("warm start: cached model at %s", folder)
        return folder
    start = time.perf_counter()
    L.seed_everything(settings.seed, workers=True, verbose=False)
    data = collect(env, prompt, settings.episodes, "train", settings.first_index)
    model, tokenizer = builder.build(lambda: corpus_texts(data.examples))
    samples = sft_samples(data.examples, tokenizer)
    loader = sft_loader(samples, settings, tokenizer.pad_token_id)
    optim = sft_optim(settings.sft, len(loader))
    if settings.sft.compile:
        if not torch.cuda.is_available() and torch.get_num_threads() > 1:
            log.warning("warmstart.sft.compile=true over %d CPU threads: inductor's parallel kernels make two builds "
                        "of this warm start differ (eager, or 1 thread, repeats to the bit)", torch.get_num_threads())
        model.compile(dynamic=True)  # the module's call goes through inductor; its weights and names stay
    module = SFTModule(model, optim)
    trainer = L.Trainer(
        max_epochs=settings.sft.epochs,
        accelerator="auto",
        devices=1,
        precision=settings.precision,
        logger=False,
        enable_checkpointing=False,
        enable_model_summary=False,
        enable_progress_bar=True,
        gradient_clip_val=optim.grad_clip or None,
        log_every_n_steps=10,
    )
    trainer.fit(module, loader)
    losses = trainer.callback_metrics
    stats = {
        "key": key,
        "expert_episodes": data.episodes,
        "expert_won": data.won,
        "examples": len(samples),
        "agent_tokens": sum(sum(s.agent_mask) for s in samples),
        "final_sft_loss": float(losses.get("sft_loss", float("nan"))),
        "seconds": round(time.perf_counter() - start, 1),
        "vocab_size": len(tokenizer),
        "parameters": sum(p.numel() for p in model.parameters()),
    }
    # warmstart.json marks the cache entry complete; it arrives together with the weights
    save_policy_folder(model, tokenizer, folder, {"warmstart.json": json.dumps(stats, indent=2)})
    log.info("warm start: %s", stats)
    return folder
