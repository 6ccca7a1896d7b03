"""The top-level config schema of ``coevo-train`` / ``coevo-eval`` (component nodes are checked
against their own registered ``Config`` dataclasses)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from coevo.core.agent.loop import AgentSettings
from coevo.core.cli.strategy import STRATEGIES, FSDPSettings
from coevo.core.evaluation import check_mode
from coevo.core.warmstart import WarmStartSettings


def cpu_thread_count(setting, processes_per_node) -> int | None:
    """Torch threads for ``trainer.cpu_threads``: ``auto`` = usable cores // processes per node (>= 1)."""
    if setting != "auto":
        return setting
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    per_node = processes_per_node if isinstance(processes_per_node, int) else 1
    return max(1, cores // per_node)


@dataclass
class TrainerSettings:
    max_steps: int = 40  # optimizer steps of the RL run
    accelerator: str = "auto"  # cpu | gpu | auto
    devices: Any = 1  # processes per node: an int, or "auto" (every visible GPU)
    num_nodes: int = 1  # machines (torchrun / SLURM launch one process per device on each)
    strategy: str = "auto"  # auto: one process | ddp (trainer=ddp_cpu) | fsdp (trainer=fsdp, GPUs)
    process_group_backend: str | None = None  # gloo | nccl | null: Lightning's choice for the accelerator
    fsdp: FSDPSettings = field(default_factory=FSDPSettings)  # used with strategy=fsdp
    precision: str = "32-true"  # Lightning precision, e.g. bf16-mixed
    checkpoint_every: int = 10  # optimizer steps between checkpoints (a final one is always written)
    log_every: int = 1
    progress_bar: bool = True
    callbacks: list[str] = field(default_factory=list)  # extra registry.callbacks names (no-arg)
    # torch intra-op threads on the CPU: auto = the cores this process may use / processes per node
    # (an idle 2-core machine: one SFT epoch of the household warm start 48 s -> 30 s, a rollout
    # 7.9 s -> 5.2 s against 1 thread); 1 on a machine busy with other jobs (OpenMP threads spinning
    # there slowed tiny-model runs several-fold); null: torch's default
    cpu_threads: Any = "auto"

    def __post_init__(self):
        if not (self.cpu_threads in (None, "auto") or (isinstance(self.cpu_threads, int) and self.cpu_threads >= 1)):
            raise ValueError(f"trainer.cpu_threads: {self.cpu_threads!r} is not a number of threads >= 1, "
                             f"'auto' or null")
        if self.strategy not in STRATEGIES:
            raise ValueError(f"trainer.strategy: unknown '{self.strategy}'; choose one of {list(STRATEGIES)} "
                             f"(or the presets trainer=cpu | ddp_cpu | fsdp)")
        if not (self.devices == "auto" or (isinstance(self.devices, int) and self.devices >= 1)):
            raise ValueError(f"trainer.devices: {self.devices!r} is not a number of processes >= 1 or 'auto'")
        if self.num_nodes < 1:
            raise ValueError("trainer.num_nodes: must be >= 1")
        if self.strategy == "auto" and (self.devices != 1 or self.num_nodes != 1):
            raise ValueError(f"trainer.strategy: auto runs one process, but trainer.devices={self.devices} "
                             f"trainer.num_nodes={self.num_nodes}; choose trainer=ddp_cpu (CPU) or trainer=fsdp (GPUs)")


@dataclass
class EvalSettings:
    split: str = "eval_in_distribution"
    num_tasks: int = 60
    batch_size: int = 60  # environments played in parallel
    before: bool = True  # evaluate before training
    after: bool = True  # evaluate after training
    # beyond the training range (cli/eval_range.py): the out-of-distribution split's depth / size
    depth: int | None = None  # -> env.ood_depth (algebra, craft)
    size: int | None = None  # -> env.ood_size (maze) or env.ood_num_chunks (longctx)
    # greedy: each task once, argmax decoding | sample: samples_per_task episodes per task drawn from
    # the policy as it is trained (temperature / choice softmax of agent.*), success averaged over them
    mode: str = "sample"
    samples_per_task: int = 4
    sample_seed: int = 0  # the sampling stream of mode=sample (fixed: the same weights replay the same episodes)
    also_greedy: bool = True  # mode=sample: also play each task greedily once (keys greedy/…, one more table row)

    def __post_init__(self):
        check_mode(self.mode)
        if self.samples_per_task < 1:
            raise ValueError(f"eval.samples_per_task: must be >= 1, got {self.samples_per_task}")
        if self.mode == "greedy" and self.samples_per_task != 1:
            raise ValueError(f"eval.samples_per_task={self.samples_per_task} with eval.mode=greedy would replay "
                             f"identical episodes; set eval.mode=sample, or eval.samples_per_task=1")

    def describe(self) -> str:
        """"greedy" or "sampled, 4 per task" (for titles and logs)."""
        return "greedy" if self.mode == "greedy" else f"sampled, {self.samples_per_task} per task"


@dataclass
class TrainSchema:
    run_dir: str = "runs/run"
    seed: int = 0
    resume: str | None = None  # a run folder to continue exactly where it stopped
    overwrite: bool = False  # allow writing into a folder that already holds a run
    debug: bool = False  # true: an error prints its full traceback after the one-line message
    algo: Any = None
    env: Any = None
    model: Any = None
    rollout: Any = None
    # configured callbacks, e.g. ``+callbacks=heircommit``: {key: {name: <registry name>, ...its Config}}
    callbacks: Any = None
    agent: AgentSettings = field(default_factory=AgentSettings)
    trainer: TrainerSettings = field(default_factory=TrainerSettings)
    warmstart: WarmStartSettings = field(default_factory=WarmStartSettings)
    eval: EvalSettings = field(default_factory=EvalSettings)


@dataclass
class EvalSchema:
    checkpoint: str = "???"  # a run folder (uses <run>/policy) or a Hugging Face model folder
    seed: int = 0
    debug: bool = False  # true: an error prints its full traceback after the one-line message
    env: Any = None
    rollout: Any = None
    agent: AgentSettings = field(default_factory=AgentSettings)
    eval: EvalSettings = field(default_factory=EvalSettings)
