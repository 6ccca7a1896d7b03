"""The top-level config schema of ``coevo-train`` / ``coevo-eval`` (component nodes are checked
against their own registered ``Config`` dataclasses)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, ClassVar

from coevo.core import registry
from coevo.core.agent.loop import AgentSettings
from coevo.core.cli.strategy import STRATEGIES, FSDPSettings
from coevo.core.evaluation import EVAL_MODES
from coevo.core.fields import (
    bounded,
    check_instance,
    checked,
    choice,
    component,
    path,
    random_seed,
    split_name,
)
from coevo.core.serve.external_settings import ExternalAgentSettings
from coevo.core.serve.settings import ServerSettings
from coevo.core.warmstart import PRECISIONS, WarmStartSettings

ACCELERATORS = ("auto", "cpu", "gpu", "cuda")
BACKENDS = ("gloo", "nccl")


def cpu_thread_count(setting, processes_per_node) -> int | None:
    """Torch threads for ``trainer.cpu_threads``: ``auto`` = usable cores // processes per node (>= 1)."""
    if setting != "auto":
        return setting
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    per_node = processes_per_node if isinstance(processes_per_node, int) else 1
    return max(1, cores // per_node)


def _processes(value) -> bool:
    return value == "auto" or (isinstance(value, int) and not isinstance(value, bool) and value >= 1)


def _threads(value) -> bool:
    return value in (None, "auto") or (isinstance(value, int) and not isinstance(value, bool) and value >= 1)


@dataclass
class TrainerSettings:
    max_steps: int = bounded(40, ge=1)  # optimizer steps of the RL run
    accelerator: str = choice("auto", ACCELERATORS)  # cpu | gpu | auto
    # processes per node: an int, or "auto" (every visible GPU)
    devices: Any = checked(1, _processes, "a number of processes >= 1 or 'auto'", bad=(0, "many"), good=(2, "auto"))
    num_nodes: int = bounded(1, ge=1)  # machines (torchrun / SLURM launch one process per device on each)
    strategy: str = choice("auto", STRATEGIES)  # auto: one process | ddp (trainer=ddp_cpu/ddp_gpu) | fsdp (trainer=fsdp, fsdp_cpu)
    process_group_backend: str | None = choice(None, BACKENDS)  # gloo | nccl | null: Lightning's choice
    fsdp: FSDPSettings = field(default_factory=FSDPSettings)  # used with strategy=fsdp
    # seconds a collective call (every rank takes part) may wait for the other ranks before it fails
    # naming this rank and the phase (ranks that ran different forwards or collectives); it must
    # cover rank 0 building the warm start while the others wait
    collective_timeout: int = bounded(1800, ge=1)
    # verify every collective call's kind and shapes across the ranks before it runs (torch's
    # TORCH_DISTRIBUTED_DEBUG=DETAIL; slower): a mismatch fails at once naming the ranks' calls,
    # where otherwise gloo may abort the process or NCCL wait for collective_timeout
    check_collectives: bool = False
    precision: str = choice("32-true", PRECISIONS)  # Lightning precision, e.g. bf16-mixed
    # optimizer steps between checkpoints (a final one is always written)
    checkpoint_every: int = bounded(10, ge=1)
    log_every: int = bounded(1, ge=1)  # optimizer steps between logged metrics
    progress_bar: bool = True
    callbacks: list[str] = choice([], registry.callbacks.names)  # extra registry.callbacks names (no-arg)
    # torch intra-op threads on the CPU: auto = the cores this process may use / processes per node
    # (an idle 2-core machine: one SFT epoch of the household warm start 48 s -> 30 s, a rollout
    # 7.9 s -> 5.2 s against 1 thread); 1 on a machine busy with other jobs (OpenMP threads spinning
    # there slowed tiny-model runs several-fold); null: torch's default
    cpu_threads: Any = checked("auto", _threads, "a number of threads >= 1, 'auto' or null", bad=(0, "many"),
                               good=(1, "auto"))

    def __post_init__(self):
        check_instance(self, "trainer")
        if self.strategy == "auto" and (self.devices != 1 or self.num_nodes != 1):
            raise ValueError(f"trainer.strategy: auto runs one process, but trainer.devices={self.devices} "
                             f"trainer.num_nodes={self.num_nodes}; choose trainer=ddp_cpu (CPU) or trainer=fsdp (GPUs)")


@dataclass
class EvalSettings:
    # a split of the chosen env (checked against its splits by TrainSchema / EvalSchema)
    split: str = split_name("eval_in_distribution")
    num_tasks: int = bounded(60, ge=1)  # the first tasks of the split (all of them when it holds fewer)
    batch_size: int = bounded(60, ge=1)  # environments played in parallel
    before: bool = True  # evaluate before training
    after: bool = True  # evaluate after training
    # beyond the training range (cli/eval_range.py): the out-of-distribution split's depth / size
    depth: int | None = bounded(None, ge=1)  # -> env.ood_depth (algebra, craft)
    size: int | None = bounded(None, ge=1)  # -> env.ood_size (maze) or env.ood_num_chunks (longctx)
    # greedy: each task once, argmax decoding | sample: samples_per_task episodes per task drawn from
    # the policy as it is trained (temperature / choice softmax of agent.*), success averaged over them
    mode: str = choice("sample", EVAL_MODES)
    samples_per_task: int = bounded(4, ge=1)
    sample_seed: int = random_seed(0)  # the sampling stream of mode=sample (fixed: the same weights replay the same episodes)
    also_greedy: bool = True  # mode=sample: also play each task greedily once (keys greedy/…, one more table row)

    def __post_init__(self):
        check_instance(self, "eval")
        if self.mode == "greedy" and self.samples_per_task != 1:
            raise ValueError(f"eval.samples_per_task={self.samples_per_task} with eval.mode=greedy would replay "
                             f"identical episodes; set eval.mode=sample, or eval.samples_per_task=1")

    def describe(self) -> str:
        """"greedy" or "sampled, 4 per task" (for titles and logs)."""
        return "greedy" if self.mode == "greedy" else f"sampled, {self.samples_per_task} per task"


@dataclass
class TrainSchema:
    ROOT_SCHEMA: ClassVar[bool] = True  # its keys are the command line's own (errors name trainer.max_steps)
    run_dir: str = path("runs/run")
    seed: int = random_seed(0)
    resume: str | None = path(None, empty="no resume")  # a run folder to continue exactly where it stopped
    overwrite: bool = False  # allow writing into a folder that already holds a run
    debug: bool = False  # true: an error prints its full traceback after the one-line message
    # component nodes, each checked against its registered Config by build_component
    algo: Any = component()
    env: Any = component()
    model: Any = component()
    rollout: Any = component()
    # configured callbacks, e.g. ``+callbacks=heircommit``: {key: {name: <registry name>, ...its Config}}
    callbacks: Any = component()
    agent: AgentSettings = field(default_factory=AgentSettings)
    trainer: TrainerSettings = field(default_factory=TrainerSettings)
    warmstart: WarmStartSettings = field(default_factory=WarmStartSettings)
    eval: EvalSettings = field(default_factory=EvalSettings)
    # agent=openai_client: an agent outside coevo plays through the endpoint (coevo.core.serve)
    external: ExternalAgentSettings = field(default_factory=ExternalAgentSettings)
    server: ServerSettings = field(default_factory=ServerSettings)  # the endpoint, when external.enabled

    def __post_init__(self):
        check_split(self.eval.split, self.env)


@dataclass
class EvalSchema:
    ROOT_SCHEMA: ClassVar[bool] = True
    # a run folder (uses <run>/policy) or a Hugging Face model folder
    checkpoint: str = path("???")
    seed: int = random_seed(0)
    debug: bool = False  # true: an error prints its full traceback after the one-line message
    env: Any = component()
    rollout: Any = component()
    agent: AgentSettings = field(default_factory=AgentSettings)
    eval: EvalSettings = field(default_factory=EvalSettings)

    def __post_init__(self):
        check_split(self.eval.split, self.env)


def check_split(split: str, env_node) -> None:
    """``eval.split`` must be one of the chosen env's splits (when the env is known and installed;
    an unknown env is reported by build_component)."""
    name = env_node.get("name") if isinstance(env_node, dict) else None
    if not name:
        return
    try:
        env_cls = registry.envs.get(name)
    except registry.RegistryError:
        return
    splits = list(getattr(env_cls, "splits", ()))
    if splits and split not in splits:
        raise ValueError(f"eval.split: env '{name}' has no split '{split}'; choose one of {splits}")
